package cassandra

import (
	"net"
	"testing"

	"github.com/candor-bench/candor/internal/dialhook"
)

// A node the driver discovers is reached at the address that stands for it
// (a network-fault proxy's), and at its own address otherwise.
func TestTranslate(t *testing.T) {
	node := net.ParseIP("127.0.0.2")
	if ip, port := translate(node, 9042); !ip.Equal(node) || port != 9042 {
		t.Errorf("translate without an alias = %v:%d, want the node's own address", ip, port)
	}
	stop := dialhook.Alias("127.0.0.2:9042", "127.0.0.1:40001")
	if ip, port := translate(node, 9042); !ip.Equal(net.ParseIP("127.0.0.1")) || port != 40001 {
		t.Errorf("translate with an alias = %v:%d, want 127.0.0.1:40001", ip, port)
	}
	if ip, port := translate(node, 9043); !ip.Equal(node) || port != 9043 {
		t.Errorf("translate of another port = %v:%d, want it as it is", ip, port)
	}
	stop()
	// An alias that is not an IP address and port is not followed.
	defer dialhook.Alias("127.0.0.2:9042", "proxy.example:40001")()
	if ip, port := translate(node, 9042); !ip.Equal(node) || port != 9042 {
		t.Errorf("translate with a host-name alias = %v:%d, want the node's own address", ip, port)
	}
}
