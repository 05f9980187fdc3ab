package ledger

import (
	"reflect"
	"testing"
	"time"
)

const sec = int64(time.Second)

// t0 is the run's start in these tests; times are t0 + seconds.
const t0 = int64(1_700_000_000) * sec

func at(s float64) int64 { return t0 + int64(s*float64(sec)) }

// rec is a write by worker w sent at s seconds, answered 10 ms later.
func rec(id int64, w uint32, s float64, o Outcome) Record {
	return Record{ID: id, Worker: w, Start: at(s), End: at(s) + 10*int64(time.Millisecond), Outcome: o}
}

func present(ids ...int64) map[int64]int {
	m := map[int64]int{}
	for _, id := range ids {
		m[id]++
	}
	return m
}

func f64(v float64) *float64 { return &v }

func TestAccountCategories(t *testing.T) {
	cases := []struct {
		name string
		in   Input
		want Accounting
	}{
		{
			// every acknowledged write present, nothing else
			name: "clean",
			in:   Input{Records: []Record{rec(1, 0, 1, Acknowledged), rec(2, 0, 2, Acknowledged)}, Present: present(1, 2)},
			want: Accounting{Records: 2, Writes: 2, Acknowledged: 2},
		},
		{
			// acknowledged but absent: lost, listed in id order
			name: "lost",
			in:   Input{Records: []Record{rec(3, 0, 1, Acknowledged), rec(1, 0, 2, Acknowledged), rec(2, 0, 3, Acknowledged)}, Present: present(2)},
			want: Accounting{Records: 3, Writes: 3, Acknowledged: 3, Lost: 2, LostIDs: []int64{1, 3}},
		},
		{
			// unknown writes resolve by presence
			name: "unknown",
			in:   Input{Records: []Record{rec(1, 0, 1, Unknown), rec(2, 0, 2, Unknown), rec(3, 0, 3, Unknown)}, Present: present(1)},
			want: Accounting{Records: 3, Writes: 3, Unknown: 3, UnknownCommitted: 1, UnknownNotCommitted: 2},
		},
		{
			// the server said no, yet the row is there
			name: "failed but present",
			in:   Input{Records: []Record{rec(1, 0, 1, Failed), rec(2, 0, 2, Failed)}, Present: present(2)},
			want: Accounting{Records: 2, Writes: 2, Failed: 2, FailedPresent: 1, FailedPresentIDs: []int64{2}},
		},
		{
			// two rows for one id; an id on the server the ledger never saw
			name: "duplicates and unrecorded",
			in:   Input{Records: []Record{rec(1, 0, 1, Acknowledged)}, Present: present(1, 1, 9)},
			want: Accounting{Records: 1, Writes: 1, Acknowledged: 1, Duplicates: 1, DuplicateIDs: []int64{1}, Unrecorded: 1, UnrecordedIDs: []int64{9}},
		},
		{
			// a retried id: unknown then acknowledged counts once, acknowledged;
			// failed then unknown counts as unknown
			name: "retries",
			in: Input{Records: []Record{rec(1, 0, 1, Unknown), rec(1, 0, 2, Acknowledged), rec(2, 0, 3, Failed), rec(2, 0, 4, Unknown)},
				Present: present(1)},
			want: Accounting{Records: 4, Writes: 2, Acknowledged: 1, Unknown: 1, UnknownNotCommitted: 1},
		},
		{
			// id lists are capped, counts are not
			name: "capped list",
			in: Input{Records: []Record{rec(5, 0, 1, Acknowledged), rec(4, 0, 1, Acknowledged), rec(3, 0, 1, Acknowledged)},
				Present: present(), MaxListed: 2},
			want: Accounting{Records: 3, Writes: 3, Acknowledged: 3, Lost: 3, LostIDs: []int64{3, 4}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Account(c.in)
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("Account =\n %+v\nwant\n %+v", got, c.want)
			}
		})
	}
}

func TestAccountRPO(t *testing.T) {
	// Fault at 20 s. Writes acknowledged at 15 s and 18 s are lost (the
	// standby stopped receiving at 15 s): RPO = 20 - 15.01 s.
	recs := []Record{rec(1, 0, 10, Acknowledged), rec(2, 0, 15, Acknowledged), rec(3, 0, 18, Acknowledged), rec(4, 0, 25, Acknowledged)}
	a := Account(Input{Records: recs, Present: present(1, 4), FaultAt: at(20)})
	if a.Lost != 2 || a.Fault == nil {
		t.Fatalf("lost %d, fault %+v", a.Lost, a.Fault)
	}
	if got, want := a.Fault.RPOSeconds, 4.99; !near(got, want) {
		t.Errorf("RPO %v s, want %v", got, want)
	}
	if a.Fault.EarliestLostAck == nil || a.Fault.EarliestLostAck.UnixNano() != recs[1].End {
		t.Errorf("earliest lost ack %v", a.Fault.EarliestLostAck)
	}
	// Nothing lost: RPO 0.
	a = Account(Input{Records: recs, Present: present(1, 2, 3, 4), FaultAt: at(20)})
	if a.Fault.RPOSeconds != 0 || a.Fault.EarliestLostAck != nil {
		t.Errorf("no loss: RPO %v, earliest %v", a.Fault.RPOSeconds, a.Fault.EarliestLostAck)
	}
	// No fault: no fault section.
	if a := Account(Input{Records: recs, Present: present(1)}); a.Fault != nil {
		t.Errorf("no fault given, fault section %+v", a.Fault)
	}
}

func TestAccountRTO(t *testing.T) {
	// Fault at 20 s. Worker 0: a write in flight at the fault answered at
	// 21 s does not count; its first write sent after the fault is
	// acknowledged at 23.01 s. Worker 1: failures, then 22.51 s. Worker 2
	// never gets an acknowledgement after the fault.
	// An acknowledgement at 20.06 s of a write sent after the fault but
	// before the first failure (the kill had not landed yet) is not
	// recovery either.
	inflight := Record{ID: 1, Worker: 0, Start: at(19.9), End: at(21), Outcome: Acknowledged}
	recs := []Record{
		inflight, rec(5, 0, 20.05, Acknowledged),
		rec(2, 0, 20.5, Unknown), rec(3, 0, 23, Acknowledged), rec(4, 0, 24, Acknowledged),
		rec(10, 1, 20.1, Failed), rec(11, 1, 22.5, Acknowledged),
		rec(20, 2, 10, Acknowledged), rec(21, 2, 20.2, Failed),
	}
	a := Account(Input{Records: recs, Present: present(1, 3, 4, 5, 11, 20), FaultAt: at(20)})
	f := a.Fault
	if f.RTOSeconds == nil || !near(*f.RTOSeconds, 2.51) {
		t.Errorf("RTO %v, want 2.51 s (worker 1's first acknowledgement)", ptr(f.RTOSeconds))
	}
	if f.RTOAllSeconds != nil {
		t.Errorf("RTO all %v, want absent (worker 2 never recovered)", *f.RTOAllSeconds)
	}
	want := []WorkerRTO{{0, f64(3.01)}, {1, f64(2.51)}, {2, nil}}
	if len(f.Workers) != 3 {
		t.Fatalf("workers %+v", f.Workers)
	}
	for i, w := range want {
		g := f.Workers[i]
		if g.Worker != w.Worker || (g.RTOSeconds == nil) != (w.RTOSeconds == nil) || (g.RTOSeconds != nil && !near(*g.RTOSeconds, *w.RTOSeconds)) {
			t.Errorf("worker %d: %v, want %v", w.Worker, ptr(g.RTOSeconds), ptr(w.RTOSeconds))
		}
	}
	// All workers back: RTOAll is the last one's.
	recs = append(recs, rec(22, 2, 26, Acknowledged))
	a = Account(Input{Records: recs, Present: present(), FaultAt: at(20)})
	if a.Fault.RTOAllSeconds == nil || !near(*a.Fault.RTOAllSeconds, 6.01) {
		t.Errorf("RTO all %v, want 6.01", ptr(a.Fault.RTOAllSeconds))
	}
	// A pause: nothing fails, writes stall; recovery is the first
	// acknowledgement of a write sent after the fault.
	a = Account(Input{Records: []Record{
		{ID: 1, Worker: 0, Start: at(19.9), End: at(23), Outcome: Acknowledged},
		rec(2, 0, 23, Acknowledged),
	}, Present: present(1, 2), FaultAt: at(20)})
	if a.Fault.RTOSeconds == nil || !near(*a.Fault.RTOSeconds, 3.01) || a.Fault.RTOAllSeconds == nil || !near(*a.Fault.RTOAllSeconds, 3.01) {
		t.Errorf("pause: RTO %v, all %v; want 3.01 s", ptr(a.Fault.RTOSeconds), ptr(a.Fault.RTOAllSeconds))
	}
	// A failure long after the recovery is not the outage's start when the
	// fault's end is known (a 3 s pause lifted at 23 s; a write refused at
	// 40 s).
	later := []Record{
		{ID: 1, Worker: 0, Start: at(19.9), End: at(23), Outcome: Acknowledged},
		rec(2, 0, 23, Acknowledged), rec(3, 0, 40, Failed), rec(4, 0, 41, Acknowledged),
	}
	a = Account(Input{Records: later, Present: present(1, 2, 4), FaultAt: at(20), FaultEnd: at(23)})
	if w := a.Fault.Workers[0].RTOSeconds; w == nil || !near(*w, 3.01) || !near(*a.Fault.RTOSeconds, 3.01) {
		t.Errorf("with a later failure: RTO %v, worker %v; want 3.01 s", ptr(a.Fault.RTOSeconds), ptr(w))
	}
	// Nothing acknowledged after the fault: no RTO.
	a = Account(Input{Records: recs[:1], Present: present(), FaultAt: at(20)})
	if a.Fault.RTOSeconds != nil {
		t.Errorf("RTO %v with no acknowledgement after the fault", *a.Fault.RTOSeconds)
	}
}

func TestAccountRecovery90(t *testing.T) {
	iv := func(s float64, n int64) Interval { return Interval{Start: at(s), Width: time.Second, Acked: n} }
	cases := []struct {
		name      string
		intervals []Interval
		fault     float64
		rate      float64
		want      *float64
	}{
		// 100/s before, a 3 s outage from 10 s, back at 13 s
		{"outage", []Interval{iv(8, 100), iv(9, 100), iv(10, 0), iv(11, 0), iv(12, 0), iv(13, 95), iv(14, 100)}, 10, 100, f64(3)},
		// 89% is not back; 90% is
		{"threshold", []Interval{iv(8, 100), iv(9, 100), iv(10, 50), iv(11, 89), iv(12, 90)}, 10, 100, f64(2)},
		// fault inside an interval: that interval is neither before nor a candidate
		{"mid interval", []Interval{iv(8, 100), iv(9, 100), iv(10, 60), iv(11, 100)}, 10.5, 100, f64(0.5)},
		// never back within the run
		{"never", []Interval{iv(8, 100), iv(9, 100), iv(10, 10), iv(11, 20)}, 10, 100, nil},
		// no interval before the fault: no baseline
		{"no baseline", []Interval{iv(10, 100)}, 10, 0, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := Account(Input{Present: present(), FaultAt: at(c.fault), Intervals: c.intervals})
			f := a.Fault
			if !near(f.PreFaultRate, c.rate) {
				t.Errorf("pre-fault rate %v, want %v", f.PreFaultRate, c.rate)
			}
			if (f.Recovered90Seconds == nil) != (c.want == nil) || (c.want != nil && !near(*f.Recovered90Seconds, *c.want)) {
				t.Errorf("recovered90 %v, want %v", ptr(f.Recovered90Seconds), ptr(c.want))
			}
		})
	}
}

func TestBuckets(t *testing.T) {
	recs := []Record{rec(1, 0, 0.5, Acknowledged), rec(2, 0, 0.7, Failed), rec(3, 1, 2.2, Acknowledged), rec(4, 1, -1, Acknowledged)}
	got := Buckets(recs, t0, time.Second)
	want := []Interval{{at(0), time.Second, 1}, {at(1), time.Second, 0}, {at(2), time.Second, 1}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Buckets = %+v, want %+v", got, want)
	}
}

func near(a, b float64) bool { return a-b < 1e-6 && b-a < 1e-6 }

func ptr(p *float64) any {
	if p == nil {
		return "absent"
	}
	return *p
}
