package runner

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/target/fake"
	"github.com/candor-bench/candor/internal/workload"
)

// countTo counts a schedule's arrivals exactly as replaying Next does, at
// rates whose arrivals can be replayed.
func TestScheduleCountToMatchesReplay(t *testing.T) {
	for _, arrival := range []string{ArrivalConstant, ArrivalPoisson} {
		for _, rate := range []float64{7, 1000, 30000} { // under maxReplay a call
			const n, w = 3, 1
			replay := newSchedule(arrival, rate, n, w, rand.New(rand.NewSource(9)))
			counter := newSchedule(arrival, rate, n, w, rand.New(rand.NewSource(9)))
			next := replay.Next()
			var due, counted int64
			for _, now := range []time.Duration{0, time.Millisecond, 3*time.Millisecond + 7, 100 * time.Millisecond, 100 * time.Millisecond, time.Second} {
				for next <= now {
					due++
					next = replay.Next()
				}
				counted += counter.countTo(now)
				if counted != due {
					t.Fatalf("%s at %v/s: countTo(%v) gives %d arrivals, replay %d", arrival, rate, now, counted, due)
				}
			}
		}
	}
}

// The monitor's work must not grow with the rate (issue 26, item 5): an
// absurd --rate ends within a few seconds of --time, flagged behind
// schedule, and an interrupt ends it at once.
func TestAbsurdRateEndsInBoundedTime(t *testing.T) {
	for _, arrival := range []string{ArrivalConstant, ArrivalPoisson} {
		t.Run(arrival, func(t *testing.T) {
			r := newRunner(fake.New(fake.Config{}), Config{Rate: 1e12, Arrival: arrival, Duration: time.Second, Threads: 2})
			t0 := time.Now()
			p, err := runWithin(t, r, context.Background(), 10*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if d := time.Since(t0); d > 5*time.Second {
				t.Errorf("a 1 s run at 1e12/s took %v", d)
			}
			if p.Rate == nil || !p.Rate.BehindSchedule {
				t.Errorf("rate %+v: want behind schedule", p.Rate)
			}
			// Nearly all of 1e12 arrivals were due and never began.
			if p.Dropped < 1e11 {
				t.Errorf("dropped %d, want about 1e12", p.Dropped)
			}

			r = newRunner(fake.New(fake.Config{}), Config{Rate: 1e12, Arrival: arrival, Duration: time.Hour, Threads: 2})
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(1500*time.Millisecond, cancel)
			t0 = time.Now()
			p, err = runWithin(t, r, ctx, 10*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if d := time.Since(t0); d > 4*time.Second || p.Status != result.StatusInterrupted {
				t.Errorf("interrupted after 1.5 s: status %s after %v", p.Status, d)
			}
		})
	}
}

// runWithin runs r and fails the test when it has not returned within d.
func runWithin(t *testing.T, r *Runner, ctx context.Context, d time.Duration) (*result.Phase, error) {
	t.Helper()
	type out struct {
		p   *result.Phase
		err error
	}
	ch := make(chan out, 1)
	go func() {
		p, err := r.Run(ctx)
		ch <- out{p, err}
	}()
	select {
	case o := <-ch:
		return o.p, o.err
	case <-time.After(d):
		t.Fatalf("the run did not end within %v", d)
		return nil, nil
	}
}

// A stall at the end of a phase shows in its latencies (issue 26, item 7):
// an operation still waiting at the end has waited at least until then,
// and in an open loop the operations due and never begun are counted as
// dropped.
func TestStallAtTheEndIsAccounted(t *testing.T) {
	// The target stalls from 1.1 s for good; the phase ends at 1.6 s. Its
	// phase starts a little after the fake's clock, so the stall has lasted
	// a little less than 0.5 s at the end.
	const stallAt, phase = 1100 * time.Millisecond, 1600 * time.Millisecond
	soFar := int64(phase - stallAt - 60*time.Millisecond)
	var created time.Time
	stalling := func() *fake.Target {
		created = time.Now()
		return fake.New(fake.Config{Latency: time.Millisecond, StallAt: stallAt, StallFor: time.Hour})
	}
	t.Run("closed loop", func(t *testing.T) {
		r := newRunner(stalling(), Config{Duration: phase, Threads: 4})
		p, err := runWithin(t, r, context.Background(), 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		o := op(t, p, "OP")
		if o.Latency == nil || o.Latency.Max < soFar {
			t.Fatalf("max latency %v, want at least the stall so far (%v)", time.Duration(o.Latency.Max), time.Duration(soFar))
		}
		if o.Unfinished != 4 || o.Count != o.Latency.Count-4 {
			t.Errorf("unfinished %d, count %d of %d latency values; want the 4 stalled operations unfinished and not counted", o.Unfinished, o.Count, o.Latency.Count)
		}
	})
	t.Run("interrupt", func(t *testing.T) {
		r := newRunner(stalling(), Config{Duration: time.Hour, Threads: 4})
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(phase, cancel)
		p, err := runWithin(t, r, ctx, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if o := op(t, p, "OP"); o.Latency == nil || o.Latency.Max < soFar || p.Status != result.StatusInterrupted {
			t.Fatalf("status %s, max latency %v; want interrupted with the stall so far (%v) in the max", p.Status, time.Duration(o.Latency.Max), time.Duration(soFar))
		}
	})
	t.Run("open loop", func(t *testing.T) {
		const rate = 2000
		r := newRunner(stalling(), Config{Rate: rate, Duration: phase, Threads: 8})
		p, err := runWithin(t, r, context.Background(), 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		o := op(t, p, "OP")
		if o.Latency == nil || o.Latency.Max < soFar {
			t.Fatalf("max latency %v, want at least the stall so far (%v)", time.Duration(o.Latency.Max), time.Duration(soFar))
		}
		// About rate × the stall's length in the phase were due during
		// it (0.5 s, a little more when the phase started late); 8 of
		// them began. (More when the workers were late before the stall,
		// on a busy machine.)
		stall := p.Started.Add(phase).Sub(created.Add(stallAt))
		if want := rate * stall.Seconds(); float64(p.Dropped) < 0.9*want-10 || float64(p.Dropped) > 1.5*want {
			t.Errorf("dropped %d, want about %.0f (%v of stall)", p.Dropped, want, stall)
		}
		last := p.Intervals[len(p.Intervals)-1]
		if last.Dropped == nil || *last.Dropped != p.Dropped {
			t.Errorf("last interval dropped %d, want the phase's %d", deref(last.Dropped), p.Dropped)
		}
	})
}

// During an outage the status line says 0 ops/s, and connection errors
// fall in the interval they happened in, not that of the reconnect (issue
// 26, item 15).
func TestOutageIntervals(t *testing.T) {
	ft := fake.New(fake.Config{Latency: time.Millisecond})
	var status bytes.Buffer
	r := newRunner(ft, Config{Duration: 1500 * time.Millisecond, Threads: 2})
	r.Status = &status
	restart := 300 * time.Millisecond
	go func() {
		time.Sleep(restart)
		ft.Restart(700 * time.Millisecond)
	}()
	p, err := runWithin(t, r, context.Background(), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	first := -1.0
	for _, iv := range p.Intervals {
		if iv.Ops[0].ByClass["connection"] > 0 {
			first = iv.ElapsedSec
			break
		}
	}
	// The workers reconnect at about 1 s; their errors came at about 0.3 s.
	if first < 0 || first > restart.Seconds()+0.45 {
		t.Errorf("first connection errors in the interval ending at %.2f s, want the one of the restart (%.1f s)", first, restart.Seconds())
	}
	outage := 0
	for _, line := range strings.Split(status.String(), "\n") {
		if strings.Contains(line, "| OP 0 ops/s") {
			outage++
		}
		if strings.HasPrefix(line, "[run]") && !strings.Contains(line, "ops/s") {
			t.Errorf("a status line without a rate: %q", line)
		}
	}
	if outage < 2 {
		t.Errorf("%d status lines at 0 ops/s during a 0.7 s outage, want several:\n%s", outage, status.String())
	}
}

// secretWorkload's operations fail with a message that holds a password.
type secretWorkload struct{ opWorkload }

func (w *secretWorkload) NewWorker(int, *rand.Rand) workload.Worker { return &secretWorker{} }

type secretWorker struct{ opWorker }

func (secretWorker) Exec(context.Context, target.Conn, workload.Span) error {
	return errors.New("dial postgres://bench:s3cret@db:5432/x failed (password=s3cret)")
}

// The result keeps the first message of each error class, redacted (issue
// 26, item 14).
func TestFirstErrorOfEachClass(t *testing.T) {
	r := newRunner(fake.New(fake.Config{FailEvery: 10, FailClass: target.ClassConstraint}), Config{Operations: 100, Threads: 1, MaxErrorRate: NoErrorBudget})
	p, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := op(t, p, "OP").FirstErrors; len(got) != 1 || got["constraint"] != "fake constraint error" {
		t.Errorf("first errors %v, want the constraint error's message", got)
	}
	if got := op(t, p, "SUB").FirstErrors; got["constraint"] != "fake constraint error" {
		t.Errorf("sub-operation first errors %v, want the constraint error's message", got)
	}
	r = newRunner(fake.New(fake.Config{}), Config{Operations: 10, Threads: 1, MaxErrorRate: NoErrorBudget})
	r.Workload = &secretWorkload{}
	if p, err = r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	msg := op(t, p, "OP").FirstErrors["other"]
	if msg == "" || strings.Contains(msg, "s3cret") || !strings.Contains(msg, "db:5432") {
		t.Errorf("first error %q: want the message with its password redacted", msg)
	}
}

// A run phase whose failed operations exceed the error budget is failed,
// with the reason (issue 26, item 3).
func TestErrorBudget(t *testing.T) {
	cases := []struct {
		name   string
		fake   fake.Config
		budget float64
		retry  int
		want   string // the failure; "" for a complete phase
	}{
		// every 10th operation fails: 10% of 1,000
		{"above", fake.Config{FailEvery: 10}, 0.01, 0, "error rate 10% (100 of 1,000 operations) above --max-error-rate 1%: OP other 100; SUB other 100"},
		{"within", fake.Config{FailEvery: 10}, 0.2, 0, ""},
		{"no budget", fake.Config{FailEvery: 10}, NoErrorBudget, 0, ""},
		// not_found style workload errors are failed operations too
		{"not found", fake.Config{FailEvery: 2, FailClass: target.ClassNotFound}, 0.01, 0, "error rate 50% (500 of 1,000 operations) above --max-error-rate 1%: OP not_found 500"},
		// one failure in 1,000 above a budget of 0 reads as what it is, not
		// as "0.0%"
		{"tiny", fake.Config{FailEvery: 1000}, 0, 0, "error rate 0.1% (1 of 1,000 operations) above --max-error-rate 0%"},
		// errors retried to success are not failed operations
		{"retried", fake.Config{FailEvery: 10, FailClass: target.ClassRetryable}, 0, 3, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRunner(fake.New(c.fake), Config{Operations: 1000, Threads: 1, MaxErrorRate: c.budget, Retries: c.retry})
			p, err := r.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case c.want == "" && p.Status != result.StatusComplete:
				t.Errorf("status %s (%s), want complete", p.Status, p.Failure)
			case c.want != "" && (p.Status != result.StatusFailed || !strings.HasPrefix(p.Failure, c.want)):
				t.Errorf("status %s, failure %q; want failed: %q", p.Status, p.Failure, c.want)
			}
		})
	}
	if err := (Config{Threads: 1, ReportInterval: time.Second, MaxErrorRate: 1.5}).Validate(); err == nil || !strings.Contains(err.Error(), "--max-error-rate") {
		t.Errorf("Validate accepted an error budget of 150%%: %v", err)
	}
}

// TestOutageCountsAgainstTheBudget: a server down for most of a run fails
// a run with no error budget. Each worker's operation that lost its session
// is a failed operation (it had been counted as cut short, unfinished), and
// every connect that failed while the worker reconnected is an operation it
// could not attempt (no_session): both count against the budget. Before,
// the run was complete with an error rate of 0 and "connection 4" listed.
func TestOutageCountsAgainstTheBudget(t *testing.T) {
	ft := fake.New(fake.Config{Latency: 100 * time.Microsecond})
	r := newRunner(ft, Config{Duration: 1500 * time.Millisecond, Threads: 4, MaxErrorRate: 0, MaxReconnectBackoff: 100 * time.Millisecond})
	go func() {
		time.Sleep(200 * time.Millisecond)
		ft.Restart(time.Hour) // down until the end
	}()
	p, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	o := op(t, p, "OP") // and the laws of the phase
	if o.Aborts != 4 || o.NoSession < 4 || o.Unfinished != 0 {
		t.Errorf("aborts %d, no_session %d, unfinished %d: want each worker's lost operation failed and its failed connects counted",
			o.Aborts, o.NoSession, o.Unfinished)
	}
	if p.Status != result.StatusFailed || !strings.Contains(p.Failure, "above --max-error-rate 0%") || p.ErrorRate <= 0 {
		t.Errorf("status %s (%s), error rate %g: want failed above the budget", p.Status, p.Failure, p.ErrorRate)
	}
	if o.Errors["connection"] != 4+o.NoSession {
		t.Errorf("connection errors %d, want the 4 lost operations and %d failed connects", o.Errors["connection"], o.NoSession)
	}
	// With a retry policy for connection errors the wait is the
	// operation's own: no operation counts as not attempted.
	ft = fake.New(fake.Config{Latency: 100 * time.Microsecond})
	r = newRunner(ft, Config{Duration: time.Second, Threads: 2, Retries: -1, MaxErrorRate: NoErrorBudget, MaxReconnectBackoff: 50 * time.Millisecond})
	go func() {
		time.Sleep(200 * time.Millisecond)
		ft.Restart(300 * time.Millisecond)
	}()
	if p, err = r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if o := op(t, p, "OP"); o.NoSession != 0 || o.Aborts != 0 || o.Retries == 0 {
		t.Errorf("retried: no_session %d aborts %d retries %d; want the outage in the operations' retries", o.NoSession, o.Aborts, o.Retries)
	}
}

// TestShortTailIsNotAnInterval: the record between the phase's end and its
// workers' return is marked as the tail, not counted as an interval.
func TestShortTailIsNotAnInterval(t *testing.T) {
	r := newRunner(fake.New(fake.Config{Latency: 200 * time.Microsecond}), Config{Duration: time.Second, Threads: 2, ReportInterval: 100 * time.Millisecond})
	p, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	op(t, p, "OP")
	full := 0
	for i, iv := range p.Intervals {
		switch {
		case iv.Tail && i != len(p.Intervals)-1:
			t.Errorf("interval %d of %.3f s marked as the tail, not the last", i, iv.LengthSec)
		case iv.LengthSec < 0.05 && !iv.Tail && i == len(p.Intervals)-1:
			t.Errorf("last interval %d of %.3f s is not the marked tail", i, iv.LengthSec)
		case iv.Tail && iv.LengthSec >= 0.05:
			t.Errorf("interval %d of %.3f s marked as the tail", i, iv.LengthSec)
		case !iv.Tail:
			full++
		}
	}
	// The law, at any speed: the full intervals tile the measured phase
	// (their lengths add up to the last one's end), one per report tick
	// (a late tick makes one interval long and the next short), so at most
	// measured/0.1 + 1 of them, and a 1 s phase has more than one. A
	// loaded machine stretches the phase (11 intervals of 1.1 s), which is
	// not a fault; only the last record may be the tail.
	sum, measured := 0.0, 0.0
	for _, iv := range p.Intervals {
		if !iv.Tail {
			sum += iv.LengthSec
			measured = iv.ElapsedSec
		}
	}
	if math.Abs(sum-measured) > 0.01 {
		t.Errorf("full intervals add up to %.3f s, the measured phase ends at %.3f s", sum, measured)
	}
	if measured < 0.9 || full < 2 || float64(full) > measured/0.1+1 {
		t.Errorf("%d measured intervals in a measured %.3f s of 100 ms intervals", full, measured)
	}
}

// TestOpenLoopOutageCountsAgainstTheBudget: in an open loop, the
// operations due after a worker lost its session for good are dropped and
// failed (no_session): a server down from 0.3 s of a 1.5 s run fails the
// 1% budget. Before, they were only dropped: the run was complete, exit 0,
// with an error rate of 0.3%.
func TestOpenLoopOutageCountsAgainstTheBudget(t *testing.T) {
	ft := fake.New(fake.Config{Latency: 100 * time.Microsecond})
	r := newRunner(ft, Config{Rate: 400, Duration: 1500 * time.Millisecond, Threads: 2, MaxErrorRate: 0.01, MaxReconnectBackoff: 100 * time.Millisecond})
	go func() {
		time.Sleep(300 * time.Millisecond)
		ft.Restart(time.Hour)
	}()
	p, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	o := op(t, p, "OP") // and the laws of the phase
	if o.NoSession == 0 || p.Dropped < o.NoSession || o.Aborts != 2 {
		t.Errorf("no_session %d, dropped %d, aborts %d: want the operations due after the loss dropped and failed", o.NoSession, p.Dropped, o.Aborts)
	}
	if p.Status != result.StatusFailed || p.ErrorRate < 0.5 {
		t.Errorf("status %s (%s), error rate %g: want failed, most operations failed", p.Status, p.Failure, p.ErrorRate)
	}
	// A server that comes back: the operations due meanwhile are begun
	// late (in their latency), not failed.
	ft = fake.New(fake.Config{Latency: 100 * time.Microsecond})
	r = newRunner(ft, Config{Rate: 400, Duration: 1500 * time.Millisecond, Threads: 2, MaxErrorRate: NoErrorBudget, MaxReconnectBackoff: 50 * time.Millisecond})
	go func() {
		time.Sleep(300 * time.Millisecond)
		ft.Restart(300 * time.Millisecond)
	}()
	if p, err = r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if o := op(t, p, "OP"); o.NoSession != 0 || o.Latency.Max < int64(200*time.Millisecond) {
		t.Errorf("recovered: no_session %d, max latency %d ns; want none failed, the outage in the latencies", o.NoSession, o.Latency.Max)
	}
}
