package sysbench

import (
	"context"
	"errors"
	"fmt"
	"math/rand"

	"github.com/candor-bench/candor/internal/keydist"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

// NewLoader returns a loader for one load worker; its values come from r
// (which the runner reseeds per batch), or with --rand-seed from a generator
// of its own reseeded per batch from that seed.
func (w *Workload) NewLoader(id int, r *rand.Rand) workload.Loader {
	l := &loader{w: w, r: r}
	if w.opts.RandSeed != 0 {
		l.own = rand.New(rand.NewSource(w.opts.RandSeed))
	}
	return l
}

// loader writes load batches; it is used by one goroutine.
type loader struct {
	w        *Workload
	r        *rand.Rand
	own      *rand.Rand // with --rand-seed
	args     []any
	rows     [][]any
	vals     []byte
	out      []*workload.RowWriter // per table, made on first use
	progress func(written int64)   // workload.ProgressLoader; nil until set
}

// SetProgress implements workload.ProgressLoader.
func (l *loader) SetProgress(f func(written int64)) { l.progress = f }

// writer returns table's row writer (tables count from 1).
func (l *loader) writer(table int) *workload.RowWriter {
	for len(l.out) < table {
		l.out = append(l.out, nil)
	}
	if l.out[table-1] == nil {
		st := &l.w.stmts
		l.out[table-1] = &workload.RowWriter{Table: st.Tables[table-1].Name, Columns: st.LoadColumns,
			Insert: func(n int) string { return st.LoadInsert(table, n) }}
	}
	return l.out[table-1]
}

// LoadBatch inserts records [from, to): record n is row id n%table-size+1 of
// table sbtest<n/table-size+1>; a batch that spans tables is split at their
// boundary. Each row is drawn as sysbench's prepare draws it: c and pad from
// their templates, then k = sysbench.rand.default(1, table_size). With
// --auto-inc the id column is left to the database (rows are then numbered in
// the order the database receives them). Rows go by COPY when c is a
// target.Copier, else by multi-row INSERTs of at most MaxLoadBatch rows. A
// table's setup statements run before its first row.
func (l *loader) LoadBatch(ctx context.Context, c target.Conn, from, to int64) error {
	w := l.w
	if !w.bound {
		return errors.New("sysbench: LoadBatch before Bind")
	}
	r := l.r
	if l.own != nil {
		l.own.Seed(w.opts.RandSeed ^ (from * 0x2545F4914F6CDD1D))
		r = l.own
	}
	size := w.opts.TableSize
	for from < to {
		table := int(from/size) + 1
		end := min(to, int64(table)*size)
		if table > len(w.stmts.Tables) {
			return fmt.Errorf("sysbench: record %d is past the last table (%d tables of %d rows)", from, len(w.stmts.Tables), size)
		}
		if err := w.ensureSetup(ctx, c, table); err != nil {
			return err
		}
		if err := l.load(ctx, c, r, table, from, end); err != nil {
			return err
		}
		from = end
	}
	return nil
}

// load writes records [from, to) of one table.
func (l *loader) load(ctx context.Context, c target.Conn, r *rand.Rand, table int, from, to int64) error {
	w := l.w
	if tl, ok := c.(target.TableLoader); ok && w.tableLoad && from%w.opts.TableSize == 0 && to-from == w.opts.TableSize {
		return l.loadTable(ctx, tl, r, table, from, to)
	}
	step := to - from // COPY takes the whole batch
	if _, copying := c.(target.Copier); !copying && w.loadRows > 0 {
		step = int64(w.loadRows)
	}
	out := l.writer(table)
	for lo := from; lo < to; lo += step {
		hi := min(lo+step, to)
		l.build(r, lo, hi)
		if err := out.Write(ctx, c, l.rows, l.args); err != nil {
			return fmt.Errorf("rows %d..%d: %w", lo%w.opts.TableSize+1, (hi-1)%w.opts.TableSize+1, err)
		}
	}
	return nil
}

// loadTable writes a whole table, records [from, to), in one go, drawing
// each row as build does.
func (l *loader) loadTable(ctx context.Context, tl target.TableLoader, r *rand.Rand, table int, from, to int64) error {
	w := l.w
	size := w.opts.TableSize
	row := func(i int64, dst []any) []any {
		l.vals = keydist.AppendSysbenchString(l.vals[:0], r, cTemplate)
		l.vals = keydist.AppendSysbenchString(l.vals, r, padTemplate)
		k := w.dist.Draw(r, 1, size)
		s := string(l.vals)
		dst = dst[:0]
		if !w.opts.AutoInc {
			dst = append(dst, (from+i)%size+1)
		}
		return append(dst, k, s[:len(cTemplate)], s[len(cTemplate):])
	}
	name := w.stmts.Tables[table-1].Name
	n, err := tl.LoadTable(ctx, name, w.stmts.LoadColumns, to-from, row, l.progress)
	if err == nil && n != to-from {
		err = fmt.Errorf("the server reports %d rows loaded, want %d", n, to-from)
	}
	if err != nil {
		return fmt.Errorf("loading %s: %w", name, err)
	}
	return nil
}

// build fills args (flat, row by row, in LoadColumns order) and rows (one
// slice per row over args) for records [from, to) of one table.
func (l *loader) build(r *rand.Rand, from, to int64) {
	w := l.w
	size := w.opts.TableSize
	n := int(to - from)
	per := len(w.stmts.LoadColumns)
	// One string holds every c and pad of the batch: one allocation.
	const rowBytes = len(cTemplate) + len(padTemplate)
	l.vals = l.vals[:0]
	ks := make([]int64, n)
	for i := 0; i < n; i++ {
		l.vals = keydist.AppendSysbenchString(l.vals, r, cTemplate)
		l.vals = keydist.AppendSysbenchString(l.vals, r, padTemplate)
		ks[i] = w.dist.Draw(r, 1, size)
	}
	s := string(l.vals)
	l.args = l.args[:0]
	for i := 0; i < n; i++ {
		if !w.opts.AutoInc {
			l.args = append(l.args, (from+int64(i))%size+1)
		}
		off := i * rowBytes
		l.args = append(l.args, ks[i], s[off:off+len(cTemplate)], s[off+len(cTemplate):off+rowBytes])
	}
	l.rows = l.rows[:0]
	for i := 0; i < n; i++ {
		l.rows = append(l.rows, l.args[i*per:(i+1)*per:(i+1)*per])
	}
}
