package runner

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/target/fake"
)

// unavailableRun runs a 2 s closed-loop phase of two workers with --retries
// 5 whose target refuses sessions for down from the phase's start (the
// sessions open before it die at their first statement), with the default
// error budget and --max-unavailable.
func unavailableRun(t *testing.T, down time.Duration) *result.Phase {
	t.Helper()
	ft := fake.New(fake.Config{Latency: 100 * time.Microsecond})
	r := newRunner(ft, Config{Duration: 2 * time.Second, Threads: 2, Retries: 5, MaxErrorRate: DefaultMaxErrorRate,
		MaxUnavailable: DefaultMaxUnavailable, MaxReconnectBackoff: 20 * time.Millisecond})
	r.PhaseHook = func(context.Context, time.Time, func(error)) func() {
		ft.Restart(down)
		return nil
	}
	p, err := runWithin(t, r, context.Background(), 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	op(t, p, "OP") // the phase's laws, LawUnavailable among them
	u := p.Unavailable
	if u == nil {
		t.Fatal("no unavailability recorded")
	}
	if want := 2 * p.DurationSec; u.WorkerSec < want*(1-1e-9) || u.WorkerSec > want*(1+1e-9) {
		t.Errorf("worker-seconds %g, want 2 workers × %g s", u.WorkerSec, p.DurationSec)
	}
	return p
}

// A target dead for most of the phase: with retries every worker's lost
// operation waits for its session and succeeds, so the error rate stays
// within its budget (the issue: `complete`, exit 0); the time without a
// session fails the phase instead (issue 46, item A1).
func TestDeadTargetFailsWithRetries(t *testing.T) {
	p := unavailableRun(t, 1500*time.Millisecond)
	u := p.Unavailable
	// Each worker lost its session at its first statement and connected
	// again no earlier than 1.5 s after the phase began: at least 0.05 of
	// its 2 s unless its first statement came after 1.4 s; at most all.
	if u.Share <= DefaultMaxUnavailable || u.Share > 1 {
		t.Errorf("share without a session %g, want above %g and at most 1 (down 1.5 s of 2 s)", u.Share, DefaultMaxUnavailable)
	}
	var reconnects int64
	for _, w := range p.Workers {
		reconnects += w.Reconnects
	}
	if reconnects < 1 {
		t.Errorf("no reconnects recorded for %g worker-seconds without a session", u.WithoutSec)
	}
	if p.ErrorRate > DefaultMaxErrorRate {
		t.Errorf("error rate %g: want the lost operations retried to success (within the error budget)", p.ErrorRate)
	}
	if p.Status != result.StatusFailed || !strings.Contains(p.Failure, "above --max-unavailable 5%") ||
		!strings.Contains(p.Failure, "worker-seconds") {
		t.Errorf("status %s (%q): want failed, naming the share, the seconds and --max-unavailable", p.Status, p.Failure)
	}
	down := 0
	for _, iv := range p.Intervals {
		if iv.NoSession > 0 {
			down++
		}
	}
	if down == 0 {
		t.Error("no interval shows a worker without a session")
	}
}

// A short outage (20 ms of 2 s) stays within the limit: complete.
func TestShortOutageCompletes(t *testing.T) {
	p := unavailableRun(t, 20*time.Millisecond)
	if u := p.Unavailable; u.WithoutSec <= 0 || u.Share > DefaultMaxUnavailable {
		t.Errorf("share without a session %g (%g s): want some, within %g", u.Share, u.WithoutSec, DefaultMaxUnavailable)
	}
	if p.Status != result.StatusComplete {
		t.Errorf("status %s (%s), want complete", p.Status, p.Failure)
	}
}
