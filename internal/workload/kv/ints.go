package kv

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"time"

	"github.com/candor-bench/candor/internal/cacheline"
	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/keydist"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

// Operation IDs of kv-ints and kv-ints-batch, indexes into Ints.Ops(). The
// first is the whole operation (PAIR for kv-ints, BATCH for kv-ints-batch),
// the one throughput counts; READ and WRITE are its statements, reported
// through Span (WRITE only when the read value was odd).
const (
	OpIntsWhole workload.OpID = iota
	OpIntsRead
	OpIntsWrite
)

// Counter indexes, into Ints.Counters().
const (
	CounterReads = iota
	CounterOddWrites
)

var intsCounters = []string{"reads", "odd_writes"}

// Atomicity values recorded in IntsOptions (kv-ints-batch's option
// atomicity; kv-ints is always none).
const (
	AtomicityNone        = "none"        // each statement on its own (autocommit)
	AtomicityTransaction = "transaction" // BEGIN; pairs; COMMIT
	// The reads one by one, then the operation's writes as one BATCH
	// statement (CQL): logged, all or none of them are applied even across
	// partitions; unlogged, atomic only within one partition (here every
	// write is to one row). The reads are not isolated from other
	// operations' writes, as they are in a transaction.
	AtomicityLogged   = "logged"
	AtomicityUnlogged = "unlogged"
)

var atomicities = []string{AtomicityTransaction, AtomicityLogged, AtomicityUnlogged, AtomicityNone}

// atomicMeaning is IntsOptions.Atomic of each atomicity of kv-ints-batch
// (on VoltDB, transaction is "yes (one VoltDB transaction)").
var atomicMeaning = map[string]string{
	AtomicityTransaction: "yes (one transaction)",
	AtomicityLogged:      "writes only (one logged BATCH; the reads are not isolated)",
	AtomicityUnlogged:    "writes only, within the row's partition (one unlogged BATCH; the reads are not isolated)",
	AtomicityNone:        "not atomic",
}

// rollbackTimeout bounds the ROLLBACK after a failed batch, which runs even
// when the operation's context has ended.
const rollbackTimeout = 5 * time.Second

// IntsOptions are the resolved options of kv-ints and kv-ints-batch, as the
// result file records them.
type IntsOptions struct {
	Reference string `json:"reference"`
	Table     string `json:"table"`
	Rows      int64  `json:"rows"`
	KeySize   int    `json:"key-size"`
	KeyFormat string `json:"key-format"`
	Columns   int    `json:"columns"`
	// Batch is the pairs per operation: 1 for kv-ints.
	Batch     int    `json:"batch"`
	Atomicity string `json:"atomicity"`
	// Atomic says, for kv-ints-batch once bound to a target, whether a
	// batch's pairs are one atomic unit there and how: "yes (one
	// transaction)", "yes (one VoltDB transaction)" (a SQL procedure),
	// the BATCH variants' "writes only (...)", or "not atomic".
	Atomic string `json:"atomic,omitempty"`
	// OperationCount is the CLI's --operations (0: not set).
	OperationCount int64 `json:"operationcount,omitempty"`
}

// Ints is the kv-ints (KV-2) or kv-ints-batch (KV-3) workload. Besides
// workload.Workload it implements workload.CounterNamer and offers
// MaxLoadBatch.
type Ints struct {
	name   string
	atomic bool
	opts   IntsOptions

	// Set by Bind.
	bound bool
	stmts dialect.KVIntsStatements
	// On VoltDB (no BEGIN ... COMMIT across calls) atomicity=transaction
	// calls the SQL procedure declared with the table (KVIntsProcedure).
	procCreate string
	procCall   string
	insertRows int
	maxBatch   int
	keys       keydist.Drawer // uniform over [0, rows)
	cols       keydist.Drawer // uniform over [0, columns)
}

var (
	_ workload.Workload     = (*Ints)(nil)
	_ workload.CounterNamer = (*Ints)(nil)
	_ workload.Worker       = (*intsWorker)(nil)
	_ workload.Loader       = (*intsLoader)(nil)
)

// NewInts builds kv-ints from name=value options (rows, key-size, columns,
// table, and the CLI's operationcount).
func NewInts(files, in []string) (*Ints, error) { return newInts(NameInts, false, files, in) }

// NewBatch builds kv-ints-batch from name=value options (those of kv-ints
// and batch).
func NewBatch(files, in []string) (*Ints, error) { return newInts(NameBatch, true, files, in) }

func newInts(name string, atomic bool, files, in []string) (*Ints, error) {
	known := []string{"rows", "key-size", "columns", "table"}
	table := DefaultIntsTable
	if atomic {
		known = append(known, "batch", "atomicity")
		table = DefaultBatchTable
	}
	p := parseProps(name, files, in, known)
	o := IntsOptions{Reference: ReferenceInts, Batch: 1, Atomicity: AtomicityNone}
	if atomic {
		o.Reference, o.Atomicity = ReferenceBatch, AtomicityTransaction
	}
	o.Table = p.table(table)
	o.Rows = p.int("rows", DefaultRecords, 1, 1e12)
	o.KeySize = p.keySize(o.Rows)
	o.KeyFormat = KeyFormat(o.KeySize)
	o.Columns = int(p.int("columns", DefaultColumns, 1, MaxColumns))
	if atomic {
		o.Batch = int(p.int("batch", DefaultBatch, 1, MaxBatch))
		if v, ok := p.vals["atomicity"]; ok {
			if slices.Contains(atomicities, v) {
				o.Atomicity = v
			} else {
				p.fail("atomicity", "valid values: %s", strings.Join(atomicities, ", "))
			}
		}
	}
	o.OperationCount = p.int(operationCount, 0, 0, 1<<62)
	if err := p.err(); err != nil {
		return nil, fmt.Errorf("%s: invalid options:\n%w", name, err)
	}
	return &Ints{name: name, atomic: atomic, opts: o}, nil
}

// Name is "kv-ints" or "kv-ints-batch".
func (w *Ints) Name() string { return w.name }

// Reference names what this reproduces.
func (w *Ints) Reference() string { return w.opts.Reference }

// Ops lists PAIR (kv-ints) or BATCH (kv-ints-batch), then READ and WRITE.
func (w *Ints) Ops() []string {
	if w.atomic {
		return []string{"BATCH", "READ", "WRITE"}
	}
	return []string{"PAIR", "READ", "WRITE"}
}

// Counters lists "reads" and "odd_writes".
func (w *Ints) Counters() []string { return append([]string(nil), intsCounters...) }

// Options returns the resolved options (an IntsOptions value).
func (w *Ints) Options() any { return w.opts }

// Config returns the resolved options, typed.
func (w *Ints) Config() IntsOptions { return w.opts }

// Ignored is empty: unknown options are errors.
func (w *Ints) Ignored() []string { return nil }

// Limits carries --operations (operationcount) when given.
func (w *Ints) Limits() workload.Limits {
	return workload.Limits{Operations: w.opts.OperationCount}
}

// Bind builds the statements for env's dialect. kv-ints-batch with
// atomicity=transaction needs transactions, logged and unlogged a dialect
// with BATCH statements (CQL); none runs anywhere.
func (w *Ints) Bind(env workload.Env) error {
	if err := checkDialect(w.name, env); err != nil {
		return err
	}
	hasBatch := dialect.KVInts(env.Dialect, w.opts.Table, w.opts.KeySize, 1).Batch != nil
	procCreate, procCall := "", ""
	if w.atomic && w.opts.Atomicity == AtomicityTransaction && !env.Capabilities.Transactions {
		procCreate, procCall = dialect.KVIntsProcedure(env.Dialect, w.opts.Table, w.opts.Columns, w.opts.Batch)
	}
	switch a := w.opts.Atomicity; {
	case !w.atomic:
	case a == AtomicityTransaction && procCall != "":
		w.opts.Atomic = "yes (one VoltDB transaction)"
	case a == AtomicityTransaction && !env.Capabilities.Transactions:
		alt := "use kv-ints for the same statements without atomicity"
		if hasBatch {
			alt = "choose how its writes are made atomic with --atomicity logged (one logged BATCH), unlogged (one unlogged BATCH) or none (separate writes); the result records the choice"
		}
		return fmt.Errorf("%s runs each batch of %d pairs atomically in one transaction (BEGIN ... COMMIT), and the target declares no transactions; %s",
			w.name, w.opts.Batch, alt)
	case (a == AtomicityLogged || a == AtomicityUnlogged) && !hasBatch:
		return fmt.Errorf("%w: %s: atomicity=%s sends the writes as one CQL BATCH, which the %s dialect does not have; use atomicity=transaction (or none)",
			target.ErrUnsupported, w.name, a, env.Dialect.Name)
	}
	rows, batch, err := loadRows(env, w.opts.Columns+1, w.opts.KeySize+4*w.opts.Columns)
	if err != nil {
		return fmt.Errorf("%s: columns=%d: %w; lower columns", w.name, w.opts.Columns, err)
	}
	if w.atomic && w.opts.Atomic == "" {
		w.opts.Atomic = atomicMeaning[w.opts.Atomicity]
	}
	w.stmts = dialect.KVInts(env.Dialect, w.opts.Table, w.opts.KeySize, w.opts.Columns)
	w.procCreate, w.procCall = procCreate, procCall
	w.insertRows, w.maxBatch = rows, batch
	w.keys = keydist.NewUniform(0, w.opts.Rows-1).(keydist.Drawer)
	w.cols = keydist.NewUniform(0, int64(w.opts.Columns-1)).(keydist.Drawer)
	w.bound = true
	return nil
}

// Statements returns the bound statements (zero before Bind).
func (w *Ints) Statements() dialect.KVIntsStatements { return w.stmts }

// Schema is the one table (nil before Bind).
func (w *Ints) Schema() []workload.Table {
	if !w.bound {
		return nil
	}
	create := w.stmts.CreateTable
	if w.procCreate != "" {
		// In the table's one DDL call: both or neither.
		create += "; " + w.procCreate
	}
	return []workload.Table{{Name: w.opts.Table, Create: create}}
}

// LoadRange is [0, rows).
func (w *Ints) LoadRange() (start, count int64) { return 0, w.opts.Rows }

// MaxLoadBatch is the most rows one load statement carries (0 = no limit).
func (w *Ints) MaxLoadBatch() int { return w.maxBatch }

// NewWorker returns a run-phase worker drawing from r.
func (w *Ints) NewWorker(id int, r *rand.Rand) workload.Worker {
	b := w.opts.Batch
	wk := &intsWorker{w: w, r: r, a: make([]int, b), b: make([]int, b), vals: make([]int64, b),
		keyArgs: cacheline.Slice[any](1), writeArgs: cacheline.Slice[any](2)}
	wk.onRow = wk.row
	return wk
}

// intsWorker is one kv-ints or kv-ints-batch worker; it is used by one
// goroutine.
type intsWorker struct {
	_ cacheline.Pad // see package cacheline
	w *Ints
	r *rand.Rand

	// The operation chosen by Next.
	key  []byte
	a, b []int   // column read and column written, per pair
	vals []int64 // value written into b[i] when a[i] reads odd

	keyArgs   []any // [key]
	writeArgs []any // [value, key]
	onRow     func([][]byte) error
	odd       bool // parity of the value the last read returned
	readCol   int  // column of the read in progress, for messages
	// atomicity logged/unlogged: the columns the operation writes and
	// their values, in the order first written
	batchCols []int
	batchVals []int64
	procArgs  []any // the VoltDB procedure's parameters
	_         cacheline.Pad
}

// Next draws the key, then per pair column A, column B and the value B
// would get — all before any statement runs.
func (wk *intsWorker) Next() workload.OpID {
	w := wk.w
	k := w.keys.Draw(wk.r)
	wk.key = AppendKey(wk.key[:0], k, w.opts.KeySize)
	wk.keyArgs[0] = string(wk.key)
	for i := range wk.a {
		wk.a[i] = int(w.cols.Draw(wk.r))
		wk.b[i] = int(w.cols.Draw(wk.r))
		wk.vals[i] = randomInt32(wk.r)
	}
	return OpIntsWhole
}

// Exec performs the chosen operation. kv-ints: read A, and write B when A is
// odd, each statement autocommitted. kv-ints-batch: the same for every pair
// between BEGIN and COMMIT; on any error the transaction is rolled back
// before Exec returns, so a retry starts clean. With atomicity none, the
// pairs' statements each on their own; with logged or unlogged, the reads,
// then the writes in one BATCH (Ints.batch). A read that finds no row
// returns target.ErrNotFound, a write that changes other than one row
// target.ErrUnexpectedRows.
func (wk *intsWorker) Exec(ctx context.Context, c target.Conn, s workload.Span) error {
	w := wk.w
	if !w.bound {
		return fmt.Errorf("%s: Exec before Bind", w.name)
	}
	switch w.opts.Atomicity {
	case AtomicityNone:
		for i := range wk.a {
			if _, err := wk.pair(ctx, c, s, i, true); err != nil {
				return err
			}
		}
		return nil
	case AtomicityLogged, AtomicityUnlogged:
		return wk.batch(ctx, c, s)
	}
	if w.procCall != "" {
		return wk.procedure(ctx, c, s)
	}
	if _, err := c.Exec(ctx, w.stmts.Begin); err != nil {
		return err
	}
	writes := int64(0)
	for i := range wk.a {
		wrote, err := wk.pair(ctx, c, s, i, false)
		if err != nil {
			wk.rollback(ctx, c)
			return err
		}
		if wrote {
			writes++
		}
	}
	if _, err := c.Exec(ctx, w.stmts.Commit); err != nil {
		wk.rollback(ctx, c)
		return err
	}
	add(s, CounterReads, int64(len(wk.a)))
	add(s, CounterOddWrites, writes)
	return nil
}

// batch reads column a[i] of every pair, then sends the writes of the pairs
// whose read was odd as one BATCH statement (reported as one WRITE span).
// As in a transaction, a read of a column written earlier in the operation
// takes the parity of the value written, and a column written twice gets
// the later value (in one BATCH both writes would have the same timestamp,
// and Cassandra would keep the larger value).
func (wk *intsWorker) batch(ctx context.Context, c target.Conn, s workload.Span) error {
	w := wk.w
	wk.batchCols = wk.batchCols[:0]
	wk.batchVals = wk.batchVals[:0]
	for i := range wk.a {
		wk.readCol = wk.a[i]
		t0 := time.Now()
		n, err := c.Query(ctx, w.stmts.Read[wk.a[i]], wk.keyArgs, wk.onRow)
		if err == nil && n == 0 {
			err = fmt.Errorf("%s: key %s: %w", w.name, wk.keyArgs[0], target.ErrNotFound)
		}
		span(s, OpIntsRead, t0, time.Now(), err)
		if err != nil {
			return err
		}
		if j := slices.Index(wk.batchCols, wk.a[i]); j >= 0 {
			wk.odd = wk.batchVals[j]%2 != 0
		}
		if !wk.odd {
			continue
		}
		if j := slices.Index(wk.batchCols, wk.b[i]); j >= 0 {
			wk.batchVals[j] = wk.vals[i]
		} else {
			wk.batchCols = append(wk.batchCols, wk.b[i])
			wk.batchVals = append(wk.batchVals, wk.vals[i])
		}
	}
	if len(wk.batchCols) > 0 {
		writes := make([]string, len(wk.batchCols))
		args := make([]any, 0, 2*len(wk.batchCols))
		for j, col := range wk.batchCols {
			writes[j] = w.stmts.Write[col]
			args = append(args, wk.batchVals[j], wk.keyArgs[0])
		}
		t0 := time.Now()
		_, err := c.Exec(ctx, w.stmts.Batch(w.opts.Atomicity == AtomicityLogged, writes), args...)
		span(s, OpIntsWrite, t0, time.Now(), err)
		if err != nil {
			return err
		}
	}
	add(s, CounterReads, int64(len(wk.a)))
	add(s, CounterOddWrites, int64(len(wk.batchCols)))
	return nil
}

// procedure runs the operation's pairs as one call of the VoltDB procedure
// (one transaction: all of its writes or none). Its parameters per pair:
// one per column, NULL except column b[i]'s new value, then the key, then
// a[i]; the rows it modified are the odd reads' writes. The pairs run
// inside the server, so no READ or WRITE span is reported; a missing key
// modifies no row and is not told from ten even reads.
func (wk *intsWorker) procedure(ctx context.Context, c target.Conn, s workload.Span) error {
	w := wk.w
	per := w.opts.Columns + 2
	if len(wk.procArgs) != per*len(wk.a) {
		wk.procArgs = make([]any, per*len(wk.a))
	}
	for i := range wk.a {
		args := wk.procArgs[i*per : (i+1)*per]
		clear(args[:w.opts.Columns])
		args[wk.b[i]] = wk.vals[i]
		args[w.opts.Columns] = wk.keyArgs[0]
		args[w.opts.Columns+1] = int64(wk.a[i])
	}
	n, err := c.Exec(ctx, w.procCall, wk.procArgs...)
	if err != nil {
		return err
	}
	if n < 0 || n > int64(len(wk.a)) {
		return fmt.Errorf("%s: key %s: the procedure modified %d rows for %d pairs: %w",
			w.name, wk.keyArgs[0], n, len(wk.a), target.ErrUnexpectedRows)
	}
	add(s, CounterReads, int64(len(wk.a)))
	add(s, CounterOddWrites, n)
	return nil
}

// pair reads column a[i] and, when odd, writes vals[i] into column b[i],
// reporting READ and WRITE spans; count adds to the counters as each
// statement succeeds.
func (wk *intsWorker) pair(ctx context.Context, c target.Conn, s workload.Span, i int, count bool) (bool, error) {
	w := wk.w
	wk.readCol = wk.a[i]
	t0 := time.Now()
	n, err := c.Query(ctx, w.stmts.Read[wk.a[i]], wk.keyArgs, wk.onRow)
	if err == nil && n == 0 {
		err = fmt.Errorf("%s: key %s: %w", w.name, wk.keyArgs[0], target.ErrNotFound)
	}
	t1 := time.Now()
	span(s, OpIntsRead, t0, t1, err)
	if err != nil {
		return false, err
	}
	if count {
		add(s, CounterReads, 1)
	}
	if !wk.odd {
		return false, nil
	}
	wk.writeArgs[0], wk.writeArgs[1] = wk.vals[i], wk.keyArgs[0]
	err = affectedOne(c.Exec(ctx, w.stmts.Write[wk.b[i]], wk.writeArgs...))
	span(s, OpIntsWrite, t1, time.Now(), err)
	if err != nil {
		return false, err
	}
	if count {
		add(s, CounterOddWrites, 1)
	}
	return true, nil
}

// row takes the parity of the read column's decimal text.
func (wk *intsWorker) row(cols [][]byte) error {
	if len(cols) != 1 || cols[0] == nil {
		return fmt.Errorf("%s: column %s%d of key %s: expected one integer, got %d values (or NULL)",
			wk.w.name, dialect.KVIntPrefix, wk.readCol, wk.keyArgs[0], len(cols))
	}
	odd, ok := oddDecimal(cols[0])
	if !ok {
		return fmt.Errorf("%s: column %s%d of key %s holds %q, not a decimal integer",
			wk.w.name, dialect.KVIntPrefix, wk.readCol, wk.keyArgs[0], truncate(cols[0]))
	}
	wk.odd = odd
	return nil
}

// rollback ends a failed transaction; its own error is ignored (the
// connection may be gone, or the server may have ended the transaction
// already). It runs even after ctx has ended, bounded by rollbackTimeout.
func (wk *intsWorker) rollback(ctx context.Context, c target.Conn) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rollbackTimeout)
	defer cancel()
	_, _ = c.Exec(rctx, wk.w.stmts.Rollback)
}

// Done has nothing to finish.
func (wk *intsWorker) Done(error) {}

// oddDecimal reports whether b, an optionally signed decimal integer, is odd;
// ok is false when b is not one.
func oddDecimal(b []byte) (odd, ok bool) {
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		b = b[1:]
	}
	if len(b) == 0 {
		return false, false
	}
	for _, ch := range b {
		if ch < '0' || ch > '9' {
			return false, false
		}
	}
	return (b[len(b)-1]-'0')%2 == 1, true
}

func truncate(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}

// span reports a statement (the runner drops the spans of an operation cut
// short by the end of the phase).
func span(s workload.Span, op workload.OpID, start, end time.Time, err error) {
	if s != nil {
		s.Span(op, start, end, err)
	}
}

func add(s workload.Span, counter int, n int64) {
	if ctr, ok := s.(workload.Counter); ok && n != 0 {
		ctr.Add(counter, n)
	}
}

// NewLoader returns a loader whose integers come from r.
func (w *Ints) NewLoader(id int, r *rand.Rand) workload.Loader {
	return &intsLoader{w: w, r: r, out: workload.RowWriter{Table: w.opts.Table, Columns: w.stmts.Columns, Insert: w.stmts.InsertRows}}
}

// intsLoader writes load batches; it is used by one goroutine.
type intsLoader struct {
	w    *Ints
	r    *rand.Rand
	key  []byte
	args []any
	rows [][]any
	out  workload.RowWriter
}

// LoadBatch inserts rows [from, to) with random 32-bit integers: with COPY
// when c is a target.Copier, else with multi-row INSERTs of at most
// MaxLoadBatch rows each.
func (l *intsLoader) LoadBatch(ctx context.Context, c target.Conn, from, to int64) error {
	w := l.w
	if !w.bound {
		return errors.New(w.name + ": LoadBatch before Bind")
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

// build fills args (key, c0.. per row) and rows for records [from, to).
func (l *intsLoader) build(from, to int64) {
	o := &l.w.opts
	n := int(to - from)
	per := o.Columns + 1
	l.args = l.args[:0]
	for i := 0; i < n; i++ {
		l.key = AppendKey(l.key[:0], from+int64(i), o.KeySize)
		l.args = append(l.args, string(l.key))
		for c := 0; c < o.Columns; c++ {
			l.args = append(l.args, randomInt32(l.r))
		}
	}
	l.rows = l.rows[:0]
	for i := 0; i < n; i++ {
		l.rows = append(l.rows, l.args[i*per:(i+1)*per:(i+1)*per])
	}
}

// DataSignature names the options that decide the loaded data.
func (w *Ints) DataSignature() string {
	return fmt.Sprintf("rows=%d key-size=%d columns=%d", w.opts.Rows, w.opts.KeySize, w.opts.Columns)
}
