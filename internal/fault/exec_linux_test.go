package fault

import (
	"context"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// pidsIn reads the process ids a command printed (echo $!), one a line.
func pidsIn(t *testing.T, out string) []int {
	t.Helper()
	var pids []int
	for _, w := range strings.Fields(out) {
		if pid, err := strconv.Atoi(w); err == nil {
			pids = append(pids, pid)
		}
	}
	if len(pids) == 0 {
		t.Fatalf("no process id in the output %q", out)
	}
	return pids
}

// running tells from /proc whether pid is a process that runs: gone and
// zombie (dead, waiting for a parent that may never reap it) are not.
func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// killAfter ends pids the test started that candor must leave alone (they
// left its process group) when the test ends.
func killAfter(t *testing.T, pids []int) {
	t.Cleanup(func() {
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
}

// runFor runs e in a run that ends after d and returns its first event,
// the process ids its command printed (killed when the test ends) and how
// long after the run's end Run returned.
func runFor(t *testing.T, e *Executor, d time.Duration) (Event, []int, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	evs, err := e.Run(ctx, time.Now())
	returned := time.Now()
	if err != nil {
		t.Fatal(err)
	}
	deadline, _ := ctx.Deadline()
	pids := pidsIn(t, evs[0].Output)
	killAfter(t, pids)
	return evs[0], pids, returned.Sub(deadline)
}

func TestExecutorChildrenLeftInTheGroup(t *testing.T) {
	cases := []struct {
		name, cmd string
	}{
		// the child holds the output pipe (the case of the issue: exec
		// waited for the pipe and called the fault cut-short and killed,
		// and the child outlived candor)
		{"holds the output", "sleep 60 & echo $!"},
		// the child does not hold it: only the process group tells
		{"output redirected", "sleep 60 >/dev/null 2>&1 & echo $!"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var mu sync.Mutex
			var seen []Event
			e := &Executor{Schedule: schedule(t, "at=0s run="+c.cmd), Notify: func(ev Event) {
				mu.Lock()
				defer mu.Unlock()
				seen = append(seen, ev)
			}}
			ev, pids, _ := runFor(t, e, time.Second)
			if ev.Status != StatusDone || ev.ExitStatus == nil || *ev.ExitStatus != 0 || ev.Error != "" {
				t.Errorf("event %+v: want done, exit 0 (the shell exited at once)", ev)
			}
			if ev.EndS > 0.5 {
				t.Errorf("the event ends at %.2fs: it should end when the shell exits, not when its child does", ev.EndS)
			}
			if ev.Leftover != endedGroup {
				t.Errorf("leftover %q, want %q", ev.Leftover, endedGroup)
			}
			if len(seen) != 2 || seen[1].Status != StatusDone || seen[1].Leftover != leftInGroup {
				t.Errorf("notifications %+v: want a start, then done as the shell exits, saying the children are ended at the run's end", seen)
			}
			for _, pid := range pids {
				if running(pid) {
					t.Errorf("the fault's child %d still runs after the run", pid)
				}
			}
		})
	}
}

func TestExecutorChildrenThatEndOnTheirOwn(t *testing.T) {
	// Children that end before the run does are waited for, not killed,
	// and Run returns when they are gone.
	e := &Executor{Schedule: schedule(t, "at=0s run=sleep 0.3 & echo started")}
	begin := time.Now()
	evs, err := e.Run(context.Background(), begin)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(begin); d < 300*time.Millisecond || d > 5*time.Second {
		t.Errorf("Run returned after %v: want once the child ended (0.3 s)", d)
	}
	if ev := evs[0]; ev.Status != StatusDone || ev.Leftover != endedAlone || ev.Output != "started\n" {
		t.Errorf("event %+v: want done, children ended on their own", ev)
	}
}

func TestExecutorEscapedChild(t *testing.T) {
	cases := []struct {
		name, cmd, status, leftover string
	}{
		// the shell exits at once; its child left the group with setsid
		// and holds the output: candor does not wait for it past the run
		{"shell exited", "setsid sleep 30 & echo $!", StatusDone, escaped},
		// the run ends while the shell runs: the group is killed, the
		// setsid child is not in it
		{"cut short", "setsid sleep 30 & echo $!; sleep 30", StatusCutShort, escaped},
		// both: a child in the group (killed) and one outside it
		{"both", "sleep 30 & echo $!; setsid sleep 30 & echo $!", StatusDone, endedGroup + "; " + escaped},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ev, _, past := runFor(t, &Executor{Schedule: schedule(t, "at=0s run="+c.cmd)}, time.Second)
			if ev.Status != c.status || ev.Leftover != c.leftover {
				t.Errorf("event %+v: want %s, leftover %q", ev, c.status, c.leftover)
			}
			if c.status == StatusDone && (ev.ExitStatus == nil || *ev.ExitStatus != 0) {
				t.Errorf("exit status %v, want 0", ev.ExitStatus)
			}
			if past > pipeGrace+time.Second {
				t.Errorf("Run returned %v after the run ended: it waited for a process outside the fault's group", past)
			}
		})
	}
}

func TestExecutorCutShortEndsTheGroup(t *testing.T) {
	// The run ends while the shell runs: the shell and its children are
	// killed, and are gone when Run returns.
	e := &Executor{Schedule: schedule(t, "at=0s run=sleep 30 >/dev/null & echo $!; sleep 30")}
	ev, pids, _ := runFor(t, e, 300*time.Millisecond)
	if ev.Status != StatusCutShort || ev.ExitStatus == nil || *ev.ExitStatus != -1 || ev.Leftover != "" {
		t.Errorf("event %+v: want cut-short, killed, nothing left over", ev)
	}
	for _, pid := range pids {
		if running(pid) {
			t.Errorf("the fault's child %d still runs after the run", pid)
		}
	}
}
