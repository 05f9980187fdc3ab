// Package faultproxy puts one target behind candor's network-fault proxy
// for a test, as the engine does for a run's targets (internal/engine's
// faults.go): the proxy stands in front of the URL's host:port, and the
// URL is rewritten to the proxy's address.
package faultproxy

import (
	"testing"

	"github.com/candor-bench/candor/internal/fault"
)

// Start starts a proxy in front of url's host:port, closes it when the
// test ends, and returns it with url rewritten to reach the server through
// it (node 0 of the proxy set).
func Start(t testing.TB, url string) (*fault.ProxySet, string) {
	t.Helper()
	up, err := fault.UpstreamOf(url)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := fault.StartProxies([]string{up})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ps.Close() })
	proxied, err := fault.RewriteURL(url, ps.Addr(0))
	if err != nil {
		t.Fatal(err)
	}
	return ps, proxied
}
