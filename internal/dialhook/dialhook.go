// Package dialhook lets one part of candor take over the dials that
// candor's drivers make to an address (they all dial through
// blockconn.Dial, which asks Lookup first), and name another address for a
// node a driver discovers by itself (Route: the CQL driver learns its
// cluster's nodes from the cluster). The network-fault proxy (package fault)
// uses both: its address stands for a node, and a dial to it is handed
// candor's own connection to the node, carrying the faults in-process,
// without the loopback hop through the proxy's listener. It imports nothing
// of candor, so that neither side depends on the other.
package dialhook

import (
	"context"
	"net"
	"sync"
)

// A Func opens the connection a dial to the address it was registered for
// returns (Intercept). dial connects to another address as the driver's
// dial would, with the same context, dialer and session I/O.
type Func func(ctx context.Context, dial func(addr string) (net.Conn, error)) (net.Conn, error)

// hooks maps an address (host:port, as the dial receives it) to its
// *registered Func.
var hooks sync.Map

type registered struct{ f Func }

// Intercept makes every dial to addr call f instead, until the returned
// function is called. Registering an address again replaces its Func;
// ending a replaced registration leaves the newer one.
func Intercept(addr string, f Func) (stop func()) {
	r := &registered{f} // the pointer identifies this registration
	hooks.Store(addr, r)
	return func() { hooks.CompareAndDelete(addr, r) }
}

// Lookup returns the Func registered for addr, or nil.
func Lookup(addr string) Func {
	v, ok := hooks.Load(addr)
	if !ok {
		return nil
	}
	return v.(*registered).f
}

// aliases maps an address (host:port) to the *alias that stands for it.
var aliases sync.Map

type alias struct{ to string }

// Alias makes Route(from) return to, until the returned function is called;
// registering from again replaces its alias, and ending a replaced
// registration leaves the newer one.
func Alias(from, to string) (stop func()) {
	a := &alias{to}
	aliases.Store(from, a)
	return func() { aliases.CompareAndDelete(from, a) }
}

// Route returns the address that stands for addr (Alias), or addr itself.
func Route(addr string) string {
	if v, ok := aliases.Load(addr); ok {
		return v.(*alias).to
	}
	return addr
}
