package ycsb

import (
	"context"
	"errors"
	"math"
	"math/rand"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

func newRand(seed int64) *rand.Rand { return rand.New(rand.NewSource(seed)) }

var ctx = context.Background()

func TestOps(t *testing.T) {
	w := bound(t, "a")
	want := []string{"READ", "UPDATE", "INSERT", "SCAN", "READ-MODIFY-WRITE"}
	if got := w.Ops(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("Ops = %v, want %v", got, want)
	}
	w = bound(t, "a", "dataintegrity=true")
	if got := w.Ops(); len(got) != 6 || got[OpVerify] != "VERIFY" {
		t.Errorf("dataintegrity Ops = %v, want VERIFY last", got)
	}
}

// TestOperationMix draws 100k operations per workload and compares the
// shares with the property file's proportions. With 100k draws one standard
// deviation of a share is at most 0.0016; the tolerance is 0.01.
func TestOperationMix(t *testing.T) {
	cases := []struct {
		variant string
		want    map[workload.OpID]float64
	}{
		{"a", map[workload.OpID]float64{OpRead: 0.5, OpUpdate: 0.5}},          // update heavy
		{"b", map[workload.OpID]float64{OpRead: 0.95, OpUpdate: 0.05}},        // read mostly
		{"c", map[workload.OpID]float64{OpRead: 1}},                           // read only
		{"d", map[workload.OpID]float64{OpRead: 0.95, OpInsert: 0.05}},        // read latest
		{"e", map[workload.OpID]float64{OpScan: 0.95, OpInsert: 0.05}},        // short ranges
		{"f", map[workload.OpID]float64{OpRead: 0.5, OpReadModifyWrite: 0.5}}, // read-modify-write
	}
	const n = 100000
	for _, c := range cases {
		w := bound(t, c.variant)
		wk := w.NewWorker(0, newRand(1))
		counts := map[workload.OpID]int{}
		for i := 0; i < n; i++ {
			counts[wk.Next()]++
			wk.Done(nil)
		}
		for op := OpRead; op <= OpReadModifyWrite; op++ {
			got := float64(counts[op]) / n
			if math.Abs(got-c.want[op]) > 0.01 {
				t.Errorf("workload %s: %s share %.4f, want %.2f", c.variant, opNames[op], got, c.want[op])
			}
		}
	}
}

// TestReadsWaitForAcknowledgedInserts: in workload D a read never picks a
// key whose insert has not been acknowledged, even when later inserts are.
func TestReadsWaitForAcknowledgedInserts(t *testing.T) {
	w := bound(t, "d")
	// Worker 1 takes the first run-phase insert key (1000) and holds it.
	w1 := w.NewWorker(1, newRand(1)).(*worker)
	for w1.Next() != OpInsert {
		w1.Done(nil)
	}
	if w1.keynum != 1000 {
		t.Fatalf("first insert key %d, want recordcount=1000", w1.keynum)
	}
	// Worker 2 inserts ten more keys and finishes them.
	w2 := w.NewWorker(2, newRand(2)).(*worker)
	for done := 0; done < 10; {
		if w2.Next() == OpInsert {
			done++
		}
		w2.Done(nil)
	}
	reader := w.NewWorker(3, newRand(3)).(*worker)
	maxRead := func(draws int) int64 {
		m := int64(-1)
		for i := 0; i < draws; i++ {
			if reader.Next() == OpRead {
				m = max(m, reader.keynum)
			}
			if reader.op == OpInsert {
				// Keep the reader's own inserts out of the picture.
				reader.pending = false
			}
		}
		return m
	}
	if m := maxRead(20000); m > 999 {
		t.Fatalf("read key %d while key 1000 was not acknowledged", m)
	}
	w1.Done(nil) // now 1000..1010 are contiguous
	if m := maxRead(20000); m <= 999 || m > 1010 {
		t.Fatalf("after the acknowledgement the newest read key is %d, want 1000..1010 (latest favours new keys)", m)
	}
}

// TestConcurrentReadsNeverAheadOfInserts runs workers concurrently (for the
// race detector) with inserts whose Done is delayed; every read or scan key
// must be a loaded record or an insert already finished.
func TestConcurrentReadsNeverAheadOfInserts(t *testing.T) {
	for _, variant := range []string{"d", "e"} {
		w := bound(t, variant, "operationcount=20000")
		var finished sync.Map
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for g := 0; g < 4; g++ {
			wk := w.NewWorker(g, newRand(int64(g))).(*worker)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 5000; i++ {
					switch wk.Next() {
					case OpInsert:
						if i%3 == 0 {
							time.Sleep(20 * time.Microsecond) // a slow insert
						}
						finished.Store(wk.keynum, true) // before Done acknowledges it
					case OpRead, OpScan:
						if _, ok := finished.Load(wk.keynum); wk.keynum >= 1000 && !ok {
							errs <- errors.New(variant + ": chose a key whose insert is not done")
							return
						}
					}
					wk.Done(nil)
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
	}
}

// TestKeyChoosers checks every request distribution stays within YCSB's
// key range and never above the newest acknowledged key.
func TestKeyChoosers(t *testing.T) {
	cases := []struct {
		dist   string
		lo, hi int64
	}{
		{"uniform", 100, 299},    // [insertstart, insertstart+insertcount-1]
		{"sequential", 100, 299}, // same range, in order
		{"hotspot", 100, 299},    // same range
		{"zipfian", 100, 999},    // [insertstart, ...+expectednewkeys], capped by the acknowledged keys
		{"latest", 0, 999},       // counts back from recordcount-1
		{"exponential", 0, 999},  // recordcount-1 minus an exponential draw
	}
	for _, c := range cases {
		w := bound(t, "", "requestdistribution="+c.dist, "recordcount=1000", "insertstart=100", "insertcount=200",
			"operationcount=10000", "insertproportion=0.05", "readproportion=0.95", "updateproportion=0")
		wk := w.NewWorker(0, newRand(5)).(*worker)
		var first []int64
		for i := 0; i < 20000; i++ {
			op := wk.Next()
			if op == OpInsert {
				wk.pending = false // never acknowledged: Last stays 999
				continue
			}
			if wk.keynum < c.lo || wk.keynum > c.hi {
				t.Fatalf("%s: key %d outside [%d, %d]", c.dist, wk.keynum, c.lo, c.hi)
			}
			if len(first) < 3 {
				first = append(first, wk.keynum)
			}
		}
		if c.dist == "sequential" && (first[0] != 100 || first[1] != 101 || first[2] != 102) {
			t.Errorf("sequential starts %v, want 100 101 102", first)
		}
	}
}

// TestZipfianKeySpace: the zipfian chooser covers insertstart ..
// insertstart+insertcount+expectednewkeys (inclusive), expectednewkeys =
// (int)(operationcount*insertproportion*2.0).
func TestZipfianKeySpace(t *testing.T) {
	w := bound(t, "e") // operationcount 1000, insertproportion 0.05 -> 100
	if got := w.Config().ExpectedNewKeys; got != 100 {
		t.Fatalf("expectednewkeys = %d, want 100", got)
	}
	w.generators()
	r := newRand(3)
	hi := int64(0)
	for i := 0; i < 200000; i++ {
		v := w.keyChooser.Next(r)
		if v < 0 || v > 1100 {
			t.Fatalf("zipfian key %d outside [0, 1100]", v)
		}
		hi = max(hi, v)
	}
	if hi <= 999 {
		t.Errorf("no draw above the loaded keys (max %d): the range was not extended", hi)
	}
}

func TestValuesPrintableAndSized(t *testing.T) {
	cases := []struct {
		name     string
		props    []string
		min, max int
	}{
		{"constant default", nil, 100, 100}, // 100 bytes
		{"uniform", []string{"fieldlengthdistribution=uniform", "minfieldlength=5", "fieldlength=20"}, 5, 20}, // [5, 20]
		{"zipfian", []string{"fieldlengthdistribution=zipfian", "minfieldlength=3", "fieldlength=50"}, 3, 50}, // [3, 50]
		{"constant 7", []string{"fieldlength=7"}, 7, 7},                                                       // 7 bytes
	}
	for _, c := range cases {
		w := bound(t, "", append(c.props, "readproportion=0", "updateproportion=0.5", "insertproportion=0.5", "writeallfields=true")...)
		wk := w.NewWorker(0, newRand(8)).(*worker)
		for i := 0; i < 2000; i++ {
			op := wk.Next()
			vals := wk.rowArgs[:len(wk.rowArgs)-1] // update: values, key
			if op == OpInsert {
				vals = wk.rowArgs[1:] // insert: key, values
			}
			if len(vals) != 10 {
				t.Fatalf("%s: %d values, want 10", c.name, len(vals))
			}
			for _, v := range vals {
				s := v.(string)
				if len(s) < c.min || len(s) > c.max {
					t.Fatalf("%s: value length %d outside [%d, %d]", c.name, len(s), c.min, c.max)
				}
				for j := 0; j < len(s); j++ {
					if s[j] < 0x20 || s[j] > 0x7e {
						t.Fatalf("%s: byte %#x not printable", c.name, s[j])
					}
				}
			}
			wk.Done(nil)
		}
	}
}

// TestUpdateWritesOneField: without writeallfields an update sets one
// random field (all ten get chosen); with it, every field in order.
func TestUpdateWritesOneField(t *testing.T) {
	w := bound(t, "a")
	db, c := loaded(t, w)
	wk := w.NewWorker(0, newRand(4)).(*worker)
	fields := map[string]bool{}
	for i := 0; i < 500; i++ {
		if wk.Next() != OpUpdate {
			continue
		}
		if err := wk.Exec(ctx, c, &spanLog{}); err != nil {
			t.Fatal(err)
		}
		call := db.calls[len(db.calls)-1]
		if len(call.args) != 2 || call.args[1] != wk.keyArgs[0] || !strings.Contains(call.sql, "SET FIELD") {
			t.Fatalf("update %q %v", call.sql, call.args)
		}
		fields[updateField.FindString(call.sql)] = true
	}
	if len(fields) != 10 {
		t.Errorf("updates touched %d distinct fields, want all 10", len(fields))
	}

	w = bound(t, "a", "writeallfields=true")
	db, c = loaded(t, w)
	wk = w.NewWorker(0, newRand(4)).(*worker)
	for wk.Next() != OpUpdate {
	}
	if err := wk.Exec(ctx, c, &spanLog{}); err != nil {
		t.Fatal(err)
	}
	call := db.calls[len(db.calls)-1]
	if len(call.args) != 11 || call.sql != w.stmts.Update(w.allFields) {
		t.Errorf("writeallfields update %q with %d args", call.sql, len(call.args))
	}
}

// TestExecOutcomes: YCSB's statuses as errors, and retries repeating the
// same statement.
func TestExecOutcomes(t *testing.T) {
	w := bound(t, "", "recordcount=100", "readproportion=0.25", "updateproportion=0.25", "scanproportion=0.25", "insertproportion=0.25")
	db, c := loaded(t, w)
	wk := w.NewWorker(0, newRand(6)).(*worker)
	seen := map[workload.OpID]bool{}
	for i := 0; i < 200; i++ {
		op := wk.Next()
		seen[op] = true
		var missing bool
		key := wk.keyArgs[0].(string)
		saved := db.rows[key]
		if op == OpRead || op == OpUpdate {
			// Remove the chosen row on every other draw (put back below).
			if missing = i%2 == 0; missing {
				delete(db.rows, key)
			}
		}
		err := wk.Exec(ctx, c, &spanLog{})
		if missing {
			db.rows[key] = saved
		}
		switch {
		case op == OpRead && missing:
			if !errors.Is(err, target.ErrNotFound) {
				t.Fatalf("read of a missing row: %v, want ErrNotFound", err)
			}
		case op == OpUpdate && missing:
			if !errors.Is(err, target.ErrUnexpectedRows) {
				t.Fatalf("update of a missing row: %v, want ErrUnexpectedRows", err)
			}
		case op == OpInsert:
			if err != nil {
				t.Fatalf("insert: %v", err)
			}
			// A retry of the same insert repeats the same key: duplicate.
			if err := wk.Exec(ctx, c, &spanLog{}); err == nil || !strings.Contains(err.Error(), "duplicate") {
				t.Fatalf("retried insert: %v, want the fake's duplicate key error", err)
			}
		default:
			if err != nil {
				t.Fatalf("%s: %v", opNames[op], err)
			}
		}
		if !missing && (op == OpRead || op == OpUpdate) {
			// A retry issues the same statement with the same arguments.
			n := len(db.calls)
			if err := wk.Exec(ctx, c, &spanLog{}); err != nil {
				t.Fatal(err)
			}
			a, b := db.calls[n-1], db.calls[n]
			if a.sql != b.sql || len(a.args) != len(b.args) || a.args[len(a.args)-1] != b.args[len(b.args)-1] {
				t.Fatalf("retry differs: %v vs %v", a, b)
			}
		}
		wk.Done(err)
	}
	if len(seen) != 4 {
		t.Errorf("saw ops %v", seen)
	}
	// A failing target's error is returned as is.
	db.failure = errors.New("boom")
	wk.Next()
	if err := wk.Exec(ctx, c, &spanLog{}); err == nil || err.Error() != "boom" {
		t.Errorf("failing target: %v", err)
	}
	wk.Done(nil)
}

// TestScan: start key, LIMIT, and no error for a short or empty scan.
func TestScan(t *testing.T) {
	w := bound(t, "e")
	db, c := loaded(t, w)
	wk := w.NewWorker(0, newRand(7)).(*worker)
	for wk.Next() != OpScan {
		wk.Done(nil)
	}
	if err := wk.Exec(ctx, c, &spanLog{}); err != nil {
		t.Fatal(err)
	}
	call := db.calls[len(db.calls)-1]
	if call.sql != w.stmts.Scan || call.args[0] != wk.keyArgs[0] || call.args[1].(int64) < 1 || call.args[1].(int64) > 100 {
		t.Fatalf("scan %q %v", call.sql, call.args)
	}
	db.rows = map[string][]string{}
	if err := wk.Exec(ctx, c, &spanLog{}); err != nil {
		t.Fatalf("empty scan: %v", err)
	}
}

// TestReadModifyWriteSpans: F's read-modify-write reads then updates the same
// key and reports READ and UPDATE spans, back to back.
func TestReadModifyWriteSpans(t *testing.T) {
	w := bound(t, "f")
	db, c := loaded(t, w)
	wk := w.NewWorker(0, newRand(2)).(*worker)
	for wk.Next() != OpReadModifyWrite {
	}
	var spans spanLog
	if err := wk.Exec(ctx, c, &spans); err != nil {
		t.Fatal(err)
	}
	if len(spans) != 2 || spans[0].op != OpRead || spans[1].op != OpUpdate || spans[0].err != nil || spans[1].err != nil {
		t.Fatalf("spans %+v, want READ then UPDATE without errors", spans)
	}
	if spans[0].end.Before(spans[0].start) || spans[1].start != spans[0].end || spans[1].end.Before(spans[1].start) {
		t.Errorf("span times out of order: %+v", spans)
	}
	if len(db.calls) != 2 || db.calls[0].sql != w.stmts.Read || !strings.HasPrefix(db.calls[1].sql, "UPDATE") ||
		db.calls[0].args[0] != db.calls[1].args[1] {
		t.Fatalf("calls %+v, want a read and an update of one key", db.calls)
	}

	// Missing row: the update still runs (YCSB 0.17.0) and fails; the
	// operation reports the read's NOT_FOUND.
	delete(db.rows, wk.keyArgs[0].(string))
	spans = nil
	err := wk.Exec(ctx, c, &spans)
	if !errors.Is(err, target.ErrNotFound) || len(spans) != 2 ||
		!errors.Is(spans[0].err, target.ErrNotFound) || !errors.Is(spans[1].err, target.ErrUnexpectedRows) {
		t.Fatalf("missing row: err %v, spans %+v", err, spans)
	}

	// Any other read error stops before the update.
	db.failure = errors.New("connection reset")
	spans, db.calls = nil, nil
	if err := wk.Exec(ctx, c, &spans); err == nil || len(spans) != 1 || len(db.calls) != 1 {
		t.Fatalf("read failure: err %v, spans %+v, calls %d", err, spans, len(db.calls))
	}
	wk.Done(nil)
}

// TestDataIntegrity: deterministic values round-trip and VERIFY reports
// matches, mismatches and missing data.
func TestDataIntegrity(t *testing.T) {
	for _, readAll := range []string{"true", "false"} {
		w := bound(t, "", "dataintegrity=true", "recordcount=200", "readproportion=0.4", "updateproportion=0.3",
			"readmodifywriteproportion=0.3", "fieldlength=60", "readallfields="+readAll)
		db, c := loaded(t, w)
		for k, row := range db.rows {
			for f, v := range row {
				if want := DeterministicValue(k, "field"+string(rune('0'+f)), 60); v != want {
					t.Fatalf("loaded %s field%d = %q, want %q", k, f, v, want)
				}
			}
		}
		wk := w.NewWorker(0, newRand(3)).(*worker)
		verified := 0
		for i := 0; i < 300; i++ {
			op := wk.Next()
			var spans spanLog
			if err := wk.Exec(ctx, c, &spans); err != nil {
				t.Fatal(err)
			}
			for _, s := range spans {
				if s.op == OpVerify {
					verified++
					if s.err != nil {
						t.Fatalf("%s: VERIFY failed: %v", opNames[op], s.err)
					}
				}
			}
			wk.Done(nil)
		}
		if verified < 100 {
			t.Fatalf("only %d VERIFY spans", verified)
		}
		// Corrupt every field of the next read's row: a mismatch.
		for wk.Next() != OpRead {
			wk.Done(nil)
		}
		key := wk.keyArgs[0].(string)
		for f := range db.rows[key] {
			db.rows[key][f] = strings.Repeat("x", 60)
		}
		var spans spanLog
		if err := wk.Exec(ctx, c, &spans); err != nil {
			t.Fatal(err) // the read itself succeeded
		}
		if len(spans) != 1 || spans[0].op != OpVerify || !errors.Is(spans[0].err, ErrVerifyMismatch) || !errors.Is(spans[0].err, target.ErrUnexpectedRows) {
			t.Fatalf("corrupt row: spans %+v", spans)
		}
		// A missing row: NOT_FOUND and a VERIFY with no data.
		delete(db.rows, key)
		spans = nil
		if err := wk.Exec(ctx, c, &spans); !errors.Is(err, target.ErrNotFound) || len(spans) != 1 || !errors.Is(spans[0].err, ErrVerifyNoData) {
			t.Fatalf("missing row: %v, spans %+v", err, spans)
		}
		wk.Done(nil)
	}
}

// TestLoad: every way of loading inserts exactly the keys of [insertstart,
// insertstart+insertcount) with printable 100-byte values.
func TestLoad(t *testing.T) {
	cases := []struct {
		name       string
		caps       target.Capabilities
		copier     bool
		maxBatch   int // MaxLoadBatch
		statements int // for records 100..349 loaded as one runner batch
	}{
		{"multi-row insert under a bind limit of 55", target.Capabilities{MultiRowInsert: true, MaxBindParams: 55}, false, 5, 50},
		{"multi-row insert, dialect limit only", target.Capabilities{MultiRowInsert: true}, false, 32766 / 11, 1},
		{"one row per INSERT", target.Capabilities{}, false, 1, 250},
		{"COPY", target.Capabilities{CopyFrom: true, MultiRowInsert: true}, true, 0, 0},
	}
	for _, c := range cases {
		w, err := New("", nil, []string{"recordcount=400", "insertstart=100", "insertcount=250"})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Bind(workload.Env{Dialect: sqliteEnv.Dialect, Capabilities: c.caps}); err != nil {
			t.Fatal(err)
		}
		if got := w.MaxLoadBatch(); got != c.maxBatch {
			t.Errorf("%s: MaxLoadBatch = %d, want %d", c.name, got, c.maxBatch)
		}
		db := newFakeDB(w.stmts)
		var conn target.Conn = &fakeConn{db}
		if c.copier {
			conn = copyConn{&fakeConn{db}}
		}
		start, count := w.LoadRange()
		if start != 100 || count != 250 {
			t.Fatalf("LoadRange = %d, %d", start, count)
		}
		l := w.NewLoader(0, newRand(1))
		if err := l.LoadBatch(ctx, conn, start, start+count); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(db.calls) != c.statements || (c.copier && db.copies != 1) {
			t.Errorf("%s: %d statements and %d copies", c.name, len(db.calls), db.copies)
		}
		var got, want []string
		for k, row := range db.rows {
			got = append(got, k)
			for _, v := range row {
				if len(v) != 100 || strings.IndexFunc(v, func(r rune) bool { return r < 0x20 || r > 0x7e }) >= 0 {
					t.Fatalf("%s: bad value %q", c.name, v)
				}
			}
		}
		for k := int64(100); k < 350; k++ {
			want = append(want, KeyName(k, 1, true))
		}
		sort.Strings(got)
		sort.Strings(want)
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s: loaded %d keys, not the %d of [100, 350)", c.name, len(got), len(want))
		}
	}
	// Ordered inserts with zero padding load user000100 ...
	w := bound(t, "", "recordcount=103", "insertstart=100", "insertorder=ordered", "zeropadding=6")
	db, _ := loaded(t, w)
	var keys []string
	for k := range db.rows {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if strings.Join(keys, ",") != "user000100,user000101,user000102" {
		t.Errorf("ordered keys %v", keys)
	}
}

func TestBindLimits(t *testing.T) {
	w, err := New("", nil, []string{"fieldcount=60"})
	if err != nil {
		t.Fatal(err)
	}
	err = w.Bind(workload.Env{Dialect: sqliteEnv.Dialect, Capabilities: target.Capabilities{MaxBindParams: 50}})
	if err == nil || !strings.Contains(err.Error(), "fieldcount=60") {
		t.Errorf("61 parameters per row under a limit of 50: %v", err)
	}
	if w.Schema() != nil {
		t.Error("Schema before a successful Bind")
	}
	w = bound(t, "a")
	s := w.Schema()
	if len(s) != 1 || s[0].Name != "usertable" || s[0].Create != w.stmts.CreateTable {
		t.Errorf("Schema = %+v", s)
	}
}

// BenchmarkWorkerNext is workload A's per-operation client cost: Next (key,
// values, arguments) plus Exec against a connection that does nothing.
func BenchmarkWorkerNext(b *testing.B) {
	w := bound(b, "a", "recordcount=100000")
	wk := w.NewWorker(0, newRand(1))
	var c nopConn
	var s spanLog
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		wk.Next()
		if err := wk.Exec(ctx, c, &s); err != nil {
			b.Fatal(err)
		}
		wk.Done(nil)
	}
}

// nopConn reports one row for every statement.
type nopConn struct{}

func (nopConn) Exec(context.Context, string, ...any) (int64, error) { return 1, nil }
func (nopConn) Query(_ context.Context, _ string, _ []any, fn func([][]byte) error) (int, error) {
	return 1, fn(nil)
}
func (nopConn) Close() error { return nil }
