package cli

import (
	"github.com/candor-bench/candor/internal/target/targettest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlanToReportOnPostgres: a 2×2 plan (2 thread counts × 2 workloads, 2
// repetitions, 3 s each) on PostgreSQL, then a report in which every cell
// appears with a confidence interval.
func TestPlanToReportOnPostgres(t *testing.T) {
	u := targettest.PostgresURL(t)
	if testing.Short() {
		t.Skip("a 30 s plan")
	}
	t.Parallel()
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
	defer runAbs(t, dir, "cleanup", "ycsb", "--target", u, "-p", "table=e2e_usertable", "-q")
	defer runAbs(t, dir, "cleanup", "kv-ints", "--target", u, "--table", "e2e_kv", "-q")
	report := filepath.Join(dir, "report.md")
	code, _, stderr := runAbs(t, dir, "report", filepath.Join(dir, "results", "e2e"), "-o", report)
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
