package target

import (
	"net"
	"strings"
)

// Placed is implemented by targets that know whether their server runs on
// the client's machine (OnThisMachine). Where it does, the server's threads
// and the client's share the same cores, and how the kernel divides them
// decides how a session should wait for its replies (ChooseSessionIO). A
// driver whose Capabilities have PollerFrom > 0 must implement it, or its
// sessions to a server on this machine are chosen as if the server were
// elsewhere; MySQL's does not, having no PollerFrom.
type Placed interface {
	OnThisMachine() bool
}

// OnThisMachine reports whether t says its server runs on this machine; false
// for targets that do not say (Placed).
func OnThisMachine(t Target) bool {
	p, ok := t.(Placed)
	return ok && p.OnThisMachine()
}

// LocalHost reports whether host, as a URL or driver configuration names it,
// is this machine: a Unix socket path, "localhost", a loopback address or an
// address of one of this machine's interfaces. Other names are not resolved
// (false).
func LocalHost(host string) bool {
	host = strings.Trim(host, "[]")
	if strings.HasPrefix(host, "/") || strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return false
	}
	if ip.IsLoopback() {
		return true
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
			return true
		}
	}
	return false
}
