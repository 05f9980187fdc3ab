package engine

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/result/resulttest"
	"github.com/candor-bench/candor/internal/target/targettest"
)

// TestYCSBAllWorkloadsOnRealTargets loads and runs ycsb/a..f on each real
// target, checks row counts against what the result says was inserted, and
// round-trips the result file.
func TestYCSBAllWorkloadsOnRealTargets(t *testing.T) {
	t.Parallel()
	for name, url := range targettest.RealTargets(t, false) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			table := targettest.TableName("ycsb_it_" + name)
			props := []string{"table=" + table, "recordcount=2000"}
			cleanupE2E(t, url, "ycsb", props...)
			load := specFor(PhaseLoad, "ycsb", url, filepath.Join(dir, "load.json"), props...)
			load.Threads, load.LoadBatch = ptr(4), ptr(300)
			if r := runE2E(t, load); r.code != 0 {
				t.Fatalf("load: exit %d\n%s", r.code, r.stderr)
			}
			if n := countRows(t, url, table); n != 2000 {
				t.Fatalf("after load: %d rows, want 2000", n)
			}
			rows := int64(2000)
			for _, v := range []string{"a", "b", "c", "d", "e", "f"} {
				out := filepath.Join(dir, fmt.Sprintf("run-%s.json", v))
				// As YCSB: run-phase inserts start at recordcount, so tell the
				// workload how many records exist now (d's inserts would
				// collide with e's otherwise); the key chooser stays on the
				// loaded 2000.
				s := specFor(PhaseRun, "ycsb/"+v, url, out, "table="+table, fmt.Sprintf("recordcount=%d", rows), "insertcount=2000")
				s.Threads, s.Operations, s.Load = ptr(4), ptr(int64(1500)), "never"
				if r := runE2E(t, s); r.code != 0 {
					t.Fatalf("ycsb/%s: exit %d\n%s", v, r.code, r.stderr)
				}
				res := resulttest.Read(t, out)
				p := res.Phases[len(res.Phases)-1]
				done := p.Operations
				var errs int64
				for _, o := range p.Ops {
					for _, n := range o.Errors {
						errs += n
					}
					if o.Name == "INSERT" {
						rows += o.Count
					}
				}
				if done != 1500 {
					t.Errorf("ycsb/%s: %d top-level operations, want 1500 (%+v)", v, done, p.Ops)
				}
				if errs != 0 {
					t.Errorf("ycsb/%s: %d errors on a healthy server: %+v", v, errs, p.Ops)
				}
				if n := countRows(t, url, table); n != rows {
					t.Errorf("after ycsb/%s: %d rows, want %d (load + acknowledged inserts)", v, n, rows)
				}
				if res.Workload.Name != "ycsb/"+v || !strings.Contains(res.Workload.Reference, "0.17.0") {
					t.Errorf("result names workload %q reference %q", res.Workload.Name, res.Workload.Reference)
				}
			}
			if code, stderr := cleanupE2E(t, url, "ycsb", props...); code != 0 {
				t.Fatalf("cleanup: %d %s", code, stderr)
			}
		})
	}
}

// TestForeignTableRefused: a usertable candor did not create is neither used
// nor dropped without --allow-foreign-tables, and survives.
func TestForeignTableRefused(t *testing.T) {
	t.Parallel()
	for name, url := range targettest.RealTargets(t, false) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			table := targettest.TableName("foreign_" + name)
			execSQL(t, url, "CREATE TABLE "+table+" (YCSB_KEY VARCHAR(255) PRIMARY KEY, FIELD0 TEXT)")
			defer execSQL(t, url, "DROP TABLE "+table)
			check := func(what string, code int, stderr string) {
				t.Helper()
				if code != ExitUnsupported || !strings.Contains(stderr, "--allow-foreign-tables") || !strings.Contains(stderr, table) {
					t.Errorf("%s: exit %d, want %d naming the table and the flag:\n%s", what, code, ExitUnsupported, stderr)
				}
			}
			run := specFor(PhaseRun, "ycsb/a", url, filepath.Join(dir, "r.json"), "table="+table)
			run.Operations = ptr(int64(10))
			r := runE2E(t, run)
			check("run", r.code, r.stderr)
			r = runE2E(t, specFor(PhaseLoad, "ycsb", url, filepath.Join(dir, "l.json"), "table="+table))
			check("load", r.code, r.stderr)
			code, stderr := cleanupE2E(t, url, "ycsb", "table="+table)
			check("cleanup", code, stderr)
			run.Load = "always"
			r = runE2E(t, run)
			check("run --load always", r.code, r.stderr)
			if n := countRows(t, url, table); n != 0 {
				t.Errorf("foreign table changed: %d rows", n)
			}
		})
	}
}

// TestPostgresFingerprintInResult: the result records PostgreSQL's settings
// and never the password.
func TestPostgresFingerprintInResult(t *testing.T) {
	t.Parallel()
	u := targettest.PostgresURL(t)
	out := filepath.Join(t.TempDir(), "fp.json")
	table := targettest.TableName("fp_usertable")
	s := specFor(PhaseRun, "ycsb/c", u, out, "table="+table, "recordcount=100")
	s.Operations = ptr(int64(100))
	if r := runE2E(t, s); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	defer cleanupE2E(t, u, "ycsb", "table="+table)
	res := resulttest.Read(t, out)
	if res.Target.Product != "PostgreSQL" || res.Target.Version == "" {
		t.Errorf("product %q version %q", res.Target.Product, res.Target.Version)
	}
	for _, s := range []string{"transaction_isolation", "synchronous_commit", "fsync", "full_page_writes", "wal_level", "synchronous_standby_names", "shared_buffers", "max_connections"} {
		if _, ok := res.Target.Settings[s]; !ok {
			t.Errorf("setting %s missing from the fingerprint", s)
		}
	}
}

// TestServerRestartMidRun: PostgreSQL is restarted during a run; workers
// reconnect with backoff, the run finishes, and the lost connections are
// counted. It starts a server of its own, so other tests are not disturbed.
func TestServerRestartMidRun(t *testing.T) {
	if os.Getenv("CANDOR_TEST_POSTGRES_URL") == "" {
		t.Skip("CANDOR_TEST_POSTGRES_URL unset: no PostgreSQL on this machine (scripts/test.sh sets it)")
	}
	t.Parallel()
	script, _ := filepath.Abs("../../scripts/pg-sandbox.sh")
	pgdir, err := os.MkdirTemp("/tmp", "candor-restart-")
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(pgdir)
	out, err := exec.Command(script, "start", pgdir).Output()
	if err != nil {
		t.Fatalf("start a sandbox: %v", err)
	}
	defer exec.Command(script, "stop", pgdir).Run()
	url := strings.TrimSpace(string(out))

	dir := t.TempDir()
	if r := runE2E(t, specFor(PhaseLoad, "ycsb", url, filepath.Join(dir, "load.json"), "recordcount=1000")); r.code != 0 {
		t.Fatalf("load: %d %s", r.code, r.stderr)
	}
	restarted := make(chan error, 1)
	time.AfterFunc(1500*time.Millisecond, func() {
		restarted <- exec.Command(script, "restart", pgdir, "1").Run()
	})
	s := specFor(PhaseRun, "ycsb/b", url, filepath.Join(dir, "restart.json"), "recordcount=1000")
	s.Threads, s.Duration, s.Retries = ptr(4), ptr(6*time.Second), ptr(1)
	// The restart is the test's own: how long the server stays down on a
	// loaded machine is not the subject, so no bound on the time without a
	// session (it is recorded all the same, checked below).
	s.MaxUnavailable = 0
	r := runE2E(t, s)
	if err := <-restarted; err != nil {
		t.Fatalf("restart failed: %v", err)
	}
	if r.code != 0 {
		t.Fatalf("run across a restart: exit %d\n%s", r.code, r.stderr)
	}
	res := resulttest.Read(t, s.Out)
	p := res.Phases[len(res.Phases)-1]
	var conn int64
	for _, o := range p.Ops {
		conn += o.Errors["connection"]
	}
	// At least one worker noticed the restart and reconnected, and its loss
	// was counted; how many workers were between statements when the server
	// went down depends on the machine's speed.
	if p.Reconnects < 1 || conn < 1 {
		t.Fatalf("reconnects %d, connection errors %d: want a reconnect and the losses counted", p.Reconnects, conn)
	}
	if p.Unavailable == nil || p.Unavailable.WithoutSec <= 0 {
		t.Fatalf("the restart's time without a session is not recorded: %+v", p.Unavailable)
	}
	// Work resumed: the last full interval has operations.
	last := p.Intervals[len(p.Intervals)-2]
	var n int64
	for _, o := range last.Ops {
		n += o.Count
	}
	if n == 0 {
		t.Fatalf("no operations after the restart: %+v", last)
	}
}

// TestCommitLoopOnPostgres: the client and server rates of a run agree
// within 10%; synchronous_commit off is recorded in the fingerprint and
// commits faster; three jobs make 3 × N rows. Each run lasts a second or
// two (6,000 rows with synchronous commits, 20,000 without), so that the
// phase's few milliseconds of start and end weigh little against the
// server's span.
// Not in parallel: the server's rates are the server's whole.
func TestCommitLoopOnPostgres(t *testing.T) {
	u := targettest.PostgresURL(t)
	dir := t.TempDir()
	run := func(url, out string, rows string, extra ...string) *result.Result {
		t.Helper()
		s := specFor(PhaseRun, "commit-loop", url, filepath.Join(dir, out))
		s.Options = append([]string{"rows=" + rows}, extra...)
		if r := runE2E(t, s); r.code != 0 {
			t.Fatalf("%v: exit %d\n%s", s.Args(), r.code, r.stderr)
		}
		return resulttest.Read(t, s.Out)
	}
	on := run(u, "on.json", "6000")
	off := run(u+"&synchronous_commit=off", "off.json", "20000")
	for _, c := range []struct {
		name string
		res  *result.Result
		sync string
		rows int64
	}{{"on", on, "on", 6000}, {"off", off, "off", 20000}} {
		p := c.res.Phases[len(c.res.Phases)-1]
		if p.Operations != c.rows || p.Derived["rows"] != float64(c.rows) {
			t.Fatalf("synchronous_commit %s: %d operations, %v rows", c.name, p.Operations, p.Derived["rows"])
		}
		client, server := p.Throughput, p.Derived["server_rows_per_s"]
		if server <= 0 || client/server < 0.9 || client/server > 1.1 {
			t.Errorf("synchronous_commit %s: client %.0f rows/s vs server %.0f rows/s: not within 10%%", c.name, client, server)
		}
		if got := c.res.Target.Settings["synchronous_commit"]; got != c.sync {
			t.Errorf("fingerprint records synchronous_commit=%q, want %q", got, c.sync)
		}
		t.Logf("synchronous_commit=%s: client %.0f rows/s, server %.0f rows/s", c.name, client, server)
	}
	if a, b := on.Phases[len(on.Phases)-1].Throughput, off.Phases[len(off.Phases)-1].Throughput; b <= a {
		t.Logf("synchronous_commit=off (%.0f/s) was not faster than on (%.0f/s) this time", b, a)
	}
	jobs := run(u, "jobs.json", "500", "jobs=3")
	if p := jobs.Phases[len(jobs.Phases)-1]; p.Derived["rows"] != 1500 || p.Derived["server_rows_per_s_job_3"] <= 0 {
		t.Errorf("3 jobs × 500: derived %v", p.Derived)
	}
	cleanupE2E(t, u, "commit-loop")
}
