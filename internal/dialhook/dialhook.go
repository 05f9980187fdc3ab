// Package dialhook lets one part of candor take over the dials that
// candor's drivers make to an address (they all dial through
// blockconn.Dial, which asks Lookup first). The network-fault proxy
// (package fault) uses it to hand candor's own sessions a connection to the
// node that carries its faults in-process, without the loopback hop through
// its listener. It imports nothing of candor, so that neither side depends
// on the other.
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
