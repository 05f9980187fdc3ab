// Package ycsb is YCSB 0.17.0's CoreWorkload (workloads A–F and any property
// file written for it) over SQL, shaped like YCSB's JDBC binding. Property
// files are parsed with Java's rules into typed Options; keys, key choice,
// operation mix and values follow CoreWorkload exactly where that is
// observable (docs/YCSB.md, "Reference facts"), and every deliberate difference is written
// next to the code that makes it.
//
// # Differences from YCSB 0.17.0
//
//   - Random values use the worker's math/rand source and are uniform over
//     printable ASCII 0x20..0x7E (YCSB's bit masks also emit 0x7F); the values
//     differ byte for byte anyway, their lengths do not.
//   - recordcount defaults to 1000 (YCSB: 0, read as 2147483647); 0 is an error.
//   - Invalid values are errors, never silently read: a boolean other than
//     true/false, an insertorder other than hashed/ordered, a negative count.
//     Blanks around numbers and names are tolerated.
//   - Chosen key numbers keep 64 bits (YCSB narrows them to int), identical
//     below 2^31 records.
//   - READ-MODIFY-WRITE skips its update after a read error other than
//     NOT_FOUND (YCSB updates regardless), so a retry does not repeat a write.
//   - readallfieldsbyname (post-0.17.0) is accepted; reads are SELECT * as in
//     the JDBC binding either way.
//   - Load-phase insert retries (core_workload_insertion_retry_*) are the
//     runner's; the options carry the two values.
package ycsb

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/candor-bench/candor/internal/cacheline"
	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/keydist"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

// Operation IDs, indexes into Ops(). The names are YCSB's measurement names.
const (
	OpRead workload.OpID = iota
	OpUpdate
	OpInsert
	OpScan
	OpReadModifyWrite
	OpVerify // present only with dataintegrity=true; reported through Span
)

var opNames = []string{"READ", "UPDATE", "INSERT", "SCAN", "READ-MODIFY-WRITE", "VERIFY"}

// Errors of the VERIFY measurement (dataintegrity=true), reported through
// Span only: the READ itself succeeded. ErrVerifyMismatch is YCSB's
// UNEXPECTED_STATE (returned data differs from what was written) and wraps
// target.ErrUnexpectedRows so it is classed alike; ErrVerifyNoData is YCSB's
// ERROR (no data came back to check).
var (
	ErrVerifyMismatch = fmt.Errorf("data integrity check failed: %w", target.ErrUnexpectedRows)
	ErrVerifyNoData   = errors.New("data integrity check: no data returned")
)

// Workload is one configured YCSB CoreWorkload. Besides workload.Workload it
// offers MaxLoadBatch (the runner clamps load batches to it) and the typed
// options through Config.
type Workload struct {
	name     string
	opts     Options
	ignored  []string
	warnings []string // Warnings

	// Set by Bind.
	bound      bool
	stmts      dialect.YCSBStatements
	insertRows int // rows per multi-row INSERT; 0 = no limit
	maxBatch   int // MaxLoadBatch

	// Shared by all workers (built once, on first use, by generators).
	genOnce    sync.Once
	opChooser  *keydist.Discrete
	opOf       []workload.OpID // opChooser index -> operation
	keyChooser keydist.Long
	// drawKey draws from keyChooser without recording a shared last value
	// (keydist.Drawer) where the chooser offers it: YCSB never reads a key
	// chooser's lastValue, and the shared store costs a cache line per draw.
	drawKey func(*rand.Rand) int64
	expKeys bool                         // requestdistribution=exponential: keys count back from the newest
	inserts *keydist.AcknowledgedCounter // run-phase insert keys, from recordcount
	// insertsOK counts the run-phase inserts that succeeded (Done with no
	// error) since BeforeRun read the rows there before the run (baseline,
	// -1: not read): the row count check (check.go) expects their sum.
	insertsOK  atomic.Int64
	baseline   atomic.Int64
	fieldNames []string
	allFields  []int // 0..fieldcount-1
	hashed     bool
}

var (
	_ workload.Workload = (*Workload)(nil)
	_ workload.Worker   = (*worker)(nil)
	_ workload.Loader   = (*loader)(nil)
)

// Name is "ycsb" or "ycsb/<variant>".
func (w *Workload) Name() string { return w.name }

// Reference names what this reproduces.
func (w *Workload) Reference() string { return Reference + " CoreWorkload" }

// Ops lists READ, UPDATE, INSERT, SCAN, READ-MODIFY-WRITE (all five, even with
// proportion 0, so results of different mixes line up), plus VERIFY with
// dataintegrity=true.
func (w *Workload) Ops() []string {
	if w.opts.DataIntegrity {
		return append([]string(nil), opNames...)
	}
	return append([]string(nil), opNames[:OpVerify]...)
}

// Options returns the resolved options (an Options value).
func (w *Workload) Options() any { return w.opts }

// Config returns the resolved options, typed.
func (w *Workload) Config() Options { return w.opts }

// Ignored lists the accepted properties candor does not use, sorted.
func (w *Workload) Ignored() []string { return append([]string(nil), w.ignored...) }

// Warnings implements workload.Warner: properties YCSB does not know
// (typos, with a close match when there is one), and an old class name read
// as CoreWorkload.
func (w *Workload) Warnings() []string { return append([]string(nil), w.warnings...) }

var _ workload.Warner = (*Workload)(nil)

// Limits returns operationcount, threadcount, target and maxexecutiontime.
func (w *Workload) Limits() workload.Limits {
	l := workload.Limits{
		Operations: w.opts.OperationCount,
		Threads:    w.opts.ThreadCount,
		Rate:       float64(w.opts.Target),
		Duration:   time.Duration(w.opts.MaxExecutionTime) * time.Second,
	}
	if w.opts.InsertionRetryLimit > 0 {
		// YCSB sleeps interval·(0.8..1.2) s between insert retries; candor
		// sleeps the nominal interval.
		l.LoadRetries = w.opts.InsertionRetryLimit
		l.LoadRetryInterval = time.Duration(w.opts.InsertionRetryInterval) * time.Second
	}
	return l
}

// Schema is the one YCSB table with its CREATE TABLE in the bound dialect
// (nil before Bind).
func (w *Workload) Schema() []workload.Table {
	if !w.bound {
		return nil
	}
	return []workload.Table{{Name: w.opts.Table, Create: w.stmts.CreateTable}}
}

// LoadRange is [insertstart, insertstart+insertcount).
func (w *Workload) LoadRange() (start, count int64) { return w.opts.InsertStart, w.opts.InsertCount }

// ApproxRowBytes is a record's size (runner.RowSizer): its key ("user"
// and up to 20 digits) and fieldcount fields of at most fieldlength bytes.
func (w *Workload) ApproxRowBytes() int64 {
	return 24 + int64(w.opts.FieldCount)*int64(w.opts.FieldLength)
}

// Bind builds the statements for env's dialect. YCSB needs nothing beyond
// single-row SQL; bulk loading uses COPY when the connection offers it, else a
// multi-row INSERT when the target declares one, else one INSERT per record.
func (w *Workload) Bind(env workload.Env) error {
	if env.Dialect.Placeholder == "" {
		return errors.New("ycsb: the target's dialect is not set (no placeholder style)")
	}
	perRow := w.opts.FieldCount + 1
	limit := env.Dialect.MaxBindParams
	if p := env.Capabilities.MaxBindParams; p > 0 && (limit == 0 || p < limit) {
		limit = p
	}
	if limit > 0 && perRow > limit {
		return fmt.Errorf("ycsb: fieldcount=%d needs %d bind parameters per INSERT, more than the target's limit of %d; lower fieldcount",
			w.opts.FieldCount, perRow, limit)
	}
	w.stmts = dialect.YCSB(env.Dialect, w.opts.Table, w.opts.FieldCount)
	switch {
	case !env.Capabilities.MultiRowInsert:
		w.insertRows = 1
	case limit > 0:
		w.insertRows = limit / perRow
	default:
		w.insertRows = 0 // no limit: one statement per batch
	}
	w.maxBatch = w.insertRows
	if env.Capabilities.CopyFrom {
		w.maxBatch = 0
	}
	w.bound = true
	w.generators()
	return nil
}

// MaxLoadBatch is the most records one LoadBatch call writes in one statement
// (0 = no limit): the bind-parameter limit for a multi-row INSERT, 1 without
// multi-row INSERT, no limit with COPY. LoadBatch splits a larger range into
// several statements, so the limit is an efficiency hint for the runner.
func (w *Workload) MaxLoadBatch() int { return w.maxBatch }

// generators builds the generators all workers share, once. Building the
// latest chooser costs O(recordcount) (zeta), so it is not done by New.
func (w *Workload) generators() {
	w.genOnce.Do(func() {
		o := &w.opts
		// DiscreteGenerator: only positive proportions, in YCSB's order.
		props := []struct {
			p  float64
			op workload.OpID
		}{
			{o.ReadProportion, OpRead}, {o.UpdateProportion, OpUpdate}, {o.InsertProportion, OpInsert},
			{o.ScanProportion, OpScan}, {o.ReadModifyWriteProportion, OpReadModifyWrite},
		}
		var weights []float64
		for _, x := range props {
			if x.p > 0 {
				weights = append(weights, x.p)
				w.opOf = append(w.opOf, x.op)
			}
		}
		w.opChooser = keydist.NewDiscrete(weights)
		w.inserts = keydist.NewAcknowledgedCounter(o.RecordCount)
		lo, hi := o.InsertStart, o.InsertStart+o.InsertCount-1
		switch o.RequestDistribution {
		case "uniform":
			w.keyChooser = keydist.NewUniform(lo, hi)
		case "sequential":
			w.keyChooser = keydist.NewSequential(lo, hi)
		case "zipfian":
			// The chooser's range covers the keys inserts are expected to
			// add, so the hot set does not move as they arrive; keys not
			// inserted yet are redrawn by nextKeynum. Max is inclusive.
			w.keyChooser = keydist.NewScrambledZipfian(lo, o.InsertStart+o.InsertCount+o.ExpectedNewKeys)
		case "latest":
			w.keyChooser = keydist.NewSkewedLatest(w.inserts)
		case "hotspot":
			w.keyChooser = keydist.NewHotspot(lo, hi, o.HotspotDataFraction, o.HotspotOpnFraction)
		case "exponential":
			w.keyChooser = keydist.NewExponential(o.ExponentialPercentile, float64(o.RecordCount)*o.ExponentialFrac)
			w.expKeys = true
		}
		w.drawKey = w.keyChooser.Next
		if d, ok := w.keyChooser.(keydist.Drawer); ok {
			w.drawKey = d.Draw
		}
		w.fieldNames = make([]string, o.FieldCount)
		for i := range w.fieldNames {
			w.fieldNames[i] = o.FieldNamePrefix + strconv.Itoa(i)
		}
		w.allFields = make([]int, o.FieldCount)
		for i := range w.allFields {
			w.allFields[i] = i
		}
		w.hashed = o.InsertOrder == "hashed"
	})
}

// nextKeynum is CoreWorkload.nextKeynum: a key number never above the newest
// acknowledged run-phase insert. YCSB narrows the chooser's value to a Java
// int first; candor keeps 64 bits, which is the same below 2^31 records.
func (w *Workload) nextKeynum(r *rand.Rand) int64 {
	if w.expKeys {
		for {
			if k := w.inserts.Last() - w.drawKey(r); k >= 0 {
				return k
			}
		}
	}
	for {
		if k := w.drawKey(r); k <= w.inserts.Last() {
			return k
		}
	}
}

// NewWorker returns a run-phase worker. The key chooser, operation chooser
// and insert counter are shared; field, length and scan-length generators
// and all buffers are the worker's own.
func (w *Workload) NewWorker(id int, r *rand.Rand) workload.Worker {
	w.generators()
	o := &w.opts
	wk := &worker{
		w:        w,
		r:        r,
		fieldGen: keydist.NewUniform(0, int64(o.FieldCount-1)),
		lenGen:   newLengthGen(o),
		keyArgs:  cacheline.Slice[any](1),
		scanArgs: cacheline.Slice[any](2),
		rowArgs:  make([]any, 0, o.FieldCount+1),
		writeIdx: make([]int, 0, o.FieldCount),
		offs:     make([]int, 0, o.FieldCount+1),
		cells:    make([][]byte, o.FieldCount),
	}
	if o.ScanLengthDistribution == "zipfian" {
		wk.scanGen = keydist.NewZipfian(int64(o.MinScanLength), int64(o.MaxScanLength), keydist.ZipfianConstant)
	} else {
		wk.scanGen = keydist.NewUniform(int64(o.MinScanLength), int64(o.MaxScanLength))
	}
	wk.onRow = wk.row
	wk.onScanRow = func([][]byte) error { return nil }
	return wk
}

// worker is one run-phase worker; it is used by one goroutine.
type worker struct {
	_        cacheline.Pad // see package cacheline
	w        *Workload
	r        *rand.Rand
	fieldGen keydist.Long
	lenGen   lengthGen
	scanGen  keydist.Long

	// The operation chosen by Next.
	op        workload.OpID
	keynum    int64
	key       []byte // key name bytes (reused)
	readField int    // field requested by a read/scan/RMW read; -1 = all
	writeIdx  []int  // fields written by an update/RMW, in order
	updateSQL string
	scanLen   int64
	pending   bool // an insert key awaits acknowledgement in Done

	// Reused buffers.
	vals      []byte // values of the written fields, back to back
	offs      []int  // vals[offs[i]:offs[i+1]] is the i-th written value
	keyArgs   []any  // [key]
	scanArgs  []any  // [start key, limit]
	rowArgs   []any  // update: values then key; insert: key then values
	cells     [][]byte
	nCells    int
	expect    []byte
	onRow     func([][]byte) error
	onScanRow func([][]byte) error
	ackErr    error
	_         cacheline.Pad
}

// Next chooses the operation, key and values, drawing from the worker's
// generator in YCSB's order (operation, key, then read field / scan length /
// values). A run-phase INSERT takes its key from the shared insert counter
// here; Done acknowledges it.
func (wk *worker) Next() workload.OpID {
	w := wk.w
	o := &w.opts
	i := w.opChooser.NextIndex(wk.r)
	if i < 0 {
		i = 0 // cannot happen: options guarantee a positive weight
	}
	wk.op = w.opOf[i]
	wk.readField = -1
	switch wk.op {
	case OpInsert:
		wk.keynum = w.inserts.Next(nil)
		wk.pending = true
		wk.setKey()
		wk.writeIdx = append(wk.writeIdx[:0], w.allFields...)
		wk.buildValues()
		wk.rowArgs = append(wk.rowArgs[:0], wk.keyArgs[0])
		wk.appendValueArgs()
	case OpRead, OpScan:
		wk.keynum = w.nextKeynum(wk.r)
		wk.setKey()
		if wk.op == OpScan {
			wk.scanLen = wk.scanGen.Next(wk.r)
			wk.scanArgs[0], wk.scanArgs[1] = wk.keyArgs[0], wk.scanLen
		}
		wk.chooseReadField()
	case OpUpdate, OpReadModifyWrite:
		wk.keynum = w.nextKeynum(wk.r)
		wk.setKey()
		if wk.op == OpReadModifyWrite {
			wk.chooseReadField()
		}
		if o.WriteAllFields {
			wk.writeIdx = append(wk.writeIdx[:0], w.allFields...)
		} else {
			wk.writeIdx = append(wk.writeIdx[:0], int(wk.fieldGen.Next(wk.r)))
		}
		wk.buildValues()
		wk.rowArgs = wk.rowArgs[:0]
		wk.appendValueArgs()
		wk.rowArgs = append(wk.rowArgs, wk.keyArgs[0])
		if w.bound {
			wk.updateSQL = w.stmts.Update(wk.writeIdx)
		}
	}
	return wk.op
}

// setKey builds the key name of wk.keynum.
func (wk *worker) setKey() {
	o := &wk.w.opts
	wk.key = appendKeyName(wk.key[:0], wk.keynum, o.ZeroPadding, wk.w.hashed)
	wk.keyArgs[0] = string(wk.key)
}

// chooseReadField draws the one field a read asks for when readallfields=false
// (YCSB passes a one-field set; the JDBC binding still selects *).
func (wk *worker) chooseReadField() {
	if !wk.w.opts.ReadAllFields {
		wk.readField = int(wk.fieldGen.Next(wk.r))
	}
}

// buildValues fills vals with one value per field in writeIdx: random
// printable bytes of a drawn length, or the deterministic value with
// dataintegrity=true.
func (wk *worker) buildValues() {
	wk.vals, wk.offs = buildValues(&wk.w.opts, wk.w.fieldNames, wk.r, wk.lenGen, wk.key, wk.writeIdx, wk.vals[:0], wk.offs[:0])
}

func buildValues(o *Options, names []string, r *rand.Rand, lenGen lengthGen, key []byte, fields []int, vals []byte, offs []int) ([]byte, []int) {
	offs = append(offs, len(vals))
	for _, f := range fields {
		n := int(lenGen.Next(r))
		if o.DataIntegrity {
			vals = appendDeterministic(vals, key, names[f], n)
		} else {
			start := len(vals)
			vals = append(vals, make([]byte, n)...)
			fillRandom(r, vals[start:])
		}
		offs = append(offs, len(vals))
	}
	return vals, offs
}

// appendValueArgs appends the values in vals as strings to rowArgs. One string
// holds them all, so an operation allocates it once.
func (wk *worker) appendValueArgs() {
	s := string(wk.vals)
	for i := 0; i+1 < len(wk.offs); i++ {
		wk.rowArgs = append(wk.rowArgs, s[wk.offs[i]:wk.offs[i+1]])
	}
}

// Exec performs the chosen operation on c. Results as in YCSB's JDBC binding:
// a read that finds no row returns target.ErrNotFound; an update or insert
// that affects other than one row returns target.ErrUnexpectedRows; a scan
// succeeds whatever it returns. It may be called again to retry.
func (wk *worker) Exec(ctx context.Context, c target.Conn, s workload.Span) error {
	if err := wk.ackErr; err != nil {
		wk.ackErr = nil
		return err
	}
	w := wk.w
	if !w.bound {
		return errors.New("ycsb: Exec before Bind")
	}
	switch wk.op {
	case OpRead:
		err := wk.read(ctx, c)
		wk.verify(ctx, s)
		return err
	case OpUpdate:
		return wk.update(ctx, c)
	case OpInsert:
		n, err := c.Exec(ctx, w.stmts.Insert, wk.rowArgs...)
		return affectedOne("INSERT", n, err)
	case OpScan:
		_, err := c.Query(ctx, w.stmts.Scan, wk.scanArgs, wk.onScanRow)
		return err
	case OpReadModifyWrite:
		// Read, then update the same key; the runner times the whole as
		// READ-MODIFY-WRITE and these spans feed READ and UPDATE, as
		// YCSB's DBWrapper measures both parts. YCSB 0.17.0 updates even
		// when the read found nothing (the update then fails too); candor
		// does that for a missing row but stops after any other read error,
		// so a broken session or a retryable conflict is not followed by a
		// write the retry would repeat.
		t0 := time.Now()
		rerr := wk.read(ctx, c)
		t1 := time.Now()
		s.Span(OpRead, t0, t1, rerr)
		if rerr != nil && !errors.Is(rerr, target.ErrNotFound) {
			wk.verify(ctx, s)
			return rerr
		}
		uerr := wk.update(ctx, c)
		s.Span(OpUpdate, t1, time.Now(), uerr)
		wk.verify(ctx, s)
		if rerr != nil {
			return rerr
		}
		return uerr
	}
	return fmt.Errorf("ycsb: no operation chosen (call Next first)")
}

func (wk *worker) read(ctx context.Context, c target.Conn) error {
	wk.nCells = 0
	n, err := c.Query(ctx, wk.w.stmts.Read, wk.keyArgs, wk.onRow)
	if err != nil {
		return err
	}
	if n == 0 {
		return target.ErrNotFound
	}
	return nil
}

// row keeps the field values of a read row when they will be verified.
func (wk *worker) row(cols [][]byte) error {
	if !wk.w.opts.DataIntegrity {
		return nil
	}
	// cols are YCSB_KEY, FIELD0, ... (SELECT * in table order).
	wk.nCells = 0
	for i := 1; i < len(cols) && i-1 < len(wk.cells); i++ {
		wk.cells[i-1] = append(wk.cells[i-1][:0], cols[i]...)
		wk.nCells++
	}
	return nil
}

// verify is CoreWorkload.verifyRow with dataintegrity=true: it compares the
// fields the read asked for with their deterministic values and reports the
// time and outcome as VERIFY. No data is YCSB's ERROR.
func (wk *worker) verify(ctx context.Context, s workload.Span) {
	o := &wk.w.opts
	if !o.DataIntegrity || ctx.Err() != nil {
		return
	}
	start := time.Now()
	var err error
	switch {
	case wk.nCells == 0:
		err = ErrVerifyNoData
	case wk.readField >= 0:
		err = wk.checkField(wk.readField)
	default:
		for f := 0; f < o.FieldCount && err == nil; f++ {
			err = wk.checkField(f)
		}
	}
	s.Span(OpVerify, start, time.Now(), err)
}

func (wk *worker) checkField(f int) error {
	if f >= wk.nCells {
		return ErrVerifyMismatch
	}
	wk.expect = appendDeterministic(wk.expect[:0], wk.key, wk.w.fieldNames[f], wk.w.opts.FieldLength)
	if !bytes.Equal(wk.cells[f], wk.expect) {
		return ErrVerifyMismatch
	}
	return nil
}

func (wk *worker) update(ctx context.Context, c target.Conn) error {
	n, err := c.Exec(ctx, wk.updateSQL, wk.rowArgs...)
	return affectedOne("UPDATE", n, err)
}

func affectedOne(stmt string, n int64, err error) error {
	if err != nil {
		return err
	}
	if n != 1 {
		return fmt.Errorf("%s affected %d rows, expected 1: %w", stmt, n, target.ErrUnexpectedRows)
	}
	return nil
}

// Done finishes the operation. A run-phase INSERT acknowledges its key
// whether it succeeded or not, as YCSB does in a finally block: readers may
// then choose a key whose insert failed (and get NOT_FOUND), but the insert
// counter never stalls behind a failed key. An acknowledgement error (more
// than keydist.AckWindow inserts outstanding, a runner bug) is returned by the
// worker's next Exec.
func (wk *worker) Done(err error) {
	if wk.pending {
		wk.pending = false
		if err == nil {
			wk.w.insertsOK.Add(1)
		}
		if aerr := wk.w.inserts.Acknowledge(wk.keynum); aerr != nil {
			wk.ackErr = fmt.Errorf("ycsb: run-phase insert key %d: %w", wk.keynum, aerr)
		}
	}
}

// NewLoader returns a loader for one load worker; its values come from r.
func (w *Workload) NewLoader(id int, r *rand.Rand) workload.Loader {
	w.generators()
	return &loader{w: w, r: r, lenGen: newLengthGen(&w.opts),
		out: workload.RowWriter{Table: w.opts.Table, Columns: w.stmts.Columns, Insert: w.stmts.InsertRows}}
}

// loader writes load-phase batches; it is used by one goroutine.
type loader struct {
	w      *Workload
	r      *rand.Rand
	lenGen lengthGen
	key    []byte
	vals   []byte
	offs   []int
	args   []any
	rows   [][]any
	out    workload.RowWriter
}

// LoadBatch inserts records [from, to): with COPY when c is a target.Copier,
// else with multi-row INSERTs of at most MaxLoadBatch rows (one statement
// when the runner respects MaxLoadBatch). Each record is key
// buildKeyName(keynum) and fieldcount values, random from the loader's
// generator or deterministic with dataintegrity=true.
func (l *loader) LoadBatch(ctx context.Context, c target.Conn, from, to int64) error {
	w := l.w
	if !w.bound {
		return errors.New("ycsb: LoadBatch before Bind")
	}
	if from >= to {
		return nil
	}
	step := to - from // COPY takes the whole batch
	if _, copying := c.(target.Copier); !copying && w.insertRows > 0 {
		step = int64(w.insertRows)
	}
	for lo := from; lo < to; lo += step {
		hi := min(lo+step, to)
		l.build(lo, hi)
		if err := l.out.Write(ctx, c, l.rows, l.args); err != nil {
			return fmt.Errorf("records %d..%d: %w", lo, hi-1, err)
		}
	}
	return nil
}

// build fills args (flat, row by row) and rows (one slice per row over args)
// for records [from, to).
func (l *loader) build(from, to int64) {
	o := &l.w.opts
	n := int(to - from)
	per := o.FieldCount + 1
	l.vals, l.offs = l.vals[:0], l.offs[:0]
	keys := make([]string, n)
	for i := 0; i < n; i++ {
		l.key = appendKeyName(l.key[:0], from+int64(i), o.ZeroPadding, l.w.hashed)
		keys[i] = string(l.key)
		l.vals, l.offs = buildValues(o, l.w.fieldNames, l.r, l.lenGen, l.key, l.w.allFields, l.vals, l.offs)
	}
	s := string(l.vals)
	l.args = l.args[:0]
	for i := 0; i < n; i++ {
		l.args = append(l.args, keys[i])
		offs := l.offs[i*(o.FieldCount+1):]
		for f := 0; f < o.FieldCount; f++ {
			l.args = append(l.args, s[offs[f]:offs[f+1]])
		}
	}
	l.rows = l.rows[:0]
	for i := 0; i < n; i++ {
		l.rows = append(l.rows, l.args[i*per:(i+1)*per:(i+1)*per])
	}
}

// DataSignature names the options that decide a loaded record's key,
// field names and values (the CLI reloads a table that was loaded with
// others). Which records a table holds is left out: the table's mark
// records the records each load inserted (internal/tables), and a run
// needs the table to hold its records [insertstart, insertstart +
// insertcount). recordcount alone does not decide the data: YCSB runs name
// the current recordcount after inserts (where the next inserts start),
// and several clients load slices of one table.
func (w *Workload) DataSignature() string {
	o := &w.opts
	sig := fmt.Sprintf("fieldcount=%d fieldlength=%d minfieldlength=%d fieldlengthdistribution=%s insertorder=%s zeropadding=%d dataintegrity=%t",
		o.FieldCount, o.FieldLength, o.MinFieldLength, o.FieldLengthDistribution, o.InsertOrder, o.ZeroPadding, o.DataIntegrity)
	// Added only when they differ from YCSB's defaults, so that the tables
	// of earlier versions keep their signature.
	if o.FieldNamePrefix != "field" {
		sig += " fieldnameprefix=" + o.FieldNamePrefix
	}
	if o.Histogram != nil {
		sig += fmt.Sprintf(" fieldlengthhistogram=%d:%v", o.Histogram.BlockSize, o.Histogram.Buckets)
	}
	return sig
}
