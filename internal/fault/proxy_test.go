package fault

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/dialhook"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/target/blockconn"
)

// echoServer answers every line with the same line until the client closes.
func echoServer(t testing.TB) string {
	return tcpServer(t, func(c net.Conn) { io.Copy(c, c) })
}

// tcpServer listens on a free loopback port until the test ends, serves
// each connection with serve on a goroutine of its own (closing it after),
// and returns its address.
func tcpServer(t testing.TB, serve func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				serve(c)
			}()
		}
	}()
	return ln.Addr().String()
}

func proxies(t *testing.T, n int) *ProxySet {
	t.Helper()
	var ups []string
	for range n {
		ups = append(ups, echoServer(t))
	}
	ps, err := StartProxies(ups)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := ps.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return ps
}

// via is how a test's client reaches a proxy's address: through the relay,
// as any client does, or handed over in-process, as candor's drivers do
// (their dials go through blockconn.Dial).
type via struct {
	name     string
	inProc   bool
	blocking bool // in-process: a blocking socket, else one in Go's poller
}

var (
	viaRelay  = via{name: "relay"}
	viaInProc = via{name: "in-process", inProc: true}
	viaBlock  = via{name: "in-process-blocking", inProc: true, blocking: true}
)

// modes runs test through the relay and in-process.
func modes(t *testing.T, test func(t *testing.T, v via)) {
	for _, v := range []via{viaRelay, viaInProc} {
		t.Run(v.name, func(t *testing.T) { test(t, v) })
	}
}

// conn connects to addr the way v says; the connection is closed when the
// test ends.
func (v via) conn(t testing.TB, addr string) net.Conn {
	t.Helper()
	var c net.Conn
	var err error
	if v.inProc {
		io := target.IOPoller
		if v.blocking {
			io = target.IOBlocking
		}
		ctx := target.WithSessionIO(context.Background(), io)
		c, err = blockconn.Dial(ctx, &net.Dialer{Timeout: 5 * time.Second}, "tcp", addr)
		if err == nil {
			if _, ok := c.(*faultConn); !ok {
				t.Fatalf("a dial to the proxy's address returned %T, not a connection handed over in-process", c)
			}
		}
	} else {
		c, err = net.DialTimeout("tcp", addr, 5*time.Second)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

type client struct {
	c net.Conn
	r *bufio.Reader
}

func (v via) dial(t *testing.T, addr string) *client {
	t.Helper()
	c := v.conn(t, addr)
	return &client{c: c, r: bufio.NewReader(c)}
}

// roundTrip sends a line and waits up to wait for it to come back.
func (cl *client) roundTrip(line string, wait time.Duration) (time.Duration, error) {
	begin := time.Now()
	cl.c.SetDeadline(time.Now().Add(wait))
	if _, err := io.WriteString(cl.c, line+"\n"); err != nil {
		return 0, err
	}
	got, err := cl.r.ReadString('\n')
	if err != nil {
		return time.Since(begin), err
	}
	if got != line+"\n" {
		return 0, errors.New("echo mismatch: " + got)
	}
	return time.Since(begin), nil
}

func mustFault(t *testing.T, s string) Fault {
	t.Helper()
	f, err := Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	if errs := f.Validate(Limits{Nodes: 2}); len(errs) > 0 {
		t.Fatal(errs)
	}
	return f
}

func TestProxyPassThrough(t *testing.T) {
	modes(t, func(t *testing.T, v via) {
		ps := proxies(t, 2)
		for i := range ps.Len() {
			if ps.Addr(i) == ps.Upstream(i) || !strings.HasPrefix(ps.Addr(i), "127.0.0.1:") {
				t.Fatalf("node %d: proxy address %s, upstream %s", i, ps.Addr(i), ps.Upstream(i))
			}
			if _, err := v.dial(t, ps.Addr(i)).roundTrip("hello", 5*time.Second); err != nil {
				t.Fatalf("node %d: %v", i, err)
			}
		}
	})
}

func TestProxyPause(t *testing.T) {
	modes(t, func(t *testing.T, v via) {
		ps := proxies(t, 2)
		cl := v.dial(t, ps.Addr(0))
		other := v.dial(t, ps.Addr(1))
		if _, err := cl.roundTrip("before", 5*time.Second); err != nil {
			t.Fatal(err)
		}
		lift, err := ps.Apply(0, mustFault(t, "at=0s for=1s net=pause node=0"))
		if err != nil {
			t.Fatal(err)
		}
		// Node 0 stalls: the read times out, the connection stays open.
		if _, err := cl.roundTrip("during", 300*time.Millisecond); !os.IsTimeout(err) {
			t.Fatalf("read during pause: %v, want a timeout", err)
		}
		// A connection opened during the pause stalls too.
		late := v.dial(t, ps.Addr(0))
		late.c.SetDeadline(time.Now().Add(200 * time.Millisecond))
		io.WriteString(late.c, "late\n")
		if _, err := late.r.ReadString('\n'); !os.IsTimeout(err) {
			t.Fatalf("new connection during pause: %v, want a timeout", err)
		}
		// Node 1 is untouched.
		if _, err := other.roundTrip("other", 5*time.Second); err != nil {
			t.Fatalf("node 1 during node 0's pause: %v", err)
		}
		if err := lift(); err != nil {
			t.Fatal(err)
		}
		// What was held is delivered: nothing lost.
		cl.c.SetDeadline(time.Now().Add(5 * time.Second))
		if got, err := cl.r.ReadString('\n'); err != nil || got != "during\n" {
			t.Fatalf("after the pause: %q, %v; want the held line", got, err)
		}
		late.c.SetDeadline(time.Now().Add(5 * time.Second))
		if got, err := late.r.ReadString('\n'); err != nil || got != "late\n" {
			t.Fatalf("late connection after the pause: %q, %v", got, err)
		}
		if _, err := cl.roundTrip("after", 5*time.Second); err != nil {
			t.Fatalf("after the pause: %v", err)
		}
		if err := lift(); err != nil {
			t.Errorf("lifting twice: %v", err)
		}
	})
}

func TestProxyLatency(t *testing.T) {
	modes(t, func(t *testing.T, v via) {
		ps := proxies(t, 1)
		cl := v.dial(t, ps.Addr(0))
		lift, err := ps.Apply(0, mustFault(t, "at=0s for=1s net=latency delay=150ms node=all"))
		if err != nil {
			t.Fatal(err)
		}
		d, err := cl.roundTrip("slow", 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if d < 150*time.Millisecond {
			t.Errorf("round trip with delay=150ms took %v", d)
		}
		if err := lift(); err != nil {
			t.Fatal(err)
		}
		if _, err := cl.roundTrip("fast", 5*time.Second); err != nil {
			t.Fatal(err)
		}
	})
}

func TestProxyBandwidth(t *testing.T) {
	modes(t, func(t *testing.T, v via) {
		ps := proxies(t, 1)
		cl := v.dial(t, ps.Addr(0))
		lift, err := ps.Apply(0, mustFault(t, "at=0s for=1s net=bandwidth rate=100KB/s node=0"))
		if err != nil {
			t.Fatal(err)
		}
		defer lift()
		// 30 KB each way at 100 KB/s takes at least 0.3 s.
		d, err := cl.roundTrip(strings.Repeat("x", 30000), 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if d < 250*time.Millisecond {
			t.Errorf("30 KB at 100KB/s went through in %v", d)
		}
	})
}

func TestProxyReset(t *testing.T) {
	modes(t, func(t *testing.T, v via) {
		ps := proxies(t, 2)
		cl := v.dial(t, ps.Addr(0))
		other := v.dial(t, ps.Addr(1))
		if _, err := cl.roundTrip("before", 5*time.Second); err != nil {
			t.Fatal(err)
		}
		lift, err := ps.Apply(0, mustFault(t, "at=0s net=reset node=0"))
		if err != nil {
			t.Fatal(err)
		}
		if err := lift(); err != nil {
			t.Fatal(err)
		}
		// The open connection is gone.
		cl.c.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := cl.r.ReadString('\n'); !errors.Is(err, syscall.ECONNRESET) {
			t.Fatalf("read on a reset connection: %v, want ECONNRESET", err)
		}
		// New connections work, on the same address; node 1 kept its own.
		if _, err := v.dial(t, ps.Addr(0)).roundTrip("again", 5*time.Second); err != nil {
			t.Fatalf("new connection after reset: %v", err)
		}
		if _, err := other.roundTrip("other", 5*time.Second); err != nil {
			t.Fatalf("node 1 after node 0's reset: %v", err)
		}
	})
}

func TestProxyResetWindow(t *testing.T) {
	modes(t, func(t *testing.T, v via) {
		ps := proxies(t, 1)
		lift, err := ps.Apply(0, mustFault(t, "at=0s for=1s net=reset node=0"))
		if err != nil {
			t.Fatal(err)
		}
		// During the window a new connection is reset on its first bytes.
		if _, err := v.dial(t, ps.Addr(0)).roundTrip("x", 5*time.Second); err == nil || os.IsTimeout(err) {
			t.Fatalf("connection during the reset window: %v, want it cut", err)
		}
		if err := lift(); err != nil {
			t.Fatal(err)
		}
		if _, err := v.dial(t, ps.Addr(0)).roundTrip("y", 5*time.Second); err != nil {
			t.Fatalf("after the window: %v", err)
		}
	})
}

func TestProxyCloseLiftsPause(t *testing.T) {
	modes(t, func(t *testing.T, v via) {
		ps := proxies(t, 1)
		cl := v.dial(t, ps.Addr(0))
		if _, err := ps.Apply(0, mustFault(t, "at=0s for=1s net=pause node=0")); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- ps.Close() }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Close hung on a paused proxy")
		}
		cl.c.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.WriteString(cl.c, "x\n"); err == nil {
			if _, err := cl.r.ReadString('\n'); err == nil {
				t.Error("connection still answers after Close")
			}
		}
	})
}

func TestRewriteURL(t *testing.T) {
	cases := []struct{ in, addr, want, up string }{
		{"postgres://u:secret@db.example:5433/candor?sslmode=disable", "127.0.0.1:4000", "postgres://u:secret@127.0.0.1:4000/candor?sslmode=disable", "db.example:5433"},
		{"postgres://postgres@10.0.0.1/candor", "127.0.0.1:4000", "postgres://postgres@127.0.0.1:4000/candor", "10.0.0.1:5432"},
		{"mysql://candor:candor@127.0.0.1:3306/candor", "127.0.0.1:4001", "mysql://candor:candor@127.0.0.1:4001/candor", "127.0.0.1:3306"},
		{"cql://127.0.0.2/ycsb?consistency=QUORUM", "127.0.0.1:4002", "cql://127.0.0.1:4002/ycsb?consistency=QUORUM", "127.0.0.2:9042"},
	}
	for _, c := range cases {
		got, err := RewriteURL(c.in, c.addr)
		if err != nil || got != c.want {
			t.Errorf("RewriteURL(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
		up, err := UpstreamOf(c.in)
		if err != nil || up != c.up {
			t.Errorf("UpstreamOf(%q) = %q, %v; want %q", c.in, up, err, c.up)
		}
	}
	// several hosts in one URL: one node per --target
	if _, err := UpstreamOf("cql://127.0.0.1,127.0.0.2,127.0.0.3:9042/ycsb"); !errors.Is(err, ErrManyHosts) || !strings.Contains(err.Error(), "names 3") {
		t.Errorf("UpstreamOf(three hosts) = %v, want the one-node-per-target message", err)
	}
	// an embedded database has nothing to proxy; the message keeps secrets out
	_, err := UpstreamOf("sqlite://candor.db")
	if err == nil {
		t.Error("UpstreamOf(sqlite file) succeeded")
	}
	if _, err := RewriteURL("postgres://u:secret@/x", "a:1"); err == nil || strings.Contains(err.Error(), "secret") {
		t.Errorf("RewriteURL without host: %v", err)
	}
}

// BenchmarkRoundTrip compares a small request/response through the proxy's
// relay and handed over in-process with the same on a direct connection (the goal: the proxy adds at most
// 50 µs to a point select's median). Run it alone:
//
//	go test -run '^$' -bench RoundTrip ./internal/fault/
func BenchmarkRoundTrip(b *testing.B) {
	up := echoServer(b)
	ps, err := StartProxies([]string{up})
	if err != nil {
		b.Fatal(err)
	}
	defer ps.Close()
	for _, c := range []struct {
		name, addr string
		v          via
	}{{"direct", up, viaRelay}, {"relay", ps.Addr(0), viaRelay}, {"in-process", ps.Addr(0), viaInProc}} {
		b.Run(c.name, func(b *testing.B) {
			conn := c.v.conn(b, c.addr)
			buf := make([]byte, 64)
			for b.Loop() {
				if _, err := conn.Write(buf); err != nil {
					b.Fatal(err)
				}
				if _, err := io.ReadFull(conn, buf); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// replyServer reads everything until the client half-closes, then sends it
// all back and closes: it checks that the proxy forwards a half-close both
// ways and delivers what follows it.
func replyServer(t testing.TB) string {
	return tcpServer(t, func(c net.Conn) {
		if b, err := io.ReadAll(c); err == nil {
			c.Write(b)
		}
	})
}

func randomBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, seed))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func TestProxyLeanPathIntact(t *testing.T) {
	ps, err := StartProxies([]string{replyServer(t), echoServer(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer ps.Close()
	// Half-close: everything up, the client's end of stream, everything
	// down, the node's end of stream.
	for _, size := range []int{0, 1, 100, chunkSize - 1, chunkSize + 1, 4 << 20} {
		c, err := net.DialTimeout("tcp", ps.Addr(0), 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(20 * time.Second))
		want := randomBytes(size, uint64(size))
		werr := make(chan error, 1)
		go func() {
			_, err := c.Write(want)
			if err == nil {
				err = c.(*net.TCPConn).CloseWrite()
			}
			werr <- err
		}()
		got, err := io.ReadAll(c)
		if err != nil {
			t.Fatalf("%d bytes: reading the reply: %v", size, err)
		}
		if err := <-werr; err != nil {
			t.Fatalf("%d bytes: writing: %v", size, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%d bytes: got %d bytes back, not the same", size, len(got))
		}
		c.Close()
	}
	// Many small round trips of varying size on one connection.
	cl := viaRelay.dial(t, ps.Addr(1))
	for i := 1; i <= 300; i++ {
		if _, err := cl.roundTrip(strings.Repeat(string(rune('a'+i%26)), i), 5*time.Second); err != nil {
			t.Fatalf("round trip %d: %v", i, err)
		}
	}
	for i := range ps.Len() {
		if n := ps.nodes[i].faultPath.Load(); n != 0 {
			t.Errorf("node %d: %d direction(s) on the fault path with no fault", i, n)
		}
	}
}

func TestProxyFaultOnOpenConnection(t *testing.T) {
	modes(t, func(t *testing.T, v via) {
		ps := proxies(t, 1)
		cl := v.dial(t, ps.Addr(0))
		if _, err := cl.roundTrip("lean", 5*time.Second); err != nil {
			t.Fatal(err)
		}
		lift, err := ps.Apply(0, mustFault(t, "at=0s for=1s net=latency delay=150ms node=0"))
		if err != nil {
			t.Fatal(err)
		}
		d, err := cl.roundTrip("slow", 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if d < 150*time.Millisecond {
			t.Errorf("round trip on an open connection with delay=150ms took %v", d)
		}
		if n := ps.nodes[0].faultPath.Load(); !v.inProc && n != 1 {
			t.Errorf("%d direction(s) on the fault path under latency, want 1 (what comes back)", n)
		}
		// A large payload under the fault arrives intact and in order (read
		// while it is written: the echo would stall once the buffers between
		// are full).
		big := randomBytes(1<<20, 7)
		cl.c.SetDeadline(time.Now().Add(20 * time.Second))
		werr := make(chan error, 1)
		go func() {
			_, err := cl.c.Write(big)
			werr <- err
		}()
		got := make([]byte, len(big))
		if _, err := io.ReadFull(cl.r, got); err != nil {
			t.Fatalf("large payload under latency: %v", err)
		}
		if err := <-werr; err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, big) {
			t.Fatal("large payload under latency: not the same bytes back")
		}
		if err := lift(); err != nil {
			t.Fatal(err)
		}
		// Back on the lean path once something has gone through.
		for i := range 3 {
			if _, err := cl.roundTrip("lean again", 5*time.Second); err != nil {
				t.Fatalf("round trip %d after the fault: %v", i, err)
			}
		}
		if n := ps.nodes[0].faultPath.Load(); n != 0 {
			t.Errorf("%d direction(s) still on the fault path after the fault ended", n)
		}
		// And a fault switched on again takes effect again.
		lift, err = ps.Apply(1, mustFault(t, "at=0s for=1s net=pause node=0"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cl.roundTrip("paused", 300*time.Millisecond); !os.IsTimeout(err) {
			t.Fatalf("round trip during a pause: %v, want a timeout", err)
		}
		lift()
		cl.c.SetDeadline(time.Now().Add(5 * time.Second))
		if got, err := cl.r.ReadString('\n'); err != nil || got != "paused\n" {
			t.Fatalf("after the pause: %q, %v; want the held line", got, err)
		}
	})
}

// proxyGoroutines lists the stacks of goroutines running the proxy's code.
func proxyGoroutines() []string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var found []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "fault.(*pipe)") || strings.Contains(g, "fault.(*nodeProxy)") {
			found = append(found, g)
		}
	}
	return found
}

func TestProxyNoGoroutineLeft(t *testing.T) {
	ps := proxies(t, 2)
	// Connections in every state: idle, closed by candor, half-closed,
	// paused with bytes held, on the fault path with nothing to deliver.
	var cls []*client
	for i := range 6 {
		cl := viaRelay.dial(t, ps.Addr(i%2))
		if _, err := cl.roundTrip("x", 5*time.Second); err != nil {
			t.Fatal(err)
		}
		cls = append(cls, cl)
	}
	cls[0].c.Close()
	cls[1].c.(*net.TCPConn).CloseWrite()
	if _, err := ps.Apply(0, mustFault(t, "at=0s for=1s net=pause node=0")); err != nil {
		t.Fatal(err)
	}
	if _, err := ps.Apply(1, mustFault(t, "at=0s for=1s net=latency delay=20ms node=1")); err != nil {
		t.Fatal(err)
	}
	for i, cl := range cls[2:] {
		if i%2 == 0 {
			io.WriteString(cl.c, "held\n") // node 0: held by the pause
			continue
		}
		// node 1: delivered; the fault path's writer waits for more
		if _, err := cl.roundTrip("delayed", 5*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	if len(proxyGoroutines()) == 0 {
		t.Fatal("no proxy goroutine found before Close: the check below would prove nothing")
	}
	closed := make(chan error, 1)
	go func() { closed <- ps.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("Close hung, waiting for:\n%s", strings.Join(proxyGoroutines(), "\n\n"))
	}
	// Close has waited for them; one may still be returning (runnable at
	// its closing brace, its deferred calls done).
	waitGoroutines(t, 0, "after Close")
	// Connections that end on their own leave nothing behind either.
	ps = proxies(t, 1)
	for range 5 {
		cl := viaRelay.dial(t, ps.Addr(0))
		if _, err := cl.roundTrip("y", 5*time.Second); err != nil {
			t.Fatal(err)
		}
		cl.c.Close()
	}
	// The accept loop only.
	waitGoroutines(t, 1, "after every connection ended")
}

// waitGoroutines waits up to 10 s for the proxy's goroutines to be down to
// want (the accept loops: one per running proxy).
func waitGoroutines(t *testing.T, want int, when string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		g := proxyGoroutines()
		accepts := 0
		for _, s := range g {
			if strings.Contains(s, "(*nodeProxy).accept") {
				accepts++
			}
		}
		if len(g) == want && accepts == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d proxy goroutine(s) left %s, want %d (accept loops):\n%s", len(g), when, want, strings.Join(g, "\n\n"))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// readAheads counts the goroutines reading ahead for connections handed
// over in-process.
func readAheads() int {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "fault.(*faultConn).readAhead") {
			n++
		}
	}
	return n
}

func TestInProcessBlockingSockets(t *testing.T) {
	if !blockconn.Enabled {
		t.Skip("blocking sockets are for Linux only")
	}
	ps := proxies(t, 1)
	cl := viaBlock.dial(t, ps.Addr(0))
	if _, ok := cl.c.(*faultConn).Conn.(*blockconn.Conn); !ok {
		t.Fatalf("the socket handed over is %T, want the blocking one the session asked for", cl.c.(*faultConn).Conn)
	}
	if _, err := cl.roundTrip("lean", 5*time.Second); err != nil {
		t.Fatal(err)
	}
	// A reply that arrives during a pause waits for its end.
	lift, err := ps.Apply(0, mustFault(t, "at=0s for=1s net=pause node=0"))
	if err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(200*time.Millisecond, func() { lift() })
	if d, err := cl.roundTrip("paused", 5*time.Second); err != nil || d < 150*time.Millisecond {
		t.Fatalf("round trip across a 200 ms pause: %v, %v", d, err)
	}
	// A reset wakes a Read blocked in the kernel.
	cl.c.SetDeadline(time.Time{})
	done := make(chan error, 1)
	go func() {
		_, err := cl.r.ReadString('\n')
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	if _, err := ps.Apply(1, mustFault(t, "at=0s net=reset node=0")); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, syscall.ECONNRESET) {
			t.Fatalf("a blocked read cut by a reset: %v, want ECONNRESET", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a reset did not wake a read blocked in the kernel")
	}
}

// A connection handed over names the proxy as its peer, as a relayed one
// does: a driver that learns hosts from its connections (CQL's pool) keeps
// dialing the proxy.
func TestInProcessRemoteAddrIsTheProxy(t *testing.T) {
	ps := proxies(t, 1)
	c := viaInProc.conn(t, ps.Addr(0))
	if got := c.RemoteAddr().String(); got != ps.Addr(0) {
		t.Errorf("RemoteAddr %s, want the proxy's %s (the node is %s)", got, ps.Addr(0), ps.Upstream(0))
	}
}

// A driver whose reader waits in Read on a goroutine of its own (the CQL
// driver) writes once during a pause and calls nothing more: what was held
// goes out when the pause ends, and the reply arrives, in either session
// I/O.
func TestInProcessHeldWritesGoWhenThePauseEnds(t *testing.T) {
	for _, v := range []via{viaInProc, viaBlock} {
		if v.blocking && !blockconn.Enabled {
			continue
		}
		t.Run(v.name, func(t *testing.T) {
			ps := proxies(t, 1)
			cl := v.dial(t, ps.Addr(0))
			if _, err := cl.roundTrip("x", 5*time.Second); err != nil {
				t.Fatal(err)
			}
			cl.c.SetDeadline(time.Time{})
			got := make(chan string, 1)
			go func() { // the reader, waiting before the request is written
				line, _ := cl.r.ReadString('\n')
				got <- line
			}()
			time.Sleep(50 * time.Millisecond)
			lift, err := ps.Apply(0, mustFault(t, "at=0s for=1s net=pause node=0"))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := io.WriteString(cl.c, "held\n"); err != nil {
				t.Fatal(err)
			}
			time.Sleep(100 * time.Millisecond)
			select {
			case line := <-got:
				t.Fatalf("a reply during the pause: %q", line)
			default:
			}
			lifted := time.Now()
			lift()
			select {
			case line := <-got:
				if line != "held\n" {
					t.Fatalf("reply %q, want the held line", line)
				}
				if d := time.Since(lifted); d > time.Second {
					t.Errorf("the held request went %v after the pause ended", d)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("what the pause held was not sent when it ended")
			}
		})
	}
}

func TestInProcessHeldWritesGoFirst(t *testing.T) {
	ps := proxies(t, 1)
	c := viaInProc.conn(t, ps.Addr(0))
	lift, err := ps.Apply(0, mustFault(t, "at=0s for=1s net=pause node=0"))
	if err != nil {
		t.Fatal(err)
	}
	// Within holdMax a write is held and returns at once; beyond, it waits
	// as on full buffers, and gives up at its deadline.
	big := randomBytes(holdMax+4096, 3)
	c.SetDeadline(time.Now().Add(300 * time.Millisecond))
	n, err := c.Write(big)
	if !os.IsTimeout(err) || n != holdMax {
		t.Fatalf("write of %d bytes during a pause: %d written, %v; want %d held and a timeout", len(big), n, err, holdMax)
	}
	lift()
	// The next call sends what was held first, then its own bytes: the echo
	// comes back whole and in order.
	c.SetDeadline(time.Now().Add(20 * time.Second))
	werr := make(chan error, 1)
	go func() {
		_, err := c.Write(big[n:])
		werr <- err
	}()
	got := make([]byte, len(big))
	if _, err := io.ReadFull(c, got); err != nil {
		t.Fatal(err)
	}
	if err := <-werr; err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, big) {
		t.Fatal("what was held and what followed did not come back whole and in order")
	}
}

func TestInProcessCloseEndsEverything(t *testing.T) {
	ps, err := StartProxies([]string{echoServer(t)})
	if err != nil {
		t.Fatal(err)
	}
	addr := ps.Addr(0)
	before := readAheads()
	var cls []*client
	for range 3 {
		cl := viaInProc.dial(t, addr)
		if _, err := cl.roundTrip("x", 5*time.Second); err != nil {
			t.Fatal(err)
		}
		cl.c.SetDeadline(time.Time{})
		cls = append(cls, cl)
	}
	if _, err := ps.Apply(0, mustFault(t, "at=0s for=1s net=latency delay=1s node=0")); err != nil {
		t.Fatal(err)
	}
	// A read that starts under the latency reads ahead.
	var reads []chan error
	for _, cl := range cls {
		done := make(chan error, 1)
		reads = append(reads, done)
		go func() {
			_, err := cl.r.ReadString('\n')
			done <- err
		}()
	}
	deadline := time.Now().Add(5 * time.Second)
	for readAheads()-before < 3 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := readAheads() - before; n != 3 {
		t.Fatalf("%d connection(s) reading ahead under latency, want 3", n)
	}
	if err := ps.Close(); err != nil {
		t.Fatal(err)
	}
	for i, done := range reads {
		select {
		case err := <-done:
			if !errors.Is(err, net.ErrClosed) {
				t.Errorf("read %d in flight when the proxy closed: %v, want net.ErrClosed", i, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("read %d still waiting after Close", i)
		}
	}
	for readAheads() > before && time.Now().Before(deadline.Add(5*time.Second)) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := readAheads() - before; n != 0 {
		t.Errorf("%d read-ahead goroutine(s) left after Close", n)
	}
	// The address is no longer handed over: nothing listens there.
	ctx := target.WithSessionIO(context.Background(), target.IOPoller)
	if c, err := blockconn.Dial(ctx, &net.Dialer{Timeout: time.Second}, "tcp", addr); err == nil {
		c.Close()
		t.Fatalf("a dial to a closed proxy's address succeeded (%T)", c)
	}
}

// A node's own address routes to its proxy while the proxy runs (for the
// nodes a driver discovers by itself, dialhook.Route), host names by each of
// their addresses too.
func TestProxyAliasesTheNode(t *testing.T) {
	up := echoServer(t)
	_, port, _ := net.SplitHostPort(echoServer(t))
	named := net.JoinHostPort("localhost", port)
	ps, err := StartProxies([]string{up, named})
	if err != nil {
		t.Fatal(err)
	}
	if got := dialhook.Route(up); got != ps.Addr(0) {
		t.Errorf("Route(%s) = %s, want node 0's proxy %s", up, got, ps.Addr(0))
	}
	addrs := []string{named}
	if ips, err := net.LookupHost("localhost"); err == nil {
		for _, ip := range ips {
			addrs = append(addrs, net.JoinHostPort(ip, port))
		}
	}
	for _, addr := range addrs {
		if got := dialhook.Route(addr); got != ps.Addr(1) {
			t.Errorf("Route(%s) = %s, want node 1's proxy %s", addr, got, ps.Addr(1))
		}
	}
	ps.Close()
	if got := dialhook.Route(up); got != up {
		t.Errorf("Route(%s) after Close = %s, want the node's own address", up, got)
	}
}
