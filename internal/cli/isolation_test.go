package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/isolation/probe"
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
