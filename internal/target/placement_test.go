package target_test

import (
	"net"
	"testing"

	"github.com/candor-bench/candor/internal/target"
)

func TestLocalHost(t *testing.T) {
	for host, want := range map[string]bool{
		"/var/run/postgresql": true,
		"localhost":           true,
		"LocalHost":           true,
		"127.0.0.1":           true,
		"127.0.0.2":           true,
		"::1":                 true,
		"[::1]":               true,
		"192.0.2.1":           false, // TEST-NET-1, on no interface
		"db.example.com":      false, // names are not resolved
		"":                    false,
	} {
		if got := target.LocalHost(host); got != want {
			t.Errorf("LocalHost(%q) = %v, want %v", host, got, want)
		}
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Skipf("no interface addresses: %v", err)
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() {
			if !target.LocalHost(n.IP.String()) {
				t.Errorf("LocalHost(%s), an address of this machine's interfaces, = false", n.IP)
			}
		}
	}
}

func TestChooseSessionIOThreadFair(t *testing.T) {
	caps := target.Capabilities{BlockingSessions: true, PollerFrom: 8}
	cases := []struct {
		name       string
		requested  target.SessionIO
		sessions   int
		threadFair bool
		want       target.SessionIO
	}{
		{"many sessions per core poll", target.IOAuto, 16, false, target.IOPoller},
		{"unless the kernel shares the cores by thread with the server", target.IOAuto, 16, true, target.IOBlocking},
		{"a forced poller stays", target.IOPoller, 16, true, target.IOPoller},
		{"few sessions block either way", "", 4, false, target.IOBlocking},
	}
	for _, c := range cases {
		got, err := target.ChooseSessionIO(caps, c.requested, c.sessions, 2, c.threadFair)
		if err != nil || got != c.want {
			t.Errorf("%s: ChooseSessionIO = %q, %v; want %q", c.name, got, err, c.want)
		}
	}
}
