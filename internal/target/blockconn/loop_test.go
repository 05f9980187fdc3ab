//go:build linux

package blockconn

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/evloop"
	"github.com/candor-bench/candor/internal/target"
)

// Sessions of an event loop (target.IOLoop): dialed under a task's context,
// some before the loop runs (as the runner connects them) and some by their
// task, they make round trips to echo servers concurrently on the loop's
// one goroutine; a connection dialed for a loop without a task is Go's
// own.
func TestLoopSessions(t *testing.T) {
	l, ctx := newLoop(t)
	const n, trips = 8, 200
	errs := make([]error, n)
	var early [n / 2]net.Conn
	for i := range n {
		var task *evloop.Task
		task = l.Go(func() {
			tctx := evloop.WithTask(ctx, task)
			c := net.Conn(nil)
			if i < n/2 {
				c = early[i]
			} else {
				c = echoPair(t, tctx)
			}
			if _, ok := c.(*Conn); !ok {
				errs[i] = errors.New("not a loop session")
				return
			}
			msg := []byte("statement " + string(rune('a'+i)))
			buf := make([]byte, len(msg))
			for range trips {
				if _, err := c.Write(msg); err != nil {
					errs[i] = err
					return
				}
				if _, err := io.ReadFull(c, buf); err != nil || !bytes.Equal(buf, msg) {
					errs[i] = errors.Join(err, errors.New("read "+string(buf)))
					return
				}
			}
		})
		if i < n/2 {
			early[i] = echoPair(t, evloop.WithTask(ctx, task))
		}
	}
	runLoop(t, l, "the loop's sessions did not finish their round trips")
	for i, err := range errs {
		if err != nil {
			t.Errorf("session %d: %v", i, err)
		}
	}
	if c, _ := dialPair(t, ctx); c != nil {
		if _, ok := c.(*Conn); ok {
			t.Error("a session dialed for a loop without a task is a loop session")
		}
	}
}

// newLoop returns a loop, closed when the test ends, and a context for
// dialing its sessions.
func newLoop(t *testing.T) (*evloop.Loop, context.Context) {
	l, err := evloop.New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l, target.WithSessionIO(context.Background(), target.IOLoop)
}

// runLoop runs l until its tasks are done, failing with what after 20 s.
func runLoop(t *testing.T, l *evloop.Loop, what string) {
	done := make(chan struct{})
	go func() { l.Run(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal(what)
	}
}

// echoPair dials a server that echoes what it reads, with Dial under ctx.
func echoPair(t *testing.T, ctx context.Context) net.Conn {
	c, srv := dialPair(t, ctx)
	go func() { _, _ = io.Copy(srv, srv) }()
	return c
}

// A deadline set from another goroutine ends a read the loop waits for.
func TestLoopSessionDeadline(t *testing.T) {
	l, ctx := newLoop(t)
	var rerr error
	var task *evloop.Task
	task = l.Go(func() {
		c, _ := dialPair(t, evloop.WithTask(ctx, task))
		time.AfterFunc(50*time.Millisecond, func() { c.SetDeadline(time.Now()) })
		_, rerr = c.Read(make([]byte, 1))
	})
	runLoop(t, l, "the deadline did not end the read")
	if !errors.Is(rerr, os.ErrDeadlineExceeded) {
		t.Errorf("read: %v, want the deadline's error", rerr)
	}
}

// A goroutine other than the task's coroutine that reads the session while
// the coroutine runs (pgx's background reader, started when a write seems
// to block) waits in poll(2), not through the task: the coroutine, blocked
// on it, cannot be suspended by another goroutine's wait.
func TestLoopSessionReadByAnotherGoroutine(t *testing.T) {
	l, ctx := newLoop(t)
	var got []byte
	var rerr error
	var task *evloop.Task
	task = l.Go(func() {
		c := echoPair(t, evloop.WithTask(ctx, task))
		read := make(chan struct{})
		go func() {
			defer close(read)
			got = make([]byte, 4)
			_, rerr = io.ReadFull(c, got)
		}()
		time.Sleep(20 * time.Millisecond) // the reader waits first
		if _, err := c.Write([]byte("ping")); err != nil {
			rerr = err
		}
		<-read
	})
	runLoop(t, l, "the other goroutine's read did not return")
	if rerr != nil || string(got) != "ping" {
		t.Errorf("read by another goroutine: %q, %v; want the echo", got, rerr)
	}
}
