// Package runner drives a workload against a target: the load phase (parallel
// batches with progress) and the measured phase (closed or open loop), with
// warm-up, stop conditions, retries, reconnects and interrupts. Workers do one
// operation per call; everything around it lives here.
package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/candor-bench/candor/internal/evloop"
	"github.com/candor-bench/candor/internal/measure"
	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

// Config is how to drive the workload. Zero values mean "not set" where noted.
type Config struct {
	Threads    int           // workers, each with its own connection (> 0)
	Duration   time.Duration // measured time after warm-up; 0 = until Operations
	Operations int64         // total operations; 0 = until Duration
	Warmup     time.Duration // run but exclude from histograms
	Rate       float64       // total operations per second; 0 = closed loop
	Arrival    string        // ArrivalConstant or ArrivalPoisson (open loop)
	// Retries is the extra attempts of an operation whose error is in
	// RetryClasses; -1 retries without limit until the phase ends.
	Retries int
	// RetryClasses lists the error classes that are retried; nil means
	// retryable (serialization, deadlock) and connection.
	RetryClasses []target.ErrorClass
	// LoadRetries is the extra attempts of a failed load batch, whatever
	// its error class, RetryInterval apart.
	LoadRetries int
	// ReportInterval is the length of one interval record and status line.
	ReportInterval time.Duration
	Seed           int64 // base seed; worker w uses Seed+w+1
	LoadBatch      int   // rows per load batch; 0 for the default (see LoadBatch)
	// RetryInterval is the pause before retrying a failed load batch.
	RetryInterval time.Duration
	// SessionIO is how a run phase's sessions wait for their server:
	// target.IOAuto ("" too) chooses by the target's capabilities and the
	// sessions per core; target.IOBlocking or
	// target.IOPoller force it on targets that offer the choice
	// (target.ChooseSessionIO); target.IOLoop serves them from Loops
	// event loops.
	SessionIO target.SessionIO
	// Loops is, with target.IOLoop, how many event loops (threads) serve
	// the sessions, each a contiguous block of workers as pgbench's -j
	// threads take its clients; 0 means 1.
	Loops int
	// StopOnError ends the run phase as failed at the first operation whose
	// error is not retried (workload.Limits.StopOnError).
	StopOnError bool
	// AbortClient stops a worker at its first operation whose error is not
	// retried and is not a lost session (workload.Limits.AbortClient): the
	// line is shown on Problems at once (once per distinct message), the
	// phase goes on with the others and is failed at its end. An open loop
	// ends the phase at that error instead.
	AbortClient bool
	// SharedOperations makes Operations, in a closed loop, one budget the
	// workers draw from (workload.Limits.SharedOperations); otherwise each
	// worker does an equal share (quota).
	SharedOperations bool
	// FinishInFlight lets an operation begun before the duration's end run
	// to its end and counts it, as pgbench's -T and sysbench's --time do
	// (workload.Limits.FinishInFlight); otherwise the end cuts it short,
	// counted unfinished. One still running FinishGrace after the end is
	// cut short all the same.
	FinishInFlight bool
	// MaxErrorRate is a run phase's error budget: the fraction of its
	// operations that may end in an error (after their retries); a phase
	// above it is failed, with the reason in Phase.Failure. 0 allows none;
	// NoErrorBudget turns the check off. The CLI's default is
	// DefaultMaxErrorRate.
	MaxErrorRate float64
	// LedgerDir, when set, is where every worker keeps its durability
	// ledger (one file each, internal/ledger): the outcome of every
	// attempt of every write. The workload's workers must be
	// workload.LedgerWorkers.
	LedgerDir string
	// MaxReconnectBackoff caps the pause between a lost session's
	// reconnection attempts (they start at 50 ms and double); 0 means 2 s.
	// Runs that measure a recovery (faults, fail-over) set it low: the
	// RTO includes the back-off.
	MaxReconnectBackoff time.Duration
	// MaxUnavailable is the share of a run phase's worker-seconds its
	// workers may spend without a session (Phase.Unavailable) before the
	// phase is failed, whatever Retries says; 0 means no limit. The CLI's
	// default is DefaultMaxUnavailable.
	MaxUnavailable float64
}

// ChooseSessionIO returns the session I/O of a run phase on tgt
// (target.ChooseSessionIO for c's threads on the client's cores; the kernel
// shares them thread by thread when tgt's server runs on this machine and
// autogroups are off). With Loops and IOAuto, on a target whose sessions
// can choose, it is IOLoop, or IOBlocking when there are as many loops as
// sessions (a thread each, which is what a blocking session has).
func (c Config) ChooseSessionIO(tgt target.Target) (target.SessionIO, error) {
	if auto := c.SessionIO == "" || c.SessionIO == target.IOAuto; auto && c.Loops > 0 && evloop.Available && tgt.Capabilities().BlockingSessions {
		if c.Loops < c.Threads {
			return target.IOLoop, nil
		}
		return target.IOBlocking, nil
	}
	threadFair := target.OnThisMachine(tgt) && measure.SchedAutogroup() == "off"
	return target.ChooseSessionIO(tgt.Capabilities(), c.SessionIO, c.Threads, measure.Cores, threadFair)
}

// Validate returns every problem with the configuration at once.
func (c Config) Validate() error {
	var errs []error
	if c.Threads <= 0 {
		errs = append(errs, fmt.Errorf("--threads must be at least 1 (got %d)", c.Threads))
	}
	if c.Duration < 0 {
		errs = append(errs, fmt.Errorf("--time must not be negative (got %v)", c.Duration))
	}
	if c.Operations < 0 {
		errs = append(errs, fmt.Errorf("--operations (--events) must not be negative (got %d)", c.Operations))
	}
	if c.Warmup < 0 {
		errs = append(errs, fmt.Errorf("--warmup must not be negative (got %v)", c.Warmup))
	}
	if c.Rate < 0 || math.IsNaN(c.Rate) || math.IsInf(c.Rate, 0) {
		errs = append(errs, fmt.Errorf("--rate must be a finite number of operations per second, 0 or more (got %v)", c.Rate))
	}
	if c.MaxErrorRate != NoErrorBudget && (c.MaxErrorRate < 0 || c.MaxErrorRate > 1 || math.IsNaN(c.MaxErrorRate)) {
		errs = append(errs, fmt.Errorf("--max-error-rate must be between 0 and 100%% (got %v)", c.MaxErrorRate))
	}
	if c.MaxUnavailable < 0 || c.MaxUnavailable > 1 || math.IsNaN(c.MaxUnavailable) {
		errs = append(errs, fmt.Errorf("--max-unavailable must be between 0 and 100%% (got %v)", c.MaxUnavailable))
	}
	if c.Arrival != "" && c.Arrival != ArrivalConstant && c.Arrival != ArrivalPoisson {
		errs = append(errs, fmt.Errorf("--arrival %q is not valid; use constant or poisson", c.Arrival))
	}
	if c.Retries < -1 {
		errs = append(errs, fmt.Errorf("--retries must be 0 or more, or -1 for no limit (got %d)", c.Retries))
	}
	if err := target.ValidSessionIO(c.SessionIO); err != nil {
		errs = append(errs, err)
	}
	if c.Loops < 0 {
		errs = append(errs, fmt.Errorf("--loops must be 0 or more (got %d)", c.Loops))
	}
	if c.Loops > 0 && (c.SessionIO == target.IOBlocking || c.SessionIO == target.IOPoller) {
		errs = append(errs, fmt.Errorf("--loops %d with --session-io %s: loops serve sessions only with --session-io loop or auto; drop one of the two", c.Loops, c.SessionIO))
	}
	if c.ReportInterval <= 0 {
		errs = append(errs, fmt.Errorf("--report-interval must be positive (got %v)", c.ReportInterval))
	}
	return errors.Join(errs...)
}

// Runner runs phases of one workload against one target.
type Runner struct {
	Target   target.Target
	Workload workload.Workload
	Config   Config
	// Status receives the live status lines (usually stderr); nil = none.
	Status io.Writer
	// StatusTTY redraws the load progress bar in place.
	StatusTTY bool
	// Intervals receives every interval record as it is made (the side file).
	Intervals func(result.Interval)
	// StatusLine, when set, formats the run phase's status line for an
	// interval in place of candor's own (sysbench's report-interval line);
	// "" prints none.
	StatusLine func(iv result.Interval, threads int) string
	// PhaseHook, when set, is called as a run phase starts (its faults):
	// ctx ends with the phase, start is the phase's start, and fail ends
	// the phase as failed. The phase waits for the returned function
	// (called after its workers are done and ctx has ended) before it
	// is finished.
	PhaseHook func(ctx context.Context, start time.Time, fail func(error)) (wait func())
	// Ready, when set, is called once a run phase's sessions are
	// connected and its collector paced, just before the phase starts: the
	// shards of one run wait here for --start-at, so that the time each
	// takes to connect does not shift its start. An error ends the phase
	// before it began.
	Ready func(ctx context.Context) error
	// Problems receives what goes wrong without ending the phase (a
	// worker that could not finish), one line at a time from concurrent
	// workers; nil sends it to Status.
	Problems   io.Writer
	problemsMu sync.Mutex
}

// problem writes one line to Problems (else Status), from any worker.
func (r *Runner) problem(format string, args ...any) {
	w := r.Problems
	if w == nil {
		w = r.Status
	}
	if w == nil {
		return
	}
	r.problemsMu.Lock()
	defer r.problemsMu.Unlock()
	fmt.Fprintf(w, format+"\n", args...)
}

// classIndex maps an error class to its counter index.
func classIndex(c target.ErrorClass) int {
	for i, k := range target.Classes {
		if k == c {
			return i
		}
	}
	return len(target.Classes) - 1
}

func (r *Runner) classify(err error) target.ErrorClass {
	if c := target.ClassifyCommon(err); c != "" {
		return c
	}
	if c := r.Target.Classify(err); c != "" {
		return c
	}
	return target.ClassOther
}

// session is one worker's connection, reopened after a connection loss. Only
// the worker's goroutine reads conn without the lock; every change to conn
// holds mu, so interrupt may run from another goroutine.
type session struct {
	t          target.Target
	worker     int
	task       *evloop.Task // its worker's coroutine (target.IOLoop); nil: a goroutine
	conn       target.Conn
	reconnects *atomic.Int64
	maxBackoff time.Duration // 0: 2 s
	// own and noSession are this session's reconnects and the time it
	// spent without a connection (reconnecting), written by its worker's
	// goroutine and read once the worker is done.
	own       int64
	noSession time.Duration
	// measured is the part of noSession inside the measured time, from
	// measureFrom (the warm-up's end) to measureTo (the phase's end; zero:
	// none), set before the workers start.
	measured               time.Duration
	down                   *atomic.Int64 // sessions of the phase reconnecting now; nil: not counted
	measureFrom, measureTo time.Time
	// failing is how long the next reconnect waits before it connects: 0
	// while operations succeed, then 50 ms doubling to maxBackoff for each
	// reconnect not followed by a successful operation (ok resets it). A
	// driver that connects at once to a server that then fails every
	// request (the CQL driver while its pool is down) would otherwise
	// reconnect and fail thousands of times a second.
	failing time.Duration

	mu     sync.Mutex
	closed bool
}

// connect opens the worker's session (on its own endpoint of a multi-node
// target).
func (s *session) connect(ctx context.Context) (target.Conn, error) {
	if s.task != nil {
		ctx = evloop.WithTask(ctx, s.task) // its socket waits in the task's loop
	}
	return target.ConnectWorker(ctx, s.t, s.worker)
}

func (s *session) setConn(c target.Conn) {
	s.mu.Lock()
	s.conn = c
	s.mu.Unlock()
}

// reconnect closes the current connection and opens a new one, backing off
// from 50 ms to 2 s (maxBackoff) between attempts until it succeeds or ctx
// ends. When the last reconnect was followed by no successful operation it
// first waits (failing). failed, when not nil, is told of every connect
// that fails: an operation the worker could not attempt.
func (s *session) reconnect(ctx context.Context, failed func(error)) error {
	s.mu.Lock()
	if s.conn != nil {
		s.conn.Close()
		s.conn = nil
	}
	s.mu.Unlock()
	lost := time.Now()
	if s.down != nil {
		s.down.Add(1)
	}
	defer func() {
		if s.down != nil {
			s.down.Add(-1)
		}
		now := time.Now()
		s.noSession += now.Sub(lost)
		s.measured += s.overlap(lost, now)
	}()
	if s.failing > 0 && !sleepCtx(ctx, s.failing) {
		return ctx.Err()
	}
	backoff := 50 * time.Millisecond
	for {
		c, err := s.connect(ctx)
		if err == nil {
			s.setConn(c)
			s.reconnects.Add(1)
			s.own++
			s.failing = s.next(s.failing)
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err() // the phase ended the connect: it did not fail
		}
		if failed != nil {
			failed(err)
		}
		if !sleepCtx(ctx, backoff) {
			return ctx.Err()
		}
		backoff = s.next(backoff)
	}
}

// overlap is how much of [from, to] lies in the session's measured time.
func (s *session) overlap(from, to time.Time) time.Duration {
	if from.Before(s.measureFrom) {
		from = s.measureFrom
	}
	if !s.measureTo.IsZero() && to.After(s.measureTo) {
		to = s.measureTo
	}
	return max(to.Sub(from), 0)
}

// next is the back-off after d: 50 ms after none, else twice d, at most
// maxBackoff (2 s when unset).
func (s *session) next(d time.Duration) time.Duration {
	limit := s.maxBackoff
	if limit <= 0 {
		limit = 2 * time.Second
	}
	if d <= 0 {
		return min(50*time.Millisecond, limit)
	}
	return min(d*2, limit)
}

// ok records a successful operation: the next reconnect connects at once.
func (s *session) ok() {
	if s.failing != 0 {
		s.failing = 0
	}
}

// interruptible reports whether statements on the session may run under a
// context without a Done channel (see target.Interrupter).
func (s *session) interruptible() bool {
	_, ok := s.conn.(target.Interrupter)
	return ok
}

// interrupt aborts the statement in flight, if the connection can. It may be
// called from any goroutine.
func (s *session) interrupt() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i, ok := s.conn.(target.Interrupter); ok && !s.closed {
		i.Interrupt()
	}
}

func (s *session) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != nil && !s.closed {
		s.conn.Close()
	}
	s.closed = true
}

// quietCtx is the context statements run under on interruptible
// connections: Done is nil, so drivers register no per-statement
// cancellation watcher, while Err still reports the end of the phase to a
// workload between its statements. A statement still running when the phase
// ends is stopped by interruptStragglers instead.
type quietCtx struct{ context.Context }

func (quietCtx) Done() <-chan struct{} { return nil }

// stragglerGrace is how long statements may go on after the phase ended
// before their connections are interrupted: long enough for a statement in
// flight to finish normally, short enough to keep Ctrl-C prompt.
const stragglerGrace = 200 * time.Millisecond

// FinishGrace is how long, with Config.FinishInFlight, the operations in
// flight at the duration's end may go on: a hung one must not hold the run
// for ever.
const FinishGrace = 5 * time.Second

// interruptStragglers waits for ctx to end; if the workers are not done
// stragglerGrace later, it interrupts every session. It returns when done is
// closed.
func interruptStragglers(ctx context.Context, done <-chan struct{}, sessions []*session) {
	select {
	case <-done:
		return
	case <-ctx.Done():
	}
	t := time.NewTimer(stragglerGrace)
	defer t.Stop()
	select {
	case <-done:
		return
	case <-t.C:
	}
	for _, s := range sessions {
		s.interrupt()
	}
	<-done
}

// sleepCtx sleeps d or until ctx ends; it reports whether d elapsed.
func sleepCtx(ctx context.Context, d time.Duration) bool { return target.Sleep(ctx, d) }

// connectAll opens n sessions concurrently (16 at a time). At the first
// failure it opens no more and returns that error, saying how many sessions
// were open: a server refusing sessions (too many connections) or a run
// with more threads than it can take fails at once, not after trying every
// one of its sessions.
func connectAll(ctx context.Context, t target.Target, n int, reconnects *atomic.Int64, tasks []*evloop.Task) ([]*session, error) {
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sessions := make([]*session, n)
	var (
		wg     sync.WaitGroup
		once   sync.Once
		first  error
		opened atomic.Int64
	)
	sem := make(chan struct{}, 16)
	for i := range sessions {
		sessions[i] = &session{t: t, worker: i, reconnects: reconnects}
		if tasks != nil {
			sessions[i].task = tasks[i]
		}
		wg.Add(1)
		go func(s *session) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if ctx.Err() != nil {
				return // a session failed: open no more
			}
			c, err := s.connect(ctx)
			if err != nil {
				once.Do(func() {
					first = err
					if ok := opened.Load(); ok > 0 && parent.Err() == nil {
						first = fmt.Errorf("%d of %d sessions open: %w", ok, n, err)
					}
					cancel()
				})
				return
			}
			s.setConn(c)
			opened.Add(1)
		}(sessions[i])
	}
	wg.Wait()
	if first == nil {
		first = parent.Err()
	}
	if first != nil {
		for _, s := range sessions {
			s.close()
		}
		return nil, first
	}
	return sessions, nil
}

// workerRand returns worker w's generator: seeds are recorded, so a run can be
// regenerated.
func workerRand(seed int64, w int) *rand.Rand { return rand.New(rand.NewSource(seed + int64(w) + 1)) }

// unlimited is the quota of a worker when no operation count is set.
const unlimited = -1

// quota splits total operations over n workers as YCSB does: each gets
// total/n, the first total%n get one more (possibly none). With no total it
// is unlimited.
func quota(total int64, n, w int) int64 {
	if total <= 0 {
		return unlimited
	}
	q := total / int64(n)
	if int64(w) < total%int64(n) {
		q++
	}
	return q
}

// retryable reports whether an error of class c is retried.
func (c Config) retryable(cls target.ErrorClass) bool {
	if c.RetryClasses == nil {
		return cls == target.ClassRetryable || cls == target.ClassConnection
	}
	for _, k := range c.RetryClasses {
		if k == cls {
			return true
		}
	}
	return false
}

// counterNames lists the workload's counters, if it keeps any.
func counterNames(w workload.Workload) []string {
	if cn, ok := w.(workload.CounterNamer); ok {
		return cn.Counters()
	}
	return nil
}

// LatencyMeasure labels what the primary latency means for a given rate.
func LatencyMeasure(rate float64) string {
	if rate > 0 {
		return "from intended start (open loop)"
	}
	return "service time (closed loop)"
}

// maxErrorMessage bounds a first error message kept in the result.
const maxErrorMessage = 500

// errorMessage is err's message as the result keeps it (the first of its
// class): every word that holds a URL or a password-like parameter
// redacted (target.Redact), on one line, at most maxErrorMessage bytes.
func errorMessage(err error) string {
	words := strings.Fields(err.Error())
	for i, w := range words {
		if strings.Contains(w, "://") || strings.Contains(w, "=") {
			words[i] = target.Redact(w)
		}
	}
	msg := strings.Join(words, " ")
	if len(msg) > maxErrorMessage {
		cut := maxErrorMessage
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = msg[:cut] + "…"
	}
	return msg
}
