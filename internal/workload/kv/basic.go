package kv

import (
	"context"
	"errors"
	"fmt"
	"math/rand"

	"github.com/candor-bench/candor/internal/cacheline"
	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/keydist"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

// Operation IDs of kv-basic, indexes into Basic.Ops().
const (
	OpBasicRead workload.OpID = iota
	OpBasicWrite
)

var basicOps = []string{"READ", "WRITE"}

// BasicOptions are kv-basic's resolved options, as the result file records
// them.
type BasicOptions struct {
	Reference string `json:"reference"`
	Table     string `json:"table"`
	Pairs     int64  `json:"pairs"`
	KeySize   int    `json:"key-size"`
	KeyFormat string `json:"key-format"`
	ValueSize int    `json:"value-size"`
	// OperationCount is the CLI's --operations (0: not set).
	OperationCount int64 `json:"operationcount,omitempty"`
}

// Basic is the kv-basic (KV-1) workload. Besides workload.Workload it offers
// MaxLoadBatch, which the runner uses to size load batches.
type Basic struct {
	opts BasicOptions

	// Set by Bind.
	bound      bool
	stmts      dialect.KVBasicStatements
	insertRows int // rows per multi-row INSERT; 0 = no limit
	maxBatch   int
	keys       keydist.Drawer // uniform over [0, pairs)
}

var (
	_ workload.Workload = (*Basic)(nil)
	_ workload.Worker   = (*basicWorker)(nil)
	_ workload.Loader   = (*basicLoader)(nil)
)

// NewBasic builds kv-basic from name=value options (pairs, key-size,
// value-size, table, and the CLI's operationcount). Every problem is
// returned at once.
func NewBasic(files, in []string) (*Basic, error) {
	p := parseProps(NameBasic, files, in, []string{"pairs", "key-size", "value-size", "table"})
	o := BasicOptions{Reference: ReferenceBasic}
	o.Table = p.table(DefaultBasicTable)
	o.Pairs = p.int("pairs", DefaultRecords, 1, 1e12)
	o.KeySize = p.keySize(o.Pairs)
	o.KeyFormat = KeyFormat(o.KeySize)
	o.ValueSize = int(p.int("value-size", DefaultValueSize, 1, MaxValueSize))
	o.OperationCount = p.int(operationCount, 0, 0, 1<<62)
	if err := p.err(); err != nil {
		return nil, fmt.Errorf("%s: invalid options:\n%w", NameBasic, err)
	}
	return &Basic{opts: o}, nil
}

// Name is "kv-basic".
func (w *Basic) Name() string { return NameBasic }

// Reference names what this reproduces.
func (w *Basic) Reference() string { return ReferenceBasic }

// Ops lists READ and WRITE.
func (w *Basic) Ops() []string { return append([]string(nil), basicOps...) }

// Options returns the resolved options (a BasicOptions value).
func (w *Basic) Options() any { return w.opts }

// Config returns the resolved options, typed.
func (w *Basic) Config() BasicOptions { return w.opts }

// Ignored is empty: unknown options are errors.
func (w *Basic) Ignored() []string { return nil }

// Limits carries --operations (operationcount) when given.
func (w *Basic) Limits() workload.Limits { return workload.Limits{Operations: w.opts.OperationCount} }

// Bind builds the statements for env's dialect.
func (w *Basic) Bind(env workload.Env) error {
	if err := checkDialect(NameBasic, env); err != nil {
		return err
	}
	rows, batch, err := loadRows(env, 2, w.opts.KeySize+w.opts.ValueSize)
	if err != nil {
		return fmt.Errorf("%s: %w", NameBasic, err)
	}
	w.stmts = dialect.KVBasic(env.Dialect, w.opts.Table, w.opts.KeySize)
	w.insertRows, w.maxBatch = rows, batch
	w.keys = keydist.NewUniform(0, w.opts.Pairs-1).(keydist.Drawer)
	w.bound = true
	return nil
}

// Statements returns the bound statements (zero before Bind).
func (w *Basic) Statements() dialect.KVBasicStatements { return w.stmts }

// Schema is the one table (nil before Bind).
func (w *Basic) Schema() []workload.Table {
	if !w.bound {
		return nil
	}
	return []workload.Table{{Name: w.opts.Table, Create: w.stmts.CreateTable}}
}

// LoadRange is [0, pairs).
func (w *Basic) LoadRange() (start, count int64) { return 0, w.opts.Pairs }

// ApproxRowBytes is a pair's size, key and value (runner.RowSizer: the
// size of a load is told before it starts).
func (w *Basic) ApproxRowBytes() int64 { return int64(w.opts.KeySize + w.opts.ValueSize) }

// MaxLoadBatch is the most pairs one load statement carries (0 = no limit):
// the bind-parameter limit and about 4 MiB of row data, whichever is less.
func (w *Basic) MaxLoadBatch() int { return w.maxBatch }

// NewWorker returns a run-phase worker drawing from r.
func (w *Basic) NewWorker(id int, r *rand.Rand) workload.Worker {
	wk := &basicWorker{w: w, r: r, keyArgs: cacheline.Slice[any](1), writeArgs: cacheline.Slice[any](2),
		payload: make([]byte, w.opts.ValueSize)}
	wk.onRow = func([][]byte) error { return nil }
	return wk
}

// basicWorker is one kv-basic worker; it is used by one goroutine.
type basicWorker struct {
	_         cacheline.Pad // see package cacheline
	w         *Basic
	r         *rand.Rand
	op        workload.OpID
	key       []byte
	keyArgs   []any // [key]
	writeArgs []any // [payload, key]
	payload   []byte
	onRow     func([][]byte) error
	_         cacheline.Pad
}

// Next draws key A, key B, then the coin: heads reads A, tails writes new
// random bytes into B.
func (wk *basicWorker) Next() workload.OpID {
	o := &wk.w.opts
	a := wk.w.keys.Draw(wk.r)
	b := wk.w.keys.Draw(wk.r)
	if wk.r.Uint64()>>63 == 0 {
		wk.op = OpBasicRead
		wk.key = AppendKey(wk.key[:0], a, o.KeySize)
		wk.keyArgs[0] = string(wk.key)
	} else {
		wk.op = OpBasicWrite
		wk.key = AppendKey(wk.key[:0], b, o.KeySize)
		fillRandom(wk.r, wk.payload)
		wk.writeArgs[0], wk.writeArgs[1] = wk.payload, string(wk.key)
	}
	return wk.op
}

// Exec performs the chosen operation: a read that finds no row returns
// target.ErrNotFound, a write that changes other than one row
// target.ErrUnexpectedRows.
func (wk *basicWorker) Exec(ctx context.Context, c target.Conn, s workload.Span) error {
	w := wk.w
	if !w.bound {
		return errors.New("kv-basic: Exec before Bind")
	}
	switch wk.op {
	case OpBasicRead:
		n, err := c.Query(ctx, w.stmts.Read, wk.keyArgs, wk.onRow)
		if err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("kv-basic: key %s: %w", wk.keyArgs[0], target.ErrNotFound)
		}
		return nil
	case OpBasicWrite:
		n, err := c.Exec(ctx, w.stmts.Write, wk.writeArgs...)
		return affectedOne(n, err)
	}
	return errors.New("kv-basic: no operation chosen (call Next first)")
}

// Done has nothing to finish.
func (wk *basicWorker) Done(error) {}

func affectedOne(n int64, err error) error {
	if err != nil {
		return err
	}
	if n != 1 {
		return fmt.Errorf("UPDATE affected %d rows, expected 1: %w", n, target.ErrUnexpectedRows)
	}
	return nil
}

// NewLoader returns a loader whose payloads come from r.
func (w *Basic) NewLoader(id int, r *rand.Rand) workload.Loader {
	return &basicLoader{w: w, r: r, out: workload.RowWriter{Table: w.opts.Table, Columns: w.stmts.Columns, Insert: w.stmts.InsertRows}}
}

// basicLoader writes load batches; it is used by one goroutine.
type basicLoader struct {
	w    *Basic
	r    *rand.Rand
	key  []byte
	data []byte // payloads of the batch, back to back
	args []any
	rows [][]any
	out  workload.RowWriter
}

// LoadBatch inserts pairs [from, to): with COPY when c is a target.Copier,
// else with multi-row INSERTs of at most MaxLoadBatch rows each.
func (l *basicLoader) LoadBatch(ctx context.Context, c target.Conn, from, to int64) error {
	w := l.w
	if !w.bound {
		return errors.New("kv-basic: LoadBatch before Bind")
	}
	step := to - from
	if w.maxBatch > 0 {
		step = int64(w.maxBatch)
	}
	if _, copying := c.(target.Copier); !copying && w.insertRows > 0 {
		step = min(step, int64(w.insertRows))
	}
	for lo := from; lo < to; lo += step {
		hi := min(lo+step, to)
		l.build(lo, hi)
		if err := l.out.Write(ctx, c, l.rows, l.args); err != nil {
			return err
		}
	}
	return nil
}

// build fills args (key, payload per row) and rows for pairs [from, to).
func (l *basicLoader) build(from, to int64) {
	o := &l.w.opts
	n := int(to - from)
	if cap(l.data) < n*o.ValueSize {
		l.data = make([]byte, n*o.ValueSize)
	}
	l.data = l.data[:n*o.ValueSize]
	fillRandom(l.r, l.data)
	l.args = l.args[:0]
	for i := 0; i < n; i++ {
		l.key = AppendKey(l.key[:0], from+int64(i), o.KeySize)
		l.args = append(l.args, string(l.key), l.data[i*o.ValueSize:(i+1)*o.ValueSize:(i+1)*o.ValueSize])
	}
	l.rows = l.rows[:0]
	for i := 0; i < n; i++ {
		l.rows = append(l.rows, l.args[2*i:2*i+2:2*i+2])
	}
}

// DataSignature names the options that decide the loaded data.
func (w *Basic) DataSignature() string {
	return fmt.Sprintf("pairs=%d key-size=%d value-size=%d", w.opts.Pairs, w.opts.KeySize, w.opts.ValueSize)
}
