package fault

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
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
	Kind       string    `json:"kind"`                  // run, sql, net-pause, net-latency, net-bandwidth, net-reset
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
	// Leftover says what became of processes a run= command left behind
	// when its shell exited (in its process group: killed when the run
	// ended; outside it, holding its output: not waited for), in words.
	Leftover string `json:"leftover,omitempty"`
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
	// SQL runs a sql= fault's statement on a new session of the target
	// (the engine's); nil fails such a fault.
	SQL func(ctx context.Context, statement string) error
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

// Run starts each fault at start+At, or later when a fault scheduled
// before it (a smaller At) has not yet taken effect, and returns once every fault has ended
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
	// settled[i] is closed once fault i has taken effect (its command or
	// statement ended, its network fault was applied) or failed, or will
	// not run: a fault whose time comes waits for every fault scheduled
	// before it, so that faults take effect in the order of their at= on
	// a machine of any speed (a detach still running when the kill it was
	// scheduled 2 s before came due ran beside it).
	settled := make([]chan struct{}, len(e.Schedule))
	for i := range settled {
		settled[i] = make(chan struct{})
	}
	for i, f := range e.Schedule {
		var before []chan struct{}
		for j, g := range e.Schedule {
			if g.At < f.At {
				before = append(before, settled[j])
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			var once sync.Once
			took := func() { once.Do(func() { close(settled[i]) }) }
			defer took()
			events[i] = e.one(ctx, start, i, f, before, took, notify)
		}()
	}
	wg.Wait()
	if first != nil && policy == OnErrorStop {
		return events, &FailedError{Event: *first}
	}
	return events, nil
}

// one waits for the fault's time and for the faults scheduled before it
// (before) to take effect, runs it, calls took once it has taken effect,
// and returns its event.
func (e *Executor) one(ctx context.Context, start time.Time, i int, f Fault, before []chan struct{}, took func(), notify func(Event)) Event {
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
	for _, b := range before {
		select {
		case <-ctx.Done():
			ev.Status = StatusNotRun
			return ev
		case <-b:
		}
	}
	if ctx.Err() != nil { // both ready: the run is over
		ev.Status = StatusNotRun
		return ev
	}
	ev.Start = time.Now() // when it runs, which may be after at=

	ev.StartS = ev.Start.Sub(start).Seconds()
	notify(ev)
	var rest func(*Event)
	switch {
	case f.Has("run"):
		rest = e.command(ctx, f, &ev)
		took()
	case f.Has("sql"):
		e.statement(ctx, f, &ev)
		took()
	default:
		e.network(ctx, i, f, &ev, took)
		ev.StartS = ev.Start.Sub(start).Seconds()
	}
	ev.EndS = ev.End.Sub(start).Seconds()
	notify(ev)
	if rest != nil {
		rest(&ev)
	}
	return ev
}

// command starts f's command and waits for its shell to exit (or the run
// to end, which kills the command's process group), filling ev with the
// shell's exit and the output so far. It returns what is left: rest waits
// for what the shell left behind — processes in its process group, a
// process holding its output open — until they are gone or the run ends,
// ends the group then, and records it in ev.Leftover.
func (e *Executor) command(ctx context.Context, f Fault, ev *Event) (rest func(*Event)) {
	shell := e.Shell
	if shell == "" {
		shell = "/bin/sh"
	}
	limit := e.MaxOutput
	if limit <= 0 {
		limit = defaultMaxOutput
	}
	// candor reads the output pipe itself instead of leaving it to exec:
	// exec's Wait waits for the pipe to close, which a background child
	// holds, and no longer watches ctx once the shell has exited.
	pr, pw, err := os.Pipe()
	if err != nil {
		ev.End, ev.Status, ev.Error = time.Now(), StatusFailed, fmt.Sprintf("command could not run: %v", err)
		return nil
	}
	cmd := exec.Command(shell, "-c", f.Command)
	cmd.Dir = e.Dir
	cmd.Stdout, cmd.Stderr = pw, pw
	ownProcessGroup(cmd)
	err = cmd.Start()
	pw.Close() // the command's processes hold the write end now
	if err != nil {
		pr.Close()
		ev.End, ev.Status, ev.Error = time.Now(), StatusFailed, fmt.Sprintf("command could not run: %v", err)
		return nil
	}
	out := &capped{limit: limit}
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		io.Copy(out, pr) // ends at EOF, or when pr is closed
	}()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	pgid := cmd.Process.Pid
	killed := false
	select {
	case err = <-exited:
	case <-ctx.Done():
		killGroup(pgid)
		killed = true
		err = <-exited
	}
	ev.End = time.Now()
	code := cmd.ProcessState.ExitCode()
	ev.ExitStatus = &code
	var exitErr *exec.ExitError
	switch {
	case killed:
		ev.Status = StatusCutShort
		ev.Error = "the run ended while the command ran: it was killed with its process group"
	case err == nil:
		ev.Status = StatusDone
	case errors.As(err, &exitErr):
		ev.Status = StatusFailed
		ev.Error = fmt.Sprintf("command exited with status %d", exitErr.ExitCode())
	default:
		ev.Status = StatusFailed
		ev.Error = fmt.Sprintf("command could not run: %v", err)
	}
	lo := &leftovers{pgid: pgid, pipe: pr, copied: copied, killed: killed}
	if !killed {
		lo.members = liveMembers(pgid, nil)
		if len(lo.members) > 0 {
			ev.Leftover = leftInGroup
		}
	}
	ev.Output, ev.OutputLen, ev.Truncated = out.snapshot()
	return func(ev *Event) {
		ev.Leftover = lo.wait(ctx)
		ev.Output, ev.OutputLen, ev.Truncated = out.snapshot()
	}
}

// What a fault event's Leftover says.
const (
	leftInGroup = "its shell exited leaving processes in its process group; candor ends them when the run ends"
	endedGroup  = "its shell exited leaving processes in its process group; candor killed them when the run ended"
	endedAlone  = "its shell exited leaving processes in its process group; they ended before the run did"
	escaped     = "a process outside its process group (started with setsid?) still held its output open when the run " +
		"ended; candor stopped reading it and could not end it"
)

// leftoverPoll is how often candor looks whether what a command left
// behind has ended on its own (a few /proc reads each time).
const leftoverPoll = 250 * time.Millisecond

// pipeGrace is how long candor waits, after killing a command's process
// group, for its processes to be gone and its output pipe to close: the
// killed processes release it as they exit; a process that still holds it
// after this is outside the group.
const pipeGrace = 500 * time.Millisecond

// leftovers is what a run= command's shell left behind when it exited.
type leftovers struct {
	pgid    int
	pipe    *os.File      // the output's read end
	copied  chan struct{} // closed when the pipe reached EOF (or was closed)
	killed  bool          // the group was killed already (the run ended first)
	members []int         // live processes of the group last seen
}

// wait returns once the group is empty and the pipe closed, or ctx ends;
// then it kills what is left of the group and stops reading the pipe. It
// returns the Leftover note.
func (lo *leftovers) wait(ctx context.Context) string {
	if lo.killed {
		return lo.reap("")
	}
	left := len(lo.members) > 0
	tick := time.NewTicker(leftoverPoll)
	defer tick.Stop()
	copied := lo.copied
	for copied != nil || len(lo.members) > 0 {
		select {
		case <-copied:
			copied = nil
		case <-tick.C:
		case <-ctx.Done():
			note := ""
			if lo.members = liveMembers(lo.pgid, lo.members); lo.members != nil {
				killGroup(lo.pgid)
				note = endedGroup
			}
			return lo.reap(note)
		}
		if len(lo.members) > 0 {
			lo.members = liveMembers(lo.pgid, lo.members)
		}
	}
	if left {
		return endedAlone
	}
	return ""
}

// reap waits up to pipeGrace for the killed group's processes to be gone
// and the output pipe to close, then stops reading it. note is what to say
// so far; reap adds that a process outside the group held the pipe.
func (lo *leftovers) reap(note string) string {
	deadline := time.Now().Add(pipeGrace)
	for lo.members = liveMembers(lo.pgid, lo.members); lo.members != nil && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
		lo.members = liveMembers(lo.pgid, lo.members)
	}
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-lo.copied:
		return note
	case <-t.C:
	}
	lo.pipe.Close()
	<-lo.copied
	if note == "" {
		return escaped
	}
	return note + "; " + escaped
}

// network applies f, calls took once it is in effect (or failed), and
// lifts it after f.For or when the run ends.
func (e *Executor) network(ctx context.Context, i int, f Fault, ev *Event, took func()) {
	defer took()
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
	took()
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

// capped keeps the first limit bytes written and counts them all. One
// goroutine writes; snapshot may be called from another.
type capped struct {
	mu    sync.Mutex
	limit int
	buf   []byte
	total int64
}

// snapshot is the output so far: the kept bytes, the total length and
// whether bytes were dropped.
func (c *capped) snapshot() (string, int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return string(c.buf), c.total, c.total > int64(len(c.buf))
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
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

// statement runs f's sql= statement with e.SQL and fills ev: done when it
// succeeded, failed with the server's error, cut-short when the run ended
// first.
func (e *Executor) statement(ctx context.Context, f Fault, ev *Event) {
	var err error
	if e.SQL == nil {
		err = errors.New("this run has no SQL session for sql= faults")
	} else {
		err = e.SQL(ctx, f.SQL)
	}
	ev.End = time.Now()
	switch {
	case err == nil:
		ev.Status = StatusDone
	case ctx.Err() != nil:
		ev.Status, ev.Error = StatusCutShort, err.Error()
	default:
		ev.Status, ev.Error = StatusFailed, err.Error()
	}
}
