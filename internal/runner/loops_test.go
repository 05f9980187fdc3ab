//go:build linux

package runner

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/target/fake"
)

// --loops turns auto into event loops on targets whose sessions can choose
// how they wait, and into blocking sessions when there is a loop per
// session; other targets are left to choose, and a blocking or poller mode
// given beside --loops is refused.
func TestChooseSessionIOWithLoops(t *testing.T) {
	wire := fake.New(fake.Config{Blocking: true})
	other := fake.New(fake.Config{})
	for _, c := range []struct {
		name    string
		tgt     target.Target
		io      target.SessionIO
		loops   int
		threads int
		want    target.SessionIO
	}{
		{"fewer loops than sessions", wire, target.IOAuto, 2, 16, target.IOLoop},
		{"unset session I/O is auto", wire, "", 1, 16, target.IOLoop},
		{"a loop per session", wire, target.IOAuto, 16, 16, target.IOBlocking},
		{"loop asked without --loops", wire, target.IOLoop, 0, 16, target.IOLoop},
		{"a target without the choice", other, target.IOAuto, 2, 16, ""},
	} {
		got, err := Config{SessionIO: c.io, Loops: c.loops, Threads: c.threads}.ChooseSessionIO(c.tgt)
		if err != nil || got != c.want {
			t.Errorf("%s: %q, %v; want %q", c.name, got, err, c.want)
		}
	}
	if err := (Config{Threads: 1, ReportInterval: time.Second, Duration: time.Second, Loops: -1}).Validate(); err == nil {
		t.Error("--loops -1 validated")
	}
	// A mode given with --loops would ignore the loops: refused.
	for _, io := range []target.SessionIO{target.IOBlocking, target.IOPoller} {
		err := (Config{Threads: 4, ReportInterval: time.Second, Duration: time.Second, Loops: 2, SessionIO: io}).Validate()
		if err == nil || !strings.Contains(err.Error(), "--loops 2 with --session-io "+string(io)) {
			t.Errorf("--loops 2 --session-io %s: %v, want a refusal naming both", io, err)
		}
	}
}

// Workers served by event loops: every session is connected for a loop,
// the result says so, and every worker runs, an open loop keeping its
// schedule by sleeping in its loop (100 ops/s for a second on 8 workers
// of 2 loops).
func TestRunOnLoops(t *testing.T) {
	tgt := fake.New(fake.Config{Blocking: true})
	r := &Runner{Target: tgt, Workload: &opWorkload{}, Config: Config{
		Threads: 8, Loops: 2, Duration: time.Second, Rate: 100, ReportInterval: 250 * time.Millisecond, Seed: 3,
	}}
	p, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if p.Client.SessionIO != string(target.IOLoop) || tgt.SessionIOs()[target.IOLoop] != 8 {
		t.Errorf("session I/O %q, sessions connected by mode %v; want 8 for loops", p.Client.SessionIO, tgt.SessionIOs())
	}
	for i, w := range p.Workers {
		if w.Ops == 0 {
			t.Errorf("worker %d ran no operation", i)
		}
	}
	if p.Rate == nil || p.Operations < 50 || p.Operations > 150 {
		t.Errorf("%d operations in 1 s at 100/s (rate %+v)", p.Operations, p.Rate)
	}
	// The target's own count of statements (one an operation): none was
	// counted without running, and none ran uncounted but one a worker
	// cut short at the end.
	if got := tgt.Statements(); got < p.Operations || got > p.Operations+8 {
		t.Errorf("the target ran %d statements; the phase counted %d operations (and at most 8 cut short)", got, p.Operations)
	}
}
