package engine

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/result/resulttest"
	"github.com/candor-bench/candor/internal/runner"
)

// TestDeadTargetFailsRun is issue 46's command on a real PostgreSQL of the
// test's own (pg-cluster.sh with no standby; never the shared test
// server): ycsb/a --threads 4 --time 10s --retries 5, the server killed
// 1 s into the run phase and not started again. Above the default
// --max-unavailable (5%) the run ends failed, exit 5, with the share its
// workers spent without a session recorded; with --max-unavailable 0 the
// same outage ends complete and the share is still recorded. The oracle
// that the server was down is pg-cluster.sh's own status after each run.
func TestDeadTargetFailsRun(t *testing.T) {
	pg, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_ctl")
	if os.Getenv("CANDOR_TEST_POSTGRES_URL") == "" || len(pg) == 0 {
		t.Skip("CANDOR_TEST_POSTGRES_URL unset or no PostgreSQL binaries: no server of the test's own to kill")
	}
	sh, err := filepath.Abs(filepath.Join("..", "..", "scripts", "pg-cluster.sh"))
	if err != nil {
		t.Fatal(err)
	}
	parent, err := os.MkdirTemp("", "candor-unavail-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(parent, 0o755) // the server runs as user postgres
	t.Cleanup(func() { os.RemoveAll(parent) })
	dir := filepath.Join(parent, "pg")
	t.Cleanup(func() {
		if out, err := exec.Command(sh, "stop", dir).CombinedOutput(); err != nil {
			t.Errorf("%s stop: %v\n%s", sh, err, out)
		}
	})
	var stderr strings.Builder
	cmd := exec.Command(sh, "start", dir, "--standbys", "0")
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s start: %v\n%s", sh, err, stderr.String())
	}
	url, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")

	// status is pg-cluster.sh's word on node 0: running or down.
	status := func() string {
		out, err := exec.Command(sh, "status", dir).Output()
		if err != nil {
			t.Fatalf("%s status: %v", sh, err)
		}
		f := strings.Fields(string(out))
		if len(f) < 3 {
			t.Fatalf("%s status: %q", sh, out)
		}
		return f[2]
	}

	for _, c := range []struct {
		name    string
		max     float64 // --max-unavailable
		code    int
		status  string
		restart bool // start the server again first (the previous case killed it)
	}{
		{"default limit", runner.DefaultMaxUnavailable, 5, result.StatusFailed, false},
		{"limit off", 0, 0, result.StatusComplete, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.restart {
				if out, err := exec.Command(sh, "restart", dir, "0").CombinedOutput(); err != nil {
					t.Fatalf("%s restart: %v\n%s", sh, err, out)
				}
			}
			if s := status(); s != "running" {
				t.Fatalf("the server is %s before the run", s)
			}
			rdir := t.TempDir()
			path := filepath.Join(rdir, "r.json")
			spec := specFor(PhaseRun, "ycsb/a", url, path, "recordcount=300")
			spec.Threads, spec.Duration, spec.Retries = ptr(4), ptr(10*time.Second), ptr(5)
			spec.MaxUnavailable = c.max
			spec.Faults = []string{fmt.Sprintf("at=1s run=%s kill %s 0", sh, dir)}
			var errb lockedBuffer
			_, err := Run(context.Background(), &Env{Stdout: io.Discard, Stderr: &errb, Args: append([]string{"candor"}, spec.Args()...), Display: silent{}}, spec)
			code := Code(err)
			t.Logf("exit %d: %v\n%s", code, err, errb.String())
			if s := status(); s != "down" {
				t.Fatalf("the server is %s after the run: the fault did not kill it", s)
			}
			if code != c.code {
				t.Fatalf("exit %d, want %d", code, c.code)
			}
			if resulttest.CheckFiles(t, rdir) == 0 {
				t.Fatalf("no result in %s", rdir)
			}
			res := resulttest.Read(t, path)
			if res.Status != c.status {
				t.Errorf("result status %s, want %s", res.Status, c.status)
			}
			if res.Run.MaxUnavailable == nil || *res.Run.MaxUnavailable != c.max {
				t.Errorf("run.max_unavailable %v, want %g", res.Run.MaxUnavailable, c.max)
			}
			p := runPhaseOf(t, path)
			if len(p.Faults) != 1 || p.Faults[0].Status != "done" {
				t.Fatalf("faults %+v, want one, done", p.Faults)
			}
			u := p.Unavailable
			if u == nil {
				t.Fatalf("the run phase records no unavailable share")
			}
			t.Logf("unavailable: share %.3f, %.2f of %.2f worker-seconds; phase %s %q", u.Share, u.WithoutSec, u.WorkerSec, p.Status, p.Failure)
			// Killed 1 s into 10 s and never started again: most of the
			// phase is without a session, far above the 5% default (a
			// bound that tells a recorded outage from none, not a timing).
			if u.Share <= 0.5 || u.WithoutSec <= 0 || u.WithoutSec > u.WorkerSec {
				t.Errorf("share %g (%g of %g worker-seconds), want above 0.5", u.Share, u.WithoutSec, u.WorkerSec)
			}
			if p.Status != c.status {
				t.Errorf("phase status %s, want %s", p.Status, c.status)
			}
			if c.code == 5 && !strings.Contains(p.Failure, "--max-unavailable") {
				t.Errorf("phase failure %q does not name --max-unavailable", p.Failure)
			}
		})
	}
}
