package observe

import (
	"io"
	"net/http"
	"testing"
	"time"
)

// BenchmarkObserve is the monitor's cost of feeding the endpoint one
// interval of five operations with their histograms (once per
// --report-interval, on the monitor's goroutine).
func BenchmarkObserve(b *testing.B) {
	m, err := Listen("127.0.0.1:0", Labels{RunID: "r", Workload: "w"})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	iv := interval(&testing.T{}, "run", 10000, time.Millisecond, 3)
	for i := 1; i < 5; i++ {
		o := iv.Ops[0]
		o.Name += string(rune('A' + i))
		iv.Ops = append(iv.Ops, o)
	}
	b.ResetTimer()
	for range b.N {
		m.Observe(iv)
	}
}

// BenchmarkScrape is one scrape of that endpoint over HTTP.
func BenchmarkScrape(b *testing.B) {
	m, err := Listen("127.0.0.1:0", Labels{RunID: "r", Workload: "w"})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	m.Observe(interval(&testing.T{}, "run", 10000, time.Millisecond, 3))
	b.ResetTimer()
	for range b.N {
		resp, err := http.Get("http://" + m.Addr() + "/metrics")
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}
