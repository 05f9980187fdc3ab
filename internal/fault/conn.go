package fault

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// faultConn is a connection that one of candor's drivers opened to a node's
// proxy address: the dial was handed over in-process (nodeProxy.handOver)
// and returned the node's own socket, with the node's faults applied in
// Read and Write by the goroutine that calls them, as the relay applies them
// to the bytes it copies:
//
//   - pause: what is written is held (up to holdMax, then Write waits, as
//     when the network's buffers are full) and sent as soon as the pause
//     ends, before anything else (flushWhenLifted); what is read is
//     returned once it ends;
//   - latency: what is read is returned delay ± jitter after it was read;
//   - bandwidth: each direction goes in pieces of at most a tenth of a
//     second's worth, no faster than the rate;
//   - reset: the socket is closed with a reset (the node sees RST), and the
//     call and every later one fail with ECONNRESET; a Read or Write in
//     flight is woken.
//
// While no fault is in effect a call costs an atomic load or two besides
// the socket's own. Waits end early at the connection's deadline (with
// os.ErrDeadlineExceeded) or Close; bytes read but not yet returned then
// are returned by the next Read.
type faultConn struct {
	net.Conn
	n       *nodeProxy
	closing chan struct{} // closed by Close or a reset: ends every wait
	once    sync.Once
	cut     atomic.Bool // reset by a fault

	heldN atomic.Int64 // len(held), read without wmu

	wmu      sync.Mutex // Write's state
	held     []byte     // written during a pause, not sent yet
	flushing bool       // flushWhenLifted runs
	upFree   time.Time  // with a rate: when the next bytes may go up

	rmu      sync.Mutex // Read's state
	ahead    *aheadOf   // reading ahead while a fault acts on what comes down
	pending  chunk      // read from the node, not returned yet (its data)
	downFree time.Time  // with a rate: when the next bytes may be returned

	rd, wd deadline
	// dmu orders a read deadline's way to the socket with the read-ahead's
	// start and end: while it reads, the socket has no read deadline (the
	// caller's is kept by next), so that a deadline passing in a pause ends
	// the caller's Read, not the read-ahead.
	dmu     sync.Mutex
	aheadOn bool
}

// holdMax is how much a pause holds of what is written before Write waits
// (the relay holds up to 64 chunks).
const holdMax = 1 << 20

// handOver is the interceptor of the node's proxy address
// (dialhook.Intercept): it dials the node as the driver would have dialed
// the proxy and returns the socket with the node's faults applied.
func (n *nodeProxy) handOver(_ context.Context, dial func(addr string) (net.Conn, error)) (net.Conn, error) {
	c, err := dial(n.upstream)
	if err != nil {
		return nil, err
	}
	fc := &faultConn{Conn: c, n: n, closing: make(chan struct{})}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		c.Close()
		return nil, &net.OpError{Op: "dial", Net: "tcp", Addr: c.RemoteAddr(), Err: syscall.ECONNREFUSED}
	}
	n.inproc[fc] = struct{}{}
	return fc, nil
}

// Read implements net.Conn.
func (c *faultConn) Read(b []byte) (int, error) {
	if c.heldN.Load() > 0 {
		// The reply may wait on what a pause held: send it first.
		if err := c.flush(); err != nil {
			return 0, err
		}
	}
	c.rmu.Lock()
	defer c.rmu.Unlock()
	for len(c.pending.data) == 0 {
		if c.ahead == nil {
			st := c.n.state.Load()
			if st.reset {
				return 0, c.reset("read")
			}
			if !st.leanDown {
				c.readAhead()
				continue
			}
			k, err := c.Conn.Read(b)
			if k == 0 || c.n.state.Load().leanDown {
				return k, c.connErr("read", err)
			}
			// A fault began while the bytes were on their way.
			c.pending = c.n.state.Load().stamp(bytes.Clone(b[:k]))
			break
		}
		if err := c.next(); err != nil {
			return 0, err
		}
	}
	if err := c.holdRead(); err != nil {
		return 0, err
	}
	k := len(c.pending.data)
	if st := c.n.state.Load(); st.rate > 0 {
		k = min(k, piece(st.rate))
		c.downFree = later(c.downFree, time.Now()).Add(perRate(k, st.rate))
	}
	k = copy(b, c.pending.data[:k])
	c.pending.data = c.pending.data[k:]
	return k, nil
}

// aheadOf is the goroutine that reads from the node while a fault acts on
// what comes down (faultConn.readAhead).
type aheadOf struct {
	q   chan chunk // what it read, stamped; closed when it ends
	err error      // what ended it, if the socket did; read once q is closed
}

// readAhead starts reading what comes down on a goroutine of its own, as
// the relay does under a fault: each chunk is stamped with the time it was
// read, so a latency counts from when bytes arrived, once per round trip,
// not once per Read call, and a pause holds what arrives. It ends at the
// first chunk it reads once the faults are over; Read then reads the socket
// itself again. rmu is held.
func (c *faultConn) readAhead() {
	a := &aheadOf{q: make(chan chunk, 64)}
	c.ahead = a
	c.dmu.Lock()
	c.aheadOn = true
	c.Conn.SetReadDeadline(time.Time{})
	c.dmu.Unlock()
	go func() {
		defer close(a.q)
		for {
			buf := make([]byte, chunkSize)
			k, err := c.Conn.Read(buf)
			if k > 0 {
				select {
				case a.q <- c.n.state.Load().stamp(buf[:k]):
				case <-c.closing:
					return
				}
			}
			if err != nil {
				a.err = err
				return
			}
			if c.n.state.Load().leanDown {
				return
			}
		}
	}()
}

// next takes the read-ahead goroutine's next chunk as pending, or its end;
// it fails at the read deadline or when the connection is closed. rmu is
// held.
func (c *faultConn) next() error {
	at, changed := c.rd.get()
	var expiry <-chan time.Time
	if !at.IsZero() {
		left := time.Until(at)
		if left <= 0 {
			return c.opError("read", os.ErrDeadlineExceeded)
		}
		t := time.NewTimer(left)
		defer t.Stop()
		expiry = t.C
	}
	select {
	case ch, ok := <-c.ahead.q:
		if ok {
			c.pending = ch
			return nil
		}
		err := c.ahead.err
		c.ahead = nil
		c.dmu.Lock()
		c.aheadOn = false
		at, _ := c.rd.get()
		c.Conn.SetReadDeadline(at)
		c.dmu.Unlock()
		if err != nil {
			return c.connErr("read", err)
		}
		return nil
	case <-changed:
		return nil
	case <-expiry:
		return c.opError("read", os.ErrDeadlineExceeded)
	case <-c.closing:
		return c.closedError("read")
	}
}

// holdRead waits until the faults in effect let pending be returned. rmu
// is held.
func (c *faultConn) holdRead() error {
	for {
		st := c.n.state.Load()
		if st.reset {
			return c.reset("read")
		}
		wait := st.hold(c.pending, true)
		if wait == 0 && st.rate > 0 {
			wait = max(time.Until(c.downFree), 0)
		}
		if wait == 0 {
			return nil
		}
		if err := c.wait(wait, st, &c.rd, "read"); err != nil {
			return err
		}
	}
}

// Write implements net.Conn.
func (c *faultConn) Write(b []byte) (int, error) {
	if c.n.state.Load().leanUp && c.heldN.Load() == 0 {
		k, err := c.Conn.Write(b)
		return k, c.connErr("write", err)
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.send(b, &c.wd)
}

// flush sends what a pause held, once the faults let it, for Read: its
// waits end at the read deadline.
func (c *faultConn) flush() error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.send(nil, &c.rd)
	return err
}

// flushWhenLifted sends what a pause held as soon as it ends, as the
// relay's writer does: a driver whose reader was already waiting in Read
// when it wrote (the CQL driver reads on a goroutine of its own) makes no
// further call that would send it. It ends once nothing is held, or when
// the connection is closed.
func (c *faultConn) flushWhenLifted() {
	var none deadline
	for {
		st := c.n.state.Load()
		if !st.pause {
			c.wmu.Lock()
			defer c.wmu.Unlock()
			c.flushing = false
			c.send(nil, &none) // an error is the next call's too
			return
		}
		select {
		case <-st.changed:
		case <-c.closing:
			c.wmu.Lock()
			defer c.wmu.Unlock()
			c.flushing = false
			return
		}
	}
}

// send writes what is held, then b, under the faults in effect; waits end
// at dl. It returns how much of b was written or held: with b, it may
// return while a pause holds it; without (flush), once what was held is
// sent. wmu is held.
func (c *faultConn) send(b []byte, dl *deadline) (int, error) {
	written := 0
	for {
		st := c.n.state.Load()
		switch {
		case st.reset:
			return written, c.reset("write")
		case st.pause:
			if k := min(holdMax-len(c.held), len(b)-written); k > 0 {
				c.held = append(c.held, b[written:written+k]...)
				c.heldN.Store(int64(len(c.held)))
				written += k
				if !c.flushing {
					c.flushing = true
					go c.flushWhenLifted()
				}
			}
			if b != nil && written == len(b) {
				return written, nil
			}
			if err := c.wait(-1, st, dl, "write"); err != nil {
				return written, err
			}
			continue
		case st.rate > 0 && time.Until(c.upFree) > 0:
			if err := c.wait(time.Until(c.upFree), st, dl, "write"); err != nil {
				return written, err
			}
			continue
		}
		fromHeld := len(c.held) > 0
		data := b[written:]
		if fromHeld {
			data = c.held
		}
		if len(data) == 0 {
			return written, nil
		}
		if st.rate > 0 {
			data = data[:min(len(data), piece(st.rate))]
		}
		k, err := c.Conn.Write(data)
		if fromHeld {
			c.held = c.held[k:]
			if len(c.held) == 0 {
				c.held = nil
			}
			c.heldN.Store(int64(len(c.held)))
		} else {
			written += k
		}
		if st.rate > 0 {
			c.upFree = later(c.upFree, time.Now()).Add(perRate(k, st.rate))
		}
		if err != nil {
			return written, c.connErr("write", err)
		}
	}
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// wait waits d (forever when negative), until the faults change, or until
// dl changes; it fails at dl or when the connection is closed or reset.
func (c *faultConn) wait(d time.Duration, st *netState, dl *deadline, op string) error {
	at, changed := dl.get()
	var timer, expiry <-chan time.Time
	if d >= 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timer = t.C
	}
	if !at.IsZero() {
		left := time.Until(at)
		if left <= 0 {
			return c.opError(op, os.ErrDeadlineExceeded)
		}
		t := time.NewTimer(left)
		defer t.Stop()
		expiry = t.C
	}
	select {
	case <-timer:
	case <-st.changed:
	case <-changed:
	case <-expiry:
		return c.opError(op, os.ErrDeadlineExceeded)
	case <-c.closing:
		return c.closedError(op)
	}
	return nil
}

// closedError is the error of a call on a connection closed or reset.
func (c *faultConn) closedError(op string) error {
	if c.cut.Load() {
		return c.opError(op, os.NewSyscallError(op, syscall.ECONNRESET))
	}
	return c.opError(op, net.ErrClosed)
}

// reset cuts the connection for a reset fault and returns the error of op.
func (c *faultConn) reset(op string) error {
	c.abort()
	return c.opError(op, os.NewSyscallError(op, syscall.ECONNRESET))
}

// abort closes the socket so that the node sees a reset, and wakes every
// call in flight.
func (c *faultConn) abort() {
	if c.cut.Swap(true) {
		return
	}
	c.n.forget(c)
	c.once.Do(func() { close(c.closing) })
	switch s := c.Conn.(type) {
	case interface{ Abort() error }: // a blocking socket (blockconn)
		s.Abort()
	case *net.TCPConn:
		s.SetLinger(0)
		s.Close()
	default:
		s.Close()
	}
}

// connErr is the error of a call on the socket: a reset's once the
// connection was cut.
func (c *faultConn) connErr(op string, err error) error {
	if err != nil && c.cut.Load() {
		return c.opError(op, os.NewSyscallError(op, syscall.ECONNRESET))
	}
	return err
}

func (c *faultConn) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}

// Close implements net.Conn; it wakes every wait in flight.
func (c *faultConn) Close() error {
	c.n.forget(c)
	c.once.Do(func() { close(c.closing) })
	if c.cut.Load() {
		return nil // closed by the reset
	}
	return c.Conn.Close()
}

// SetDeadline implements net.Conn.
func (c *faultConn) SetDeadline(t time.Time) error {
	return errors.Join(c.SetReadDeadline(t), c.SetWriteDeadline(t))
}

// SetReadDeadline implements net.Conn.
func (c *faultConn) SetReadDeadline(t time.Time) error {
	c.dmu.Lock()
	defer c.dmu.Unlock()
	c.rd.set(t)
	if c.aheadOn {
		return nil // next keeps it
	}
	return c.Conn.SetReadDeadline(t)
}

// SetWriteDeadline implements net.Conn.
func (c *faultConn) SetWriteDeadline(t time.Time) error {
	err := c.Conn.SetWriteDeadline(t)
	c.wd.set(t)
	return err
}

// deadline is a read or write deadline as the waits of a faultConn see it.
type deadline struct {
	mu      sync.Mutex
	at      time.Time
	changed chan struct{} // closed when at changes; made by get
}

func (d *deadline) set(t time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.at = t
	if d.changed != nil {
		close(d.changed)
		d.changed = nil
	}
}

func (d *deadline) get() (time.Time, <-chan struct{}) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.changed == nil {
		d.changed = make(chan struct{})
	}
	return d.at, d.changed
}

// RemoteAddr implements net.Conn: the proxy's address, which the driver
// dialed, not the node's. A driver that learns its peers from its
// connections (the CQL driver's pool) thus stays behind the proxy.
func (c *faultConn) RemoteAddr() net.Addr { return c.n.ln.Addr() }

var _ net.Conn = (*faultConn)(nil)
