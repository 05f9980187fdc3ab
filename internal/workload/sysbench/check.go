package sysbench

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

var _ workload.Checker = (*Workload)(nil)

// Check implements workload.Checker: in each table, the ids without
// duplicates (a failure whatever the options: two rows of one id), and the
// gaps between the lowest and the highest id reported (not a failure:
// with --auto-inc ids come from a sequence or an AUTO_INCREMENT counter
// that never hands out a value twice but skips the values of rolled-back
// inserts, of another session's cache with --sequence-cache N, and of the
// rows oltp_delete removes). bulk_insert's tables have no id of sysbench's
// and are not checked.
func (w *Workload) Check(ctx context.Context, c target.Conn) ([]workload.CheckResult, error) {
	if w.test == BulkInsert {
		return nil, nil
	}
	var out []workload.CheckResult
	for _, t := range w.Schema() {
		var v [4]int64
		_, err := c.Query(ctx, dialect.IDStats(t.Name, "id"), nil, func(cols [][]byte) error {
			var errs []error
			for i := range v {
				var err error
				v[i], err = strconv.ParseInt(string(cols[i]), 10, 64)
				errs = append(errs, err)
			}
			return errors.Join(errs...)
		})
		if err != nil {
			return nil, fmt.Errorf("reading the ids of %s: %w", t.Name, err)
		}
		rows, distinct, lo, hi := v[0], v[1], v[2], v[3]
		dup := workload.CheckResult{Name: t.Name + ": no duplicate ids", Passed: rows == distinct,
			Detail: fmt.Sprintf("%d rows, %d distinct ids", rows, distinct)}
		if !dup.Passed {
			dup.Offending = rows - distinct
			dup.Detail += fmt.Sprintf(": %d row(s) repeat an id", dup.Offending)
		}
		var missing int64
		if rows > 0 {
			missing = hi - lo + 1 - distinct
		}
		gaps := workload.CheckResult{Name: t.Name + ": id gaps (reported)", Passed: true,
			Detail: fmt.Sprintf("ids %d..%d, %d missing", lo, hi, missing)}
		if missing > 0 {
			why := "ids of deleted rows"
			if w.opts.AutoInc {
				why = "ids a sequence or AUTO_INCREMENT skipped (rolled-back inserts"
				if w.opts.SequenceCache > 1 {
					why += fmt.Sprintf(", sessions' caches of %d with --sequence-cache", w.opts.SequenceCache)
				}
				why += ") and of deleted rows"
			}
			gaps.Detail += ": expected, " + why + "; never a duplicate"
		}
		out = append(out, dup, gaps)
	}
	return out, nil
}
