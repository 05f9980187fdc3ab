package fault

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sort"
	"sync"
	"time"
)

// OnError is what a run does when a fault fails (its command exits non-zero
// or cannot start, or a network fault cannot be applied).
type OnError string

const (
	// OnErrorStop ends the run: the experiment did not happen as scheduled,
	// so its numbers would measure something else. The default.
	OnErrorStop OnError = "stop"
	// OnErrorContinue records the failure and carries on.
	OnErrorContinue OnError = "continue"
)

// ParseOnError reads an --on-fault-error value; "" gives the default, stop.
func ParseOnError(s string) (OnError, error) {
	switch OnError(s) {
	case "", OnErrorStop:
		return OnErrorStop, nil
	case OnErrorContinue:
		return OnErrorContinue, nil
	}
	return "", fmt.Errorf("--on-fault-error %q: give stop (end the run when a fault fails) or continue (record it and go on)", s)
}

// Event statuses.
const (
	StatusDone     = "done"      // ran (a command exited 0; a network fault was applied and lifted on time)
	StatusFailed   = "failed"    // a command exited non-zero or could not start; a network fault could not be applied
	StatusNotRun   = "not-run"   // the run ended (or was stopped) before the fault's time
	StatusCutShort = "cut-short" // the run ended while the fault was in progress: command killed, network restored early
)

// Event records one fault as it happened. Times are wall-clock; offsets are
// seconds from the run's start.
type Event struct {
	Index      int       `json:"index"`                 // position in the schedule, from 0
	Spec       string    `json:"spec"`                  // the fault as written
	Kind       string    `json:"kind"`                  // run, net-pause, net-latency, net-bandwidth, net-reset
	Node       *int      `json:"node,omitempty"`        // network faults: the node (-1: all)
	Status     string    `json:"status"`                // done, failed, not-run, cut-short
	Scheduled  float64   `json:"scheduled_s"`           // at=, seconds
	Start      time.Time `json:"start,omitzero"`        // when it began (zero when not run)
	End        time.Time `json:"end,omitzero"`          // when the command exited or the network was restored
	StartS     float64   `json:"start_s"`               // Start - run start, seconds
	EndS       float64   `json:"end_s"`                 // End - run start, seconds
	ExitStatus *int      `json:"exit_status,omitempty"` // run=: the command's exit status (-1: killed by a signal)
	Output     string    `json:"output,omitempty"`      // run=: stdout and stderr interleaved, first MaxOutput bytes
	OutputLen  int64     `json:"output_bytes,omitempty"`
	Truncated  bool      `json:"output_truncated,omitempty"`
	Error      string    `json:"error,omitempty"` // why it failed, in words
}

// Network applies network faults; ProxySet implements it. Apply returns
// the function that lifts the fault (called once, at the fault's end or
// when the run ends).
type Network interface {
	Apply(index int, f Fault) (lift func() error, err error)
}

// Executor runs a schedule. Its fields are set before Run and not changed
// after.
type Executor struct {
	Schedule Schedule
	Net      Network // needed when the schedule has network faults
	OnError  OnError // "" means stop
	// Shell runs each run= command as Shell -c CMD; "" means /bin/sh.
	Shell string
	// Dir is the commands' working directory; "" means candor's.
	Dir string
	// MaxOutput caps the bytes of a command's output kept in its event;
	// 0 means 64 KiB. The total length is recorded either way.
	MaxOutput int
	// Notify, when set, is called as each fault starts (Status "") and
	// ends, from the executor's goroutines, one call at a time.
	Notify func(Event)
}

// FailedError is returned by Run under OnErrorStop when a fault failed.
type FailedError struct{ Event Event }

func (e *FailedError) Error() string {
	msg := e.Event.Error
	if msg == "" {
		msg = "failed"
	}
	return fmt.Sprintf("fault %d (%s) failed at %.3fs: %s (--on-fault-error continue records it and goes on)",
		e.Event.Index+1, e.Event.Spec, e.Event.StartS, msg)
}

const defaultMaxOutput = 64 << 10

// Run starts each fault at start+At and returns once every fault has ended
// or ctx is done, with one event per fault in schedule order. When ctx ends
// first (the run is over), faults not yet started are recorded not-run,
// commands in progress are killed and network faults lifted (cut-short).
// Under OnErrorStop the first failure cancels the rest the same way and Run
// returns a *FailedError; the caller ends the run. Under OnErrorContinue the
// error is nil and failures are in the events.
func (e *Executor) Run(ctx context.Context, start time.Time) ([]Event, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	events := make([]Event, len(e.Schedule))
	var (
		mu     sync.Mutex // guards notify calls and first
		first  *Event
		wg     sync.WaitGroup
		policy = e.OnError
	)
	if policy == "" {
		policy = OnErrorStop
	}
	notify := func(ev Event) {
		mu.Lock()
		defer mu.Unlock()
		if ev.Status == StatusFailed && first == nil {
			c := ev
			first = &c
			if policy == OnErrorStop {
				cancel()
			}
		}
		if e.Notify != nil {
			e.Notify(ev)
		}
	}
	for i, f := range e.Schedule {
		wg.Add(1)
		go func() {
			defer wg.Done()
			events[i] = e.one(ctx, start, i, f, notify)
		}()
	}
	wg.Wait()
	if first != nil && policy == OnErrorStop {
		return events, &FailedError{Event: *first}
	}
	return events, nil
}

// one waits for the fault's time, runs it and returns its event.
func (e *Executor) one(ctx context.Context, start time.Time, i int, f Fault, notify func(Event)) Event {
	ev := Event{Index: i, Spec: f.Text, Kind: f.Kind(), Scheduled: f.At.Seconds()}
	if f.Has("net") {
		n := f.Node
		ev.Node = &n
	}
	t := time.NewTimer(time.Until(start.Add(f.At)))
	defer t.Stop()
	select {
	case <-ctx.Done():
		ev.Status = StatusNotRun
		return ev
	case <-t.C:
	}
	if ctx.Err() != nil { // both ready: the run is over
		ev.Status = StatusNotRun
		return ev
	}
	ev.Start = time.Now()
	ev.StartS = ev.Start.Sub(start).Seconds()
	notify(ev)
	if f.Has("run") {
		e.command(ctx, f, &ev)
	} else {
		e.network(ctx, i, f, &ev)
		ev.StartS = ev.Start.Sub(start).Seconds()
	}
	ev.EndS = ev.End.Sub(start).Seconds()
	notify(ev)
	return ev
}

func (e *Executor) command(ctx context.Context, f Fault, ev *Event) {
	shell := e.Shell
	if shell == "" {
		shell = "/bin/sh"
	}
	limit := e.MaxOutput
	if limit <= 0 {
		limit = defaultMaxOutput
	}
	cmd := exec.CommandContext(ctx, shell, "-c", f.Command)
	cmd.Dir = e.Dir
	out := &capped{limit: limit}
	cmd.Stdout, cmd.Stderr = out, out
	ownProcessGroup(cmd)
	// A command that leaves a child holding its output open must not hold
	// the run: stop waiting for the pipes 2 s after it is killed.
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Run()
	ev.End = time.Now()
	ev.Output, ev.OutputLen, ev.Truncated = string(out.buf), out.total, out.total > int64(len(out.buf))
	if cmd.ProcessState != nil {
		code := cmd.ProcessState.ExitCode()
		ev.ExitStatus = &code
	}
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		ev.Status = StatusDone
	case ctx.Err() != nil:
		ev.Status = StatusCutShort
		ev.Error = "the run ended while the command ran: it was killed"
	case errors.As(err, &exitErr):
		ev.Status = StatusFailed
		ev.Error = fmt.Sprintf("command exited with status %d", exitErr.ExitCode())
	default:
		ev.Status = StatusFailed
		ev.Error = fmt.Sprintf("command could not run: %v", err)
	}
}

func (e *Executor) network(ctx context.Context, i int, f Fault, ev *Event) {
	if e.Net == nil {
		ev.End, ev.Status = time.Now(), StatusFailed
		ev.Error = "no network proxy: network faults need the run's targets behind candor's proxy"
		return
	}
	lift, err := e.Net.Apply(i, f)
	if err != nil {
		ev.End, ev.Status, ev.Error = time.Now(), StatusFailed, err.Error()
		return
	}
	// The fault is in effect from here: a write sent while it was being
	// applied may still have passed, so it starts now, not when Apply was
	// called (an RTO measured from then was a write's latency).
	ev.Start = time.Now()
	ev.Status = StatusDone
	t := time.NewTimer(f.For)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		ev.Status = StatusCutShort
	}
	if err := lift(); err != nil {
		ev.Status = StatusFailed
		ev.Error = fmt.Sprintf("could not lift the fault: %v", err)
	}
	ev.End = time.Now()
}

// capped keeps the first limit bytes written and counts them all. exec
// calls Write from one goroutine at a time when Stdout and Stderr are the
// same writer.
type capped struct {
	limit int
	buf   []byte
	total int64
}

func (c *capped) Write(p []byte) (int, error) {
	c.total += int64(len(p))
	if room := c.limit - len(c.buf); room > 0 {
		c.buf = append(c.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// SortByStart orders events by start time, not-run ones last (for reports
// and summaries).
func SortByStart(evs []Event) {
	sort.SliceStable(evs, func(a, b int) bool {
		za, zb := evs[a].Start.IsZero(), evs[b].Start.IsZero()
		if za != zb {
			return zb
		}
		return evs[a].Start.Before(evs[b].Start)
	})
}
