// Package measure records operation latencies without a lock shared by
// workers: every worker owns a Recorder (sparse HdrHistograms behind a mutex
// only the collector's tick contends for), and a Collector merges them into
// per-interval and cumulative dense histograms on each tick. Memory is
// independent of run length.
package measure

import (
	"sync"
	"sync/atomic"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/candor-bench/candor/internal/cacheline"
)

// Histogram geometry: nanoseconds, 1 ns .. 1 h, 3 significant digits
// (docs/MEASUREMENT.md, "Histograms"). Values above an hour are recorded as an hour and counted as
// clamped, so nothing is dropped silently.
const (
	LowestNs  int64 = 1
	HighestNs int64 = 3_600_000_000_000
	SigFigs         = 3
)

// Series names one of the latency series kept per operation.
type Series int

// The series. Latency is the primary one: service time in a closed loop,
// time from the intended start in an open loop. Service and Lag are kept only
// in an open loop (lag = actual start − intended start). Failed holds the
// latency of operations that ended in an error.
const (
	Latency Series = iota
	Service
	Lag
	Failed
	numSeries
)

// SeriesNames are the result-file names of the series.
var SeriesNames = [numSeries]string{"latency", "service", "lag", "failed"}

// NumClasses bounds error class indexes given to Record.
const NumClasses = 8

// opCounters are the non-histogram counts of one operation.
type opCounters struct {
	errors   [NumClasses]int64 // failed attempts by class index
	attempts int64
	retries  int64
	aborts   int64 // operations whose final outcome was an error
	top      int64 // successful top-level operations (not sub-operation spans)
	clamped  int64
	// unfinished counts operations still running when the phase ended;
	// bounds those of them whose time so far is in the latency histogram
	// as a lower bound (RecordCut).
	unfinished int64
	bounds     int64
	// noSession counts operations that could not be attempted: their
	// worker had no session (one per failed connect while reconnecting).
	noSession int64
}

// ErrorNote is the first error of one class seen for one operation: when
// and its message.
type ErrorNote struct {
	At  time.Time
	Msg string
}

type opRec struct {
	h [numSeries]*hdr.PackedHistogram
	opCounters
	first [NumClasses]ErrorNote // kept until the collector takes it
}

// addAttempts counts attempts made, the retries among them and the failed
// ones by class.
func (c *opCounters) addAttempts(attempts, retries int, failed *[NumClasses]int32) {
	c.attempts += int64(attempts)
	c.retries += int64(retries)
	if *failed == ([NumClasses]int32{}) {
		return // the usual case: the errors' counts stay out of the cache
	}
	for i, n := range failed {
		c.errors[i] += int64(n)
	}
}

// Recorder is one worker's set of histograms. Record is called only by its
// worker; Drain only by the collector. The mutex is uncontended except for
// the moment of a tick.
type Recorder struct {
	_   cacheline.Pad // see package cacheline
	mu  sync.Mutex
	ops []opRec
	// counters are the workload's named counters, added without the lock.
	counters []atomic.Int64
	// busyNs sums the primary latency of top-level operations (sysbench's
	// per-thread execution time), guarded by mu.
	busyNs int64
	top    int64
	// pend holds the values recorded since the last flush, each with its
	// histogram, guarded by mu (see record).
	pend  [pendValues]pending
	npend int
	_     cacheline.Pad
}

// pendValues is how many values a recorder keeps before it adds them to
// their histograms.
const pendValues = 128

// pending is a value recorded but not yet in its histogram.
type pending struct {
	h *hdr.PackedHistogram
	v int64
}

func newPacked() *hdr.PackedHistogram { return hdr.NewPacked(LowestNs, HighestNs, SigFigs) }

// NewRecorder returns a recorder for nops operation types and ncounters
// workload counters.
func NewRecorder(nops, ncounters int) *Recorder {
	return &Recorder{ops: cacheline.Slice[opRec](nops), counters: cacheline.Slice[atomic.Int64](ncounters)}
}

// Add adds n to workload counter i. It is safe to call from the worker while
// the collector ticks.
func (r *Recorder) Add(i int, n int64) { r.counters[i].Add(n) }

func clamp(v int64) (int64, bool) {
	if v < LowestNs {
		return LowestNs, false
	}
	if v > HighestNs {
		return HighestNs, true
	}
	return v, false
}

// record adds v to series s of operation o: it goes into r's pending
// values, which are added to their histograms in one pass when there are
// pendValues of them and before every drain. A packed histogram finds a
// value's bucket by a binary search over its populated buckets, and a
// worker's histograms are out of the cache again by its next operation
// (the sessions of an event loop take turns, and the server's processes
// share the cores): adding its values in runs of pendValues keeps them in
// the cache for the run (docs/MEASUREMENT.md, "Histograms"). r.mu must be
// held.
func (r *Recorder) record(o *opRec, s Series, v int64) {
	v, clamped := clamp(v)
	if clamped {
		o.clamped++
	}
	h := o.h[s]
	if h == nil {
		h = newPacked()
		o.h[s] = h
	}
	if r.npend == len(r.pend) {
		r.flush()
	}
	r.pend[r.npend] = pending{h: h, v: v}
	r.npend++
}

// flush adds the pending values to their histograms. r.mu must be held.
func (r *Recorder) flush() {
	for i := range r.pend[:r.npend] {
		p := &r.pend[i]
		_ = p.h.RecordValue(p.v) // in range after clamp: cannot fail
		p.h = nil
	}
	r.npend = 0
}

// Outcome is one finished operation as the runner saw it.
type Outcome struct {
	Op        int
	LatencyNs int64 // primary latency
	ServiceNs int64 // open loop only (0 otherwise)
	LagNs     int64 // open loop only
	OpenLoop  bool
	Attempts  int
	Failed    bool
	// ErrClasses counts failed attempts by class index.
	ErrClasses [NumClasses]int32
}

// Record adds one finished operation.
func (r *Recorder) Record(o *Outcome) {
	r.mu.Lock()
	op := &r.ops[o.Op]
	if o.Failed {
		r.record(op, Failed, o.LatencyNs)
		op.aborts++
	} else {
		r.record(op, Latency, o.LatencyNs)
		op.top++
		if o.OpenLoop {
			r.record(op, Service, o.ServiceNs)
			r.record(op, Lag, o.LagNs)
		}
	}
	r.busyNs += o.LatencyNs
	r.top++
	op.addAttempts(o.Attempts, max(o.Attempts-1, 0), &o.ErrClasses)
	r.mu.Unlock()
}

// RecordCut adds what an operation that the end of the phase cut short did
// within the phase: its failed attempts (sysbench counts each restart as it
// happens) and its time up to the end, o.LatencyNs, as the worker's busy
// time. It is counted as unfinished, not as a successful operation
// (OpStats.Count), nor is its last attempt, the one cut short. With bound,
// its time so far also goes into the latency histogram as a lower bound of
// its latency (it had waited at least that long), so a stall at the end of
// a phase shows in the percentiles and the maximum.
func (r *Recorder) RecordCut(o *Outcome, bound bool) {
	failed := max(o.Attempts-1, 0)
	r.mu.Lock()
	r.busyNs += max(o.LatencyNs, 0)
	op := &r.ops[o.Op]
	op.addAttempts(failed, failed, &o.ErrClasses)
	op.unfinished++
	if bound {
		r.record(op, Latency, o.LatencyNs)
		op.bounds++
	}
	r.mu.Unlock()
}

// AddError counts one failed attempt of operation op with error class
// class when it happens (not when the operation ends, which may be after a
// reconnect: the error belongs to the interval it happened in), and keeps
// the first message of each class: msg(err) is called only for the first
// error of its class and operation since the last tick.
func (r *Recorder) AddError(op, class int, err error, msg func(error) string) {
	if class < 0 || class >= NumClasses {
		return
	}
	r.mu.Lock()
	o := &r.ops[op]
	o.errors[class]++
	o.noteFirst(class, err, msg)
	r.mu.Unlock()
}

// NoSession counts n operations op that could not be attempted because
// their worker had no session (a connect that failed while it
// reconnected; an open loop's operations due while it had none at the
// phase's end): failed operations of class class, counted when it happens.
// err, when not nil, is kept as the class's first message.
func (r *Recorder) NoSession(op, class int, n int64, err error, msg func(error) string) {
	if class < 0 || class >= NumClasses || n <= 0 {
		return
	}
	r.mu.Lock()
	o := &r.ops[op]
	o.errors[class] += n
	o.noSession += n
	if err != nil {
		o.noteFirst(class, err, msg)
	}
	r.mu.Unlock()
}

// NoteError keeps msg(err) as the first message of class for operation op
// when none is kept, without counting an error (RecordSpan counts it).
func (r *Recorder) NoteError(op, class int, err error, msg func(error) string) {
	if class < 0 || class >= NumClasses {
		return
	}
	r.mu.Lock()
	r.ops[op].noteFirst(class, err, msg)
	r.mu.Unlock()
}

func (o *opRec) noteFirst(class int, err error, msg func(error) string) {
	if o.first[class].Msg == "" {
		o.first[class] = ErrorNote{At: time.Now(), Msg: msg(err)}
	}
}

// RecordSpan adds a sub-operation's latency (success or failure) without
// touching attempt counters.
func (r *Recorder) RecordSpan(op int, latencyNs int64, failed bool, class int) {
	r.mu.Lock()
	o := &r.ops[op]
	if failed {
		r.record(o, Failed, latencyNs)
		if class >= 0 && class < NumClasses {
			o.errors[class]++
		}
	} else {
		r.record(o, Latency, latencyNs)
	}
	r.mu.Unlock()
}

// drainInto moves everything recorded so far into dst and counters, and
// resets the recorder. It returns the worker's finished top-level operations
// and their summed latency since the last drain.
func (r *Recorder) drainInto(dst []*OpStats, counters []int64) (top, busyNs int64) {
	for i := range r.counters {
		counters[i] += r.counters[i].Swap(0)
	}
	r.mu.Lock()
	r.flush()
	top, busyNs = r.top, r.busyNs
	r.top, r.busyNs = 0, 0
	for i := range r.ops {
		o := &r.ops[i]
		d := dst[i]
		for s, h := range o.h {
			if h != nil && h.TotalCount() > 0 {
				h.MergeInto(d.hist(Series(s)))
				h.Reset()
			}
		}
		d.add(&o.opCounters)
		o.opCounters = opCounters{}
		for c, n := range o.first {
			if n.Msg != "" {
				d.noteFirst(c, n)
				o.first[c] = ErrorNote{}
			}
		}
	}
	r.mu.Unlock()
	return top, busyNs
}
