package runner

import (
	"context"
	"math/rand"
	"sync/atomic"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/ledger"
	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/target/fake"
	"github.com/candor-bench/candor/internal/workload"
)

// ledgerWorkload writes ids ledger.ID(worker, seq) on the fake target.
type ledgerWorkload struct{ opWorkload }

func (w *ledgerWorkload) NewWorker(id int, _ *rand.Rand) workload.Worker {
	return &ledgerWorker{id: id}
}

type ledgerWorker struct {
	id  int
	seq int64
	cur int64
}

func (l *ledgerWorker) Next() workload.OpID { l.cur = ledger.ID(l.id, l.seq); l.seq++; return 0 }
func (l *ledgerWorker) WriteID() int64      { return l.cur }
func (l *ledgerWorker) Exec(ctx context.Context, c target.Conn, s workload.Span) error {
	_, err := c.Exec(ctx, "INSERT")
	return err
}
func (l *ledgerWorker) Done(error) {}

// With Config.LedgerDir every attempt is in the ledger with its outcome
// (a lost connection: unknown; success: acknowledged), the phase hook runs
// from the phase's start and is waited for, and each worker's reconnects
// and time without a session are in the phase.
func TestLedgerAttemptsHookAndReconnects(t *testing.T) {
	ft := fake.New(fake.Config{Latency: time.Millisecond})
	dir := t.TempDir()
	r := &Runner{Target: ft, Workload: &ledgerWorkload{}, Config: Config{Threads: 2, Duration: 1500 * time.Millisecond,
		ReportInterval: 100 * time.Millisecond, Retries: 1, MaxErrorRate: NoErrorBudget, LedgerDir: dir}}
	var waited atomic.Bool
	var hookStart time.Time
	r.PhaseHook = func(ctx context.Context, start time.Time, fail func(error)) func() {
		hookStart = start
		done := make(chan struct{})
		go func() {
			defer close(done)
			select {
			case <-time.After(500 * time.Millisecond):
				ft.Restart(300 * time.Millisecond)
			case <-ctx.Done():
			}
			<-ctx.Done()
		}()
		return func() { <-done; waited.Store(true) }
	}
	p, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !waited.Load() || !hookStart.Equal(p.Started) {
		t.Errorf("hook waited %v, started %v (phase %v)", waited.Load(), hookStart, p.Started)
	}
	recs, _, err := ledger.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var acked, unknown int64
	for _, rec := range recs {
		switch rec.Outcome {
		case ledger.Acknowledged:
			acked++
		case ledger.Unknown:
			unknown++
		}
		if rec.End < rec.Start || rec.Start < p.Started.UnixNano() {
			t.Fatalf("record %+v outside the phase", rec)
		}
	}
	o := op(t, p, "OP")
	if unknown < 2 || acked < o.Count {
		t.Errorf("ledger: %d acknowledged, %d unknown; phase: %d successes; want every success recorded and the lost connections unknown", acked, unknown, o.Count)
	}
	for i, w := range p.Workers {
		if w.Reconnects < 1 || w.NoSessionSec < 0.2 {
			t.Errorf("worker %d: %d reconnects, %.3f s without a session; want at least one of about 0.3 s", i, w.Reconnects, w.NoSessionSec)
		}
	}
	if p.Status != result.StatusComplete {
		t.Errorf("status %s: %s", p.Status, p.Failure)
	}
}

// A hook's fail ends the phase as failed, with its error.
func TestPhaseHookFailEndsThePhase(t *testing.T) {
	ft := fake.New(fake.Config{Latency: time.Millisecond})
	r := newRunner(ft, Config{Duration: 5 * time.Second})
	r.PhaseHook = func(ctx context.Context, start time.Time, fail func(error)) func() {
		go func() {
			time.Sleep(200 * time.Millisecond)
			fail(errFault)
		}()
		return func() {}
	}
	t0 := time.Now()
	p, err := r.Run(context.Background())
	if err != errFault || p == nil || p.Status != result.StatusFailed || time.Since(t0) > 3*time.Second {
		t.Errorf("err %v, phase %+v after %v: want the hook's error, failed, at once", err, p, time.Since(t0))
	}
}

var errFault = &fake.Error{Class: target.ClassOther}

// Config.MaxReconnectBackoff caps the pause between reconnection attempts:
// a worker is back soon after the server is (with the default 2 s cap, a
// 1 s outage kept it away about 1.55 s: attempts at 0.05, 0.15, 0.35,
// 0.75 and 1.55 s).
func TestMaxReconnectBackoff(t *testing.T) {
	ft := fake.New(fake.Config{Latency: time.Millisecond})
	r := newRunner(ft, Config{Threads: 1, Duration: 2 * time.Second, MaxErrorRate: NoErrorBudget, MaxReconnectBackoff: 100 * time.Millisecond})
	r.PhaseHook = func(ctx context.Context, start time.Time, fail func(error)) func() {
		go func() {
			time.Sleep(200 * time.Millisecond)
			ft.Restart(time.Second)
		}()
		return func() {}
	}
	p, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if w := p.Workers[0]; w.Reconnects != 1 || w.NoSessionSec < 0.95 || w.NoSessionSec > 1.45 {
		t.Errorf("worker %+v: want one reconnect after about 1 s without a session", w)
	}
}
