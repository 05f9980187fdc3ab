package cli

import (
	"errors"

	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload/sysbench"
)

// The sysbench format itself is report.WriteSysbench and its neighbours.

// sysbenchReport is what a workload asks of the sysbench format: the
// percentile (0 = off), whether to print the latency histogram, and the
// seed the header names.
type sysbenchReport struct {
	pct       float64
	histogram bool
	seed      int64
	prepare   []string // what sysbench's prepare prints (sysbench.Workload.PrepareLines)
	fatal     []string // what sysbench prints when an error ends the run (sysbench.FatalLines)
}

// sysbenchFatal is what sysbench 1.0.20 prints when err ends the run: the
// lines of its driver when err is a statement's error from a server that
// speaks one of sysbench's drivers (MySQL wire, PostgreSQL), else nil.
func sysbenchFatal(tgt target.Target, err error) []string {
	var own interface{ SysbenchLines() []string }
	if errors.As(err, &own) {
		return own.SysbenchLines() // a Lua script's error
	}
	driver := map[string]string{"mysql": "mysql", "postgres": "pgsql"}[tgt.Driver()]
	var se *sysbench.StatementError
	if driver == "" || !errors.As(err, &se) {
		return nil
	}
	srv, ok := target.ServerErrorOf(tgt, err)
	if !ok {
		return nil
	}
	return sysbench.FatalLines(driver, se, srv)
}
