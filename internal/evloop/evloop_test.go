//go:build linux

package evloop_test

import (
	"context"
	"io"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/candor-bench/candor/internal/evloop"
)

func newLoop(t *testing.T) *evloop.Loop {
	t.Helper()
	l, err := evloop.New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// Sleeping tasks of one loop sleep together: 200 tasks of 100 ms each take
// about 100 ms, not 20 s, and each wakes no earlier than its time.
func TestSleepersShareTheLoop(t *testing.T) {
	l := newLoop(t)
	var early, done atomic.Int64
	for i := range 200 {
		d := time.Duration(50+i%50) * time.Millisecond
		var task *evloop.Task
		task = l.Go(func() {
			ctx := evloop.WithTask(context.Background(), task)
			start := time.Now()
			if !evloop.Current(ctx).Sleep(ctx, d) {
				t.Error("Sleep reported its context ended")
			}
			if time.Since(start) < d {
				early.Add(1)
			}
			done.Add(1)
		})
	}
	start := time.Now()
	l.Run()
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("200 sleeps of at most 100 ms took %v", took)
	}
	if done.Load() != 200 || early.Load() != 0 {
		t.Errorf("%d tasks done, %d woke early; want 200 and 0", done.Load(), early.Load())
	}
}

// A sleeping task sees its context end once the loop is woken.
func TestWakeEndsSleep(t *testing.T) {
	l := newLoop(t)
	ctx, cancel := context.WithCancel(context.Background())
	var slept atomic.Bool
	var task *evloop.Task
	task = l.Go(func() {
		tctx := evloop.WithTask(ctx, task)
		slept.Store(evloop.Current(tctx).Sleep(tctx, time.Hour))
	})
	time.AfterFunc(50*time.Millisecond, func() {
		cancel()
		l.Wake()
	})
	start := time.Now()
	l.Run()
	if time.Since(start) > 5*time.Second || slept.Load() {
		t.Errorf("the sleep ended after %v reporting %v; want soon after the wake, false", time.Since(start), slept.Load())
	}
	if evloop.Current(evloop.WithTask(ctx, task)) != nil {
		t.Error("Current outside the task's coroutine returned the task")
	}
}

// Tasks waiting for sockets are resumed when their socket is readable:
// each of 50 tasks reads a message that another goroutine writes to its
// socket in reverse order, and reads it whole.
func TestWaitForSockets(t *testing.T) {
	l := newLoop(t)
	const n = 50
	peers := make([]int, n)
	got := make([]string, n)
	for i := range n {
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		peers[i] = fds[1]
		f := evloop.NewFD(fds[0])
		var task *evloop.Task
		task = l.Go(func() {
			defer unix.Close(fds[0])
			defer f.Forget()
			buf := make([]byte, 64)
			for {
				k, err := unix.Read(fds[0], buf)
				if err == unix.EAGAIN {
					f.MarkDrained()
					if err := task.Wait(f, false); err != nil {
						t.Error(err)
						return
					}
					continue
				}
				if err != nil {
					t.Error(err)
					return
				}
				got[i] = string(buf[:k])
				return
			}
		})
	}
	go func() {
		for i := n - 1; i >= 0; i-- {
			time.Sleep(time.Millisecond)
			unix.Write(peers[i], []byte{'m', byte('0' + i%10)})
		}
	}()
	done := make(chan struct{})
	go func() { l.Run(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the tasks were not all resumed")
	}
	for i := range n {
		unix.Close(peers[i])
		if want := string([]byte{'m', byte('0' + i%10)}); got[i] != want {
			t.Errorf("task %d read %q, want %q", i, got[i], want)
		}
	}
}

// A Wake after Close writes nothing (the descriptor's number may belong to
// another file by then).
func TestWakeAfterClose(t *testing.T) {
	l, err := evloop.New()
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	r, w, err := os.Pipe() // likely takes the loop's descriptor numbers
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	l.Wake()
	w.Close()
	if b, _ := io.ReadAll(r); len(b) != 0 {
		t.Errorf("Wake after Close wrote %d bytes into another file", len(b))
	}
}

// Only the task's coroutine is the task's: another goroutine, running at
// the same time, is not (it must not wait through the task), and neither is
// anything once the task returned.
func TestMine(t *testing.T) {
	l := newLoop(t)
	var mine, other atomic.Bool
	var task *evloop.Task
	task = l.Go(func() {
		mine.Store(task.Mine())
		done := make(chan struct{})
		go func() { other.Store(task.Mine()); close(done) }()
		<-done
	})
	l.Run()
	if !mine.Load() || other.Load() || task.Mine() {
		t.Errorf("Mine: in the task %v, in another goroutine meanwhile %v, after %v; want true, false, false", mine.Load(), other.Load(), task.Mine())
	}
}
