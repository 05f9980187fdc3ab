package fault

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"sync"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/Shopify/toxiproxy/v2/toxics"
	"github.com/rs/zerolog"
)

// pauseToxic holds everything that reaches it until it is removed; toxiproxy
// then forwards what was held (ToxicLink.RemoveToxic drains the stub's
// input), so nothing is lost.
type pauseToxic struct{}

func (*pauseToxic) Pipe(stub *toxics.ToxicStub) { <-stub.Interrupt }

const pauseToxicType = "candor_pause"

func init() { toxics.Register(pauseToxicType, new(pauseToxic)) }

// ProxySet is one TCP proxy per target node, listening on 127.0.0.1 on a
// free port and forwarding to the node. It implements Network. Safe for
// concurrent use.
type ProxySet struct {
	server  *toxiproxy.ApiServer
	proxies []*toxiproxy.Proxy

	mu     sync.Mutex
	active map[string]*toxiproxy.Proxy // toxic name → its proxy, to lift on Close
}

var _ Network = (*ProxySet)(nil)

// StartProxies starts one proxy per upstream address (host:port), in order:
// node i is upstreams[i]. Close stops them.
func StartProxies(upstreams []string) (*ProxySet, error) {
	// toxiproxy logs through zerolog; nothing of it reaches candor's output.
	server := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(nil), zerolog.Nop())
	ps := &ProxySet{server: server, active: map[string]*toxiproxy.Proxy{}}
	for i, up := range upstreams {
		if _, _, err := net.SplitHostPort(up); err != nil {
			ps.Close()
			return nil, fmt.Errorf("node %d: upstream %q is not host:port: %w", i, up, err)
		}
		p := toxiproxy.NewProxy(server, fmt.Sprintf("node%d", i), "127.0.0.1:0", up)
		if err := p.Start(); err != nil {
			ps.Close()
			return nil, fmt.Errorf("node %d: starting the proxy in front of %s: %w", i, up, err)
		}
		ps.proxies = append(ps.proxies, p)
	}
	return ps, nil
}

// Len is the number of nodes.
func (ps *ProxySet) Len() int { return len(ps.proxies) }

// Addr is the host:port candor connects to instead of node i.
func (ps *ProxySet) Addr(i int) string { return ps.proxies[i].Listen }

// Upstream is node i's own address.
func (ps *ProxySet) Upstream(i int) string { return ps.proxies[i].Upstream }

// nodes resolves a fault's node to proxies.
func (ps *ProxySet) nodes(node int) ([]*toxiproxy.Proxy, error) {
	if node == NodeAll {
		return ps.proxies, nil
	}
	if node < 0 || node >= len(ps.proxies) {
		return nil, fmt.Errorf("node %d does not exist: %d node(s) behind the proxy", node, len(ps.proxies))
	}
	return ps.proxies[node : node+1], nil
}

type toxicSpec struct {
	Name       string         `json:"name"`
	Type       string         `json:"type"`
	Stream     string         `json:"stream"`
	Toxicity   float32        `json:"toxicity"`
	Attributes map[string]any `json:"attributes"`
}

// toxicsFor translates a fault into toxiproxy toxics, named after the
// fault's index so that overlapping faults on one node do not collide.
func toxicsFor(index int, f Fault) []toxicSpec {
	name := func(stream string) string { return fmt.Sprintf("f%d-%s-%s", index, f.Net, stream) }
	both := func(typ string, attrs map[string]any) []toxicSpec {
		return []toxicSpec{
			{Name: name("up"), Type: typ, Stream: "upstream", Toxicity: 1, Attributes: attrs},
			{Name: name("down"), Type: typ, Stream: "downstream", Toxicity: 1, Attributes: attrs},
		}
	}
	switch f.Net {
	case NetPause:
		return both(pauseToxicType, map[string]any{})
	case NetLatency:
		// Once per round trip: on what comes back from the node only.
		return []toxicSpec{{Name: name("down"), Type: "latency", Stream: "downstream", Toxicity: 1,
			Attributes: map[string]any{"latency": f.Delay.Milliseconds(), "jitter": f.Jitter.Milliseconds()}}}
	case NetBandwidth:
		// toxiproxy's rate is in KB/s (1000 bytes).
		return both("bandwidth", map[string]any{"rate": f.Rate / 1000})
	case NetReset:
		if f.For > 0 {
			// Connections opened during the window are reset on their
			// first bytes.
			return both("reset_peer", map[string]any{"timeout": 0})
		}
	}
	return nil
}

// Apply puts fault f (schedule position index) on its node(s) and returns
// the function that lifts it. A reset first cuts every open connection by
// restarting the node's listener on the same address.
func (ps *ProxySet) Apply(index int, f Fault) (func() error, error) {
	if !f.Has("net") {
		return nil, errors.New("not a network fault")
	}
	targets, err := ps.nodes(f.Node)
	if err != nil {
		return nil, err
	}
	if f.Net == NetReset {
		for _, p := range targets {
			p.Stop()
			if err := p.Start(); err != nil {
				return nil, fmt.Errorf("reset: restarting the proxy of %s on %s: %w", p.Upstream, p.Listen, err)
			}
		}
	}
	var added []string
	lift := func() error {
		var errs []error
		for _, n := range added {
			if err := ps.remove(n); err != nil {
				errs = append(errs, err)
			}
		}
		return errors.Join(errs...)
	}
	for _, p := range targets {
		for _, t := range toxicsFor(index, f) {
			body, _ := json.Marshal(t)
			if _, err := p.Toxics.AddToxicJson(bytes.NewReader(body)); err != nil {
				lerr := lift()
				return nil, errors.Join(fmt.Errorf("adding %s toxic to the proxy of %s: %w", t.Type, p.Upstream, err), lerr)
			}
			key := p.Name + "/" + t.Name
			ps.mu.Lock()
			ps.active[key] = p
			ps.mu.Unlock()
			added = append(added, key)
		}
	}
	return lift, nil
}

// remove lifts one toxic by its key (proxy/toxic); lifting twice is a no-op.
func (ps *ProxySet) remove(key string) error {
	ps.mu.Lock()
	p, ok := ps.active[key]
	delete(ps.active, key)
	ps.mu.Unlock()
	if !ok {
		return nil
	}
	name := key[len(p.Name)+1:]
	if err := p.Toxics.RemoveToxic(context.Background(), name); err != nil {
		return fmt.Errorf("removing toxic %s from the proxy of %s: %w", name, p.Upstream, err)
	}
	return nil
}

// Close lifts every fault still applied (a paused connection would never
// end otherwise) and stops every proxy, closing their connections.
func (ps *ProxySet) Close() error {
	ps.mu.Lock()
	keys := make([]string, 0, len(ps.active))
	for k := range ps.active {
		keys = append(keys, k)
	}
	ps.mu.Unlock()
	var errs []error
	for _, k := range keys {
		if err := ps.remove(k); err != nil {
			errs = append(errs, err)
		}
	}
	for _, p := range ps.proxies {
		p.Stop()
	}
	return errors.Join(errs...)
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

// UpstreamOf returns the host:port a target URL connects to, with the
// default port of its scheme when none is written.
func UpstreamOf(rawURL string) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("target URL cannot be proxied: it has no host:port (%s://...)", schemeOf(rawURL))
	}
	if u.Port() != "" {
		return u.Host, nil
	}
	port := map[string]string{"postgres": "5432", "postgresql": "5432", "mysql": "3306"}[u.Scheme]
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
