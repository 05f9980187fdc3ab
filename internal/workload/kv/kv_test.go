package kv

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/keydist"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

// Keys are 'k' and the zero-padded record number, exactly key-size bytes.
func TestAppendKey(t *testing.T) {
	cases := []struct {
		n    int64
		size int
		want string
	}{
		{42, 6, "k00042"}, // padded
		{0, 3, "k00"},     // record 0
		{99, 3, "k99"},    // no room to spare
		{123456789, 10, "k123456789"},
		{42, 50, "k" + strings.Repeat("0", 47) + "42"}, // the published 50 bytes
	}
	for _, c := range cases {
		if got := string(AppendKey(nil, c.n, c.size)); got != c.want {
			t.Errorf("AppendKey(%d, %d) = %q, want %q", c.n, c.size, got, c.want)
		}
	}
	if got := KeyWidth(500000); got != 7 { // 'k' + "499999"
		t.Errorf("KeyWidth(500000) = %d, want 7", got)
	}
	if got := KeyWidth(1); got != 2 { // 'k' + "0"
		t.Errorf("KeyWidth(1) = %d, want 2", got)
	}
}

// Option validation: every problem of one input is reported, with the name
// of the option at fault.
func TestOptionErrors(t *testing.T) {
	cases := []struct {
		name  string
		build func() error
		want  []string
	}{
		{"unknown option", func() error { _, err := NewBasic(nil, []string{"colour=red"}); return err },
			[]string{`unknown option "colour"`, "key-size, pairs, table, value-size"}},
		{"not name=value", func() error { _, err := NewBasic(nil, []string{"pairs"}); return err },
			[]string{`"pairs": expected name=value`}},
		{"several errors at once", func() error {
			_, err := NewBasic(nil, []string{"pairs=0", "value-size=x", "table=1bad"})
			return err
		}, []string{`pairs="0": must be between 1`, `value-size="x": not an integer`, `table="1bad"`}},
		{"payload too large", func() error { _, err := NewBasic(nil, []string{"value-size=2000000"}); return err },
			[]string{"value-size", "1048576"}},
		{"key too short for the pairs", func() error { _, err := NewBasic(nil, []string{"pairs=1000", "key-size=3"}); return err },
			[]string{"key-size", "need 4 characters"}},
		{"property files refused", func() error { _, err := NewInts([]string{"w.properties"}, nil); return err },
			[]string{"takes no property files", "w.properties"}},
		{"batch is kv-ints-batch's alone", func() error { _, err := NewInts(nil, []string{"batch=5"}); return err },
			[]string{`unknown option "batch"`}},
		{"batch of zero", func() error { _, err := NewBatch(nil, []string{"batch=0"}); return err },
			[]string{`batch="0": must be between 1`}},
		{"columns out of range", func() error { _, err := NewInts(nil, []string{"columns=1001"}); return err },
			[]string{"columns"}},
		{"marker table name", func() error { _, err := NewInts(nil, []string{"table=candor_owned_tables"}); return err },
			[]string{"marker table"}},
	}
	for _, c := range cases {
		err := c.build()
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not mention %q", c.name, err, w)
			}
		}
	}
}

// Defaults are the published sizes, underscores are accepted for dashes, and
// the CLI's operationcount becomes the operation limit.
func TestOptionsResolved(t *testing.T) {
	b, err := NewBasic(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if o := b.Config(); o.Pairs != 500000 || o.KeySize != 50 || o.ValueSize != 12288 || o.Table != "kv_basic" {
		t.Errorf("kv-basic defaults %+v", o)
	}
	i, err := NewBatch(nil, []string{"key_size=20", "operationcount=7", "rows=10"})
	if err != nil {
		t.Fatal(err)
	}
	o := i.Config()
	if o.KeySize != 20 || o.Rows != 10 || o.Columns != 50 || o.Batch != 10 || o.Atomicity != "transaction" || o.Table != "kv_ints_batch" {
		t.Errorf("kv-ints-batch options %+v", o)
	}
	if i.Limits().Operations != 7 {
		t.Errorf("Limits %+v, want 7 operations", i.Limits())
	}
	if o := mustInts(t, nil).Config(); o.Batch != 1 || o.Atomicity != "none" || o.Table != "kv_ints" {
		t.Errorf("kv-ints options %+v", o)
	}
}

func mustInts(t *testing.T, props []string) *Ints {
	w, err := NewInts(nil, props)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// The three names are registered and build their workloads.
func TestRegistered(t *testing.T) {
	for _, name := range []string{"kv-basic", "kv-ints", "kv-ints-batch"} {
		e, _, err := workload.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		w, err := e.New("", nil, []string{"table=t_" + strings.ReplaceAll(name, "-", "_")})
		if err != nil {
			t.Fatal(err)
		}
		if w.Name() != name || len(e.Options) == 0 {
			t.Errorf("%s built %s with %d options", name, w.Name(), len(e.Options))
		}
	}
}

// Bind refuses what the target cannot do: kv-ints-batch without transactions,
// a row wider than the bind-parameter limit.
func TestBindRefuses(t *testing.T) {
	noTx := workload.Env{Dialect: dialect.SQLite, Capabilities: target.Capabilities{MultiRowInsert: true}}
	w, _ := NewBatch(nil, nil)
	if err := w.Bind(noTx); err == nil || !strings.Contains(err.Error(), "transaction") {
		t.Errorf("kv-ints-batch without transactions: %v", err)
	}
	// the same target is fine for kv-ints, which needs none
	if err := mustInts(t, nil).Bind(noTx); err != nil {
		t.Errorf("kv-ints without transactions: %v", err)
	}
	tight := workload.Env{Dialect: dialect.SQLite, Capabilities: target.Capabilities{Transactions: true, MaxBindParams: 40}}
	if err := mustInts(t, nil).Bind(tight); err == nil || !strings.Contains(err.Error(), "51 bind parameters") {
		t.Errorf("50 columns under a 40-parameter limit: %v", err)
	}
	if err := mustInts(t, nil).Bind(workload.Env{}); err == nil {
		t.Error("Bind without a dialect succeeded")
	}
}

// MaxLoadBatch: the bind-parameter limit, at most about 4 MiB of rows, one
// row without multi-row INSERT.
func TestMaxLoadBatch(t *testing.T) {
	cases := []struct {
		name string
		w    interface{ MaxLoadBatch() int }
		want int
	}{
		{"12 KB payloads, INSERT", boundBasic(t, sqliteEnv), (4 << 20) / (50 + 12288)},     // payload cap
		{"12 KB payloads, COPY", boundBasic(t, copyEnv), (4 << 20) / (50 + 12288)},         // COPY capped too
		{"10-byte payloads, INSERT", boundBasic(t, sqliteEnv, "value-size=10"), 32766 / 2}, // parameter cap
		{"10-byte payloads, COPY", boundBasic(t, copyEnv, "value-size=10"), (4 << 20) / 60},
		{"50 ints, SQLite", boundInts(t, false, sqliteEnv), 32766 / 51},
		{"no multi-row INSERT", boundBasic(t, workload.Env{Dialect: dialect.SQLite}), 1},
	}
	for _, c := range cases {
		if got := c.w.MaxLoadBatch(); got != c.want {
			t.Errorf("%s: MaxLoadBatch = %d, want %d", c.name, got, c.want)
		}
	}
}

// Loading writes every pair once with exact key and payload sizes, in
// statements no larger than MaxLoadBatch, through INSERT and through COPY.
func TestBasicLoad(t *testing.T) {
	for _, copying := range []bool{false, true} {
		env := sqliteEnv
		if copying {
			env = copyEnv
		}
		w := boundBasic(t, env, "pairs=1000", "value-size=20000")
		db := newBasicDB(w.Statements())
		var c target.Conn = &fakeConn{db}
		if copying {
			c = copyConn{&fakeConn{db}}
		}
		loadAll(t, w, c)
		if len(db.payloads) != 1000 {
			t.Fatalf("copy=%v: %d pairs loaded, want 1000", copying, len(db.payloads))
		}
		for k, p := range db.payloads {
			if len(k) != 50 || len(p) != 20000 {
				t.Fatalf("copy=%v: key %q (%d bytes) payload %d bytes", copying, k, len(k), len(p))
			}
		}
		for _, n := range []int64{0, 999} {
			if _, ok := db.payloads[string(AppendKey(nil, n, 50))]; !ok {
				t.Errorf("copy=%v: record %d missing", copying, n)
			}
		}
		per := (4 << 20) / (50 + 20000)
		statements := len(db.calls) + db.copies
		if want := (1000 + per - 1) / per; statements != want {
			t.Errorf("copy=%v: %d statements, want %d of at most %d rows", copying, statements, want, per)
		}
	}
}

// KV-1 mix: over 20k operations reads and writes are each half within 0.02
// (one standard deviation is 0.0035). Reads use the first key drawn, writes
// the second, with a payload of exactly value-size new bytes.
func TestBasicMix(t *testing.T) {
	w := boundBasic(t, sqliteEnv, "pairs=1000", "value-size=300")
	db := newBasicDB(w.Statements())
	c := &fakeConn{db}
	loadAll(t, w, c)
	db.calls = nil

	const n = 20000
	wk := w.NewWorker(0, newRand(7))
	// a twin generator replays the draws: key A, key B, coin, payload
	twin := newRand(7)
	u := keydist.NewUniform(0, 999).(keydist.Drawer)
	payload := make([]byte, 300)
	counts := map[workload.OpID]int{}
	for i := 0; i < n; i++ {
		op := wk.Next()
		counts[op]++
		if err := wk.Exec(ctx, c, &spanLog{}); err != nil {
			t.Fatal(err)
		}
		a, b := u.Draw(twin), u.Draw(twin)
		wantOp := OpBasicRead
		if twin.Uint64()>>63 == 1 {
			wantOp = OpBasicWrite
			fillRandom(twin, payload)
		}
		last := db.calls[len(db.calls)-1]
		switch {
		case op != wantOp:
			t.Fatalf("op %d: %s, the draws say %s", i, basicOps[op], basicOps[wantOp])
		case op == OpBasicRead && (last.sql != w.Statements().Read || last.args[0] != string(AppendKey(nil, a, 50))):
			t.Fatalf("op %d: read %v, want key A=%d", i, last, a)
		case op == OpBasicWrite && (last.sql != w.Statements().Write || last.args[1] != string(AppendKey(nil, b, 50))):
			t.Fatalf("op %d: write %q %v, want key B=%d", i, last.sql, last.args[1], b)
		case op == OpBasicWrite && string(last.args[0].([]byte)) != string(payload):
			t.Fatalf("op %d: payload differs from the draws", i)
		case op == OpBasicWrite && len(last.args[0].([]byte)) != 300:
			t.Fatalf("op %d: payload of %d bytes", i, len(last.args[0].([]byte)))
		}
	}
	for _, op := range []workload.OpID{OpBasicRead, OpBasicWrite} {
		if share := float64(counts[op]) / n; math.Abs(share-0.5) > 0.02 {
			t.Errorf("%s share %.4f, want 0.5", basicOps[op], share)
		}
	}
}

// A read of a missing key is NOT_FOUND, a write of one UNEXPECTED_STATE.
func TestBasicMissingKey(t *testing.T) {
	w := boundBasic(t, sqliteEnv, "pairs=10", "value-size=8")
	c := &fakeConn{newBasicDB(w.Statements())} // nothing loaded
	wk := w.NewWorker(0, newRand(1))
	seen := map[workload.OpID]bool{}
	for i := 0; i < 50 && len(seen) < 2; i++ {
		op := wk.Next()
		err := wk.Exec(ctx, c, &spanLog{})
		want := target.ErrNotFound
		if op == OpBasicWrite {
			want = target.ErrUnexpectedRows
		}
		if !errors.Is(err, want) {
			t.Fatalf("%s of a missing key: %v, want %v", basicOps[op], err, want)
		}
		seen[op] = true
	}
}

// oddDecimal reads the parity of signed decimal text and rejects the rest.
func TestOddDecimal(t *testing.T) {
	cases := []struct {
		in      string
		odd, ok bool
	}{
		{"0", false, true}, {"7", true, true}, {"-3", true, true}, {"-2147483648", false, true},
		{"2147483647", true, true}, {"+5", true, true},
		{"", false, false}, {"-", false, false}, {"x", false, false}, {"1.5", false, false}, {"\x00\x00\x00\x01", false, false},
	}
	for _, c := range cases {
		if odd, ok := oddDecimal([]byte(c.in)); odd != c.odd || ok != c.ok {
			t.Errorf("oddDecimal(%q) = %v, %v; want %v, %v", c.in, odd, ok, c.odd, c.ok)
		}
	}
}

// KV-2 rule: a write happens exactly when the value read is odd, into column
// B of the same key with the value drawn in Next. The fake answers each read
// with a chosen value: odd for even-numbered columns, even for odd-numbered.
func TestIntsWriteOnlyWhenOdd(t *testing.T) {
	w := boundInts(t, false, sqliteEnv, "rows=100")
	db := newIntsDB(w.Statements())
	c := &fakeConn{db}
	loadAll(t, w, c)
	db.answer = func(key string, col int) int64 {
		if col%2 == 0 {
			return int64(-2*col - 1) // odd (negative on purpose)
		}
		return int64(2 * col)
	}
	wk := w.NewWorker(0, newRand(3)).(*intsWorker)
	for i := 0; i < 2000; i++ {
		db.calls = nil
		if op := wk.Next(); op != OpIntsWhole {
			t.Fatalf("Next = %d, want the whole operation", op)
		}
		log := &spanLog{}
		if err := wk.Exec(ctx, c, log); err != nil {
			t.Fatal(err)
		}
		a, b, key := wk.a[0], wk.b[0], wk.keyArgs[0]
		if db.calls[0].sql != w.Statements().Read[a] || db.calls[0].args[0] != key {
			t.Fatalf("first statement %v, want the read of column %d of %v", db.calls[0], a, key)
		}
		odd := a%2 == 0
		switch {
		case odd && len(db.calls) != 2:
			t.Fatalf("column %d read odd but %d statements followed", a, len(db.calls)-1)
		case odd && (db.calls[1].sql != w.Statements().Write[b] || db.calls[1].args[0] != wk.vals[0] || db.calls[1].args[1] != key):
			t.Fatalf("write %v, want column %d of %v := %d", db.calls[1], b, key, wk.vals[0])
		case !odd && len(db.calls) != 1:
			t.Fatalf("column %d read even but a write followed: %v", a, db.calls[1:])
		}
		wantSpans := []workload.OpID{OpIntsRead}
		if odd {
			wantSpans = append(wantSpans, OpIntsWrite)
		}
		if len(log.spans) != len(wantSpans) || log.spans[len(log.spans)-1] != wantSpans[len(wantSpans)-1] {
			t.Fatalf("spans %v, want %v", log.spans, wantSpans)
		}
	}
}

// KV-2 on random loaded data: about half the reads are odd, so reads:writes
// ≈ 2:1 (writes/reads within 0.02 of 0.5 over 20k operations; one standard
// deviation is 0.0035), and the counters agree with the spans. Every loaded
// key is exactly key-size bytes.
func TestIntsRatio(t *testing.T) {
	w := boundInts(t, false, sqliteEnv, "rows=500")
	db := newIntsDB(w.Statements())
	c := &fakeConn{db}
	loadAll(t, w, c)
	if len(db.rows) != 500 {
		t.Fatalf("%d rows loaded", len(db.rows))
	}
	odd := 0
	for k, r := range db.rows {
		if len(k) != 50 || len(r) != 50 {
			t.Fatalf("row %q of %d columns", k, len(r))
		}
		for _, v := range r {
			if v < math.MinInt32 || v > math.MaxInt32 {
				t.Fatalf("loaded value %d is not 32-bit", v)
			}
			odd += int(v & 1)
		}
	}
	if share := float64(odd) / (500 * 50); math.Abs(share-0.5) > 0.02 {
		t.Errorf("odd share of loaded values %.4f, want 0.5", share)
	}
	const n = 20000
	wk := w.NewWorker(0, newRand(11))
	log := &spanLog{}
	writes := 0
	for i := 0; i < n; i++ {
		wk.Next()
		if err := wk.Exec(ctx, c, log); err != nil {
			t.Fatal(err)
		}
	}
	for _, op := range log.spans {
		if op == OpIntsWrite {
			writes++
		}
	}
	if r := float64(writes) / n; math.Abs(r-0.5) > 0.02 {
		t.Errorf("writes/reads = %.4f, want 0.5", r)
	}
	if log.counters[CounterReads] != n || log.counters[CounterOddWrites] != int64(writes) {
		t.Errorf("counters %v, want reads=%d odd_writes=%d", log.counters, n, writes)
	}
}

// KV-3: each operation is BEGIN, then per pair (10) a read and, when odd, a
// write, then COMMIT, all on one key; counters are added once per commit.
func TestBatchTransaction(t *testing.T) {
	w := boundInts(t, true, sqliteEnv, "rows=200")
	db := newIntsDB(w.Statements())
	c := &fakeConn{db}
	loadAll(t, w, c)
	wk := w.NewWorker(0, newRand(5)).(*intsWorker)
	st := w.Statements()
	log := &spanLog{}
	var reads, writes int64
	for i := 0; i < 500; i++ {
		db.calls = nil
		if op := wk.Next(); op != OpIntsWhole {
			t.Fatalf("Next = %d", op)
		}
		// the expected statements, from the fake's current data
		row := append([]int64(nil), db.rows[wk.keyArgs[0].(string)]...)
		want := []string{"BEGIN IMMEDIATE"}
		for p := 0; p < 10; p++ {
			want = append(want, st.Read[wk.a[p]])
			reads++
			if row[wk.a[p]]&1 == 1 {
				want = append(want, st.Write[wk.b[p]])
				row[wk.b[p]] = wk.vals[p]
				writes++
			}
		}
		want = append(want, "COMMIT")
		if err := wk.Exec(ctx, c, log); err != nil {
			t.Fatal(err)
		}
		if len(db.calls) != len(want) {
			t.Fatalf("op %d: %d statements, want %d", i, len(db.calls), len(want))
		}
		for j, cl := range db.calls {
			if cl.sql != want[j] {
				t.Fatalf("op %d statement %d: %q, want %q", i, j, cl.sql, want[j])
			}
			if len(cl.args) > 0 && cl.args[len(cl.args)-1] != wk.keyArgs[0] {
				t.Fatalf("op %d statement %d on key %v, want %v", i, j, cl.args[len(cl.args)-1], wk.keyArgs[0])
			}
		}
		if got := db.rows[wk.keyArgs[0].(string)]; !equalInts(got, row) {
			t.Fatalf("op %d: row after commit differs from the model", i)
		}
	}
	if log.counters[CounterReads] != reads || log.counters[CounterOddWrites] != writes {
		t.Errorf("counters %v, want reads=%d odd_writes=%d", log.counters, reads, writes)
	}
	if got := w.Ops(); got[OpIntsWhole] != "BATCH" {
		t.Errorf("Ops = %v", got)
	}
}

// A failing statement inside the batch rolls the transaction back before
// Exec returns, and the counters are not added; a retry starts with BEGIN.
func TestBatchRollsBack(t *testing.T) {
	w := boundInts(t, true, sqliteEnv, "rows=20", "batch=4")
	db := newIntsDB(w.Statements())
	c := &fakeConn{db}
	loadAll(t, w, c)
	wk := w.NewWorker(0, newRand(5)).(*intsWorker)
	wk.Next()
	db.calls = nil
	db.failOn = w.Statements().Read[wk.a[2]] // the third pair's read
	log := &spanLog{}
	err := wk.Exec(ctx, c, log)
	if !errors.Is(err, errFake) {
		t.Fatalf("Exec = %v, want the injected failure", err)
	}
	if last := db.calls[len(db.calls)-1].sql; last != "ROLLBACK" || db.inTx {
		t.Errorf("last statement %q, in transaction %v; want ROLLBACK", last, db.inTx)
	}
	if len(log.counters) != 0 {
		t.Errorf("counters %v added for a rolled-back batch", log.counters)
	}
	db.failOn = ""
	db.calls = nil
	if err := wk.Exec(ctx, c, log); err != nil || db.calls[0].sql != "BEGIN IMMEDIATE" {
		t.Errorf("retry: %v, first statement %q", err, db.calls[0].sql)
	}
	if log.counters[CounterReads] != 4 {
		t.Errorf("counters after the retry %v, want reads=4", log.counters)
	}
}

// A value that is not a decimal integer (a broken cast, a fake target) is an
// error naming the column, not a silent "even".
func TestIntsRejectsNonInteger(t *testing.T) {
	w := boundInts(t, false, sqliteEnv, "rows=5")
	wk := w.NewWorker(0, newRand(1)).(*intsWorker)
	wk.Next()
	err := wk.row([][]byte{[]byte("\x00\x00\x00\x07")})
	if err == nil || !strings.Contains(err.Error(), "not a decimal integer") {
		t.Errorf("binary value: %v", err)
	}
	if err := wk.row([][]byte{nil}); err == nil {
		t.Error("NULL accepted")
	}
}

func equalInts(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// KV-3 on a target without transactions: atomicity logged or unlogged reads
// every pair, then sends the writes of the odd pairs as one BATCH of that
// kind (a column written twice with the later value; a read of a column
// written earlier in the operation decides by the value written, as in a
// transaction); none sends each write after its read. The fake's row
// follows a model of the transaction's semantics.
func TestBatchAtomicityWithoutTransactions(t *testing.T) {
	for _, atomicity := range []string{AtomicityLogged, AtomicityUnlogged, AtomicityNone} {
		t.Run(atomicity, func(t *testing.T) {
			w := boundInts(t, true, cqlEnv, "rows=50", "columns=4", "atomicity="+atomicity)
			if w.Config().Atomicity != atomicity {
				t.Fatalf("options %+v", w.Config())
			}
			db := newIntsDB(w.Statements())
			c := &fakeConn{db}
			loadAll(t, w, c)
			wk := w.NewWorker(0, newRand(7)).(*intsWorker)
			st := w.Statements()
			log := &spanLog{}
			var reads, writes int64
			for i := 0; i < 300; i++ {
				db.calls = nil
				wk.Next()
				key := wk.keyArgs[0].(string)
				row := append([]int64(nil), db.rows[key]...)
				var want []string
				var batchCols []int
				for p := 0; p < 10; p++ {
					want = append(want, st.Read[wk.a[p]])
					reads++
					if row[wk.a[p]]&1 == 0 {
						continue
					}
					row[wk.b[p]] = wk.vals[p]
					if atomicity == AtomicityNone {
						want = append(want, st.Write[wk.b[p]])
						writes++
					} else if !slices.Contains(batchCols, wk.b[p]) {
						batchCols = append(batchCols, wk.b[p])
					}
				}
				if len(batchCols) > 0 {
					var ws []string
					for _, col := range batchCols {
						ws = append(ws, st.Write[col])
					}
					want = append(want, st.Batch(atomicity == AtomicityLogged, ws))
					writes += int64(len(batchCols))
				}
				if err := wk.Exec(ctx, c, log); err != nil {
					t.Fatal(err)
				}
				if len(db.calls) != len(want) {
					t.Fatalf("op %d: %d statements, want %d", i, len(db.calls), len(want))
				}
				for j, cl := range db.calls {
					if cl.sql != want[j] {
						t.Fatalf("op %d statement %d: %q, want %q", i, j, cl.sql, want[j])
					}
				}
				if got := db.rows[key]; !equalInts(got, row) {
					t.Fatalf("op %d: row %v, model %v", i, got, row)
				}
			}
			if log.counters[CounterReads] != reads || log.counters[CounterOddWrites] != writes {
				t.Errorf("counters %v, want reads=%d odd_writes=%d", log.counters, reads, writes)
			}
		})
	}
}

// atomicity: transaction needs transactions (on CQL the message names the
// other choices), logged/unlogged need BATCH (not on SQL dialects), and an
// unknown value is refused with the valid ones.
func TestBatchAtomicityRefusals(t *testing.T) {
	w, _ := NewBatch(nil, nil)
	if err := w.Bind(cqlEnv); err == nil || !strings.Contains(err.Error(), "--atomicity logged") {
		t.Errorf("kv-ints-batch (transaction) on CQL: %v", err)
	}
	w, _ = NewBatch(nil, []string{"atomicity=logged"})
	if err := w.Bind(sqliteEnv); !errors.Is(err, target.ErrUnsupported) || !strings.Contains(err.Error(), "BATCH") {
		t.Errorf("atomicity=logged on SQLite: %v", err)
	}
	w, _ = NewBatch(nil, []string{"atomicity=none"})
	if err := w.Bind(sqliteEnv); err != nil {
		t.Errorf("atomicity=none on SQLite: %v", err)
	}
	if _, err := NewBatch(nil, []string{"atomicity=maybe"}); err == nil || !strings.Contains(err.Error(), "transaction, logged, unlogged, none") {
		t.Errorf("atomicity=maybe: %v", err)
	}
	if _, err := NewInts(nil, []string{"atomicity=none"}); err == nil {
		t.Error("atomicity is an option of kv-ints-batch only")
	}
}

// TestBatchAtomicRecorded: the result's atomic field says what a batch is on
// the bound target, and on VoltDB the table's DDL declares the procedure.
func TestBatchAtomicRecorded(t *testing.T) {
	cases := []struct {
		d      dialect.Dialect
		caps   target.Capabilities
		props  []string
		atomic string
		proc   bool
	}{
		{dialect.Postgres, target.Capabilities{Transactions: true}, nil, "yes (one transaction)", false},
		{dialect.VoltDB, target.Capabilities{}, nil, "yes (one VoltDB transaction)", true},
		{dialect.VoltDB, target.Capabilities{}, []string{"atomicity=none"}, "not atomic", false},
		{dialect.CQL, target.Capabilities{}, []string{"atomicity=none"}, "not atomic", false},
		{dialect.CQL, target.Capabilities{}, []string{"atomicity=logged"}, atomicMeaning[AtomicityLogged], false},
	}
	for _, c := range cases {
		w, err := NewBatch(nil, append([]string{"rows=10"}, c.props...))
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Bind(workload.Env{Dialect: c.d, Capabilities: c.caps}); err != nil {
			t.Fatalf("%s %v: %v", c.d.Name, c.props, err)
		}
		if got := w.Config().Atomic; got != c.atomic {
			t.Errorf("%s %v: atomic %q, want %q", c.d.Name, c.props, got, c.atomic)
		}
		create := w.Schema()[0].Create
		if has := strings.Contains(create, "CREATE PROCEDURE "+w.Config().Table+dialect.KVProcedureSuffix); has != c.proc {
			t.Errorf("%s %v: procedure in the DDL %v, want %v:\n%.200s", c.d.Name, c.props, has, c.proc, create)
		}
	}
	w, _ := NewInts(nil, []string{"rows=10"})
	if err := w.Bind(workload.Env{Dialect: dialect.VoltDB}); err != nil || w.Config().Atomic != "" {
		t.Errorf("kv-ints on VoltDB: %v, atomic %q (want none recorded)", err, w.Config().Atomic)
	}
}
