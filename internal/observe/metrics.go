package observe

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"sort"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/target"
)

// Labels are on every metric: which run, workload and shard they count.
type Labels struct {
	RunID    string
	Workload string
	// Shard is "i/N"; "0/1" for a run in one process.
	Shard string
}

// latencyBuckets are the upper bounds, in seconds, of the latency
// histograms' buckets: 10 µs doubling to about 10.5 s (21 buckets), wide
// enough for an in-memory read and a checkpoint stall alike.
var latencyBuckets = func() []float64 {
	var b []float64
	for v := 10e-6; v < 11; v *= 2 {
		b = append(b, v)
	}
	return b
}()

// opState is one operation's running totals within the current phase.
type opState struct {
	count   uint64
	errors  map[string]uint64
	buckets []uint64 // per latencyBuckets, not cumulative; last = above all
	sum     float64  // seconds
	n       uint64
}

// phaseState is one phase's operations.
type phaseState struct {
	name  string
	ops   map[string]*opState
	order []string
}

// Metrics serves the run's live metrics at /metrics. Observe feeds it one
// interval record at a time (from the runner's monitor); a scrape reads a
// consistent snapshot under its lock. Safe for concurrent use.
type Metrics struct {
	labels Labels
	srv    *http.Server
	ln     net.Listener

	mu sync.Mutex
	// phases are those begun, in order; the last is the current one. A
	// phase that ended keeps its counters (their final values).
	phases     []*phaseState
	inFlight   float64
	targetRate float64
	achieved   float64
	loadDone   float64
	loadTotal  float64
	intervals  uint64
	elapsed    float64
	done       chan struct{}
	// scraped, when set (Linger), is closed by the next scrape.
	scraped chan struct{}
}

// ErrListen marks a metrics address candor cannot listen on.
var ErrListen = errors.New("cannot serve metrics")

// Listen binds addr (as given: ":9464" listens on every interface,
// "127.0.0.1:9464" on one) and serves /metrics in the background. An
// address that cannot be bound (taken, not local, malformed) fails here,
// before the run starts, with an error wrapping ErrListen.
func Listen(addr string, l Labels) (*Metrics, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%w on --metrics-addr %q: %w; choose a free port (e.g. --metrics-addr 127.0.0.1:9464) or stop what holds it", ErrListen, addr, err)
	}
	if l.Shard == "" {
		l.Shard = "0/1"
	}
	m := &Metrics{labels: l, ln: ln, done: make(chan struct{})}
	reg := prometheus.NewRegistry()
	reg.MustRegister(m)
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{EnableOpenMetrics: true}))
	m.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		defer close(m.done)
		m.srv.Serve(ln) // returns at Close
	}()
	return m, nil
}

// Addr is the address the endpoint listens on (with the port chosen when
// the address gave port 0).
func (m *Metrics) Addr() string { return m.ln.Addr().String() }

// SetLabels sets the labels of every metric (the run id is known only
// after the endpoint listens).
func (m *Metrics) SetLabels(l Labels) {
	if l.Shard == "" {
		l.Shard = "0/1"
	}
	m.mu.Lock()
	m.labels = l
	m.mu.Unlock()
}

// SetRate records the run's target rate in operations per second (0:
// closed loop).
func (m *Metrics) SetRate(r float64) {
	m.mu.Lock()
	m.targetRate = r
	m.mu.Unlock()
}

// SetLoadTotal records the rows a load phase inserts. Only a command that
// loads calls it: the load metrics are served once it has (a run on data
// loaded before has none).
func (m *Metrics) SetLoadTotal(rows int64) {
	m.mu.Lock()
	m.loadTotal = float64(rows)
	m.mu.Unlock()
}

// SetInFlight records the operations running now; threads is used for a
// closed-loop phase (every worker runs one), and Observe takes an open
// loop's figure from the interval record.
func (m *Metrics) SetInFlight(n int) {
	m.mu.Lock()
	m.inFlight = float64(n)
	m.mu.Unlock()
}

// Begin starts phase with its operations: their counters are served from
// now, at zero, with every error class of target.Classes at zero too, so
// that the first operation or error of the phase is an increase a
// Prometheus query sees (a series born at 1 is not). Beginning the current
// phase again adds ops to it; beginning another phase keeps the counters
// of the phases before (their final values) and replaces an earlier phase
// of the same name.
func (m *Metrics) Begin(phase string, ops []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.begin(phase)
	for _, o := range ops {
		m.op(o)
	}
}

func (m *Metrics) begin(phase string) {
	if c := m.current(); c != nil && c.name == phase {
		return
	}
	kept := m.phases[:0]
	for _, p := range m.phases {
		if p.name != phase {
			kept = append(kept, p)
		}
	}
	m.phases = append(kept, &phaseState{name: phase, ops: map[string]*opState{}})
	m.achieved, m.elapsed = 0, 0 // the last phase's, until an interval of this one
}

// current is the phase begun last (nil before any).
func (m *Metrics) current() *phaseState {
	if len(m.phases) == 0 {
		return nil
	}
	return m.phases[len(m.phases)-1]
}

// Observe adds one interval record. A record of a phase other than the
// current one begins that phase (the phase label tells them apart).
func (m *Metrics) Observe(iv result.Interval) {
	type lat struct {
		name string
		bars []float64 // value (s), count pairs
	}
	// Decode outside the lock: a scrape never waits for it.
	var lats []lat
	for _, o := range iv.Ops {
		if o.Histogram == "" {
			continue
		}
		h, err := result.DecodeHistogram(o.Histogram)
		if err != nil {
			continue
		}
		l := lat{name: o.Name}
		eachValue(h.Export(), func(v, n int64) {
			l.bars = append(l.bars, float64(v)/1e9, float64(n))
		})
		lats = append(lats, l)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.begin(iv.Phase)
	m.intervals++
	m.elapsed = iv.ElapsedSec
	rate := 0.0
	for _, o := range iv.Ops {
		s := m.op(o.Name)
		s.count += uint64(max(o.Count, 0))
		for c, n := range o.ByClass {
			s.errors[c] += uint64(max(n, 0))
		}
		rate += o.Rate
	}
	m.achieved = rate
	if iv.RowsDone > 0 {
		m.loadDone = float64(iv.RowsDone)
	}
	if iv.Concurrency != nil {
		m.inFlight = float64(*iv.Concurrency)
	}
	for _, l := range lats {
		s := m.op(l.name)
		for i := 0; i+1 < len(l.bars); i += 2 {
			v, n := l.bars[i], l.bars[i+1]
			k := sort.SearchFloat64s(latencyBuckets, v)
			s.buckets[k] += uint64(n)
			s.sum += v * n
			s.n += uint64(n)
		}
	}
}

// eachValue calls fn with the lowest value of every slot of s that holds
// values, and their count. It walks the counts array once, by the
// HdrHistogram layout (buckets of subBucketCount slots, each bucket's
// slots twice as wide as the one before; the first bucket's lower half is
// unit-wide): hdrhistogram-go's Distribution makes a bar for every slot up
// to the maximum, which cost milliseconds per interval.
func eachValue(s *hdr.Snapshot, fn func(v, n int64)) {
	sig := max(s.SignificantFigures, 1)
	subCountMag := int64(math.Ceil(math.Log2(2 * math.Pow10(int(sig)))))
	halfMag := max(subCountMag, 1) - 1
	half := int64(1) << halfMag
	unit := int64(0)
	if s.LowestTrackableValue > 1 {
		unit = int64(math.Floor(math.Log2(float64(s.LowestTrackableValue))))
	}
	for i, n := range s.Counts {
		if n == 0 {
			continue
		}
		idx := int64(i)
		bucket := idx>>halfMag - 1
		sub := idx&(half-1) + half
		if bucket < 0 {
			sub -= half
			bucket = 0
		}
		fn(sub<<(bucket+unit), n)
	}
}

// op is the current phase's state of operation name, made with every
// error class at zero.
func (m *Metrics) op(name string) *opState {
	p := m.current()
	s := p.ops[name]
	if s == nil {
		s = &opState{errors: map[string]uint64{}, buckets: make([]uint64, len(latencyBuckets)+1)}
		for _, c := range target.Classes {
			s.errors[string(c)] = 0
		}
		p.ops[name] = s
		p.order = append(p.order, name)
	}
	return s
}

// Linger keeps the endpoint serving the values it has until one scrape has
// read them, d has passed or ctx ends, whichever comes first, and reports
// whether a scrape read them. Called after the last interval: a scraper
// polling every d or more often then sees the run's final counts, which
// would be lost if the endpoint closed with the run.
func (m *Metrics) Linger(ctx context.Context, d time.Duration) bool {
	ch := make(chan struct{})
	m.mu.Lock()
	m.scraped = ch
	m.mu.Unlock()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	return false
}

// Close stops the endpoint; scrapes in progress are given up to a second.
func (m *Metrics) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := m.srv.Shutdown(ctx)
	<-m.done
	return err
}

var constLabels = []string{"run_id", "workload", "shard"}

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(name, help, append(append([]string{}, constLabels...), labels...), nil)
}

var (
	descOps       = desc("candor_operations_total", "Operations finished without error in the current phase.", "phase", "operation")
	descErrors    = desc("candor_errors_total", "Operations that ended in an error (after their retries), by error class.", "phase", "operation", "class")
	descLatency   = desc("candor_operation_latency_seconds", "Latency of finished operations (measured from the intended start in an open loop), warm-up included.", "phase", "operation")
	descInFlight  = desc("candor_in_flight_operations", "Operations running at the last interval's end.", "phase")
	descTarget    = desc("candor_target_rate_ops", "Target rate of an open-loop run in operations per second (0: closed loop).")
	descAchieved  = desc("candor_achieved_rate_ops", "Operations per second finished in the last interval.", "phase")
	descLoadDone  = desc("candor_load_rows_done", "Rows a load phase has inserted so far.")
	descLoadTotal = desc("candor_load_rows_planned", "Rows the load phase inserts in all.")
	descIntervals = desc("candor_intervals_total", "Interval records made so far.")
	descElapsed   = desc("candor_phase_elapsed_seconds", "Seconds since the current phase started, at the last interval's end.", "phase")
)

// Describe implements prometheus.Collector.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descOps, descErrors, descLatency, descInFlight, descTarget, descAchieved, descLoadDone, descLoadTotal, descIntervals, descElapsed} {
		ch <- d
	}
}

// Collect implements prometheus.Collector from the state under the lock.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.scraped != nil { // this scrape reads the final values
		close(m.scraped)
		m.scraped = nil
	}
	l := []string{m.labels.RunID, m.labels.Workload, m.labels.Shard}
	with := func(extra ...string) []string { return append(append([]string{}, l...), extra...) }
	for _, p := range m.phases {
		for _, name := range p.order {
			s := p.ops[name]
			ch <- prometheus.MustNewConstMetric(descOps, prometheus.CounterValue, float64(s.count), with(p.name, name)...)
			classes := make([]string, 0, len(s.errors))
			for c := range s.errors {
				classes = append(classes, c)
			}
			sort.Strings(classes)
			for _, c := range classes {
				ch <- prometheus.MustNewConstMetric(descErrors, prometheus.CounterValue, float64(s.errors[c]), with(p.name, name, c)...)
			}
			cum := map[float64]uint64{}
			var run uint64
			for i, b := range latencyBuckets {
				run += s.buckets[i]
				cum[b] = run
			}
			ch <- prometheus.MustNewConstHistogram(descLatency, s.n, s.sum, cum, with(p.name, name)...)
		}
	}
	if c := m.current(); c != nil {
		ch <- prometheus.MustNewConstMetric(descInFlight, prometheus.GaugeValue, m.inFlight, with(c.name)...)
		ch <- prometheus.MustNewConstMetric(descAchieved, prometheus.GaugeValue, m.achieved, with(c.name)...)
		ch <- prometheus.MustNewConstMetric(descElapsed, prometheus.GaugeValue, m.elapsed, with(c.name)...)
	}
	ch <- prometheus.MustNewConstMetric(descTarget, prometheus.GaugeValue, m.targetRate, l...)
	if m.loadTotal > 0 {
		ch <- prometheus.MustNewConstMetric(descLoadDone, prometheus.GaugeValue, m.loadDone, l...)
		ch <- prometheus.MustNewConstMetric(descLoadTotal, prometheus.GaugeValue, m.loadTotal, l...)
	}
	ch <- prometheus.MustNewConstMetric(descIntervals, prometheus.CounterValue, float64(m.intervals), l...)
}
