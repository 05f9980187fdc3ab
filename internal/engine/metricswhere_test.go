package engine

import (
	"strings"
	"testing"
)

// Where the metrics listen: the URL of a bound address; on every interface,
// the machine's name and the loopback URL rather than http://[::]:9464.
func TestMetricsWhere(t *testing.T) {
	if got := metricsWhere("127.0.0.1:9464"); got != "http://127.0.0.1:9464/metrics" {
		t.Errorf("loopback: %q", got)
	}
	for _, addr := range []string{"[::]:9464", "0.0.0.0:9464"} {
		got := metricsWhere(addr)
		if !strings.Contains(got, "every interface") || !strings.Contains(got, "http://127.0.0.1:9464/metrics on this one") || strings.Contains(got, "[::]") {
			t.Errorf("%s: %q", addr, got)
		}
	}
}
