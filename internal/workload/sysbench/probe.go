package sysbench

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/candor-bench/candor/internal/target"
)

// probeIDs is how many ids of each table PreRun looks up.
const probeIDs = 16

// addressesIDs says whether the test's statements look rows up by id, drawn
// from 1..--table-size (sysbench's get_id): every test but oltp_insert,
// select_random_points/ranges (by k) and bulk_insert (its own tables).
func (w *Workload) addressesIDs() bool {
	switch w.test {
	case OLTPPointSelect, OLTPReadOnly, OLTPWriteOnly, OLTPReadWrite, OLTPUpdateIndex, OLTPUpdateNonIndex, OLTPDelete:
		return true
	}
	return false
}

// PreRun implements workload.PreRunner: before the measured phase it looks
// up, on each table, 16 ids spread over 1..--table-size (1 and table-size
// among them) by the key the test's statements use, in one statement,
// SELECT id FROM sbtestN WHERE id IN (...), and counts the rows found.
// sysbench's statements address exactly those ids, so a table whose ids are
// numbered otherwise (an id generator that does not count from 1, as TiDB's
// AUTO_RANDOM or CockroachDB's unique_rowid()) or whose rows were deleted
// (oltp_delete) would have the run read and write rows that are not there
// and measure the wrong work. When more than half of a table's ids are
// missing the run is refused (an error wrapping target.ErrUnsupported); a
// few missing rows (some deleted) do not refuse it.
func (w *Workload) PreRun(ctx context.Context, c target.Conn) error {
	if !w.bound {
		return errors.New("sysbench: PreRun before Bind")
	}
	if !w.addressesIDs() {
		return nil
	}
	ids := spreadIDs(w.opts.TableSize, probeIDs)
	list := make([]string, len(ids))
	for i, id := range ids {
		list[i] = strconv.FormatInt(id, 10)
	}
	for _, t := range w.stmts.Tables {
		found := map[int64]bool{}
		q := "SELECT id FROM " + t.Name + " WHERE id IN (" + strings.Join(list, ", ") + ")"
		_, err := c.Query(ctx, q, nil, func(cols [][]byte) error {
			id, err := strconv.ParseInt(string(cols[0]), 10, 64)
			found[id] = true
			return err
		})
		if err != nil {
			return fmt.Errorf("%s: checking that %s holds ids 1..%d: %w", w.Name(), t.Name, w.opts.TableSize, err)
		}
		var missing []int64
		for _, id := range ids {
			if !found[id] {
				missing = append(missing, id)
			}
		}
		if 2*len(missing) > len(ids) {
			return &missingRowsError{workload: w.Name(), table: t.Name, size: w.opts.TableSize, probed: len(ids), missing: missing}
		}
	}
	return nil
}

// spreadIDs returns up to n distinct ids spread evenly over 1..size, 1 and
// size included.
func spreadIDs(size int64, n int) []int64 {
	if size < 1 {
		return nil
	}
	var ids []int64
	for i := 0; i < n; i++ {
		id := 1 + int64(i)*(size-1)/int64(n-1)
		if len(ids) == 0 || ids[len(ids)-1] != id {
			ids = append(ids, id)
		}
	}
	return ids
}

// missingRowsError is PreRun's refusal: a table lacks most of the ids the
// test's statements address.
type missingRowsError struct {
	workload, table string
	size            int64
	probed          int
	missing         []int64
}

func (e *missingRowsError) Error() string {
	var ids []string
	for _, id := range e.missing {
		ids = append(ids, strconv.FormatInt(id, 10))
	}
	return fmt.Sprintf("%s: %s has no row with id %s (%d of %d ids looked up across 1..%d): "+
		"the test's statements address ids 1..table-size, so it would read and write rows that are not there. "+
		"The table's ids are numbered otherwise, or its rows were deleted (oltp_delete); prepare it again (run with --load always, "+
		"or candor cleanup sysbench then candor prepare sysbench)",
		e.workload, e.table, strings.Join(ids, ", "), len(e.missing), e.probed, e.size)
}

// Is makes the refusal a target.ErrUnsupported (exit 4).
func (e *missingRowsError) Is(err error) bool { return err == target.ErrUnsupported }
