//go:build !linux

package blockconn

import (
	"context"
	"net"

	"github.com/candor-bench/candor/internal/dialhook"
)

// Enabled reports whether Dial returns blocking sockets: false here.
const Enabled = false

// Reserve does nothing here: there are no blocking sessions (see
// sched.go).
func Reserve(sessions int) (end func()) { return func() {} }

// Dial connects with d. Blocking sockets are used on Linux only; elsewhere
// the connection is returned as dialed (see the package doc in
// blockconn.go). A dial to an intercepted address is the Func registered
// for it (dialhook.Intercept).
func Dial(ctx context.Context, d *net.Dialer, network, addr string) (net.Conn, error) {
	if f := dialhook.Lookup(addr); f != nil {
		return f(ctx, func(to string) (net.Conn, error) { return d.DialContext(ctx, network, to) })
	}
	return d.DialContext(ctx, network, addr)
}
