package fault

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

func schedule(t *testing.T, texts ...string) Schedule {
	t.Helper()
	s, err := ParseAll(texts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestExecutorCommands(t *testing.T) {
	e := &Executor{
		Schedule: schedule(t, "at=0s run=echo hello; echo oops >&2", "at=100ms run=sleep 0.2", "at=50ms run=false"),
		OnError:  OnErrorContinue,
	}
	start := time.Now()
	evs, err := e.Run(context.Background(), start)
	if err != nil {
		t.Fatalf("continue policy returned %v", err)
	}
	if len(evs) != 3 {
		t.Fatalf("%d events, want 3", len(evs))
	}
	echo, sleep, fail := evs[0], evs[1], evs[2]
	if echo.Status != StatusDone || *echo.ExitStatus != 0 || echo.Output != "hello\noops\n" || echo.Kind != "run" {
		t.Errorf("echo event = %+v", echo)
	}
	// the sleep starts no earlier than scheduled and its end covers its 0.2 s
	if sleep.Status != StatusDone || sleep.StartS < 0.1 || sleep.EndS-sleep.StartS < 0.2 {
		t.Errorf("sleep event = %+v", sleep)
	}
	if !sleep.Start.After(start) || !sleep.End.After(sleep.Start) {
		t.Errorf("sleep wall-clock times out of order: start %v, end %v (run start %v)", sleep.Start, sleep.End, start)
	}
	if fail.Status != StatusFailed || *fail.ExitStatus != 1 || !strings.Contains(fail.Error, "status 1") {
		t.Errorf("false event = %+v", fail)
	}
}

func TestExecutorStopPolicy(t *testing.T) {
	e := &Executor{
		Schedule: schedule(t, "at=0s run=exit 3", "at=10s run=echo never", "at=0s run=sleep 30"),
	}
	begin := time.Now()
	evs, err := e.Run(context.Background(), begin)
	var fe *FailedError
	if !errors.As(err, &fe) || fe.Event.Index != 0 || !strings.Contains(err.Error(), "status 3") {
		t.Fatalf("stop policy: error %v, want a FailedError for fault 1", err)
	}
	if time.Since(begin) > 10*time.Second {
		t.Errorf("Run took %v: the failure did not cancel the rest", time.Since(begin))
	}
	if evs[1].Status != StatusNotRun || !evs[1].Start.IsZero() {
		t.Errorf("pending fault after the failure: %+v, want not-run", evs[1])
	}
	if evs[2].Status != StatusCutShort || *evs[2].ExitStatus != -1 {
		t.Errorf("running command after the failure: %+v, want cut-short, killed", evs[2])
	}
}

func TestExecutorContextEnds(t *testing.T) {
	// The run ends at 300 ms: a command in progress is killed (with the
	// children of its shell), a later fault is not run.
	e := &Executor{Schedule: schedule(t, "at=0s run=sleep 30 & sleep 30; echo done", "at=20s run=true")}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	begin := time.Now()
	evs, err := e.Run(ctx, begin)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(begin); d > 10*time.Second {
		t.Errorf("Run returned after %v: the command's children held it", d)
	}
	if evs[0].Status != StatusCutShort || evs[1].Status != StatusNotRun {
		t.Errorf("events %+v", evs)
	}
}

func TestExecutorOutputCap(t *testing.T) {
	e := &Executor{Schedule: schedule(t, "at=0s run=head -c 5000 /dev/zero | tr '\\0' x"), MaxOutput: 100}
	evs, err := e.Run(context.Background(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	ev := evs[0]
	if len(ev.Output) != 100 || ev.OutputLen != 5000 || !ev.Truncated {
		t.Errorf("output kept %d of %d bytes, truncated=%v; want 100 of 5000, true", len(ev.Output), ev.OutputLen, ev.Truncated)
	}
}

func TestExecutorNotify(t *testing.T) {
	var mu sync.Mutex
	var got []string
	e := &Executor{
		Schedule: schedule(t, "at=0s run=true"),
		Notify: func(ev Event) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, ev.Status)
		},
	}
	if _, err := e.Run(context.Background(), time.Now()); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != ","+StatusDone {
		t.Errorf("notifications %q, want a start (empty status) then done", got)
	}
}

// fakeNet records applied and lifted faults.
type fakeNet struct {
	mu     sync.Mutex
	log    []string
	failAt int
}

func (n *fakeNet) Apply(i int, f Fault) (func() error, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if i == n.failAt {
		return nil, errors.New("no such node")
	}
	n.log = append(n.log, "apply "+f.Kind())
	return func() error {
		n.mu.Lock()
		defer n.mu.Unlock()
		n.log = append(n.log, "lift "+f.Kind())
		return nil
	}, nil
}

func TestExecutorNetwork(t *testing.T) {
	n := &fakeNet{failAt: 1}
	e := &Executor{
		Schedule: schedule(t, "at=0s for=200ms net=pause node=0", "at=0s for=1s net=latency delay=1ms node=0"),
		Net:      n,
		OnError:  OnErrorContinue,
	}
	evs, err := e.Run(context.Background(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if evs[0].Status != StatusDone || evs[0].EndS-evs[0].StartS < 0.2 || *evs[0].Node != 0 {
		t.Errorf("pause event %+v: want done, lasting at least 200 ms", evs[0])
	}
	if evs[1].Status != StatusFailed || evs[1].Error != "no such node" {
		t.Errorf("failed apply: %+v", evs[1])
	}
	if strings.Join(n.log, ",") != "apply net-pause,lift net-pause" {
		t.Errorf("network log %q", n.log)
	}
	// Without a network a net fault fails with a reason.
	e = &Executor{Schedule: schedule(t, "at=0s for=1s net=pause node=0"), OnError: OnErrorContinue}
	evs, _ = e.Run(context.Background(), time.Now())
	if evs[0].Status != StatusFailed || !strings.Contains(evs[0].Error, "no network proxy") {
		t.Errorf("net fault without proxy: %+v", evs[0])
	}
}

// TestExecutorKeepsScheduleOrder: a fault whose time comes while the one
// scheduled before it still runs waits for it and is stamped when it
// actually starts, on a machine of any speed (a detach at 1 s that was
// still running at 3 s let the kill scheduled then run beside it, stamped
// before the detach's end). Faults at the same time still start together.
func TestExecutorKeepsScheduleOrder(t *testing.T) {
	e := &Executor{
		Schedule: schedule(t, "at=300ms run=true", "at=0s run=sleep 0.5", "at=10ms run=true", "at=0s run=sleep 0.2"),
		OnError:  OnErrorContinue,
	}
	evs, err := e.Run(context.Background(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range evs {
		if ev.Status != StatusDone {
			t.Fatalf("event %+v, want done", ev)
		}
	}
	last, slow, next, other := evs[0], evs[1], evs[2], evs[3]
	if next.Start.Before(slow.End) || next.Start.Before(other.End) {
		t.Errorf("the fault at 10 ms started at %.3f s, before the ones at 0 s ended (%.3f s, %.3f s)", next.StartS, slow.EndS, other.EndS)
	}
	if last.Start.Before(next.End) {
		t.Errorf("the fault at 300 ms started at %.3f s, before the one at 10 ms ended (%.3f s)", last.StartS, next.EndS)
	}
	if other.Start.After(slow.End) {
		t.Errorf("two faults at 0 s ran one after the other (%.3f s after %.3f s)", other.StartS, slow.EndS)
	}
	if next.StartS < next.Scheduled || next.StartS < 0.5 {
		t.Errorf("the waiting fault's start_s %.3f: want when it ran (after 0.5 s), not its at= (%.3f)", next.StartS, next.Scheduled)
	}
}

// A network fault takes effect when it is applied: the fault after it
// waits for that, not for its for= to pass.
func TestExecutorOrderNetworkApplied(t *testing.T) {
	n := &orderNet{}
	e := &Executor{Schedule: schedule(t, "at=0s for=2s net=pause node=0", "at=10ms run=true"), Net: n, OnError: OnErrorContinue}
	evs, err := e.Run(context.Background(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if evs[1].Start.Before(evs[0].Start) || !evs[1].End.Before(evs[0].End) {
		t.Errorf("pause %+v, command %+v: want the command after the pause was applied, during it", evs[0], evs[1])
	}
}

type orderNet struct{}

func (orderNet) Apply(int, Fault) (func() error, error) {
	time.Sleep(200 * time.Millisecond) // a slow apply
	return func() error { return nil }, nil
}
