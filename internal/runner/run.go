package runner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/candor-bench/candor/internal/cacheline"
	"github.com/candor-bench/candor/internal/evloop"
	"github.com/candor-bench/candor/internal/ledger"
	"github.com/candor-bench/candor/internal/measure"
	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/target/blockconn"
	"github.com/candor-bench/candor/internal/workload"
)

// spanRecorder gives a worker's sub-operations and counters to its
// recorder. It holds them back until the attempt of Exec that produced them
// has returned within the phase (commit): an operation cut short by the end
// of the phase is not counted, and neither are its statements (sysbench's
// queries, whose count must stay a whole number per transaction).
type spanRecorder struct {
	r        *Runner
	rec      *measure.Recorder
	intended time.Time // open loop: sub-operations count from the intended start
	open     bool
	spans    []pendingSpan
	counts   []int64 // by counter index, one per workload counter
}

type pendingSpan struct {
	op     int
	ns     int64
	failed bool
	class  int
	err    error
}

func (s *spanRecorder) Span(op workload.OpID, start, end time.Time, err error) {
	from := start
	if s.open {
		from = s.intended
	}
	cls := -1
	if err != nil {
		cls = classIndex(s.r.classify(err))
	}
	s.spans = append(s.spans, pendingSpan{op: int(op), ns: end.Sub(from).Nanoseconds(), failed: err != nil, class: cls, err: err})
}

// Add implements workload.Counter.
func (s *spanRecorder) Add(counter int, n int64) { s.counts[counter] += n }

// commit records what the attempt held back; discard drops it.
func (s *spanRecorder) commit() {
	for i, p := range s.spans {
		s.rec.RecordSpan(p.op, p.ns, p.failed, p.class)
		if p.err != nil {
			s.rec.NoteError(p.op, p.class, p.err, errorMessage)
		}
		s.spans[i].err = nil
	}
	for i, n := range s.counts {
		if n != 0 {
			s.rec.Add(i, n)
		}
	}
	s.discard()
}

func (s *spanRecorder) discard() {
	s.spans = s.spans[:0]
	clear(s.counts)
}

// Run executes the measured phase and returns it. It ends when the duration
// or operation count is reached, or when ctx is cancelled (an interrupt): the
// phase is then marked interrupted and holds everything measured so far.
// Operations cut short by the end of the phase are not counted: those that
// return after it, even before the phase's context has seen its deadline.
func (r *Runner) Run(ctx context.Context) (*result.Phase, error) {
	cfg := r.Config
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Duration == 0 && cfg.Operations == 0 {
		return nil, errors.New("set --time or --operations (or operationcount in the workload): the run would never end")
	}
	ops := r.Workload.Ops()
	io, err := cfg.ChooseSessionIO(r.Target)
	if err != nil {
		return nil, err
	}
	ctx = target.WithSessionIO(ctx, io) // for every (re)connection of the phase
	var reconnects atomic.Int64
	var lp *loops // target.IOLoop: the workers are its tasks
	if io == target.IOLoop {
		if lp, err = newLoops(cfg.Loops, cfg.Threads); err != nil {
			return nil, err
		}
		defer lp.close() // after the sessions are closed (deferred below)
	}
	sessions, err := connectAll(ctx, r.Target, cfg.Threads, &reconnects, lp.taskList())
	if err != nil {
		return nil, err
	}
	for _, s := range sessions {
		s.maxBackoff = cfg.MaxReconnectBackoff
	}
	defer func() {
		for _, s := range sessions {
			s.close()
		}
	}()
	switch io {
	case target.IOBlocking:
		defer blockconn.Reserve(cfg.Threads)()
	case target.IOLoop:
		defer blockconn.Reserve(len(lp.loops))() // a P each: evloop waits in raw system calls
	}

	// The collection the pacer starts with comes before Ready: it takes
	// seconds on a large heap, and the shards waiting there start when
	// Ready returns.
	gc := startGCPacer()
	defer gc.stop()
	if r.Ready != nil {
		if err := r.Ready(ctx); err != nil {
			return nil, err
		}
	}

	open := cfg.Rate > 0
	start := time.Now()
	warmEnd := start.Add(cfg.Warmup)
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	if cfg.Duration > 0 {
		var c2 context.CancelFunc
		runCtx, c2 = context.WithDeadline(runCtx, warmEnd.Add(cfg.Duration))
		defer c2()
	}
	// When the phase's context ended, for the operations it cut short.
	var stopped atomic.Int64
	// The first to see the context ended sets it: its AfterFunc, or a
	// worker that returned for it first (countDropped), so that the
	// workers' dropped operations and the backlog's scheduled ones are
	// counted to the same instant.
	defer context.AfterFunc(runCtx, func() { stopped.CompareAndSwap(0, int64(max(time.Since(start), 1))) })()
	counters := counterNames(r.Workload)
	coll := measure.NewCollector(ops, len(counters), start)
	var maxLag atomic.Int64
	phaseEnd := time.Duration(math.MaxInt64) // from start
	if cfg.Duration > 0 {
		phaseEnd = cfg.Warmup + cfg.Duration
	}
	// Open loop: operations due and not begun, at each tick.
	queue := backlog{end: phaseEnd, stopped: &stopped}
	// Closed loop with Config.SharedOperations: the operations not yet
	// begun, which the workers take one at a time.
	var budget *atomic.Int64
	if cfg.SharedOperations && !open && cfg.Operations > 0 {
		budget = new(atomic.Int64)
		budget.Store(cfg.Operations)
	}
	// The first error that ends the phase (Config.StopOnError).
	var failOnce sync.Once
	var aborts clientAborts
	var failErr error
	// The operations' own context: the phase's, or with FinishInFlight
	// one the deadline leaves alone, ended by an interrupt, a failure or
	// FinishGrace after the deadline.
	execCtx, execCancel := runCtx, context.CancelFunc(func() {})
	if cfg.FinishInFlight && cfg.Duration > 0 {
		execCtx, execCancel = context.WithCancel(ctx)
		var grace atomic.Pointer[time.Timer]
		defer context.AfterFunc(runCtx, func() { grace.Store(time.AfterFunc(FinishGrace, execCancel)) })()
		defer func() {
			if t := grace.Load(); t != nil {
				t.Stop()
			}
		}()
	}
	defer execCancel()
	fail := func(err error) {
		failOnce.Do(func() {
			failErr = err
			cancel()
			execCancel()
		})
	}
	ledgers, err := r.openLedgers(start)
	if err != nil {
		return nil, err
	}
	var down atomic.Int64 // workers reconnecting now, for the status lines
	for _, s := range sessions {
		s.down = &down
		s.measureFrom = warmEnd
		if cfg.Duration > 0 {
			s.measureTo = warmEnd.Add(cfg.Duration)
		}
	}
	var hookWait func()
	if r.PhaseHook != nil {
		hookWait = r.PhaseHook(runCtx, start, fail)
	}
	var wg sync.WaitGroup
	workers := make([]*worker, cfg.Threads)
	for w := 0; w < cfg.Threads; w++ {
		rng := workerRand(cfg.Seed, w)
		wk := r.Workload.NewWorker(w, rng)
		rec := coll.Recorder()
		q := quota(cfg.Operations, cfg.Threads, w)
		if budget != nil {
			q = unlimited // the budget ends the loop
		}
		wr := &worker{
			r: r, w: wk, sess: sessions[w], rec: rec, fail: fail, budget: budget, id: w, aborts: &aborts,
			quota: q, start: start, end: phaseEnd, maxLag: &maxLag, stopped: &stopped, exec: execCtx, drain: execCtx != runCtx,
			span: spanRecorder{r: r, rec: rec, open: open, counts: make([]int64, len(counters))},
		}
		if ledgers != nil {
			wr.ledger, wr.startNs = ledgers[w], start.UnixNano()
			wr.writeID = wk.(workload.LedgerWorker)
		}
		if open {
			// The backlog replays the worker's schedule from the same seed.
			schedule := func() dueCounter {
				return newSchedule(cfg.Arrival, cfg.Rate, cfg.Threads, w, workerRand(cfg.Seed^0x5eed, w))
			}
			wr.sched = schedule()
			queue.add(wr, schedule())
		}
		workers[w] = wr
		if lp != nil {
			lp.body[w] = func() {
				t := lp.tasks[w]
				wr.exec = evloop.WithTask(wr.exec, t)
				wr.loop(evloop.WithTask(runCtx, t))
				wr.finish(evloop.WithTask(ctx, t))
			}
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			wr.loop(runCtx)
			wr.finish(ctx)
		}()
	}
	if lp != nil {
		lp.start(runCtx, &wg)
	}

	// The phase ends when the last worker returns, not after the final tick
	// (encoding histograms, sampling /proc): short phases would be slowed.
	done := make(chan struct{})
	var finished time.Time
	// Open loop: the operations due and never begun, summed once the
	// workers are done (for the monitor's last tick too).
	var dropped int64
	go func() {
		wg.Wait()
		finished = time.Now()
		for _, wr := range workers {
			dropped += wr.dropped
		}
		close(done)
	}()
	go interruptStragglers(execCtx, done, sessions)

	mon := newMonitor(r, "run", start, coll)
	mon.warmEnd = warmEnd
	mon.counters = counters
	mon.reconnects = &reconnects
	mon.down = &down
	mon.gc = gc
	if open {
		mon.queue = &queue
		mon.dropped = &dropped
	}
	mon.loop(done, func() int64 { return 0 })
	end := finished // written before done was closed
	if hookWait != nil {
		cancel() // a phase ended by its operation count ends its faults too
		hookWait()
	}
	if lerr := closeLedgers(ledgers); lerr != nil {
		fail(lerr)
	}

	phase := mon.phase(end)
	measured := end.Sub(warmEnd)
	if cfg.Warmup > 0 && measured < 0 {
		measured = 0
	}
	if cfg.Duration > 0 && measured > cfg.Duration && execCtx == runCtx {
		// Operations still running at the deadline are not counted, so the
		// time the phase took to interrupt them is not measured either.
		measured = cfg.Duration
	}
	phase.WarmupSec = cfg.Warmup.Seconds()
	phase.OpenLoop = open
	phase.FinishInFlight = execCtx != runCtx
	if open {
		phase.Dropped = dropped
		if n, ok := queue.scheduled(); ok {
			phase.Scheduled = &n
		}
	}
	phase.Reconnects = reconnects.Load()
	fillWorkers(phase, coll, counters)
	var without time.Duration
	for i, s := range sessions {
		if i < len(phase.Workers) {
			phase.Workers[i].Reconnects = s.own
			phase.Workers[i].NoSessionSec = s.noSession.Seconds()
		}
		without += min(s.measured, max(measured, 0))
	}
	phase.Unavailable = unavailability(without, cfg.Threads, measured)
	fillOps(phase, coll.Total(), measured)
	phase.Client.CPUNsPerOp = mon.cpuNsPer(phase.Operations)
	phase.Client.GoMaxProcs = runtime.GOMAXPROCS(0) // still under Reserve: its end is deferred
	phase.Client.SessionIO = string(io)
	gc.finish(&phase.Client)
	if open {
		// Failed operations were offered too; those never attempted for
		// want of a session were not.
		achieved := float64(phase.Operations-noSessionOps(phase)) / secondsOf(measured)
		phase.Rate = &result.RateResult{
			Target: cfg.Rate, Achieved: achieved, MaxLagNs: maxLag.Load(),
			// Behind when it delivered under 95% of the offered rate, an
			// operation started more than a second late, or more than a
			// second's worth of operations never began.
			BehindSchedule: achieved < 0.95*cfg.Rate || maxLag.Load() > int64(time.Second) || float64(dropped) > cfg.Rate,
		}
	}
	breach := errorBudget(phase, cfg.MaxErrorRate)
	if breach == "" {
		breach = unavailableBudget(phase.Unavailable, cfg.MaxUnavailable)
	}
	switch {
	case failErr != nil:
		phase.Status = result.StatusFailed
		phase.Failure = failErr.Error()
		return phase, failErr
	case ctx.Err() != nil:
		phase.Status = result.StatusInterrupted
	case aborts.n > 0:
		phase.Status = result.StatusFailed
		phase.Failure = aborts.failure(cfg.Threads)
	case breach != "":
		phase.Status = result.StatusFailed
		phase.Failure = breach
	default:
		phase.Status = result.StatusComplete
	}
	return phase, nil
}

// clientAborts counts the workers Config.AbortClient stopped, and shows
// each distinct error once, at once.
type clientAborts struct {
	mu    sync.Mutex
	n     int
	first string
	shown map[string]bool
}

// add counts worker id's stop at err and shows its line when no worker
// stopped at the same error before (pgbench prints one per client; a
// script's mistake would print it once per client).
func (a *clientAborts) add(r *Runner, id int, err error) {
	msg := fmt.Sprintf("client %d aborted: %v", id, err)
	if d, ok := r.Workload.(workload.AbortDescriber); ok {
		msg = d.AbortMessage(id, err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.n++
	if a.first == "" {
		a.first = msg
	}
	if a.shown == nil {
		a.shown = map[string]bool{}
	}
	if key := err.Error(); !a.shown[key] {
		a.shown[key] = true
		r.problem("candor: %s", msg)
	}
}

// ClientsAborted is in the failure of a phase whose clients
// Config.AbortClient stopped.
const ClientsAborted = "clients aborted at an error that is not retried"

// failure is the phase's failure once n of its threads workers stopped.
func (a *clientAborts) failure(threads int) string {
	return fmt.Sprintf("%d of %d %s (the run was aborted; its results are incomplete); the first: %s",
		a.n, threads, ClientsAborted, a.first)
}

func secondsOf(d time.Duration) float64 {
	if s := d.Seconds(); s > 0 {
		return s
	}
	return 1e-9
}

// worker is one goroutine of the measured phase.
type worker struct {
	_     cacheline.Pad // see package cacheline
	r     *Runner
	w     workload.Worker
	sess  *session
	rec   *measure.Recorder
	quota int64
	sched dueCounter    // nil in a closed loop
	start time.Time     // phase start; the loop keeps times as offsets from it
	end   time.Duration // the phase's end (--time), from start; an attempt returning after it is cut short
	// stopped is when the phase's context ended (an interrupt, a failure,
	// the deadline's timer), from start; 0 until then.
	stopped *atomic.Int64
	maxLag  *atomic.Int64
	// exec is the operations' context; with drain (Config.FinishInFlight)
	// the deadline does not end it: an operation begun before the end runs
	// to its end and counts, unless exec ends first.
	exec  context.Context
	drain bool
	// maxLatency is the longest primary latency of the worker's finished
	// operations (RecordCut's bound).
	maxLatency time.Duration
	// Open loop: the intended start drawn from sched and not yet begun.
	pending    time.Duration
	hasPending bool
	// dropped is, once loop has returned, the operations of the worker's
	// schedule due before the phase ended that it never began.
	dropped int64
	// sessionLost: the phase ended while the worker reconnected after
	// lostOp failed on a lost connection.
	sessionLost bool
	lostOp      workload.OpID
	fail        func(error)   // ends the phase with this error (Config.StopOnError)
	id          int           // the worker's index (its client number)
	aborts      *clientAborts // the workers stopped by Config.AbortClient
	budget      *atomic.Int64 // operations left to begin (Config.SharedOperations); nil: quota
	out         measure.Outcome
	span        spanRecorder
	// Open loop, read by the monitor (backlog): operations begun, and
	// whether one is running.
	begun atomic.Int64
	busy  atomic.Bool
	// The durability ledger (Config.LedgerDir): every attempt's outcome.
	ledger  *ledger.Writer
	writeID workload.LedgerWorker
	startNs int64 // start in Unix nanoseconds
	_       cacheline.Pad
}

// over reports whether an attempt that returned at end (from the phase
// start) was cut short: the phase is over at its end, not when the
// context's timer has fired, which can be milliseconds late on a busy
// machine; ctx is also cancelled by an interrupt.
func (wr *worker) over(ctx context.Context, end time.Duration) bool {
	return end >= wr.end || ctx.Err() != nil
}

// stopAt is when the phase ended for an operation that returned at end
// (from the phase start): its end (--time), or the moment its context was
// cancelled, whichever came first; end itself if neither is known yet.
func (wr *worker) stopAt(end time.Duration) time.Duration {
	stop := min(end, wr.end)
	if s := time.Duration(wr.stopped.Load()); s > 0 {
		stop = min(stop, s)
	}
	return stop
}

// scheduled is, after the final sample, the operations the schedules made
// due by the time the workers stopped, counted from replicas of the
// schedules (not from what the workers began); ok is false when a count
// was an estimate (a Poisson schedule past maxReplay arrivals per tick).
func (b *backlog) scheduled() (n int64, ok bool) {
	for i, r := range b.replicas {
		if !r.exact() {
			return 0, false
		}
		n += b.due[i]
	}
	return n, true
}

// noSession returns what counts, for operation op, each connect that fails
// while the worker reconnects: an operation it could not attempt.
func (wr *worker) noSession(op workload.OpID) func(error) {
	return func(err error) {
		wr.rec.NoSession(int(op), classIndex(target.ClassConnection), 1, err, errorMessage)
	}
}

// countDropped sets dropped, once loop has returned in an open loop: the
// arrivals of the worker's schedule due before the phase ended that it
// never began (the one drawn and pending, and those after it), within its
// quota.
func (wr *worker) countDropped(ctx context.Context, begun int64) {
	if wr.sched == nil {
		return
	}
	if ctx.Err() != nil {
		wr.stopped.CompareAndSwap(0, int64(max(time.Since(wr.start), 1)))
	}
	stop := wr.stopAt(time.Since(wr.start))
	if stop >= wr.end {
		stop = wr.end - 1 // one due at the very end finds the phase over
	}
	var n int64
	if wr.hasPending {
		if wr.pending > stop {
			return
		}
		n = 1
	}
	n += wr.sched.countTo(stop)
	if wr.quota != unlimited {
		n = min(n, max(wr.quota-begun, 0))
	}
	wr.dropped = n
	if wr.sessionLost {
		// Due while the worker had no session, to the phase's end: they
		// are dropped, and failed operations too (no_session), as a
		// closed loop's failed connects are. A worker that merely fell
		// behind drops operations that are not failures.
		wr.rec.NoSession(int(wr.lostOp), classIndex(target.ClassConnection), n, nil, errorMessage)
	}
}

// backlog tells, at a tick of an open-loop phase, how many operations are
// due and not yet begun (sysbench's "queue length") and how many workers are
// running one (its "concurrency"). Each worker's schedule is replayed from
// the same seed: the operations due by now are those of the replica's
// arrivals at or before now.
//
// The replicas count their arrivals in work that does not grow with the
// rate (dueCounter): an absurd --rate must not make the monitor replay
// billions of arrivals per tick.
type backlog struct {
	end time.Duration // the phase's end, from its start; arrivals after it never begin
	// stopped is when the phase's context ended (from its start; 0 until
	// then): no worker begins an operation after it, so no arrival after it
	// is due — the workers' dropped counts stop there too.
	stopped  *atomic.Int64
	workers  []*worker
	replicas []dueCounter
	due      []int64 // arrivals due so far, per worker
}

func (b *backlog) add(wr *worker, replica dueCounter) {
	b.workers = append(b.workers, wr)
	b.replicas = append(b.replicas, replica)
	b.due = append(b.due, 0)
}

// sample reports the backlog at offset now from the phase start. Only the
// monitor calls it.
func (b *backlog) sample(now time.Duration) (queued, running int64) {
	now = min(now, b.end-1) // one due at the very end finds the phase over
	if s := time.Duration(b.stopped.Load()); s > 0 {
		now = min(now, s)
	}
	for i, wr := range b.workers {
		b.due[i] += b.replicas[i].countTo(now)
		if wr.quota != unlimited {
			b.due[i] = min(b.due[i], wr.quota)
		}
		// A worker may begin an operation due a moment after now.
		queued += max(b.due[i]-wr.begun.Load(), 0)
		if wr.busy.Load() {
			running++
		}
	}
	return queued, running
}

// finish lets a workload.Finisher send what its worker has left once its
// operations are over (ctx is the phase's own: an interrupt skips it). A
// failure is reported on Problems (else the status stream); the phase goes on ending.
func (wr *worker) finish(ctx context.Context) {
	f, ok := wr.w.(workload.Finisher)
	if !ok || ctx.Err() != nil || wr.sess.conn == nil {
		return
	}
	if err := f.Finish(ctx, wr.sess.conn, &wr.span); err != nil {
		wr.span.discard()
		wr.r.problem("candor: a worker could not finish its run: %v", err)
		return
	}
	wr.span.commit()
}

func (wr *worker) loop(ctx context.Context) {
	open := wr.sched != nil
	var alarm sleeper // waits for intended starts (open loop)
	if open && evloop.FromContext(ctx) != nil {
		alarm = timerSleeper{} // target.Sleep: the task sleeps in its loop
	} else if open {
		alarm = newSleeper(ctx)
		defer alarm.close()
	}
	retries := wr.r.Config.Retries
	quiet := context.Context(quietCtx{wr.exec})
	var done int64
	defer func() { wr.countDropped(ctx, wr.begun.Load()) }()
	for wr.quota == unlimited || done < wr.quota {
		// Times are offsets from the phase start: time.Since reads only the
		// monotonic clock, half the cost of time.Now.
		var intended time.Duration
		if open {
			intended = wr.sched.Next()
			wr.pending, wr.hasPending = intended, true
			if intended >= wr.end {
				// Due when the phase is over: it never begins, even when
				// the deadline's timer has not fired yet (it was counted
				// as neither scheduled nor unfinished).
				return
			}
			if d := intended - time.Since(wr.start); d > 0 && !alarm.sleep(ctx, d) {
				return
			}
		}
		if ctx.Err() != nil || (wr.drain && time.Since(wr.start) >= wr.end) {
			return
		}
		if wr.budget != nil && wr.budget.Add(-1) < 0 {
			return
		}
		op := wr.w.Next()
		begin := time.Since(wr.start)
		if !open {
			intended = begin
		} else {
			wr.span.intended = wr.start.Add(intended)
			wr.hasPending = false
			wr.begun.Add(1)
			wr.busy.Store(true)
		}
		o := &wr.out
		*o = measure.Outcome{Op: int(op), OpenLoop: open}
		var err error
		var cls target.ErrorClass // of the last failed attempt
		var end time.Duration
		cut := false // by the end of the phase or an interrupt: not counted
		for attempt := 0; ; attempt++ {
			if wr.sess.conn == nil {
				var lost func(error)
				if !open {
					lost = wr.noSession(op)
				}
				if err = wr.sess.reconnect(ctx, lost); err != nil {
					end = time.Since(wr.start)
					cut = wr.over(ctx, end)
					break
				}
			}
			o.Attempts++
			ectx := wr.exec
			if wr.sess.interruptible() {
				ectx = quiet
			}
			var sent time.Duration
			if wr.ledger != nil {
				sent = time.Since(wr.start)
			}
			err = wr.w.Exec(ectx, wr.sess.conn, &wr.span)
			end = time.Since(wr.start)
			if wr.ledger != nil {
				wr.record(sent, end, err)
			}
			if wr.drain {
				// Begun before the end, it counts when it ends well; a
				// failed attempt after the end is not retried: cut short.
				cut = wr.exec.Err() != nil || (err != nil && end >= wr.end)
			} else {
				cut = wr.over(ctx, end)
			}
			if cut {
				wr.span.discard() // neither the operation nor its parts count
				break
			}
			wr.span.commit()
			if err == nil {
				wr.sess.ok()
				break
			}
			cls = wr.r.classify(err)
			wr.rec.AddError(int(op), classIndex(cls), err, errorMessage)
			retry := (retries < 0 || attempt < retries) && wr.r.Config.retryable(cls)
			if cls == target.ClassConnection {
				// Without a retry the operation has failed, and in a
				// closed loop each connect that fails now is an
				// operation the worker could not attempt; with one, the
				// wait is the operation's own (in its latency, if it
				// succeeds). An open loop's schedule counts the
				// operations due meanwhile: begun late, or dropped.
				var lost func(error)
				if !retry && !open {
					lost = wr.noSession(op)
				}
				if rerr := wr.sess.reconnect(ctx, lost); rerr != nil {
					// The phase ended while the worker had no session
					// to go on with: the operation failed with the
					// attempt's error (it is not one cut short in
					// flight, whose outcome nobody knows), at the time
					// that attempt failed. In an open loop, the
					// operations due since could not be attempted
					// either (countDropped).
					wr.lostOp, wr.sessionLost = op, true
					break
				}
			}
			if !retry {
				break
			}
		}
		wr.w.Done(err)
		if cut {
			// Its failed attempts before the end count (as retries and
			// errors), the operation does not. It is still busy at the
			// end of the phase, for its last tick (as sysbench's last
			// interval line counts the threads running). It had waited
			// at least until the end: when that is longer than any
			// latency the worker measured, the time goes into the
			// histogram as a lower bound, so a stall at the end shows;
			// a shorter one would only add a value below its true
			// latency (a bias toward fast).
			waited := max(wr.stopAt(end)-intended, 0)
			o.LatencyNs = int64(waited)
			wr.rec.RecordCut(o, waited > wr.maxLatency)
			if open {
				storeMax(wr.maxLag, int64(begin-intended)) // it did begin that late
			}
			return
		}
		if open {
			wr.busy.Store(false)
		}
		done++
		// Warm-up operations are recorded too, for the interval series; the
		// collector drops them from the totals at the warm-up tick.
		o.LatencyNs = int64(end - intended)
		wr.maxLatency = max(wr.maxLatency, end-intended)
		if open {
			o.ServiceNs = int64(end - begin)
			o.LagNs = int64(begin - intended)
			storeMax(wr.maxLag, o.LagNs)
		}
		o.Failed = err != nil
		wr.rec.Record(o)
		abort := err != nil && wr.r.Config.AbortClient && cls != "" && cls != target.ClassConnection && !wr.r.Config.retryable(cls)
		if err != nil && (wr.r.Config.StopOnError && !wr.r.Config.retryable(cls) || errors.Is(err, workload.ErrStopRun) || abort && open) {
			wr.fail(fmt.Errorf("%s failed: %w", wr.r.Workload.Ops()[op], err))
			return
		}
		if abort {
			wr.aborts.add(wr.r, wr.id, err)
			return
		}
	}
}
