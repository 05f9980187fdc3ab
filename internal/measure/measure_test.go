package measure

import (
	"math/rand"
	"os"
	"sync"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Values recorded by many workers and merged on ticks must equal one
// histogram that saw every value: merging is exact, nothing is lost at a tick.
func TestCollectorMergeIsExact(t *testing.T) {
	c := NewCollector([]string{"READ", "UPDATE"}, 0, time.Now())
	ref := [2]*hdr.Histogram{hdr.New(LowestNs, HighestNs, SigFigs), hdr.New(LowestNs, HighestNs, SigFigs)}
	var refMu sync.Mutex
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for w := 0; w < 8; w++ {
		rec := c.Recorder()
		wg.Add(1)
		go func(seed int64) {
			defer wg.Done()
			r := rand.New(rand.NewSource(seed))
			for i := 0; i < 20000; i++ {
				op := r.Intn(2)
				v := int64(r.ExpFloat64() * 1e6)
				rec.Record(&Outcome{Op: op, LatencyNs: v, Attempts: 1})
				refMu.Lock()
				ref[op].RecordValue(max(v, LowestNs))
				refMu.Unlock()
			}
		}(int64(w))
	}
	// Tick concurrently while workers record (Tick itself has one caller).
	ticked := make(chan int)
	go func() {
		n := 0
		for {
			select {
			case <-stop:
				ticked <- n
				return
			default:
				c.Tick(time.Now())
				n++
				time.Sleep(time.Millisecond)
			}
		}
	}()
	wg.Wait()
	close(stop)
	if n := <-ticked; n < 2 {
		t.Logf("only %d ticks happened during recording", n)
	}
	c.Tick(time.Now())
	for i, s := range c.Total() {
		if s.Count() != ref[i].TotalCount() {
			t.Fatalf("%s: merged count %d, want %d", s.Name, s.Count(), ref[i].TotalCount())
		}
		if !s.H[Latency].Equals(ref[i]) {
			t.Errorf("%s: merged histogram differs from the reference", s.Name)
		}
		if s.TopLevel != s.Count() || s.Attempts != s.Count() {
			t.Errorf("%s: top-level %d attempts %d count %d", s.Name, s.TopLevel, s.Attempts, s.Count())
		}
	}
}

func TestRecordClassifiesAndClamps(t *testing.T) {
	c := NewCollector([]string{"OP"}, 1, time.Now())
	r := c.Recorder()
	// a success after one retry, a failure after two attempts, a sub-span,
	// a value above an hour (clamped), and open-loop series
	r.Record(&Outcome{Op: 0, LatencyNs: 1000, Attempts: 2, ErrClasses: [NumClasses]int32{0: 1}})
	r.Record(&Outcome{Op: 0, LatencyNs: 5000, Attempts: 2, Failed: true, ErrClasses: [NumClasses]int32{3: 2}})
	r.Record(&Outcome{Op: 0, LatencyNs: 2 * HighestNs, Attempts: 1, OpenLoop: true, ServiceNs: 10, LagNs: 20})
	r.RecordSpan(0, 700, false, -1)
	r.Add(0, 14)
	r.Add(0, 6)
	snap := c.Tick(time.Now())
	s := snap.Ops[0]
	if snap.Counters[0] != 20 || c.Counters()[0] != 20 {
		t.Errorf("counter: interval %d total %d, want 20", snap.Counters[0], c.Counters()[0])
	}
	if w := c.Workers(); len(w) != 1 || w[0].Ops != 3 || w[0].BusyNs != 1000+5000+2*HighestNs {
		t.Errorf("worker totals %+v: want 3 finished top-level ops (one failed) and their summed latency", w)
	}
	c.ResetTotal()
	if c.Counters()[0] != 0 || c.Workers()[0].Ops != 0 {
		t.Errorf("ResetTotal kept counters or worker totals")
	}
	cases := []struct {
		name      string
		got, want int64
	}{
		{"successes incl. span", s.Count(), 3},
		{"top level", s.TopLevel, 2},
		{"attempts", s.Attempts, 5},
		{"retries", s.Retries, 2},
		{"aborts", s.Aborts, 1},
		{"class 0 errors", s.Errors[0], 1},
		{"class 3 errors", s.Errors[3], 2},
		{"clamped", s.Clamped, 1},
		{"failed series", s.H[Failed].TotalCount(), 1},
		{"service series", s.H[Service].TotalCount(), 1},
		{"lag series", s.H[Lag].TotalCount(), 1},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
	if max := s.H[Latency].Max(); !s.H[Latency].ValuesAreEquivalent(max, HighestNs) {
		t.Errorf("clamped value recorded as %d, want ≈ %d", max, HighestNs)
	}
}

func TestUsageDelta(t *testing.T) {
	a := Usage{At: time.Unix(0, 0), ProcCPU: 1, HostBusy: 100, HostTotal: 400, OK: true}
	b := Usage{At: time.Unix(2, 0), ProcCPU: 2, HostBusy: 250, HostTotal: 600, RSS: 42, OK: true}
	d := Delta(a, b)
	if d.ClientCores != 0.5 || d.HostBusy != 0.75 || d.RSS != 42 {
		t.Fatalf("delta %+v: want 0.5 cores, host 75%% busy, RSS 42", d)
	}
	if d := Delta(Usage{}, b); d.ClientCores != 0 {
		t.Fatalf("delta from an unusable sample should be zero, got %+v", d)
	}
	if u := SampleUsage(); u.OK && (u.RSS <= 0 || u.HostTotal == 0) {
		t.Fatalf("sample on Linux lacks RSS or host counters: %+v", u)
	}
}

func TestParseAutogroup(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"1\n", "on"},
		{"0\n", "off"},
		{"0", "off"},
		{"2\n", "on"},
		{"", ""},
		{"yes\n", ""},
	} {
		if got := ParseAutogroup(tc.in); got != tc.want {
			t.Errorf("ParseAutogroup(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSchedAutogroupReadsTheKernel(t *testing.T) {
	b, err := os.ReadFile("/proc/sys/kernel/sched_autogroup_enabled")
	if err != nil {
		t.Skipf("this kernel has no autogroups: %v", err)
	}
	if got, want := SchedAutogroup(), ParseAutogroup(string(b)); got != want || got == "" {
		t.Errorf("SchedAutogroup() = %q, want %q", got, want)
	}
}

// /proc/stat's first line: busy is all but idle and iowait, steal the
// eighth column; guest and guest_nice are inside user and nice already;
// an old kernel's line without steal has none.
func TestParseCPULine(t *testing.T) {
	cases := []struct {
		line               string
		busy, total, steal uint64
		known              bool
	}{
		{"cpu  52968 0 14214 84513 835 0 1136 295 0 0", 52968 + 14214 + 1136 + 295, 52968 + 14214 + 84513 + 835 + 1136 + 295, 295, true},
		{"cpu  100 0 50 800 10 0 0 40 30 0", 190, 1000, 40, true}, // guest 30 not counted twice
		{"cpu  100 0 50 800 10 0 0", 150, 960, 0, false},          // no steal column
		{"cpu0 1 2 3 4 5", 0, 0, 0, false},
		{"", 0, 0, 0, false},
	}
	for _, c := range cases {
		busy, total, steal, known := ParseCPULine(c.line)
		if busy != c.busy || total != c.total || steal != c.steal || known != c.known {
			t.Errorf("%q: busy %d total %d steal %d known %v, want %d %d %d %v", c.line, busy, total, steal, known, c.busy, c.total, c.steal, c.known)
		}
	}
	a := Usage{OK: true, StealKnown: true, HostTotal: 1000, HostSteal: 10}
	b := Usage{OK: true, StealKnown: true, HostTotal: 3000, HostSteal: 110}
	if s, ok := StealShare(a, b); !ok || s != 0.05 {
		t.Errorf("steal share %v %v, want 0.05", s, ok)
	}
	if _, ok := StealShare(a, Usage{OK: true, HostTotal: 3000}); ok {
		t.Error("a steal share without the column")
	}
}

func TestParseLoadAvg(t *testing.T) {
	if l, ok := ParseLoadAvg("3.10 2.65 1.24 6/286 22394\n"); !ok || l != [3]float64{3.1, 2.65, 1.24} {
		t.Errorf("load %v %v", l, ok)
	}
	for _, bad := range []string{"", "1.0 2.0", "a b c", "-1 0 0 1/2 3"} {
		if _, ok := ParseLoadAvg(bad); ok {
			t.Errorf("%q read as load averages", bad)
		}
	}
}
