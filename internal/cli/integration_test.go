package cli

import (
	"context"
	"fmt"
	"github.com/candor-bench/candor/internal/target/targettest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/target"
)

// integrationTargets are the real databases the YCSB suite runs on: SQLite
// always, PostgreSQL when scripts/test.sh started one.
func integrationTargets(t *testing.T) map[string]string {
	dir := t.TempDir()
	out := map[string]string{"sqlite": "sqlite://" + filepath.Join(dir, "ycsb.db")}
	if u := os.Getenv("CANDOR_TEST_POSTGRES_URL"); u != "" {
		out["postgres"] = u
	} else {
		t.Log("CANDOR_TEST_POSTGRES_URL unset: PostgreSQL part skipped (scripts/test.sh sets it)")
	}
	if os.Getenv("CANDOR_TEST_MYSQL_URL") != "" {
		// sysbench's tables have fixed names: a database of the test's own.
		out["mysql"] = targettest.MySQLDatabaseURL(t)
	} else {
		t.Log("CANDOR_TEST_MYSQL_URL unset: MariaDB part skipped (scripts/test.sh sets it)")
	}
	return out
}

// withConn opens url, connects once and calls fn.
func withConn(t *testing.T, url string, fn func(ctx context.Context, tgt target.Target, c target.Conn)) {
	t.Helper()
	ctx := context.Background()
	tgt, err := target.Open(ctx, url, target.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tgt.Close()
	c, err := tgt.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fn(ctx, tgt, c)
}

func countRows(t *testing.T, url, table string) int64 {
	t.Helper()
	var n int64
	withConn(t, url, func(ctx context.Context, _ target.Target, c target.Conn) {
		// CHAR(20): MySQL has no CAST ... AS TEXT; trimmed for the padding.
		if _, err := c.Query(ctx, "SELECT CAST(COUNT(*) AS CHAR(20)) FROM "+table, nil, func(cols [][]byte) error {
			var err error
			n, err = strconv.ParseInt(strings.TrimSpace(string(cols[0])), 10, 64)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	})
	return n
}

// TestYCSBAllWorkloadsOnRealTargets loads and runs ycsb/a..f on each real
// target, checks row counts against what the result says was inserted, and
// round-trips the result file.
func TestYCSBAllWorkloadsOnRealTargets(t *testing.T) {
	for name, url := range integrationTargets(t) {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			table := "ycsb_it_" + name
			props := []string{"-p", "table=" + table, "-p", "recordcount=2000"}
			runCLI(t, dir, nil, append([]string{"cleanup", "ycsb", "--target", url}, props...)...)
			code, _, stderr := runCLI(t, dir, nil, append([]string{"load", "ycsb", "--target", url, "--threads", "4", "--batch-size", "300", "-o", "load.json", "-q"}, props...)...)
			if code != 0 {
				t.Fatalf("load: exit %d\n%s", code, stderr)
			}
			if n := countRows(t, url, table); n != 2000 {
				t.Fatalf("after load: %d rows, want 2000", n)
			}
			rows := int64(2000)
			for _, v := range []string{"a", "b", "c", "d", "e", "f"} {
				out := fmt.Sprintf("run-%s.json", v)
				// As YCSB: run-phase inserts start at recordcount, so tell the
				// workload how many records exist now (d's inserts would
				// collide with e's otherwise); the key chooser stays on the
				// loaded 2000.
				runProps := []string{"-p", "table=" + table, "-p", fmt.Sprintf("recordcount=%d", rows), "-p", "insertcount=2000"}
				code, _, stderr := runCLI(t, dir, nil, append([]string{"run", "ycsb/" + v, "--target", url, "--threads", "4", "--operations", "1500", "-o", out, "-q", "--load", "never"}, runProps...)...)
				if code != 0 {
					t.Fatalf("ycsb/%s: exit %d\n%s", v, code, stderr)
				}
				res, err := result.Read(filepath.Join(dir, out))
				if err != nil {
					t.Fatal(err)
				}
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
			if code, _, stderr := runCLI(t, dir, nil, append([]string{"cleanup", "ycsb", "--target", url}, props...)...); code != 0 {
				t.Fatalf("cleanup: %d %s", code, stderr)
			}
		})
	}
}

// TestForeignTableRefused: a usertable candor did not create is neither used
// nor dropped without --allow-foreign-tables, and survives.
func TestForeignTableRefused(t *testing.T) {
	for name, url := range integrationTargets(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			table := "foreign_" + name
			tgt, err := target.Open(ctx, url, target.Options{})
			if err != nil {
				t.Fatal(err)
			}
			c, err := tgt.Connect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			c.Exec(ctx, "DROP TABLE IF EXISTS "+table)
			if _, err := c.Exec(ctx, "CREATE TABLE "+table+" (YCSB_KEY VARCHAR(255) PRIMARY KEY, FIELD0 TEXT)"); err != nil {
				t.Fatal(err)
			}
			c.Close()
			tgt.Close()
			defer func() {
				tgt, _ := target.Open(ctx, url, target.Options{})
				c, _ := tgt.Connect(ctx)
				c.Exec(ctx, "DROP TABLE "+table)
				c.Close()
				tgt.Close()
			}()
			for _, args := range [][]string{
				{"run", "ycsb/a", "--operations", "10"},
				{"load", "ycsb"},
				{"cleanup", "ycsb"},
				{"run", "ycsb/a", "--operations", "10", "--load", "always"},
			} {
				full := append(args, "--target", url, "-p", "table="+table, "-q")
				code, _, stderr := runCLI(t, dir, nil, full...)
				if code != ExitUnsupported || !strings.Contains(stderr, "--allow-foreign-tables") || !strings.Contains(stderr, table) {
					t.Errorf("%v: exit %d, want %d naming the table and the flag:\n%s", args, code, ExitUnsupported, stderr)
				}
			}
			if n := countRows(t, url, table); n != 0 {
				t.Errorf("foreign table changed: %d rows", n)
			}
		})
	}
}

// TestPostgresFingerprintInResult: the result records PostgreSQL's settings
// and never the password.
func TestPostgresFingerprintInResult(t *testing.T) {
	u := targettest.PostgresURL(t)
	dir := t.TempDir()
	code, _, stderr := runCLI(t, dir, nil, "run", "ycsb/c", "--target", u, "-p", "table=fp_usertable", "-p", "recordcount=100",
		"--operations", "100", "-o", "fp.json", "-q")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	defer runCLI(t, dir, nil, "cleanup", "ycsb", "--target", u, "-p", "table=fp_usertable")
	res, err := result.Read(filepath.Join(dir, "fp.json"))
	if err != nil {
		t.Fatal(err)
	}
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
	if code, _, stderr := runCLI(t, dir, nil, "load", "ycsb", "--target", url, "-p", "recordcount=1000", "-q"); code != 0 {
		t.Fatalf("load: %d %s", code, stderr)
	}
	restarted := make(chan error, 1)
	time.AfterFunc(1500*time.Millisecond, func() {
		restarted <- exec.Command(script, "restart", pgdir, "1").Run()
	})
	code, _, stderr := runCLI(t, dir, nil, "run", "ycsb/b", "--target", url, "-p", "recordcount=1000",
		"--threads", "4", "--time", "6s", "--retries", "1", "-o", "restart.json", "-q")
	if err := <-restarted; err != nil {
		t.Fatalf("restart failed: %v", err)
	}
	if code != 0 {
		t.Fatalf("run across a restart: exit %d\n%s", code, stderr)
	}
	res, err := result.Read(filepath.Join(dir, "restart.json"))
	if err != nil {
		t.Fatal(err)
	}
	p := res.Phases[len(res.Phases)-1]
	var conn int64
	for _, o := range p.Ops {
		conn += o.Errors["connection"]
	}
	if p.Reconnects < 4 || conn < 1 {
		t.Fatalf("reconnects %d, connection errors %d: want every worker to reconnect and the losses counted", p.Reconnects, conn)
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
// commits faster; three jobs make 3 × N rows. The run without synchronous
// commits has 20,000 rows, about a second, so that the phase's few
// milliseconds of start and end weigh little against the server's span.
func TestCommitLoopOnPostgres(t *testing.T) {
	u := targettest.PostgresURL(t)
	dir := t.TempDir()
	run := func(url, out string, extra ...string) *result.Result {
		t.Helper()
		args := append([]string{"run", "commit-loop", "--target", url, "--rows", "2000", "-o", out, "-q"}, extra...)
		if code, _, stderr := runCLI(t, dir, nil, args...); code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, code, stderr)
		}
		res, err := result.Read(filepath.Join(dir, out))
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	on := run(u, "on.json")
	off := run(u+"&synchronous_commit=off", "off.json", "--rows", "20000")
	for _, c := range []struct {
		name string
		res  *result.Result
		sync string
		rows int64
	}{{"on", on, "on", 2000}, {"off", off, "off", 20000}} {
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
	jobs := run(u, "jobs.json", "--jobs", "3", "--rows", "500")
	if p := jobs.Phases[len(jobs.Phases)-1]; p.Derived["rows"] != 1500 || p.Derived["server_rows_per_s_job_3"] <= 0 {
		t.Errorf("3 jobs × 500: derived %v", p.Derived)
	}
	runCLI(t, dir, nil, "cleanup", "commit-loop", "--target", u, "-q")
}

// TestPlanToReportOnPostgres: a 2×2 plan (2 thread counts × 2 workloads, 2
// repetitions, 3 s each) on PostgreSQL, then a report in which every cell
// appears with a confidence interval.
func TestPlanToReportOnPostgres(t *testing.T) {
	u := targettest.PostgresURL(t)
	if testing.Short() {
		t.Skip("a 30 s plan")
	}
	dir := t.TempDir()
	planFile := filepath.Join(dir, "plan.yaml")
	os.WriteFile(planFile, []byte(`name: e2e
targets: {pg: "${E2E_PG}"}
workloads:
  - name: ycsb/c
    options: {recordcount: 2000, table: e2e_usertable}
  - name: kv-ints
    options: {rows: 2000, table: e2e_kv}
matrix:
  threads: [1, 2]
repetitions: 2
duration: 3s
`), 0o644)
	var out, errb strings.Builder
	env := &Env{Stdout: &out, Stderr: &errb, Getenv: func(k string) string {
		if k == "E2E_PG" {
			return u
		}
		return ""
	}}
	if code := Main(env, []string{"plan", "run", planFile, "-q"}); code != 0 {
		t.Fatalf("plan run: exit %d\n%s", code, errb.String())
	}
	defer runCLI(t, dir, nil, "cleanup", "ycsb", "--target", u, "-p", "table=e2e_usertable", "-q")
	defer runCLI(t, dir, nil, "cleanup", "kv-ints", "--target", u, "--table", "e2e_kv", "-q")
	report := filepath.Join(dir, "report.md")
	code, _, stderr := runCLI(t, dir, nil, "report", filepath.Join(dir, "results", "e2e"), "-o", report)
	if code != 0 {
		t.Fatalf("report: exit %d\n%s", code, stderr)
	}
	md, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string]string{} // workload -> its section of the report
	for _, sec := range strings.Split(string(md), "## Workload ")[1:] {
		name, body, _ := strings.Cut(sec, "\n")
		sections[strings.ReplaceAll(strings.TrimSpace(name), "\\", "")] = body
	}
	for _, wl := range []string{"ycsb/c", "kv-ints"} {
		body, ok := sections[wl]
		if !ok {
			t.Errorf("report has no section for %s (sections: %v)", wl, len(sections))
			continue
		}
		for _, threads := range []string{"1", "2"} {
			// the cell's "total" row, with a CI (±) over its 2 repetitions
			found := false
			for _, line := range strings.Split(body, "\n") {
				cells := strings.Split(line, "|")
				if len(cells) > 5 && strings.TrimSpace(cells[2]) == threads && strings.Contains(line, "total") && strings.Contains(line, "±") {
					found = true
				}
			}
			if !found {
				t.Errorf("report lacks %s at %s threads with a confidence interval", wl, threads)
			}
		}
	}
	if t.Failed() {
		t.Logf("report:\n%s", md)
	}
}
