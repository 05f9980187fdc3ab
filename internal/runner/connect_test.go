package runner

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/target/fake"
)

// limitedTarget refuses every session after its first max, as a server at
// max_connections does, after a short delay per attempt.
type limitedTarget struct {
	*fake.Target
	max      int64
	attempts atomic.Int64
}

var errTooMany = errors.New("FATAL: sorry, too many clients already (SQLSTATE 53300)")

func (t *limitedTarget) Connect(ctx context.Context) (target.Conn, error) {
	time.Sleep(time.Millisecond)
	if t.attempts.Add(1) > t.max {
		return nil, errTooMany
	}
	return t.Target.Connect(ctx)
}

// A run with far more threads than the server takes stops connecting at the
// first refusal and says how many sessions were open, instead of trying
// every one of its sessions.
func TestConnectStopsAtFirstRefusal(t *testing.T) {
	tgt := &limitedTarget{Target: fake.New(fake.Config{}), max: 20}
	r := &Runner{Target: tgt, Workload: &opWorkload{}, Config: Config{Threads: 5000, Duration: time.Second, ReportInterval: 100 * time.Millisecond}}
	_, err := r.Run(context.Background())
	if !errors.Is(err, errTooMany) {
		t.Fatalf("error %v, want the refusal", err)
	}
	if !strings.Contains(err.Error(), "20 of 5000 sessions open") {
		t.Errorf("error %q does not say how many sessions were open", err)
	}
	// At most the 16 attempts in flight at the refusal follow it.
	if n := tgt.attempts.Load(); n > 20+1+16 {
		t.Errorf("%d connection attempts after the first refusal at attempt 21; want it to stop there", n-21)
	}
}

// slowTarget takes a while to open each session, as a busy server does.
type slowTarget struct {
	*fake.Target
	delay    time.Duration
	sessions atomic.Int64
}

func (t *slowTarget) Connect(ctx context.Context) (target.Conn, error) {
	time.Sleep(t.delay)
	t.sessions.Add(1)
	return t.Target.Connect(ctx)
}

// Ready is called once every session is open, and the phase starts when it
// returns: the shards of one run, waiting there for --start-at, start
// together however long each took to connect. An error from Ready ends the
// phase before it began.
func TestReadyAfterSessionsOpen(t *testing.T) {
	tgt := &slowTarget{Target: fake.New(fake.Config{}), delay: 50 * time.Millisecond}
	var openAtReady int64
	var readyReturned time.Time
	r := &Runner{Target: tgt, Workload: &opWorkload{}, Config: Config{Threads: 40, Duration: 200 * time.Millisecond, ReportInterval: 100 * time.Millisecond}}
	r.Ready = func(context.Context) error {
		openAtReady = tgt.sessions.Load()
		time.Sleep(100 * time.Millisecond)
		readyReturned = time.Now()
		return nil
	}
	p, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if openAtReady != 40 {
		t.Errorf("%d sessions open when Ready was called, want all 40", openAtReady)
	}
	if p.Started.Before(readyReturned) {
		t.Errorf("the phase started at %v, before Ready returned at %v", p.Started, readyReturned)
	}
	stop := errors.New("interrupted while waiting")
	r.Ready = func(context.Context) error { return stop }
	if p, err := r.Run(context.Background()); p != nil || !errors.Is(err, stop) {
		t.Errorf("Ready's error: phase %v, error %v; want no phase and the error", p, err)
	}
}
