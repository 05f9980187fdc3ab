//go:build linux

// Package blockconn is a net.Conn over a TCP socket in blocking mode, for
// the drivers' benchmark sessions. A session the runner wants in Go's
// network poller instead (target.IOPoller, for many sessions per core) is
// dialed as an ordinary TCP connection. A session of an event loop
// (target.IOLoop, dialed under its task's context) keeps its socket
// non-blocking: a read or write that would block waits in its loop
// (package evloop).
//
// A request–response client spends much of its CPU, per statement, outside
// the statement: with Go's network poller a read that finds no reply yet
// parks the goroutine, the scheduler looks for other work, epoll reports the
// reply and a thread is woken to run the goroutine again. A blocking read
// instead sleeps in the kernel until the reply is there, as libpq and
// libmysqlclient (and so sysbench and pgbench) do: one system call, no
// scheduler round. A benchmark session has a goroutine of its own that does
// nothing else while it waits, so nothing is lost by blocking its thread.
//
// Deadlines are kept with a timer, not with the poller: when one passes, the
// socket is shut down, so a read or write in flight returns at once with
// os.ErrDeadlineExceeded, and so does every later call. A connection is not
// usable after its deadline passed (pgx and go-sql-driver close a connection
// after a timeout anyway). Read and write deadlines are one deadline.
package blockconn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/candor-bench/candor/internal/cacheline"
	"github.com/candor-bench/candor/internal/dialhook"
	"github.com/candor-bench/candor/internal/evloop"
	"github.com/candor-bench/candor/internal/target"
)

// Enabled reports whether Dial returns blocking sockets (TCP connections on
// Linux).
const Enabled = true

// Dial connects with d (honouring ctx, the dialer's timeout and keep-alive
// settings) and returns the connection in blocking mode, unless ctx asks for
// Go's network poller (target.SessionIOFrom). Anything but a TCP connection
// is returned as dialed. A dial to an intercepted address is the
// Func registered for it (dialhook.Intercept).
func Dial(ctx context.Context, d *net.Dialer, network, addr string) (net.Conn, error) {
	if f := dialhook.Lookup(addr); f != nil {
		return f(ctx, func(to string) (net.Conn, error) { return dial(ctx, d, network, to) })
	}
	return dial(ctx, d, network, addr)
}

func dial(ctx context.Context, d *net.Dialer, network, addr string) (net.Conn, error) {
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	tc, ok := c.(*net.TCPConn)
	io := target.SessionIOFrom(ctx)
	if !ok || io == target.IOPoller {
		return c, nil
	}
	var task *evloop.Task
	if io == target.IOLoop {
		if task = evloop.FromContext(ctx); task == nil {
			return c, nil // not dialed for a loop's task: Go's poller
		}
	}
	bc, err := fromTCP(tc, task)
	if err != nil {
		tc.Close()
		return nil, err
	}
	return bc, nil
}

// fromTCP moves tc's socket to a blocking descriptor of its own and closes
// tc; with a task, to a non-blocking one that task waits for in its loop.
func fromTCP(tc *net.TCPConn, task *evloop.Task) (*Conn, error) {
	raw, err := tc.SyscallConn()
	if err != nil {
		return nil, err
	}
	fd := -1
	var derr error
	cerr := raw.Control(func(f uintptr) {
		syscall.ForkLock.RLock()
		defer syscall.ForkLock.RUnlock()
		if fd, derr = syscall.Dup(int(f)); derr == nil {
			syscall.CloseOnExec(fd)
		}
	})
	if err := errors.Join(cerr, derr); err != nil {
		return nil, fmt.Errorf("blockconn: duplicating the socket: %w", err)
	}
	c := &Conn{fd: fd, laddr: tc.LocalAddr(), raddr: tc.RemoteAddr()}
	// Closing tc removes its descriptor from the poller; the socket stays
	// open through fd. O_NONBLOCK belongs to the socket, so it is cleared
	// only once the poller no longer watches it.
	tc.Close()
	if task != nil {
		c.task, c.ev = task, evloop.NewFD(fd) // it stays non-blocking
		return c, nil
	}
	if err := syscall.SetNonblock(fd, false); err != nil {
		syscall.Close(fd)
		return nil, fmt.Errorf("blockconn: %w", err)
	}
	return c, nil
}

// Conn is a TCP connection in blocking mode. Read and Write may run
// concurrently with each other and with Close and the deadline setters.
type Conn struct {
	_            cacheline.Pad // see package cacheline
	fd           int
	laddr, raddr net.Addr

	// inUse is held shared by every system call on fd and exclusively by
	// Close when it releases fd, so a descriptor number is never used after
	// it was released (and perhaps reused).
	inUse   sync.RWMutex
	closed  atomic.Bool
	expired atomic.Bool

	mu    sync.Mutex // guards timer and gen
	timer *time.Timer
	gen   int64 // counts deadline changes

	yielded atomic.Int64 // when Write last yielded, from epoch (sched.go)

	// A session of an event loop (target.IOLoop): fd is non-blocking, and
	// a read or write that would block waits through task when its
	// coroutine calls; a read by another goroutine while the coroutine
	// lives (pgx's background reader) returns errBeside; any other call
	// waits in poll(2).
	task *evloop.Task
	ev   *evloop.FD
	// What a Write after SendLater queued, for the loop to send (Flush),
	// or what is left of it after a send that would have blocked or
	// failed: only the task's coroutine and its loop, on one goroutine,
	// touch these.
	later    bool // the next Write queues
	queued   []byte
	inLoop   bool  // c is in the loop's Later list
	queueErr error // the loop's send failed: the next Read returns it

	_ cacheline.Pad
}

var _ net.Conn = (*Conn)(nil)

func (c *Conn) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: "tcp", Source: c.laddr, Addr: c.raddr, Err: err}
}

// check returns the error of a connection that is closed or past its
// deadline, else nil.
func (c *Conn) check(op string) error {
	switch {
	case c.closed.Load():
		return c.opError(op, net.ErrClosed)
	case c.expired.Load():
		return c.opError(op, os.ErrDeadlineExceeded)
	}
	return nil
}

// Read implements net.Conn: it blocks until data, end of stream, an error or
// the deadline.
func (c *Conn) Read(b []byte) (int, error) {
	c.inUse.RLock()
	defer c.inUse.RUnlock()
	if err := c.check("read"); err != nil {
		return 0, err
	}
	if len(b) == 0 {
		return 0, nil
	}
	mine := c.ev != nil && c.task.Mine() // the caller may wait in the loop
	for {
		if mine && c.unsent() {
			if err := c.sendQueued(); err != nil {
				return 0, err
			}
		}
		if mine && !c.ev.Readable() {
			if err := c.task.Wait(c.ev, false); err != nil {
				return 0, c.opError("read", err)
			}
			continue // woken by the socket, or by Flush (see above)
		}
		n, err := c.read(b)
		if err == syscall.EINTR {
			continue
		}
		if cerr := c.check("read"); cerr != nil {
			return 0, cerr
		}
		if err == syscall.EAGAIN && c.ev != nil {
			if !mine && c.task.Live() {
				return 0, c.opError("read", errBeside)
			}
			if err := c.wouldBlock(mine, false); err != nil {
				return 0, c.opError("read", err)
			}
			continue
		}
		if err != nil {
			return 0, c.opError("read", os.NewSyscallError("read", err))
		}
		if n == 0 {
			return 0, io.EOF
		}
		if n < len(b) && mine {
			// A short read emptied the socket: the next read waits for
			// the loop's event instead of finding EAGAIN first. (The
			// readiness is the loop's, kept by its coroutines only.)
			c.ev.MarkDrained()
		}
		return n, nil
	}
}

// errBeside is what a read of a loop's session by a goroutine other than
// its task's coroutine returns, while that coroutine lives, when nothing is
// there to read: a timeout (os.ErrDeadlineExceeded), without waiting.
//
// Such a reader is pgx's background reader, which pgconn starts when a
// write seems to block (15 ms: a loaded machine's scheduler can take that
// much from any write). The coroutine then waits for that reader's result
// in a sync.Cond, which holds the loop's thread: if the reader waited in
// poll(2) for the reply, and the server held the reply behind a lock that
// another session of the same loop holds, neither could go on (a pgbench
// tpcb-like run at scale 1 on 2 loops hung so for 18 minutes). On a
// timeout the background reader stops without keeping an error, and the
// coroutine's own read waits through the loop, where the other sessions
// run. The background reader exists against a write that blocks while the
// server blocks writing its replies; a session's statements are far
// smaller than the socket buffers, so a loop's session does not need it.
var errBeside = os.ErrDeadlineExceeded

// read is recv(2) on c's socket. A loop's socket is non-blocking, so the
// call returns at once: it is made raw, without telling the runtime that
// the thread may block (as evloop's wait is, for the same reason).
//
// recvfrom and sendto, as libpq calls them, not read and write: a read or
// write of a socket goes through the file layer first (the position lock
// check, the permission hook, the file-access notification), which cost
// about 0.35 µs of kernel time a statement more (docs/SCRIPTS.md).
func (c *Conn) read(b []byte) (int, error) {
	return c.sys(c.ev != nil, sysRecv, b, 0)
}

// write is send(2) on c's socket (MSG_NOSIGNAL: a reset peer is an error,
// not a signal); raw for a loop's (see read).
func (c *Conn) write(b []byte) (int, error) {
	return c.sys(c.ev != nil, sysSend, b, sendFlags)
}

// sys makes the system call trap (recvfrom or sendto, with no address) on
// b with flags; raw, or telling the runtime that it may block. Unlike
// syscall.Read, it tells the race detector nothing of the bytes the kernel
// wrote into b: a session's buffers belong to its one goroutine.
func (c *Conn) sys(raw bool, trap uintptr, b []byte, flags uintptr) (int, error) {
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	var r uintptr
	var e syscall.Errno
	if raw {
		r, _, e = syscall.RawSyscall6(trap, uintptr(c.fd), p, uintptr(len(b)), flags, 0, 0)
	} else {
		r, _, e = syscall.Syscall6(trap, uintptr(c.fd), p, uintptr(len(b)), flags, 0, 0)
	}
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

// wouldBlock waits, after EAGAIN on c's non-blocking socket, until it is
// readable (writable with write): through the loop when the caller is c's
// task's coroutine (mine), else in poll(2).
func (c *Conn) wouldBlock(mine, write bool) error {
	if mine {
		if write {
			c.ev.MarkFull()
		} else {
			c.ev.MarkDrained()
		}
		return c.task.Wait(c.ev, write)
	}
	events := int16(unix.POLLIN)
	if write {
		events = unix.POLLOUT
	}
	for {
		_, err := unix.Poll([]unix.PollFd{{Fd: int32(c.fd), Events: events}}, -1)
		if err != unix.EINTR {
			return err
		}
	}
}

// Write implements net.Conn: it returns when all of b is written, on an
// error or at the deadline. It may first yield its P (see Reserve).
func (c *Conn) Write(b []byte) (int, error) {
	if c.ev == nil {
		c.maybeYield()
	}
	if (c.later || c.inLoop) && c.task.Mine() {
		// After SendLater, or behind bytes that it queued: in order.
		c.later = false
		if err := c.check("write"); err != nil {
			return 0, err
		}
		if !c.inLoop {
			c.inLoop = true
			c.task.Later(c)
		}
		c.queued = append(c.queued, b...)
		return len(b), nil
	}
	c.inUse.RLock()
	defer c.inUse.RUnlock()
	if c.ev != nil && c.task.Mine() && c.unsent() {
		if err := c.sendQueued(); err != nil { // it goes first
			return 0, err
		}
	}
	return c.writeAll(b)
}

// writeAll writes all of b, waiting when the socket's buffer is full, as
// Write does; c.inUse must be held shared.
func (c *Conn) writeAll(b []byte) (int, error) {
	written := 0
	for written < len(b) {
		if err := c.check("write"); err != nil {
			return written, err
		}
		n, err := c.write(b[written:])
		if err == syscall.EINTR {
			continue
		}
		if err == syscall.EAGAIN && c.ev != nil {
			if err := c.wouldBlock(c.task.Mine(), true); err != nil {
				return written, c.opError("write", err)
			}
			continue
		}
		if err != nil {
			if cerr := c.check("write"); cerr != nil {
				return written, cerr
			}
			return written, c.opError("write", os.NewSyscallError("write", err))
		}
		written += n
	}
	return written, nil
}

// SendLater makes c's next Write queue its bytes for c's loop to send once
// each of the loop's runnable tasks has had its turn (evloop.Task.Later):
// the loop reads the replies that are in, and then sends the statements
// that follow them in a row (docs/SCRIPTS.md, "Performance beside pgbench
// 15"). The caller must then read c's reply on the same coroutine: a Read
// waits in the loop, which sends the queued bytes before it waits for
// events; if the loop could not send them all (a full send buffer), the
// Read sends the rest itself, waiting as Write does, and it returns the
// error of a send that failed. SendLater reports whether the next Write
// queues: only for a session of a loop, called by its task's coroutine.
func (c *Conn) SendLater() bool {
	if c.ev == nil || !c.task.Mine() {
		return false
	}
	c.later = true
	return true
}

// Flush sends what Write queued after SendLater (evloop.Flusher); c's
// loop calls it, between its tasks' turns. What would block stays queued
// and an error is kept, each for c's task's next Read, which it wakes.
func (c *Conn) Flush() {
	c.inLoop = false
	c.inUse.RLock()
	defer c.inUse.RUnlock()
	sent := 0
	for sent < len(c.queued) {
		if err := c.check("write"); err != nil {
			c.queueErr = err
			break
		}
		n, err := c.write(c.queued[sent:])
		if err == syscall.EINTR {
			continue
		}
		if err == syscall.EAGAIN {
			c.ev.MarkFull()
			break
		}
		if err != nil {
			c.queueErr = c.opError("write", os.NewSyscallError("write", err))
			break
		}
		sent += n
	}
	if c.queueErr != nil {
		sent = len(c.queued)
	}
	c.queued = c.queued[:copy(c.queued, c.queued[sent:])]
	if len(c.queued) > 0 || c.queueErr != nil {
		c.task.Ready() // its Read finishes the send, or reports the error
	}
}

// unsent reports whether the loop's Flush left queued bytes it could not
// send, or the error of its send, for the task's coroutine to deal with.
func (c *Conn) unsent() bool { return !c.inLoop && (len(c.queued) > 0 || c.queueErr != nil) }

// sendQueued finishes, in the task's coroutine, a send the loop could not
// (Flush), or returns its error; c.inUse must be held shared (Read).
func (c *Conn) sendQueued() error {
	if err := c.queueErr; err != nil {
		c.queueErr, c.queued = nil, c.queued[:0]
		return err
	}
	b := c.queued
	c.queued = c.queued[:0]
	_, err := c.writeAll(b) // b stays valid: nothing is queued meanwhile
	return err
}

// Close implements net.Conn. It wakes any Read or Write in flight (they
// return net.ErrClosed) and releases the socket. It is safe to call more
// than once.
func (c *Conn) Close() error {
	if !c.markClosed() {
		return nil
	}
	// Shutdown ends a blocked read or write now; the descriptor is released
	// once they have returned.
	_ = syscall.Shutdown(c.fd, syscall.SHUT_RDWR)
	c.inUse.Lock()
	return c.release()
}

// abortGrace is how long Abort waits for a write blocked on a peer that
// does not read before it ends the write with a shutdown (which sends the
// peer an end of stream before the reset).
const abortGrace = 20 * time.Millisecond

// Abort closes the connection so that the peer sees it reset (RST), not
// ended: any unsent data is discarded. It wakes a Read in flight, as Close
// does. It is safe to call more than once, and after Close (then it does
// nothing).
func (c *Conn) Abort() error {
	if !c.markClosed() {
		return nil
	}
	l := syscall.Linger{Onoff: 1, Linger: 0}
	_ = syscall.SetsockoptLinger(c.fd, syscall.SOL_SOCKET, syscall.SO_LINGER, &l)
	// Shutting down the receiving side wakes a blocked read without sending
	// anything; a shutdown of the sending side would send the peer an end of
	// stream first. A write blocked on a full buffer is not woken by it.
	_ = syscall.Shutdown(c.fd, syscall.SHUT_RD)
	deadline := time.Now().Add(abortGrace)
	for !c.inUse.TryLock() {
		if time.Now().After(deadline) {
			_ = syscall.Shutdown(c.fd, syscall.SHUT_RDWR)
			c.inUse.Lock()
			break
		}
		time.Sleep(100 * time.Microsecond)
	}
	return c.release()
}

// markClosed marks c closed and cancels its deadline; false if it was
// closed already.
func (c *Conn) markClosed() bool {
	if c.closed.Swap(true) {
		return false
	}
	c.mu.Lock()
	c.stopTimer()
	c.mu.Unlock()
	return true
}

// release closes the descriptor once no system call uses it: inUse is held
// exclusively, and released.
func (c *Conn) release() error {
	defer c.inUse.Unlock()
	if c.ev != nil {
		c.ev.Forget()
	}
	if err := syscall.Close(c.fd); err != nil {
		return c.opError("close", os.NewSyscallError("close", err))
	}
	return nil
}

// stopTimer cancels the pending deadline, if any. c.mu must be held.
func (c *Conn) stopTimer() {
	c.gen++ // a timer already firing sees a newer generation and does nothing
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
}

// expire ends the connection at its deadline, unless the deadline of
// generation gen was replaced meanwhile (gen < 0: unconditionally).
func (c *Conn) expire(gen int64) {
	c.mu.Lock()
	current := gen < 0 || gen == c.gen
	c.mu.Unlock()
	if !current {
		return
	}
	c.inUse.RLock()
	defer c.inUse.RUnlock()
	if c.closed.Load() || c.expired.Swap(true) {
		return
	}
	_ = syscall.Shutdown(c.fd, syscall.SHUT_RDWR)
}

// SetDeadline implements net.Conn: a zero t clears the deadline; a t that has
// passed ends the connection now (see the package doc).
func (c *Conn) SetDeadline(t time.Time) error {
	if c.closed.Load() {
		return c.opError("set deadline", net.ErrClosed)
	}
	c.mu.Lock()
	c.stopTimer()
	if t.IsZero() {
		c.mu.Unlock()
		return nil
	}
	d := time.Until(t)
	if d > 0 {
		gen := c.gen
		c.timer = time.AfterFunc(d, func() { c.expire(gen) })
		c.mu.Unlock()
		return nil
	}
	c.mu.Unlock()
	c.expire(-1)
	return nil
}

// SetReadDeadline implements net.Conn; it sets the one deadline.
func (c *Conn) SetReadDeadline(t time.Time) error { return c.SetDeadline(t) }

// SetWriteDeadline implements net.Conn; it sets the one deadline.
func (c *Conn) SetWriteDeadline(t time.Time) error { return c.SetDeadline(t) }

// LocalAddr implements net.Conn.
func (c *Conn) LocalAddr() net.Addr { return c.laddr }

// RemoteAddr implements net.Conn.
func (c *Conn) RemoteAddr() net.Addr { return c.raddr }
