package sysbenchlua

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
	"github.com/candor-bench/candor/internal/workload/sysbench"
)

// rollbackTimeout bounds the best-effort ROLLBACK after a failed event.
const rollbackTimeout = 5 * time.Second

// worker runs a script's events in its own Lua state; one goroutine.
type worker struct {
	st       *luaState
	event    lua.LValue
	tid      lua.LValue
	inited   bool
	initErr  error
	watched  context.Context // the Exec context the Lua state's is tied to
	luaCtx   context.Context
	finished bool
}

// NewWorker builds the worker's Lua state: the script's chunk runs now,
// thread_init at the first event (it needs the worker's session).
func (w *Workload) NewWorker(id int, r *rand.Rand) workload.Worker {
	wk := &worker{tid: lua.LNumber(id)}
	st, err := w.newState(stateWorker, id, w.workerRand(id, r))
	if err != nil {
		wk.initErr = err
		return wk
	}
	st.uniqR = r
	wk.st = st
	wk.event = st.L.GetGlobal("event")
	if _, ok := wk.event.(*lua.LFunction); !ok {
		wk.initErr = fmt.Errorf("cannot find the event() function in %s", w.file)
	}
	return wk
}

// Next returns the one operation, an event.
func (wk *worker) Next() workload.OpID { return OpEvent }

// Done has nothing to finish.
func (wk *worker) Done(error) {}

// Exec runs one event: thread_init first when it has not run, then
// event(tid), on c.
func (wk *worker) Exec(ctx context.Context, c target.Conn, s workload.Span) error {
	if wk.initErr != nil {
		return fmt.Errorf("%w: %w", workload.ErrStopRun, wk.initErr)
	}
	st := wk.st
	st.ctx, st.conn = ctx, c
	st.cnt, _ = s.(workload.Counter)
	st.sqlErr = nil
	wk.watch(ctx)
	if !wk.inited {
		wk.inited = true
		if fn, ok := st.L.GetGlobal("thread_init").(*lua.LFunction); ok {
			if err := st.call("thread_init", fn, wk.tid); err != nil {
				if ctx.Err() != nil {
					wk.inited = false
					return ctx.Err()
				}
				wk.initErr = err
				return fmt.Errorf("%w: %w", workload.ErrStopRun, err)
			}
		}
	}
	L := st.L
	L.Push(wk.event)
	L.Push(wk.tid)
	st.trace = ""
	err := L.PCall(1, 0, st.errfunc)
	if err == nil {
		return nil
	}
	return wk.eventError(ctx, c, err)
}

// watch ties the Lua state to ctx, so that a script looping inside one
// event stops when the phase ends: gopher-lua checks its context between
// instructions. The runner's context for interruptible sessions has no
// Done channel (it ends statements by interrupting them), so the
// workload's watchdog polls it and cancels the state's own.
func (wk *worker) watch(ctx context.Context) {
	if wk.watched == ctx && wk.luaCtx != nil && wk.luaCtx.Err() == nil {
		return
	}
	wk.watched = ctx
	if ctx.Done() != nil {
		wk.luaCtx = ctx
	} else {
		wk.luaCtx = wk.st.w.dog.watch(ctx)
	}
	wk.st.L.SetContext(doneCtx{wk.luaCtx, wk.luaCtx.Done()})
}

// doneCtx is a context whose Done channel is a field: gopher-lua asks for
// it before every instruction, and a cancelCtx's Done is an atomic load and
// a check each time.
type doneCtx struct {
	context.Context
	done <-chan struct{}
}

func (d doneCtx) Done() <-chan struct{} { return d.done }

// watchdogEvery is how often the watchdog looks at the contexts it
// watches: how late, at most, a script looping in an event is stopped.
const watchdogEvery = 100 * time.Millisecond

// watchdog cancels a context of its own when the context it stands for
// ends, for contexts without a Done channel. One goroutine serves a
// workload's workers, and runs only while it watches one: a goroutine per
// worker waking up often cost the scheduler more than the run's events.
type watchdog struct {
	mu      sync.Mutex
	entries []watched
	running bool
}

type watched struct {
	ctx    context.Context
	cancel context.CancelFunc
}

// watch returns a context cancelled within watchdogEvery of ctx's end.
func (d *watchdog) watch(ctx context.Context) context.Context {
	lctx, cancel := context.WithCancel(context.Background())
	d.mu.Lock()
	defer d.mu.Unlock()
	d.entries = append(d.entries, watched{ctx, cancel})
	if !d.running {
		d.running = true
		go d.loop()
	}
	return lctx
}

func (d *watchdog) loop() {
	t := time.NewTicker(watchdogEvery)
	defer t.Stop()
	for range t.C {
		d.mu.Lock()
		keep := d.entries[:0]
		for _, e := range d.entries {
			if e.ctx.Err() != nil {
				e.cancel()
			} else {
				keep = append(keep, e)
			}
		}
		clear(d.entries[len(keep):])
		d.entries = keep
		if len(keep) == 0 {
			d.running = false
			d.mu.Unlock()
			return
		}
		d.mu.Unlock()
	}
}

// ScriptError is a Lua error raised in event(): it ends the run, as
// sysbench 1.0.20's thread_run fails and the run stops (exit 1, no
// report).
type ScriptError struct{ Msg string }

func (e *ScriptError) Error() string { return "Lua error in event(): " + e.Msg }

// SysbenchLines are the lines sysbench prints for it.
func (e *ScriptError) SysbenchLines() []string {
	return []string{"FATAL: `thread_run' function failed: " + e.Msg}
}

// restartError is an event sysbench restarts: the statement's error, for
// the runner to classify (retryable, constraint, connection).
type restartError struct{ err error }

func (e *restartError) Error() string { return "event restarted: " + e.err.Error() }
func (e *restartError) Unwrap() error { return e.err }

// errScriptRestart is a RESTART_EVENT the script raised itself, with no
// statement's error: candor counts the event as failed.
var errScriptRestart = errors.New("event() raised sysbench.error.RESTART_EVENT without a failed statement; candor counts the event as failed")

// eventError maps event()'s error to the runner's terms.
func (wk *worker) eventError(ctx context.Context, c target.Conn, err error) error {
	st := wk.st
	if ctx.Err() != nil {
		return ctx.Err() // the phase ended during the event: not counted
	}
	var obj lua.LValue = lua.LNil
	if ae, ok := err.(*lua.ApiError); ok {
		obj = ae.Object
	}
	wk.rollback(ctx, c)
	if t, ok := obj.(*lua.LTable); ok && st.L.GetField(t, "errcode") == lua.LNumber(1) {
		if hook, ok := st.L.GetField(st.L.GetField(st.sbtable, "hooks"), "before_restart_event").(*lua.LFunction); ok {
			if herr := st.call("before_restart_event", hook, t); herr != nil {
				return fmt.Errorf("%w: %w", workload.ErrStopRun, herr)
			}
		}
		if st.sqlErr != nil {
			return &restartError{st.sqlErr}
		}
		return errScriptRestart
	}
	msg := st.errorText(err)
	if st.sqlErr != nil && strings.Contains(msg, "SQL error, errno = ") {
		// sysbench's FATAL: the run ends.
		return fmt.Errorf("%w: %s: %w", workload.ErrStopRun, msg, &sysbench.StatementError{SQL: st.sqlText, Prepared: st.sqlPrep, Err: st.sqlErr})
	}
	if st.sqlErr != nil && strings.Contains(msg, "SQL API error") {
		return st.sqlErr // a session's failure: the runner classifies it
	}
	first, _, _ := strings.Cut(msg, "\n")
	trace := st.trace
	if trace == "" {
		trace = msg
	}
	if trace != first {
		st.w.logError(first, fmt.Sprintf("%s: event() failed, which ends the run as in sysbench:\n%s", st.w.file, trace))
	}
	return fmt.Errorf("%w: %w", workload.ErrStopRun, &ScriptError{Msg: first})
}

// rollback ends a transaction the failed event may have left open, best
// effort and bounded even when ctx has ended.
func (wk *worker) rollback(ctx context.Context, c target.Conn) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rollbackTimeout)
	_, _ = c.Exec(rctx, "ROLLBACK")
	cancel()
}

// Finish runs thread_done(tid) on the worker's session (workload.Finisher)
// and closes the Lua state.
func (wk *worker) Finish(ctx context.Context, c target.Conn, s workload.Span) error {
	if wk.st == nil || wk.finished {
		return nil
	}
	wk.finished = true
	st := wk.st
	defer st.L.Close()
	if !wk.inited || wk.initErr != nil {
		return nil
	}
	st.ctx, st.conn = ctx, c
	st.cnt, _ = s.(workload.Counter)
	st.L.RemoveContext()
	if fn, ok := st.L.GetGlobal("thread_done").(*lua.LFunction); ok {
		return st.call("thread_done", fn, wk.tid)
	}
	return nil
}

var (
	_ workload.Worker   = (*worker)(nil)
	_ workload.Finisher = (*worker)(nil)
)
