package fault

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/candor-bench/candor/internal/dialhook"
)

// ProxySet is one proxy per target node: an address on 127.0.0.1 (a free
// port) that stands for the node. candor's drivers dialing it are handed the
// node's socket with the faults applied in-process (faultConn); any other
// client is relayed to the node over TCP (see the package doc). It
// implements Network. Safe for concurrent use.
type ProxySet struct {
	nodes []*nodeProxy
}

var _ Network = (*ProxySet)(nil)

// dialTimeout bounds the proxy's connection to its node.
const dialTimeout = 10 * time.Second

// StartProxies starts one proxy per upstream address (host:port), in order:
// node i is upstreams[i]. Close stops them.
func StartProxies(upstreams []string) (*ProxySet, error) {
	ps := &ProxySet{}
	for i, up := range upstreams {
		if _, _, err := net.SplitHostPort(up); err != nil {
			ps.Close()
			return nil, fmt.Errorf("node %d: upstream %q is not host:port: %w", i, up, err)
		}
		n, err := startNode(up)
		if err != nil {
			ps.Close()
			return nil, fmt.Errorf("node %d: starting the proxy in front of %s: %w", i, up, err)
		}
		ps.nodes = append(ps.nodes, n)
	}
	return ps, nil
}

// Len is the number of nodes.
func (ps *ProxySet) Len() int { return len(ps.nodes) }

// Addr is the host:port candor connects to instead of node i.
func (ps *ProxySet) Addr(i int) string { return ps.nodes[i].listen }

// Upstream is node i's own address.
func (ps *ProxySet) Upstream(i int) string { return ps.nodes[i].upstream }

// targets resolves a fault's node to proxies.
func (ps *ProxySet) targets(node int) ([]*nodeProxy, error) {
	if node == NodeAll {
		return ps.nodes, nil
	}
	if node < 0 || node >= len(ps.nodes) {
		return nil, fmt.Errorf("node %d does not exist: %d node(s) behind the proxy", node, len(ps.nodes))
	}
	return ps.nodes[node : node+1], nil
}

// Apply puts fault f (schedule position index) on its node(s) and returns
// the function that lifts it; lifting twice is a no-op. It takes effect on
// the connections already open as on new ones. A reset first cuts every
// open connection through the node's proxy.
func (ps *ProxySet) Apply(index int, f Fault) (func() error, error) {
	if !f.Has("net") {
		return nil, errors.New("not a network fault")
	}
	switch f.Net {
	case NetPause, NetLatency, NetBandwidth, NetReset:
	default:
		return nil, fmt.Errorf("fault %d: unknown network fault %q", index, f.Net)
	}
	targets, err := ps.targets(f.Node)
	if err != nil {
		return nil, err
	}
	if f.Net == NetReset {
		for _, n := range targets {
			n.resetAll()
		}
		if f.For == 0 {
			return func() error { return nil }, nil
		}
	}
	type applied struct {
		n  *nodeProxy
		id uint64
	}
	var done []applied
	for _, n := range targets {
		done = append(done, applied{n, n.add(f)})
	}
	var once sync.Once
	return func() error {
		once.Do(func() {
			for _, a := range done {
				a.n.remove(a.id)
			}
		})
		return nil
	}, nil
}

// Close lifts every fault still applied (a paused connection would never
// end otherwise), stops every proxy and closes its connections, and returns
// once every goroutine of the proxies has ended.
func (ps *ProxySet) Close() error {
	for _, n := range ps.nodes {
		n.close()
	}
	return nil
}

// netState is what the faults applied to one node add up to. It is
// replaced as a whole (never changed) when a fault starts or ends, and the
// replaced state's changed channel is closed, which wakes every transfer
// waiting on it to look again.
type netState struct {
	// leanUp and leanDown: nothing to do in that direction (up: candor to
	// the node; down: the node to candor); bytes go straight through.
	leanUp, leanDown bool
	pause            bool          // hold everything
	reset            bool          // cut a connection on its next bytes
	delay, jitter    time.Duration // added to what comes down
	rate             int64         // bytes/s per direction; 0 = unlimited
	changed          chan struct{}
}

func (s *netState) lean(down bool) bool {
	if down {
		return s.leanDown
	}
	return s.leanUp
}

// combine adds up the faults in effect: overlapping pauses or resets are
// one, latencies add, the smallest rate wins.
func combine(faults map[uint64]Fault) *netState {
	s := &netState{changed: make(chan struct{})}
	for _, f := range faults {
		switch f.Net {
		case NetPause:
			s.pause = true
		case NetReset:
			s.reset = true
		case NetLatency:
			s.delay += f.Delay
			s.jitter += f.Jitter
		case NetBandwidth:
			if s.rate == 0 || f.Rate < s.rate {
				s.rate = f.Rate
			}
		}
	}
	s.leanUp = !s.pause && !s.reset && s.rate == 0
	s.leanDown = s.leanUp && s.delay == 0
	return s
}

// nodeProxy is the proxy in front of one node.
type nodeProxy struct {
	listen, upstream string
	ln               net.Listener
	ctx              context.Context // cancelled by close: ends dials
	cancel           context.CancelFunc
	state            atomic.Pointer[netState]
	faultPath        atomic.Int64   // directions of connections on the fault path now
	wg               sync.WaitGroup // the accept loop and every connection's goroutines

	mu     sync.Mutex
	faults map[uint64]Fault
	nextID uint64
	conns  map[*proxyConn]struct{} // through the relay
	inproc map[*faultConn]struct{} // handed over in-process
	closed bool

	unhook []func() // end the hand-over and the aliases (dialhook)
}

func startNode(upstream string) (*nodeProxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	n := &nodeProxy{listen: ln.Addr().String(), upstream: upstream, ln: ln, ctx: ctx, cancel: cancel,
		faults: map[uint64]Fault{}, conns: map[*proxyConn]struct{}{}, inproc: map[*faultConn]struct{}{}}
	n.state.Store(combine(nil))
	n.unhook = append(n.unhook, dialhook.Intercept(n.listen, n.handOver))
	for _, addr := range nodeAddrs(upstream) {
		n.unhook = append(n.unhook, dialhook.Alias(addr, n.listen))
	}
	n.wg.Add(1)
	go n.accept()
	return n, nil
}

func (n *nodeProxy) accept() {
	defer n.wg.Done()
	for {
		c, err := n.ln.Accept()
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil {
			// Out of file descriptors or the like: try again shortly,
			// unless the proxy is closing.
			select {
			case <-n.ctx.Done():
				return
			case <-time.After(10 * time.Millisecond):
			}
			continue
		}
		pc := &proxyConn{client: c.(*net.TCPConn), closing: make(chan struct{})}
		n.mu.Lock()
		if n.closed {
			n.mu.Unlock()
			c.Close()
			return
		}
		n.conns[pc] = struct{}{}
		n.wg.Add(1)
		n.mu.Unlock()
		go n.serve(pc)
	}
}

// serve dials the node for one accepted connection and copies both ways
// until both directions have ended or either failed.
func (n *nodeProxy) serve(pc *proxyConn) {
	defer n.wg.Done()
	defer func() {
		pc.close(false)
		n.mu.Lock()
		delete(n.conns, pc)
		n.mu.Unlock()
	}()
	d := net.Dialer{Timeout: dialTimeout}
	c, err := d.DialContext(n.ctx, "tcp", n.upstream)
	if err != nil {
		return // candor sees its connection closed, as when the node refuses it
	}
	if !pc.setServer(c.(*net.TCPConn)) {
		c.Close()
		return
	}
	up := &pipe{n: n, pc: pc, src: pc.client, dst: pc.server}
	down := &pipe{n: n, pc: pc, src: pc.server, dst: pc.client, down: true}
	n.wg.Add(1)
	go func() {
		defer n.wg.Done()
		up.run()
	}()
	down.run()
	<-up.finished()
}

// nodeAddrs lists the addresses a driver may find the node at by itself
// (the CQL driver, from its cluster's own tables): the upstream as given
// and, for a host name, host:port for each of its addresses. Each gets the
// proxy's address as its alias (dialhook.Alias), so that a driver that
// discovers the node reaches it through the proxy too.
func nodeAddrs(upstream string) []string {
	addrs := []string{upstream}
	host, port, err := net.SplitHostPort(upstream)
	if err != nil || net.ParseIP(host) != nil {
		return addrs
	}
	ips, err := net.LookupHost(host)
	if err != nil {
		return addrs
	}
	for _, ip := range ips {
		addrs = append(addrs, net.JoinHostPort(ip, port))
	}
	return addrs
}

// add records fault f on the node and returns its id for remove.
func (n *nodeProxy) add(f Fault) uint64 {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.nextID++
	n.faults[n.nextID] = f
	n.publish()
	return n.nextID
}

func (n *nodeProxy) remove(id uint64) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if _, ok := n.faults[id]; ok {
		delete(n.faults, id)
		n.publish()
	}
}

// publish replaces the node's state by what its faults add up to and wakes
// whatever waited on the old one. n.mu is held.
func (n *nodeProxy) publish() {
	old := n.state.Swap(combine(n.faults))
	close(old.changed)
}

// resetAll cuts every open connection through the node at once.
func (n *nodeProxy) resetAll() {
	conns, inproc := n.open()
	for _, pc := range conns {
		pc.close(true)
	}
	for _, fc := range inproc {
		fc.abort()
	}
}

// open lists the node's open connections, through the relay and handed
// over.
func (n *nodeProxy) open() ([]*proxyConn, []*faultConn) {
	n.mu.Lock()
	defer n.mu.Unlock()
	conns := make([]*proxyConn, 0, len(n.conns))
	for pc := range n.conns {
		conns = append(conns, pc)
	}
	inproc := make([]*faultConn, 0, len(n.inproc))
	for fc := range n.inproc {
		inproc = append(inproc, fc)
	}
	return conns, inproc
}

// forget drops a handed-over connection that was closed or cut.
func (n *nodeProxy) forget(fc *faultConn) {
	n.mu.Lock()
	delete(n.inproc, fc)
	n.mu.Unlock()
}

func (n *nodeProxy) close() {
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return
	}
	n.closed = true
	clear(n.faults)
	n.publish()
	n.mu.Unlock()
	for _, f := range n.unhook {
		f()
	}
	n.cancel()
	n.ln.Close()
	conns, inproc := n.open()
	for _, pc := range conns {
		pc.close(false)
	}
	for _, fc := range inproc {
		fc.Close()
	}
	n.wg.Wait()
}

// proxyConn is one connection through the proxy: candor's side and the
// node's.
type proxyConn struct {
	client  *net.TCPConn
	closing chan struct{} // closed by close: ends every wait

	mu     sync.Mutex
	server *net.TCPConn // nil until dialled
	closed bool
}

// setServer records the node's side; false if the connection was closed
// meanwhile.
func (pc *proxyConn) setServer(c *net.TCPConn) bool {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.closed {
		return false
	}
	pc.server = c
	return true
}

// close closes both sides, once; with reset, both peers see the
// connection reset (RST) rather than ended.
func (pc *proxyConn) close(reset bool) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.closed {
		return
	}
	pc.closed = true
	close(pc.closing)
	for _, c := range []*net.TCPConn{pc.client, pc.server} {
		if c == nil {
			continue
		}
		if reset {
			c.SetLinger(0)
		}
		c.Close()
	}
}

// pipe copies one direction of a connection. While the node's state is
// lean for its direction it writes each chunk it reads straight on (the
// lean path: one goroutine, one read and one write per chunk, nothing
// allocated). While a fault is in effect it hands each chunk, stamped with
// the time it was read, to a writer goroutine that applies the faults (the
// fault path);
// at its first chunk after the faults end it waits for the writer to
// deliver what it holds and goes back to the lean path.
type pipe struct {
	n        *nodeProxy
	pc       *proxyConn
	src, dst *net.TCPConn
	down     bool

	q          chan chunk    // to the writer; nil on the lean path
	writerDone chan struct{} // closed when the writer has ended
	done       chan struct{} // closed when run has returned
	doneOnce   sync.Once
}

type chunk struct {
	data []byte
	at   time.Time     // when it was read
	skew time.Duration // its jitter
}

// stamp makes a chunk of data read now, with a jitter drawn from the one in
// effect. Both the relay and a connection handed over (faultConn) stamp
// what comes from the node so.
func (s *netState) stamp(data []byte) chunk {
	c := chunk{data: data, at: time.Now()}
	if s.jitter > 0 {
		c.skew = time.Duration(rand.Int64N(int64(2*s.jitter)+1)) - s.jitter
	}
	return c
}

// hold is how long c must wait before it goes on under s, in direction
// down: -1 while paused (until s changes), what is left of its delay when
// it comes down, else 0. A reset and a rate are the caller's.
func (s *netState) hold(c chunk, down bool) time.Duration {
	switch {
	case s.pause:
		return -1
	case down && s.delay > 0:
		return max(time.Until(c.at.Add(s.delay+c.skew)), 0)
	}
	return 0
}

// piece is the most bytes one write or read moves at rate: a tenth of a
// second's worth.
func piece(rate int64) int { return int(max(1, rate/10)) }

// perRate is how long k bytes take at rate bytes/s.
func perRate(k int, rate int64) time.Duration {
	return time.Duration(int64(k) * int64(time.Second) / rate)
}

const chunkSize = 32 << 10

func (p *pipe) finished() chan struct{} {
	p.doneOnce.Do(func() { p.done = make(chan struct{}) })
	return p.done
}

func (p *pipe) run() {
	defer close(p.finished())
	buf := make([]byte, chunkSize)
	for {
		k, err := p.src.Read(buf)
		if k > 0 {
			st := p.n.state.Load()
			switch {
			case st.lean(p.down) && p.q == nil:
				if _, werr := p.dst.Write(buf[:k]); werr != nil {
					p.pc.close(false)
					return
				}
			case st.lean(p.down):
				// Back from the fault path: what the writer holds goes
				// first.
				if !p.drain() {
					return
				}
				if _, werr := p.dst.Write(buf[:k]); werr != nil {
					p.pc.close(false)
					return
				}
			case st.reset:
				p.pc.close(true)
				return
			default:
				if !p.hand(buf[:k], st) {
					return
				}
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				p.pc.close(false)
				return
			}
			// Half-close: the other direction goes on.
			if p.q != nil && !p.drain() {
				return
			}
			p.dst.CloseWrite()
			return
		}
	}
}

// hand gives a copy of b to the writer, starting it if need be; false if
// the connection ended.
func (p *pipe) hand(b []byte, st *netState) bool {
	if p.q == nil {
		p.q = make(chan chunk, 64)
		p.writerDone = make(chan struct{})
		p.n.faultPath.Add(1)
		p.n.wg.Add(1)
		go p.write(p.q, p.writerDone)
	}
	select {
	case p.q <- st.stamp(bytes.Clone(b)):
		return true
	case <-p.writerDone:
		return false
	}
}

// drain ends the writer once it has delivered what it holds; false if the
// connection ended.
func (p *pipe) drain() bool {
	close(p.q)
	<-p.writerDone
	p.q = nil
	select {
	case <-p.pc.closing:
		return false
	default:
		return true
	}
}

// write delivers chunks under the node's faults, in order.
func (p *pipe) write(q <-chan chunk, done chan struct{}) {
	defer p.n.wg.Done()
	defer close(done)
	defer p.n.faultPath.Add(-1)
	for {
		select {
		case c, ok := <-q:
			if !ok || !p.deliver(c) {
				return
			}
		case <-p.pc.closing:
			return
		}
	}
}

// deliver writes one chunk once the faults in effect let it: not while
// paused, not before its delay is over, no faster than the rate. A change
// of faults while it waits is taken into account at once.
func (p *pipe) deliver(c chunk) bool {
	data := c.data
	for len(data) > 0 {
		st := p.n.state.Load()
		if st.reset {
			p.pc.close(true)
			return false
		}
		wait := st.hold(c, p.down)
		if wait == 0 {
			k := len(data)
			if st.rate > 0 {
				k = min(k, piece(st.rate))
			}
			if _, err := p.dst.Write(data[:k]); err != nil {
				p.pc.close(false)
				return false
			}
			data = data[k:]
			if st.rate == 0 {
				continue
			}
			wait = perRate(k, st.rate)
		}
		if !p.sleep(wait, st) {
			return false
		}
	}
	return true
}

// sleep waits d (forever when negative) or until the state changes; false
// if the connection ended.
func (p *pipe) sleep(d time.Duration, st *netState) bool {
	var timer <-chan time.Time
	if d >= 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timer = t.C
	}
	select {
	case <-timer:
	case <-st.changed:
	case <-p.pc.closing:
		return false
	}
	return true
}

// RewriteURL returns rawURL with its host:port replaced by addr, for a
// target URL of the form scheme://[user[:pass]@]host:port/... (postgres://,
// mysql://). Query parameters and credentials are kept as they are.
func RewriteURL(rawURL, addr string) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("target URL cannot be proxied: it has no host:port (%s://...)", schemeOf(rawURL))
	}
	u.Host = addr
	return u.String(), nil
}

// ErrManyHosts marks a target URL naming several hosts: the proxy stands
// in front of one node per --target.
var ErrManyHosts = errors.New("a network fault acts on one node per --target, and this URL names several hosts")

// UpstreamOf returns the host:port a target URL connects to, with the
// default port of its scheme when none is written.
func UpstreamOf(rawURL string) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("target URL cannot be proxied: it has no host:port (%s://...)", schemeOf(rawURL))
	}
	if n := strings.Count(u.Host, ",") + 1; n > 1 {
		return "", fmt.Errorf("%w: target URL %s://%s names %d; give each node a --target of its own", ErrManyHosts, u.Scheme, u.Host, n)
	}
	if u.Port() != "" {
		return u.Host, nil
	}
	port := map[string]string{"postgres": "5432", "postgresql": "5432", "mysql": "3306", "cql": "9042", "cassandra": "9042"}[u.Scheme]
	if port == "" {
		return "", fmt.Errorf("target URL %s://%s names no port and %s has no default one: write host:port", u.Scheme, u.Hostname(), u.Scheme)
	}
	return net.JoinHostPort(u.Hostname(), port), nil
}

func schemeOf(raw string) string {
	if i := bytes.IndexByte([]byte(raw), ':'); i > 0 {
		return raw[:i]
	}
	return "?"
}
