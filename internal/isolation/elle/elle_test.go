package elle

import (
	"bytes"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"time"
)

// Hand-made histories: a short notation keeps each case readable.
func a(k, v int64) Op            { return Op{Func: FuncAppend, Key: k, Value: v} }
func r(k int64, l ...int64) Op   { return Op{Func: FuncRead, Key: k, List: append([]int64{}, l...)} }
func tx(id int64, ops ...Op) Txn { return Txn{ID: id, Outcome: OK, Ops: ops} }
func with(t Txn, o Outcome) Txn  { t.Outcome = o; return t }

func check(t *testing.T, h []Txn) *Report {
	t.Helper()
	rep, err := Check(h)
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	return rep
}

func TestAnomalyClasses(t *testing.T) {
	cases := []struct {
		name  string
		h     []Txn
		want  map[string]int
		steps []string // sentences the report must hold
	}{
		{
			// T1 and T2 each append to x and y; x's order puts T1 first,
			// y's puts T2 first: a write cycle.
			name: "G0 dirty write",
			h: []Txn{
				tx(1, a(1, 1), a(2, 1)),
				tx(2, a(1, 2), a(2, 2)),
				tx(3, r(1, 1, 2), r(2, 2, 1)),
			},
			want:  map[string]int{G0: 1},
			steps: []string{"T1 appended 1 to key 1 before T2 appended 2 to it (ww: key 1 reads [1 2])", "T2 appended 2 to key 2 before T1 appended 1 to it"},
		},
		{
			// each reads the other's append: circular information flow
			name: "G1c circular information flow",
			h: []Txn{
				tx(1, a(1, 1), r(2, 1)),
				tx(2, a(2, 1), r(1, 1)),
			},
			want:  map[string]int{G1c: 1},
			steps: []string{"T1 appended 1 to key 1 and T2 read key 1 = [1], which ends in it (wr)"},
		},
		{
			// T1 sees T2's y but not T2's x: read skew
			name: "G-single read skew",
			h: []Txn{
				tx(1, r(1), r(2, 1)),
				tx(2, a(1, 1), a(2, 1)),
				tx(3, r(1, 1)),
			},
			want:  map[string]int{GSingle: 1},
			steps: []string{"T1 read key 1 = [] before T2 appended 1 to key 1 (rw)", "T2 appended 1 to key 2 and T1 read key 2 = [1]"},
		},
		{
			// both read x empty and append: T2's append lands after T1's
			// though T2 read x without it
			name: "G-single lost update",
			h: []Txn{
				tx(1, r(1), a(1, 1)),
				tx(2, r(1), a(1, 2)),
				tx(3, r(1, 1, 2)),
			},
			want:  map[string]int{GSingle: 1},
			steps: []string{"T2 read key 1 = [] before T1 appended 1 to key 1 (rw)", "T1 appended 1 to key 1 before T2 appended 2 to it"},
		},
		{
			// each reads the key the other writes, both before: write skew
			name: "G2-item write skew",
			h: []Txn{
				tx(1, r(1), a(2, 1)),
				tx(2, r(2), a(1, 1)),
				tx(3, r(1, 1), r(2, 1)),
			},
			want:  map[string]int{G2Item: 1},
			steps: []string{"T1 read key 1 = [] before T2 appended 1 to key 1 (rw)", "T2 read key 2 = [] before T1 appended 1 to key 2 (rw)"},
		},
		{
			name:  "G1a aborted read",
			h:     []Txn{with(tx(1, a(1, 1)), Fail), tx(2, r(1, 1))},
			want:  map[string]int{G1a: 1},
			steps: []string{"T2 read key 1 = [1], which holds 1, appended by T1, which failed (aborted read)"},
		},
		{
			name:  "G1b intermediate read",
			h:     []Txn{tx(1, a(1, 1), a(1, 2)), tx(2, r(1, 1)), tx(3, r(1, 1, 2))},
			want:  map[string]int{G1b: 1},
			steps: []string{"T2 read key 1 = [1], ending in 1, but T1 appended 2 to key 1 after 1"},
		},
		{
			// a transaction does not see its own append
			name:  "internal inconsistency after an append",
			h:     []Txn{tx(1, a(1, 1), r(1))},
			want:  map[string]int{Internal: 1},
			steps: []string{"T1 read key 1 = [], but its own earlier operations imply key 1 ending in [1]"},
		},
		{
			// two reads in one transaction disagree (non-repeatable read)
			name: "internal inconsistency between two reads",
			h:    []Txn{tx(1, r(1), r(1, 1)), tx(2, a(1, 1))},
			// T1 saw T2's append in its second read but not its first: an
			// rw and a wr edge between the same two, a read skew as well
			want:  map[string]int{Internal: 1, GSingle: 1},
			steps: []string{"T1 read key 1 = [1], but its own earlier operations imply key 1 = []"},
		},
		{
			name:  "duplicate elements",
			h:     []Txn{tx(1, a(1, 1)), tx(2, r(1, 1, 1))},
			want:  map[string]int{DuplicateElements: 1},
			steps: []string{"T2 read key 1 = [1 1], where 1 appears more than once"},
		},
		{
			name:  "incompatible orders",
			h:     []Txn{tx(1, a(1, 1)), tx(2, a(1, 2)), tx(3, r(1, 1, 2)), tx(4, r(1, 2, 1))},
			want:  map[string]int{IncompatibleOrder: 1},
			steps: []string{"T4 read key 1 = [2 1] and T3 read key 1 = [1 2]: neither is a prefix of the other"},
		},
		{
			name:  "an element nobody appended",
			h:     []Txn{tx(1, a(1, 1)), tx(2, r(1, 1, 9))},
			want:  map[string]int{UnknownElement: 1},
			steps: []string{"no transaction of the history appended 9 to key 1"},
		},
		{
			// T2's outcome is unknown but T1 saw its y: T2 committed, and
			// the read skew stands
			name: "unknown outcome observed counts as committed",
			h: []Txn{
				tx(1, r(1), r(2, 1)),
				with(tx(2, a(1, 1), a(2, 1)), Unknown),
				tx(3, r(1, 1)),
			},
			want: map[string]int{GSingle: 1},
		},
		{
			// the same history with T2 failed is an aborted read, no cycle
			name: "failed writer is no node of a cycle",
			h: []Txn{
				tx(1, r(1), r(2, 1)),
				with(tx(2, a(1, 1), a(2, 1)), Fail),
				tx(3, r(1, 1)),
			},
			want: map[string]int{G1a: 2},
		},
		{
			// an unknown append never read may have failed: no finding
			name: "unknown outcome never observed",
			h:    []Txn{with(tx(1, a(1, 1)), Unknown), tx(2, r(1)), tx(3, a(1, 2), r(1, 2))},
			want: map[string]int{},
		},
		{
			// a failed transaction's reads are not observations
			name: "failed reader",
			h:    []Txn{tx(1, a(1, 1)), with(tx(2, r(1, 7)), Fail)},
			want: map[string]int{},
		},
		{
			// a serial history: each transaction sees all before it
			name: "serial",
			h: []Txn{
				tx(1, a(1, 1), a(2, 1)),
				tx(2, r(1, 1), a(1, 2), r(1, 1, 2)),
				tx(3, r(2, 1), a(2, 2), r(1, 1, 2)),
				tx(4, r(1, 1, 2), r(2, 1, 2)),
			},
			want: map[string]int{},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep := check(t, c.h)
			if !reflect.DeepEqual(rep.Counts, c.want) {
				t.Fatalf("counts %v, want %v\n%s", rep.Counts, c.want, dump(rep))
			}
			all := dump(rep)
			for _, s := range c.steps {
				if !strings.Contains(all, s) {
					t.Errorf("report lacks %q:\n%s", s, all)
				}
			}
			if (len(c.want) == 0) != rep.Valid() {
				t.Errorf("Valid() = %v with counts %v", rep.Valid(), rep.Counts)
			}
		})
	}
}

func dump(rep *Report) string {
	var b strings.Builder
	for _, an := range rep.Anomalies {
		b.WriteString(an.Class + "\n  " + strings.Join(an.Ops, "\n  ") + "\n  " + strings.Join(an.Steps, "\n  ") + "\n")
	}
	return b.String()
}

// A cycle's explanation names its transactions in order and each edge.
func TestCycleExplanation(t *testing.T) {
	rep := check(t, []Txn{
		tx(1, r(1), a(2, 1)),
		tx(2, r(2), a(1, 1)),
		tx(3, r(1, 1), r(2, 1)),
	})
	an := rep.Anomalies[0]
	if an.Steps[0] != "cycle T1 → T2 → T1 (rw, rw)" && an.Steps[0] != "cycle T2 → T1 → T2 (rw, rw)" {
		t.Errorf("first step %q", an.Steps[0])
	}
	if len(an.Txns) != 2 || len(an.Ops) != 2 || len(an.Steps) != 3 {
		t.Errorf("anomaly %+v", an)
	}
	if !strings.Contains(strings.Join(an.Ops, "|"), "T1 (ok: r 1 [], append 2 1)") {
		t.Errorf("ops %q", an.Ops)
	}
}

func TestMalformedHistory(t *testing.T) {
	for _, c := range []struct {
		h    []Txn
		want string
	}{
		{[]Txn{tx(1, a(1, 1)), tx(1, a(1, 2))}, "transaction id 1 appears twice"},
		{[]Txn{tx(1, a(1, 1)), tx(2, a(1, 1))}, "value 1 appended to key 1 twice (T1 and T2)"},
		{[]Txn{tx(1, Op{Func: "cas", Key: 1})}, `function "cas"`},
	} {
		if _, err := Check(c.h); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("err %v, want %q", err, c.want)
		}
	}
}

func TestHistoryRoundTrip(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	h := []Txn{
		{ID: 1, Session: 2, Outcome: OK, Start: t0, End: t0.Add(time.Millisecond), Ops: []Op{a(3, 4), r(3), r(5, 1, 2)}},
		{ID: 2, Session: 0, Outcome: Unknown, Start: t0, End: t0, Ops: []Op{{Func: FuncRead, Key: 3}}},
		{ID: 3, Outcome: Fail, Start: t0, End: t0, Ops: []Op{a(1, 1)}},
	}
	var buf bytes.Buffer
	if err := WriteHistory(&buf, h); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"ops":[["append",3,4],["r",3,[]],["r",5,[1,2]]]`) {
		t.Errorf("line shape: %s", buf.String())
	}
	back, err := ReadHistory(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, h) {
		t.Errorf("round trip:\n%+v\n%+v", back, h)
	}
	if _, err := ReadHistory(strings.NewReader(`{"id":1,"outcome":"maybe","ops":[]}`)); err == nil || !strings.Contains(err.Error(), "history line 1") {
		t.Errorf("bad outcome: %v", err)
	}
	if _, err := ReadHistory(strings.NewReader(`{"id":1,"outcome":"ok","ops":[["append",1]]}`)); err == nil {
		t.Error("a two-element op was accepted")
	}
}

// Serial histories of every shape report nothing.
func TestSerialHistoriesAreClean(t *testing.T) {
	for seed := int64(1); seed <= 40; seed++ {
		rnd := rand.New(rand.NewSource(seed))
		h := SerialHistory(rnd, 300, 1+rnd.Intn(6), 1+rnd.Intn(5), rnd.Float64(), 1+rnd.Intn(20))
		rep := check(t, h)
		if !rep.Valid() {
			t.Fatalf("seed %d: %v\n%s", seed, rep.Counts, dump(rep))
		}
	}
}

// Interleaving the micro-ops of concurrent transactions one at a time (no
// isolation at all) must produce cycles the checker finds.
func TestInterleavedHistoriesHaveCycles(t *testing.T) {
	found := map[string]int{}
	for seed := int64(1); seed <= 20; seed++ {
		rnd := rand.New(rand.NewSource(seed))
		rep := check(t, interleaved(rnd, 400, 3, 4, 4))
		for k, v := range rep.Counts {
			found[k] += v
		}
	}
	if found[GSingle] == 0 || found[G2Item] == 0 {
		t.Errorf("no G-single or G2-item in interleaved histories: %v", found)
	}
}

// interleaved runs sessions whose transactions' micro-ops apply one at a
// time in a random order, each op atomic on its own: what a database
// without transactions gives.
func interleaved(rnd *rand.Rand, n, keys, sessions, ops int) []Txn {
	state := map[int64][]int64{}
	next := int64(0)
	var done []Txn
	cur := make([]*Txn, sessions)
	left := make([]int, sessions)
	id := int64(0)
	for len(done) < n {
		s := rnd.Intn(sessions)
		if cur[s] == nil {
			id++
			cur[s] = &Txn{ID: id, Session: s, Outcome: OK}
			left[s] = 1 + rnd.Intn(ops)
		}
		k := int64(rnd.Intn(keys))
		if rnd.Intn(2) == 0 {
			cur[s].Ops = append(cur[s].Ops, Op{Func: FuncRead, Key: k, List: append([]int64{}, state[k]...)})
		} else {
			next++
			state[k] = append(state[k], next)
			cur[s].Ops = append(cur[s].Ops, Op{Func: FuncAppend, Key: k, Value: next})
		}
		left[s]--
		if left[s] == 0 {
			done = append(done, *cur[s])
			cur[s] = nil
		}
	}
	// a final read of every key fixes each version order
	id++
	final := Txn{ID: id, Outcome: OK}
	for k := int64(0); k < int64(keys); k++ {
		final.Ops = append(final.Ops, Op{Func: FuncRead, Key: k, List: append([]int64{}, state[k]...)})
	}
	return append(done, final)
}

func BenchmarkCheckSerial1M(b *testing.B) {
	h := SerialHistory(rand.New(rand.NewSource(1)), 1_000_000, 1000, 4, 0.5, 32)
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		rep, err := Check(h)
		if err != nil || !rep.Valid() {
			b.Fatalf("%v %v", err, rep.Counts)
		}
	}
	// CPU seconds (garbage collection included) per check: the figure a
	// loaded machine leaves comparable
	b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
}
