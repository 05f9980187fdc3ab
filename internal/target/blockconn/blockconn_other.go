//go:build !linux

package blockconn

import (
	"context"
	"net"
)

// Dial connects with d. Blocking sockets are used on Linux only; elsewhere
// the connection is returned as dialed (see the package doc in
// blockconn.go).
func Dial(ctx context.Context, d *net.Dialer, network, addr string) (net.Conn, error) {
	return d.DialContext(ctx, network, addr)
}
