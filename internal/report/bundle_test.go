package report

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/result"
)

// TestBundle: the report, every result with its interval file, the plan the
// results name, the audit and a README with the rerun command; never over
// an existing bundle.
func TestBundle(t *testing.T) {
	in, err := Load(filepath.Join(fixtureDir, "ycsb-a-pg-t1.json"), filepath.Join(fixtureDir, "ycsb-a-sqlite-t4.json"))
	if err != nil {
		t.Fatal(err)
	}
	plan := filepath.Join(t.TempDir(), "e1.yaml")
	os.WriteFile(plan, []byte("name: e1\n"), 0o644)
	in[1].Result.Plan = &result.PlanRef{Name: "e1", File: plan, Cell: "c1"}
	// The first ran from a plan cell: its spec's command line differs from
	// the line typed; the second is older than spec_command.
	in[0].Result.Command = []string{"candor", "plan", "run", "e1.yaml"}
	in[0].Result.SpecCommand = []string{"candor", "run", "ycsb/a", "--target", "postgres://u:xxxxx@h:5432/db", "--fault", "at=1s for=2s net=pause node=0", "--seed", "7", "-p", "x=it's"}
	in[1].Result.SpecCommand = nil
	in[1].Result.Command = []string{"candor", "run", "ycsb/a", "--threads", "4"}
	dir := filepath.Join(t.TempDir(), "pub")
	files, err := WriteBundle(dir, in)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"report.html", "audit.txt", "README.md", "results/ycsb-a-pg-t1.json", "results/ycsb-a-pg-t1.intervals.jsonl", "results/ycsb-a-sqlite-t4.json", "plan/e1.yaml"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("bundle lacks %s (wrote %v)", f, files)
		}
	}
	readme, _ := os.ReadFile(filepath.Join(dir, "README.md"))
	for _, w := range []string{`for f in results/*.json; do candor rerun "$f"; done`, "PGPASSWORD", "plan/e1.yaml", "error(s)"} {
		if !strings.Contains(string(readme), w) {
			t.Errorf("README lacks %q:\n%s", w, readme)
		}
	}
	for _, w := range []string{
		"- `results/ycsb-a-pg-t1.json`: `candor run ycsb/a --target postgres://u:xxxxx@h:5432/db --fault 'at=1s for=2s net=pause node=0' --seed 7 -p 'x=it'\\''s'`\n",
		"- `results/ycsb-a-sqlite-t4.json`: `candor run ycsb/a --threads 4`\n",
	} {
		if !strings.Contains(string(readme), w) {
			t.Errorf("README lacks the command line %q:\n%s", w, readme)
		}
	}
	audit, _ := os.ReadFile(filepath.Join(dir, "audit.txt"))
	if !strings.Contains(string(audit), "durability-differs") {
		t.Errorf("audit.txt:\n%s", audit)
	}
	if _, err := WriteBundle(dir, in); !errors.Is(err, ErrBundleExists) {
		t.Errorf("second bundle into %s: %v, want ErrBundleExists", dir, err)
	}
}
