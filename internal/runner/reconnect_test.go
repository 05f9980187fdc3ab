package runner

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/target/fake"
)

// A target that accepts every connection and fails every statement with a
// connection error (the CQL driver while its pool is down) is reconnected
// to with a growing back-off, not thousands of times a second.
func TestReconnectBacksOffWhenNoOperationSucceeds(t *testing.T) {
	ft := fake.New(fake.Config{FailEvery: 1, FailClass: target.ClassConnection})
	r := newRunner(ft, Config{Duration: time.Second, Threads: 2, MaxErrorRate: NoErrorBudget,
		MaxReconnectBackoff: 250 * time.Millisecond})
	p, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// 50, 100, 200, 250, 250 ms ...: about five reconnects per worker in a
	// second.
	for i, w := range p.Workers {
		if w.Reconnects < 2 || w.Reconnects > 10 {
			t.Errorf("worker %d reconnected %d times in 1 s, want a handful (back-off)", i, w.Reconnects)
		}
	}
}

// The wait before a reconnect grows only while reconnects bring no
// successful operation; one success resets it.
func TestReconnectWaitResetsOnSuccess(t *testing.T) {
	s := &session{t: fake.New(fake.Config{}), reconnects: new(atomic.Int64), maxBackoff: time.Second}
	ctx := context.Background()
	took := func() time.Duration {
		t.Helper()
		start := time.Now()
		if err := s.reconnect(ctx, nil); err != nil {
			t.Fatal(err)
		}
		return time.Since(start)
	}
	if d := took(); d > 40*time.Millisecond {
		t.Errorf("first reconnect took %v, want it at once", d)
	}
	if d := took(); d < 50*time.Millisecond {
		t.Errorf("a reconnect after one that brought no success took %v, want at least 50 ms", d)
	}
	if d := took(); d < 100*time.Millisecond {
		t.Errorf("the next took %v, want at least 100 ms", d)
	}
	s.ok()
	if d := took(); d > 40*time.Millisecond {
		t.Errorf("a reconnect after a successful operation took %v, want it at once", d)
	}
	s.close()
}
