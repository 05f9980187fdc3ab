package observe

import (
	"context"
	"errors"
	"io"
	"math"
	"math/rand"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/target"
)

// scrape reads the endpoint's metrics in the OpenMetrics format, parsed
// strictly with the Prometheus text parser, and the raw body. It checks
// that no metric but a counter has a name ending in _total.
func scrape(t *testing.T, addr string) (string, map[string]float64) {
	t.Helper()
	req, _ := http.NewRequest("GET", "http://"+addr+"/metrics", nil)
	req.Header.Set("Accept", "application/openmetrics-text; version=1.0.0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/openmetrics-text") {
		t.Errorf("content type %q, want OpenMetrics", ct)
	}
	body, _ := io.ReadAll(resp.Body)
	// The classic text format is what expfmt parses; ask for it too.
	resp2, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp2.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp2.Body)
	if err != nil {
		t.Fatalf("metrics do not parse: %v", err)
	}
	flat := map[string]float64{}
	for name, f := range fams {
		if strings.HasSuffix(name, "_total") && f.GetType().String() != "COUNTER" {
			t.Errorf("%s is a %s: by Prometheus' conventions a name ending in _total is a counter's", name, f.GetType())
		}
		for _, m := range f.Metric {
			var key []string
			for _, l := range m.Label {
				if l.GetName() == "operation" || l.GetName() == "class" || l.GetName() == "phase" {
					key = append(key, l.GetName()+"="+l.GetValue())
				}
				if l.GetName() == "run_id" && l.GetValue() != "r1" || l.GetName() == "shard" && l.GetValue() != "0/1" {
					t.Errorf("%s has label %s=%q", name, l.GetName(), l.GetValue())
				}
			}
			k := name + "{" + strings.Join(key, ",") + "}"
			switch {
			case m.Counter != nil:
				flat[k] = m.Counter.GetValue()
			case m.Gauge != nil:
				flat[k] = m.Gauge.GetValue()
			case m.Histogram != nil:
				flat[k+"_count"] = float64(m.Histogram.GetSampleCount())
				for _, b := range m.Histogram.Bucket {
					flat[k+"_le_"+strconv.FormatFloat(b.GetUpperBound(), 'g', 6, 64)] = float64(b.GetCumulativeCount())
				}
			}
		}
	}
	return string(body), flat
}

func interval(t *testing.T, phase string, reads int64, latency time.Duration, errs int64) result.Interval {
	h := hdr.New(1, 3_600_000_000_000, 3)
	for range reads {
		h.RecordValue(latency.Nanoseconds())
	}
	enc, err := result.EncodeHistogram(h)
	if err != nil {
		t.Fatal(err)
	}
	conc := int64(3)
	return result.Interval{Phase: phase, ElapsedSec: 1, LengthSec: 1, Concurrency: &conc, Ops: []result.IntervalOp{
		{Name: "READ", Count: reads, Rate: float64(reads), Histogram: enc, Errors: errs, ByClass: map[string]int64{"timeout": errs}},
	}}
}

// listen serves metrics labelled run r1 on a free loopback port until the
// test ends.
func listen(t *testing.T) *Metrics {
	t.Helper()
	m, err := Listen("127.0.0.1:0", Labels{RunID: "r1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// The endpoint sums the intervals' operations and errors by class, turns
// their HDR histograms into cumulative buckets, and labels every series
// with the run, workload and shard.
func TestMetricsFromIntervals(t *testing.T) {
	m, err := Listen("127.0.0.1:0", Labels{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	m.SetLabels(Labels{RunID: "r1", Workload: "ycsb/c"})
	m.SetRate(500)
	m.Observe(interval(t, "run", 100, time.Millisecond, 2))
	m.Observe(interval(t, "run", 50, 2*time.Millisecond, 1))
	body, got := scrape(t, m.Addr())
	want := map[string]float64{
		`candor_operations_total{operation=READ,phase=run}`:                     150,
		`candor_errors_total{class=timeout,operation=READ,phase=run}`:           3,
		`candor_operation_latency_seconds{operation=READ,phase=run}_count`:      150,
		`candor_operation_latency_seconds{operation=READ,phase=run}_le_0.00128`: 100, // 1 ms ≤ 1.28 ms
		`candor_operation_latency_seconds{operation=READ,phase=run}_le_0.00256`: 150,
		`candor_in_flight_operations{phase=run}`:                                3,
		`candor_target_rate_ops{}`:                                              500,
		`candor_achieved_rate_ops{phase=run}`:                                   50,
		`candor_intervals_total{}`:                                              2,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	if !strings.Contains(body, "# EOF") || !strings.Contains(body, `workload="ycsb/c"`) {
		t.Errorf("not OpenMetrics with the labels:\n%s", body)
	}
	// A new phase starts its counts afresh; the phase that ended keeps its
	// final counts.
	m.Observe(interval(t, "run2", 7, time.Millisecond, 0))
	_, got = scrape(t, m.Addr())
	if got[`candor_operations_total{operation=READ,phase=run2}`] != 7 || got[`candor_operations_total{operation=READ,phase=run}`] != 150 {
		t.Errorf("after a new phase: %v", got)
	}
	if _, ok := got[`candor_in_flight_operations{phase=run}`]; ok {
		t.Error("the gauges of a phase that ended are still served")
	}
}

// A phase's operations are served from its beginning with every error
// class at zero: an error is then an increase from 0 that a Prometheus
// rate() sees, not a series born at 1 (the classes appeared only with the
// first error, the operations only with the first interval).
func TestErrorsServedAtZeroFromTheStart(t *testing.T) {
	m := listen(t)
	m.Begin("run", []string{"READ", "UPDATE"})
	_, got := scrape(t, m.Addr())
	for _, op := range []string{"READ", "UPDATE"} {
		if v, ok := got[`candor_operations_total{operation=`+op+`,phase=run}`]; !ok || v != 0 {
			t.Errorf("operations of %s before any interval: %v, %v; want 0", op, v, ok)
		}
		for _, c := range target.Classes {
			k := `candor_errors_total{class=` + string(c) + `,operation=` + op + `,phase=run}`
			if v, ok := got[k]; !ok || v != 0 {
				t.Errorf("%s before any error: %v, %v; want 0", k, v, ok)
			}
		}
	}
	m.Observe(interval(t, "run", 10, time.Millisecond, 2))
	_, got = scrape(t, m.Addr())
	if got[`candor_errors_total{class=timeout,operation=READ,phase=run}`] != 2 || got[`candor_errors_total{class=connection,operation=READ,phase=run}`] != 0 {
		t.Errorf("after an interval with 2 timeouts: %v", got)
	}
}

// The load metrics are served only once a load is announced (a run on data
// loaded before showed "load progress 0%"), and no gauge is named *_total
// (candor_load_rows_total was one): by Prometheus' conventions a name
// ending in _total is a counter.
func TestLoadMetricsAndNames(t *testing.T) {
	m := listen(t)
	m.Begin("run", []string{"READ"})
	body, _ := scrape(t, m.Addr())
	if strings.Contains(body, "candor_load_") {
		t.Errorf("load metrics served for a run that does not load:\n%s", body)
	}
	m.SetLoadTotal(1000)
	m.Begin("load", []string{"INSERT"})
	m.Observe(result.Interval{Phase: "load", RowsDone: 400, Ops: []result.IntervalOp{{Name: "INSERT", Count: 4}}})
	_, got := scrape(t, m.Addr())
	if got[`candor_load_rows_planned{}`] != 1000 || got[`candor_load_rows_done{}`] != 400 {
		t.Errorf("load metrics %v", got)
	}
	// (scrape checked that every name ending in _total is a counter)
}

// Linger returns at the first scrape after it began (which reads the final
// values), after its time without one, or when ctx ends.
func TestLinger(t *testing.T) {
	m := listen(t)
	m.Observe(interval(t, "run", 10, time.Millisecond, 0))
	scrape(t, m.Addr()) // a scrape before the end does not count
	done := make(chan bool, 1)
	begin := time.Now()
	go func() { done <- m.Linger(context.Background(), 30*time.Second) }()
	time.Sleep(100 * time.Millisecond)
	select {
	case <-done:
		t.Fatal("Linger returned before any scrape")
	default:
	}
	_, got := scrape(t, m.Addr())
	if !<-done || time.Since(begin) > 10*time.Second {
		t.Errorf("Linger did not return at the scrape")
	}
	if got[`candor_operations_total{operation=READ,phase=run}`] != 10 {
		t.Errorf("the final scrape read %v", got)
	}
	begin = time.Now()
	if m.Linger(context.Background(), 200*time.Millisecond) || time.Since(begin) < 200*time.Millisecond {
		t.Error("Linger without a scrape: want false after its time")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if m.Linger(ctx, time.Minute) {
		t.Error("Linger with an ended context: want false at once")
	}
}

// An address that is taken fails at Listen, naming it, before any run.
func TestListenTakenAddress(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, err = Listen(ln.Addr().String(), Labels{})
	if !errors.Is(err, ErrListen) || !strings.Contains(err.Error(), ln.Addr().String()) {
		t.Fatalf("err = %v", err)
	}
}

// eachValue gives the slots and counts hdrhistogram-go's own Distribution
// gives, from the lowest to the highest values a histogram holds.
func TestEachValueMatchesDistribution(t *testing.T) {
	h := hdr.New(1, 3_600_000_000_000, 3)
	r := rand.New(rand.NewSource(1))
	for range 20000 {
		h.RecordValue(int64(math.Exp(r.Float64() * 30))) // 1 ns .. ~10 s, log-uniform
	}
	h.RecordValue(0)
	h.RecordValue(3_600_000_000_000)
	want := map[int64]int64{}
	for _, b := range h.Distribution() {
		if b.Count > 0 {
			want[b.From] += b.Count
		}
	}
	got := map[int64]int64{}
	eachValue(h.Export(), func(v, n int64) { got[v] += n })
	if len(got) != len(want) {
		t.Fatalf("%d slots, want %d", len(got), len(want))
	}
	for v, n := range want {
		if got[v] != n {
			t.Errorf("slot %d: %d values, want %d", v, got[v], n)
		}
	}
}
