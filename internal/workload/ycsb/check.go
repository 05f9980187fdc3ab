package ycsb

import (
	"context"
	"fmt"
	"strconv"

	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

var (
	_ workload.Checker        = (*Workload)(nil)
	_ workload.CheckBaseliner = (*Workload)(nil)
)

// BeforeRun implements workload.CheckBaseliner: the rows there before the
// run, and the acknowledged inserts counted from now.
func (w *Workload) BeforeRun(ctx context.Context, c target.Conn) error {
	rows, err := w.rowCount(ctx, c)
	if err != nil {
		return err
	}
	w.baseline.Store(rows)
	w.insertsOK.Store(0)
	return nil
}

// Check implements workload.Checker: the table holds the rows it held
// before the run (BeforeRun; after a load, the records loaded) plus the
// run-phase inserts that were acknowledged (YCSB's core workloads delete
// nothing): a row fewer is a lost row, a row more an insert that failed to
// the client and committed anyway. Alone (candor check), the rows before
// are unknown, and the table must hold at least recordcount rows.
func (w *Workload) Check(ctx context.Context, c target.Conn) ([]workload.CheckResult, error) {
	rows, err := w.rowCount(ctx, c)
	if err != nil {
		return nil, err
	}
	before := w.baseline.Load()
	if before < 0 {
		loaded := w.opts.RecordCount
		r := workload.CheckResult{Name: w.opts.Table + ": rows ≥ records loaded", Passed: rows >= loaded,
			Detail: fmt.Sprintf("%d rows, %d records loaded (recordcount); the inserts of earlier runs are not known to a check alone: run with --check for the exact count", rows, loaded)}
		if !r.Passed {
			r.Offending = loaded - rows
		}
		return []workload.CheckResult{r}, nil
	}
	acked := w.insertsOK.Load()
	want := before + acked
	r := workload.CheckResult{Name: w.opts.Table + ": rows = rows before + acknowledged inserts", Passed: rows == want,
		Detail: fmt.Sprintf("%d rows, expected %d = %d before the run + %d inserts acknowledged", rows, want, before, acked)}
	switch {
	case rows < want:
		r.Offending = want - rows
		r.Detail += fmt.Sprintf(": %d row(s) missing", r.Offending)
	case rows > want:
		r.Offending = rows - want
		r.Detail += fmt.Sprintf(": %d row(s) more than acknowledged (an insert that failed to the client and committed, or rows of another writer)", r.Offending)
	}
	return []workload.CheckResult{r}, nil
}

func (w *Workload) rowCount(ctx context.Context, c target.Conn) (int64, error) {
	var rows int64
	_, err := c.Query(ctx, dialect.RowCount(w.opts.Table), nil, func(cols [][]byte) error {
		var err error
		rows, err = strconv.ParseInt(string(cols[0]), 10, 64)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("counting the rows of %s: %w", w.opts.Table, err)
	}
	return rows, nil
}
