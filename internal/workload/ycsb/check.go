package ycsb

import (
	"context"
	"fmt"
	"strconv"

	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

var _ workload.Checker = (*Workload)(nil)

// Check implements workload.Checker: the table holds recordcount rows
// plus the run-phase inserts that were acknowledged (YCSB's core workloads
// delete nothing). After a run in this process the count must be exact: a
// row fewer is a lost insert, a row more an insert that failed to the
// client and committed anyway. Alone (candor check), the inserts of
// earlier runs are unknown, and the table must hold at least recordcount
// rows.
func (w *Workload) Check(ctx context.Context, c target.Conn) ([]workload.CheckResult, error) {
	var rows int64
	_, err := c.Query(ctx, dialect.RowCount(w.opts.Table), nil, func(cols [][]byte) error {
		var err error
		rows, err = strconv.ParseInt(string(cols[0]), 10, 64)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("counting the rows of %s: %w", w.opts.Table, err)
	}
	loaded := w.opts.RecordCount
	if !w.ran.Load() {
		r := workload.CheckResult{Name: w.opts.Table + ": rows ≥ records loaded", Passed: rows >= loaded,
			Detail: fmt.Sprintf("%d rows, %d records loaded (recordcount); the inserts of earlier runs are not known to a check alone: run with --check for the exact count", rows, loaded)}
		if !r.Passed {
			r.Offending = loaded - rows
		}
		return []workload.CheckResult{r}, nil
	}
	acked := w.insertsOK.Load()
	want := loaded + acked
	r := workload.CheckResult{Name: w.opts.Table + ": rows = records loaded + acknowledged inserts", Passed: rows == want,
		Detail: fmt.Sprintf("%d rows, expected %d = %d loaded + %d inserts acknowledged", rows, want, loaded, acked)}
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
