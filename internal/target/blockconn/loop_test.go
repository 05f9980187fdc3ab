//go:build linux

package blockconn

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"syscall"
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

// inLoop runs fn as the one task of a new loop, with a context for dialing
// its sessions, failing with what if it has not returned after 20 s.
func inLoop(t *testing.T, what string, fn func(ctx context.Context)) {
	l, ctx := newLoop(t)
	var task *evloop.Task
	task = l.Go(func() { fn(evloop.WithTask(ctx, task)) })
	runLoop(t, l, what)
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
	var rerr error
	inLoop(t, "the deadline did not end the read", func(ctx context.Context) {
		c, _ := dialPair(t, ctx)
		time.AfterFunc(50*time.Millisecond, func() { c.SetDeadline(time.Now()) })
		_, rerr = c.Read(make([]byte, 1))
	})
	if !errors.Is(rerr, os.ErrDeadlineExceeded) {
		t.Errorf("read: %v, want the deadline's error", rerr)
	}
}

// A goroutine other than the task's coroutine that reads the session while
// the coroutine lives (pgx's background reader, started when a write seems
// to block) gets what is there to read, and when nothing is, a timeout at
// once (errBeside): it must not wait in poll(2) while the coroutine, which
// waits for it, holds the loop. The coroutine's own read then waits
// through the loop.
func TestLoopSessionReadByAnotherGoroutine(t *testing.T) {
	l, ctx := newLoop(t)
	var got, rest []byte
	var first, rerr error
	var task *evloop.Task
	task = l.Go(func() {
		c := echoPair(t, evloop.WithTask(ctx, task))
		beside := func() (n int, err error) {
			done := make(chan struct{})
			go func() {
				defer close(done)
				got = make([]byte, 4)
				n, err = c.Read(got)
			}()
			<-done // as the coroutine waits for pgx's background reader
			return n, err
		}
		if _, first = beside(); first == nil {
			return
		}
		if _, err := c.Write([]byte("ping")); err != nil {
			rerr = err
			return
		}
		rest = make([]byte, 4)
		_, rerr = io.ReadFull(c, rest)
	})
	runLoop(t, l, "a read beside the coroutine waited for a reply that was not sent")
	var ne net.Error
	if !errors.As(first, &ne) || !ne.Timeout() {
		t.Fatalf("read beside the coroutine with nothing to read: %v, want a timeout at once", first)
	}
	if rerr != nil || string(rest) != "ping" {
		t.Errorf("the coroutine's read after it: %q, %v; want the echo", rest, rerr)
	}
}

// The hang a read beside the coroutine could make: session A's request is
// answered only after session B's (as a server answers an UPDATE once the
// transaction holding its row's lock commits), both sessions on one loop,
// A's coroutine first. A's coroutine waits for a goroutine reading beside
// it (pgx's background reader); had that goroutine waited in poll(2), B
// would never have had its turn to send.
func TestLoopReadBesideDoesNotHoldTheLoop(t *testing.T) {
	l, ctx := newLoop(t)
	released := make(chan struct{})
	var aGot []byte
	var aErr, bErr error
	var ta, tb *evloop.Task
	ta = l.Go(func() {
		a, srvA := dialPair(t, evloop.WithTask(ctx, ta))
		go func() { // the server: A's reply waits for B's request
			<-released
			srvA.Write([]byte("done"))
		}()
		if _, aErr = a.Write([]byte("lock")); aErr != nil {
			return
		}
		done := make(chan struct{})
		var n int
		buf := make([]byte, 4)
		go func() { defer close(done); n, aErr = a.Read(buf) }() // pgx's background reader
		<-done
		if aErr == nil {
			aGot = buf[:n]
			return
		}
		aGot = make([]byte, 4)
		_, aErr = io.ReadFull(a, aGot)
	})
	tb = l.Go(func() {
		b, srvB := dialPair(t, evloop.WithTask(ctx, tb))
		go func() {
			one := make([]byte, 1)
			if _, err := srvB.Read(one); err == nil {
				close(released)
				srvB.Write([]byte("k"))
			}
		}()
		if _, bErr = b.Write([]byte("c")); bErr == nil {
			_, bErr = io.ReadFull(b, make([]byte, 1))
		}
	})
	runLoop(t, l, "session A's reader beside its coroutine held the loop: session B never sent, so A's reply never came")
	if aErr != nil || string(aGot) != "done" || bErr != nil {
		t.Errorf("A read %q (%v), B: %v; want A's reply and no errors", aGot, aErr, bErr)
	}
}

// After SendLater a session's write waits for its loop: nothing is on the
// wire until the task waits for its reply, then the loop sends it, and a
// write after it (before the loop's turn) follows it in order.
func TestLoopSendLater(t *testing.T) {
	var got []byte
	var early, rerr error
	var other bool
	inLoop(t, "the queued write was never sent", func(ctx context.Context) {
		c, srv := dialPair(t, ctx)
		go func() { _, _ = io.Copy(srv, srv) }()
		bc := c.(*Conn)
		asked := make(chan bool)
		go func() { asked <- bc.SendLater() }()
		other = <-asked
		if !bc.SendLater() {
			rerr = errors.New("SendLater refused on the task's coroutine")
			return
		}
		if _, err := c.Write([]byte("first ")); err != nil {
			rerr = err
			return
		}
		if _, err := c.Write([]byte("second")); err != nil {
			rerr = err
			return
		}
		// The echo would be back within the wait if the bytes had left.
		time.Sleep(50 * time.Millisecond)
		var probe [1]byte
		if n, _, err := syscall.Recvfrom(bc.fd, probe[:], syscall.MSG_DONTWAIT|syscall.MSG_PEEK); n > 0 || err != syscall.EAGAIN {
			early = errors.New("the queued write reached the peer before the task waited")
		}
		got = make([]byte, len("first second"))
		_, rerr = io.ReadFull(c, got)
	})
	if early != nil {
		t.Error(early)
	}
	if rerr != nil || string(got) != "first second" {
		t.Errorf("reply %q, %v; want the two writes echoed in order", got, rerr)
	}
	if other {
		t.Error("SendLater accepted on a goroutine that is not the session's task")
	}
}

// A queued write larger than the socket can take at once: the loop sends
// what fits, and the task's read sends the rest, waiting until the peer
// reads, before it waits for the reply.
func TestLoopSendLaterFullBuffer(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<19) // 8 MiB
	var reply []byte
	var rerr error
	received := make(chan []byte, 1)
	inLoop(t, "the rest of the queued write was never sent", func(ctx context.Context) {
		c, srv := dialPair(t, ctx)
		go func() {
			time.Sleep(100 * time.Millisecond) // the loop's send fills the buffers first
			b := make([]byte, len(big))
			_, err := io.ReadFull(srv, b)
			received <- b
			if err == nil {
				_, _ = srv.Write([]byte("ok"))
			}
		}()
		c.(*Conn).SendLater()
		if _, err := c.Write(big); err != nil {
			rerr = err
			return
		}
		reply = make([]byte, 2)
		_, rerr = io.ReadFull(c, reply)
	})
	if rerr != nil || string(reply) != "ok" {
		t.Fatalf("reply %q, %v; want ok", reply, rerr)
	}
	if b := <-received; !bytes.Equal(b, big) {
		t.Error("the peer did not receive the queued bytes whole and in order")
	}
}

// A queued write to a peer that reset the connection: the task's read
// returns the error instead of waiting for a reply.
func TestLoopSendLaterReset(t *testing.T) {
	var rerr error
	inLoop(t, "a read after a queued write to a reset peer did not return", func(ctx context.Context) {
		c, srv := dialPair(t, ctx)
		srv.(*net.TCPConn).SetLinger(0)
		srv.Close() // a reset
		time.Sleep(20 * time.Millisecond)
		c.(*Conn).SendLater()
		if _, err := c.Write([]byte("statement")); err != nil {
			rerr = err
			return
		}
		_, rerr = c.Read(make([]byte, 1))
	})
	if rerr == nil {
		t.Error("a read after a queued write to a reset peer returned no error")
	}
}
