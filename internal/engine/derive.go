package engine

import (
	"fmt"
	"strings"

	"github.com/candor-bench/candor/internal/runner"
	"maps"

	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/workload"
)

// derive adds a workload's figures computed from the phase's counts
// (workload.Deriver: TPC-C's tpmC) to the phase's derived values.
func derive(wl workload.Workload, p *result.Phase) {
	d, ok := wl.(workload.Deriver)
	if !ok {
		return
	}
	f := workload.PhaseFigures{DurationSec: p.DurationSec, Done: map[string]int64{}, Counters: maps.Clone(p.Counters)}
	for _, o := range p.Ops {
		f.Done[o.Name] = o.Done
	}
	figs := d.Derive(f)
	if len(figs) == 0 {
		return
	}
	if p.Derived == nil {
		p.Derived = map[string]float64{}
	}
	maps.Copy(p.Derived, figs)
}

// sayPostLoad tells the user, on the status output, what a workload did
// after its load to bring the tables to a measurable state (TPC-C's
// statistics and checkpoint): its PostLoadSteps, when it has any.
func sayPostLoad(r *runner.Runner, wl workload.Workload) {
	ps, ok := wl.(interface{ PostLoadSteps() []string })
	if !ok || r.Status == nil || len(ps.PostLoadSteps()) == 0 {
		return
	}
	fmt.Fprintf(r.Status, "after the load, for a measurable state: %s\n", strings.Join(ps.PostLoadSteps(), "; "))
}
