package measure

import (
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// OpStats aggregates one operation over a span of time: dense histograms per
// series and counters. It is owned by the collector's goroutine.
type OpStats struct {
	Name     string
	H        [numSeries]*hdr.Histogram // nil until something is recorded
	Errors   [NumClasses]int64
	Attempts int64
	Retries  int64
	Aborts   int64
	Clamped  int64
	// TopLevel counts successful operations the runner issued; Count also
	// includes sub-operations a worker reported as spans.
	TopLevel int64
	// Unfinished counts operations still running when the phase ended;
	// Bounds those of them whose time so far is in H[Latency] as a lower
	// bound, which Count leaves out.
	Unfinished int64
	Bounds     int64
	// NoSession counts operations that could not be attempted for want of
	// a session (Recorder.NoSession); they are failed operations.
	NoSession int64
	// First holds the first error of each class (by class index), with
	// its time; Msg is "" for a class without errors.
	First [NumClasses]ErrorNote
}

// noteFirst keeps n as the first error of class c unless an earlier one is
// known.
func (s *OpStats) noteFirst(c int, n ErrorNote) {
	if f := s.First[c]; f.Msg == "" || n.At.Before(f.At) {
		s.First[c] = n
	}
}

func (s *OpStats) hist(series Series) *hdr.Histogram {
	if s.H[series] == nil {
		s.H[series] = hdr.New(LowestNs, HighestNs, SigFigs)
	}
	return s.H[series]
}

func (s *OpStats) add(c *opCounters) {
	for i, n := range c.errors {
		s.Errors[i] += n
	}
	s.Attempts += c.attempts
	s.Retries += c.retries
	s.Aborts += c.aborts
	s.Clamped += c.clamped
	s.TopLevel += c.top
	s.Unfinished += c.unfinished
	s.Bounds += c.bounds
	s.NoSession += c.noSession
}

// Count is the number of successful operations (the latency histogram's
// values less the unfinished operations' lower bounds).
func (s *OpStats) Count() int64 {
	if s.H[Latency] == nil {
		return 0
	}
	return s.H[Latency].TotalCount() - s.Bounds
}

// ErrorCount is the number of failed attempts of every class.
func (s *OpStats) ErrorCount() int64 {
	var n int64
	for _, e := range s.Errors {
		n += e
	}
	return n
}

// Merge adds other into s.
func (s *OpStats) Merge(other *OpStats) {
	for i, h := range other.H {
		if h != nil {
			s.hist(Series(i)).Merge(h)
		}
	}
	s.add(&opCounters{errors: other.Errors, attempts: other.Attempts, retries: other.Retries, aborts: other.Aborts, clamped: other.Clamped,
		top: other.TopLevel, unfinished: other.Unfinished, bounds: other.Bounds, noSession: other.NoSession})
	for c, n := range other.First {
		if n.Msg != "" {
			s.noteFirst(c, n)
		}
	}
}

// Snapshot is what one tick collected.
type Snapshot struct {
	Start, End time.Time
	Ops        []*OpStats
	Counters   []int64 // workload counters added in the interval
}

// WorkerTotals is one worker's share of the running total: finished
// top-level operations and their summed latency (for sysbench's thread
// fairness).
type WorkerTotals struct {
	Ops    int64
	BusyNs int64
}

// NewStats returns empty stats for the given operation names.
func NewStats(ops []string) []*OpStats {
	out := make([]*OpStats, len(ops))
	for i, n := range ops {
		out[i] = &OpStats{Name: n}
	}
	return out
}

// Collector owns the workers' recorders and merges them on Tick. Tick and
// Total must be called from one goroutine; Recorder is safe to call before
// the workers start.
type Collector struct {
	ops       []string
	ncounters int
	mu        sync.Mutex // guards recorders (registration only)
	recorders []*Recorder
	last      time.Time
	total     []*OpStats
	counters  []int64
	workers   []WorkerTotals // per recorder, in registration order
}

// NewCollector returns a collector for the workload's operations and
// counters. start is the beginning of the first interval.
func NewCollector(ops []string, ncounters int, start time.Time) *Collector {
	return &Collector{ops: ops, ncounters: ncounters, last: start, total: NewStats(ops), counters: make([]int64, ncounters)}
}

// Recorder registers and returns a new worker recorder.
func (c *Collector) Recorder() *Recorder {
	r := NewRecorder(len(c.ops), c.ncounters)
	c.mu.Lock()
	c.recorders = append(c.recorders, r)
	c.mu.Unlock()
	return r
}

// Tick drains every recorder into a new interval snapshot ending at now, and
// folds it into the running total.
func (c *Collector) Tick(now time.Time) Snapshot {
	snap := Snapshot{Start: c.last, End: now, Ops: NewStats(c.ops), Counters: make([]int64, c.ncounters)}
	c.mu.Lock()
	recs := c.recorders
	c.mu.Unlock()
	for len(c.workers) < len(recs) {
		c.workers = append(c.workers, WorkerTotals{})
	}
	for i, r := range recs {
		top, busy := r.drainInto(snap.Ops, snap.Counters)
		c.workers[i].Ops += top
		c.workers[i].BusyNs += busy
	}
	for i, s := range snap.Ops {
		c.total[i].Merge(s)
	}
	for i, n := range snap.Counters {
		c.counters[i] += n
	}
	c.last = now
	return snap
}

// ResetTotal discards the running total (the end of a warm-up).
func (c *Collector) ResetTotal() {
	c.total = NewStats(c.ops)
	c.counters = make([]int64, c.ncounters)
	for i := range c.workers {
		c.workers[i] = WorkerTotals{}
	}
}

// Counters returns the running total of the workload counters.
func (c *Collector) Counters() []int64 { return c.counters }

// Workers returns each worker's running totals, in registration order.
func (c *Collector) Workers() []WorkerTotals { return c.workers }

// Total returns the running total since the start or the last ResetTotal.
func (c *Collector) Total() []*OpStats { return c.total }
