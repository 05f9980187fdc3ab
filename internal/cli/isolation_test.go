package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/isolation/probe"
	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/target/targettest"
)

// TestIsolationProbeSQLite: candor isolation probe on a SQLite file prints
// the table, writes the same report as JSON with --out, finds every anomaly
// prevented at SQLite's one level and the others not offered; bad input
// ends with exit 2, a level SQLite lacks with exit 4.
func TestIsolationProbeSQLite(t *testing.T) {
	t.Parallel()
	dir, outDir := t.TempDir(), t.TempDir()
	url := "sqlite://" + filepath.Join(dir, "probe.db")
	out := filepath.Join(outDir, "probe.json")
	code, stdout, stderr := runAbs(t, dir, "isolation", "probe", "--target", url, "--out", out)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"isolation probe of SQLite", "read-committed (not offered)", "serializable"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rep probe.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatalf("--out is not a report: %v", err)
	}
	if rep.Product != "SQLite" || len(rep.Levels) != len(probe.Levels) {
		t.Fatalf("report: product %q, %d levels", rep.Product, len(rep.Levels))
	}
	for _, a := range probe.Anomalies {
		o, ok := rep.Find("serializable", a)
		if !ok || o.Allowed {
			t.Errorf("%s at serializable: %+v (found %v), want prevented", a, o, ok)
		}
	}

	code, stdout, _ = runAbs(t, dir, "isolation", "probe", "--target", url, "--isolation", "serializable", "--json")
	if code != ExitOK || !json.Valid([]byte(stdout)) {
		t.Errorf("--json: exit %d, output %q", code, stdout)
	}
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"--isolation", "snapshot"}, ExitUsage, "read-uncommitted, read-committed"},
		{[]string{"--isolation", ""}, ExitUsage, "leave it out"},
		{[]string{"--isolation", "read-committed"}, ExitUnsupported, "always serializable"},
	} {
		code, _, stderr := runAbs(t, dir, append([]string{"isolation", "probe", "--target", url}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.says) {
			t.Errorf("%v: exit %d, %q; want exit %d saying %q", c.args, code, stderr, c.code, c.says)
		}
	}
}

// TestRunRecordsObservedIsolation: a run with --isolation records its
// level's probe in the result, the second run on the same server reuses
// it (cached, same probe time), and a run without --isolation has none.
// Not parallel: the probe cache's directory comes from the environment.
func TestRunRecordsObservedIsolation(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("CANDOR_ISOLATION_CACHE", filepath.Join(dir, "cache"))
	url := "sqlite://" + filepath.Join(dir, "kv.db")
	run := func(name string, extra ...string) *result.Result {
		t.Helper()
		out := filepath.Join(dir, name)
		args := append([]string{"run", "kv-basic", "--pairs", "1000", "--time", "1s", "--target", url, "--out", out}, extra...)
		if code, _, stderr := runAbs(t, dir, args...); code != ExitOK {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		r, err := result.Read(out)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	first := run("r1.json", "--isolation", "serializable")
	o := first.IsolationObserved
	if o == nil || o.Level != "serializable" || o.Cached || len(o.Outcomes) != len(probe.Anomalies) || o.Error != "" {
		t.Fatalf("first run's isolation_observed: %+v", o)
	}
	for _, a := range o.Outcomes {
		if a.Allowed {
			t.Errorf("SQLite allowed %s", a.Anomaly)
		}
	}
	again := run("r2.json", "--isolation", "serializable").IsolationObserved
	if again == nil || !again.Cached || !again.Probed.Equal(o.Probed) || again.Identity != o.Identity {
		t.Errorf("second run's isolation_observed: %+v, want the first's probe (%v) reused", again, o.Probed)
	}
	if none := run("r3.json").IsolationObserved; none != nil {
		t.Errorf("a run without --isolation recorded %+v", none)
	}
}

// TestAuditObservedIsolation: runs at "repeatable-read" on PostgreSQL and on
// MariaDB are not at the same isolation: candor audit of the two results
// is an error naming the lost update MariaDB allowed and PostgreSQL aborted
// (40001); two PostgreSQL results at repeatable-read raise no such error.
// Not parallel: the probe cache's directory comes from the environment.
func TestAuditObservedIsolation(t *testing.T) {
	pg, maria := targettest.PostgresDatabaseURL(t), targettest.MySQLDatabaseURL(t)
	dir := t.TempDir()
	t.Setenv("CANDOR_ISOLATION_CACHE", filepath.Join(dir, "cache"))
	run := func(name, url string) string {
		t.Helper()
		out := filepath.Join(dir, name)
		args := []string{"run", "kv-basic", "--pairs", "1000", "--time", "1s", "--isolation", "repeatable-read", "--target", url, "--out", out, "-q"}
		if code, _, stderr := runAbs(t, dir, args...); code != ExitOK {
			t.Fatalf("%s: exit %d: %s", name, code, stderr)
		}
		return out
	}
	a, b, c := run("pg1.json", pg), run("maria.json", maria), run("pg2.json", pg)
	code, stdout, stderr := runAbs(t, dir, "audit", a, b)
	if code != ExitAuditFindings || !strings.Contains(stdout+stderr, "lost update (P4) allowed on one side only") ||
		!strings.Contains(stdout+stderr, "40001") {
		t.Errorf("audit PostgreSQL RR vs MariaDB RR: exit %d:\n%s%s", code, stdout, stderr)
	}
	_, stdout, stderr = runAbs(t, dir, "audit", a, c)
	if strings.Contains(stdout+stderr, "isolation-observed-differs") || strings.Contains(stdout+stderr, "allowed on one side only") {
		t.Errorf("audit PostgreSQL RR vs PostgreSQL RR flags the isolation observed:\n%s%s", stdout, stderr)
	}
}
