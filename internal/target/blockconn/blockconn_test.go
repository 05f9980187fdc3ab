//go:build linux

package blockconn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/target"
)

// pair returns a blocking client connection and the server's end of it.
func pair(t *testing.T) (*Conn, net.Conn) {
	t.Helper()
	c, srv := dialPair(t, context.Background())
	bc, ok := c.(*Conn)
	if !ok {
		t.Fatalf("Dial returned %T, want *Conn", c)
	}
	return bc, srv
}

// dialPair dials a local listener with Dial under ctx and returns the
// connection Dial returned and the server's end of it; both are closed when
// the test ends.
func dialPair(t *testing.T, ctx context.Context) (net.Conn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			close(accepted)
			return
		}
		accepted <- c
	}()
	c, err := Dial(ctx, &net.Dialer{Timeout: 5 * time.Second}, "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	srv, ok := <-accepted
	if !ok {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { c.Close(); srv.Close() })
	return c, srv
}

// readResult runs one Read in the background.
func readResult(c net.Conn) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := c.Read(make([]byte, 16))
		done <- err
	}()
	return done
}

func wait(t *testing.T, done <-chan error, within time.Duration) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(within):
		t.Fatalf("a blocked Read did not return within %v", within)
		return nil
	}
}

func TestRoundTripAndEOF(t *testing.T) {
	c, srv := pair(t)
	if _, err := c.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4)
	if _, err := io.ReadFull(srv, buf); err != nil || string(buf) != "ping" {
		t.Fatalf("server read %q, %v", buf, err)
	}
	big := make([]byte, 8<<20) // more than the socket buffers: Write must loop
	go func() { _, _ = srv.Write(big) }()
	if _, err := io.ReadFull(c, make([]byte, len(big))); err != nil {
		t.Fatalf("reading 8 MiB: %v", err)
	}
	srv.Close()
	if _, err := c.Read(buf); err != io.EOF {
		t.Fatalf("read after the peer closed: %v, want io.EOF", err)
	}
	if c.LocalAddr() == nil || c.RemoteAddr().String() != srv.LocalAddr().String() {
		t.Fatalf("addresses: local %v remote %v, server %v", c.LocalAddr(), c.RemoteAddr(), srv.LocalAddr())
	}
}

func TestPastDeadlineEndsABlockedRead(t *testing.T) {
	c, _ := pair(t)
	done := readResult(c)
	time.Sleep(50 * time.Millisecond) // let it block
	if err := c.SetDeadline(time.Now()); err != nil {
		t.Fatal(err)
	}
	err := wait(t, done, 2*time.Second)
	var ne net.Error
	if !errors.Is(err, os.ErrDeadlineExceeded) || !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("read error %v, want a timeout (os.ErrDeadlineExceeded)", err)
	}
	if _, err := c.Write([]byte("x")); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("write after the deadline: %v, want os.ErrDeadlineExceeded", err)
	}
}

func TestFutureDeadlineFiresAndCanBeCleared(t *testing.T) {
	c, srv := pair(t)
	// Cleared before it passes: a later reply still arrives.
	if err := c.SetReadDeadline(time.Now().Add(50 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if err := c.SetDeadline(time.Time{}); err != nil {
		t.Fatal(err)
	}
	done := readResult(c)
	time.Sleep(150 * time.Millisecond)
	if _, err := srv.Write([]byte("late")); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, done, 2*time.Second); err != nil {
		t.Fatalf("read with a cleared deadline: %v", err)
	}
	// Replaced by a later one: only the later one counts.
	c.SetWriteDeadline(time.Now().Add(30 * time.Millisecond))
	c.SetDeadline(time.Now().Add(300 * time.Millisecond))
	t0 := time.Now()
	err := wait(t, readResult(c), 3*time.Second)
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read past the deadline: %v, want os.ErrDeadlineExceeded", err)
	}
	if d := time.Since(t0); d < 200*time.Millisecond {
		t.Fatalf("read timed out after %v: the replaced 30 ms deadline fired", d)
	}
}

func TestCloseEndsABlockedRead(t *testing.T) {
	c, _ := pair(t)
	done := readResult(c)
	time.Sleep(50 * time.Millisecond)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, done, 2*time.Second); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("read during Close: %v, want net.ErrClosed", err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := c.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("write after Close: %v, want net.ErrClosed", err)
	}
	if err := c.SetDeadline(time.Now()); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("SetDeadline after Close: %v, want net.ErrClosed", err)
	}
}

func TestAbortResetsThePeerAndEndsABlockedRead(t *testing.T) {
	c, srv := pair(t)
	done := readResult(c)
	time.Sleep(50 * time.Millisecond)
	if err := c.Abort(); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, done, 2*time.Second); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("read during Abort: %v, want net.ErrClosed", err)
	}
	// The peer sees a reset, not an end of stream.
	srv.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := srv.Read(make([]byte, 1)); !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("the peer's read after Abort: %v, want ECONNRESET", err)
	}
	if err := c.Abort(); err != nil {
		t.Fatalf("second Abort: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("Close after Abort: %v", err)
	}
}

func TestAbortEndsAWriteBlockedOnAPeerThatDoesNotRead(t *testing.T) {
	c, _ := pair(t)
	done := make(chan error, 1)
	go func() {
		_, err := c.Write(make([]byte, 64<<20)) // far more than the buffers hold
		done <- err
	}()
	time.Sleep(100 * time.Millisecond)
	if err := c.Abort(); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, done, 2*time.Second); err == nil {
		t.Fatal("a write blocked on a full buffer succeeded after Abort")
	}
}

func TestDialErrorsAndOtherNetworks(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	if _, err := Dial(context.Background(), &net.Dialer{}, "tcp", addr); err == nil {
		t.Fatal("dialing a closed port succeeded")
	}
	sock := t.TempDir() + "/s"
	ul, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ul.Close()
	go func() {
		if c, err := ul.Accept(); err == nil {
			c.Close()
		}
	}()
	c, err := Dial(context.Background(), &net.Dialer{}, "unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, ok := c.(*net.UnixConn); !ok {
		t.Fatalf("a unix socket came back as %T, want it as dialed", c)
	}
}

// A session to wait in the network poller gets Go's own TCP connection.
func TestDialForThePoller(t *testing.T) {
	for mode, want := range map[target.SessionIO]string{target.IOPoller: "*net.TCPConn", target.IOBlocking: "*blockconn.Conn"} {
		c, _ := dialPair(t, target.WithSessionIO(context.Background(), mode))
		if got := fmt.Sprintf("%T", c); got != want {
			t.Errorf("session I/O %q: Dial returned %s, want %s", mode, got, want)
		}
	}
}

// Read, Write, deadlines and Close from several goroutines at once (run
// with -race).
func TestConcurrentUse(t *testing.T) {
	c, srv := pair(t)
	go func() { _, _ = io.Copy(srv, srv) }() // echo
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
				c.SetDeadline(time.Now().Add(time.Hour))
				c.SetDeadline(time.Time{})
			}
		}
	}()
	buf := make([]byte, 5)
	for i := 0; i < 200; i++ {
		if _, err := c.Write([]byte("hello")); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(c, buf); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	done := readResult(c)
	c.Close()
	if err := wait(t, done, 2*time.Second); err == nil {
		t.Fatal("read after Close succeeded")
	}
}

func TestReserveRaisesProcsAndSessionsYieldOnlyUnderIt(t *testing.T) {
	c, srv := pair(t)
	go io.Copy(io.Discard, srv)
	write := func() {
		t.Helper()
		if _, err := c.Write([]byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	write()
	if c.yielded.Load() != 0 {
		t.Fatal("a Write yielded with no Reserve in force")
	}

	time.Sleep(yieldAfter - time.Since(epoch)) // a first yield is due
	before := runtime.GOMAXPROCS(0)
	end := Reserve(before + 2)
	if got := runtime.GOMAXPROCS(0); got != before+3 {
		t.Errorf("GOMAXPROCS under Reserve(%d) is %d, want %d", before+2, got, before+3)
	}
	Reserve(before + 5)() // a second Reserve, and its end, change nothing
	if runtime.GOMAXPROCS(0) != before+3 {
		t.Error("a second Reserve while one is in force changed GOMAXPROCS")
	}
	write()
	first := c.yielded.Load()
	if first == 0 {
		t.Fatal("a Write under Reserve did not yield")
	}
	write()
	if next := c.yielded.Load(); next != first && time.Duration(next-first) <= yieldAfter {
		t.Errorf("a Write yielded again %v after the last yield, under %v", time.Duration(next-first), yieldAfter)
	}
	end()
	if got := runtime.GOMAXPROCS(0); got != before {
		t.Errorf("GOMAXPROCS after Reserve ended is %d, want %d", got, before)
	}
	last := c.yielded.Load()
	time.Sleep(yieldAfter + time.Millisecond)
	write()
	if c.yielded.Load() != last {
		t.Error("a Write yielded after Reserve ended")
	}

	t.Setenv("GOMAXPROCS", strconv.Itoa(before))
	defer Reserve(before + 2)()
	if got := runtime.GOMAXPROCS(0); got != before {
		t.Errorf("with GOMAXPROCS in the environment Reserve changed it to %d", got)
	}
	write()
	if c.yielded.Load() != last {
		t.Error("a Write yielded under a Reserve that the environment's GOMAXPROCS turned off")
	}
}

// A write to a peer that reset the connection fails with an error, and
// raises no SIGPIPE: sessions send with MSG_NOSIGNAL, as libpq does (a
// plain write(2) would also signal the process).
func TestWriteToAResetPeerFailsWithoutSIGPIPE(t *testing.T) {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGPIPE)
	defer signal.Stop(sigs)
	c, srv := pair(t)
	if err := srv.(*net.TCPConn).SetLinger(0); err != nil {
		t.Fatal(err)
	}
	srv.Close() // a reset
	// The first write after the reset may report it (ECONNRESET); the
	// next ones find the socket closed (EPIPE), which is what signals.
	var err error
	for i := 0; i < 100 && !errors.Is(err, syscall.EPIPE); i++ {
		if _, err = c.Write([]byte("after the reset")); err != nil && !errors.Is(err, syscall.ECONNRESET) && !errors.Is(err, syscall.EPIPE) {
			t.Fatalf("a write to a reset peer: %v, want ECONNRESET or EPIPE", err)
		}
		time.Sleep(time.Millisecond)
	}
	if !errors.Is(err, syscall.EPIPE) {
		t.Fatalf("writes to a reset peer: %v, want EPIPE in the end", err)
	}
	select {
	case s := <-sigs:
		t.Fatalf("a write to a reset peer raised %v", s)
	case <-time.After(50 * time.Millisecond):
	}
}
