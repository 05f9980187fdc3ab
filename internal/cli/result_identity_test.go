package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/ledger"
	"github.com/candor-bench/candor/internal/result"
)

// TestSameResultTwice: a copy of a result, given beside the original as
// two files or found twice in a directory, is refused by report, compare,
// audit and rerun with exit 2, naming both files and the fix (it counted
// as a second repetition: n 2, ±0.0%). A link to a file already read
// counts once; so does a copy whose id alone was changed, or two copies
// without an id (older ones): their measurements are identical.
func TestSameResultTwice(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	at := func(name string) string { return filepath.Join(dir, name) }
	// Open loops (--rate): a closed loop on null:// would take a core from
	// the tests running beside this one.
	for _, out := range []string{"runs/a.json", "b.json"} {
		if code, _, errOut := runAbs(t, dir, "run", "ycsb/c", "--target", "null://", "--time", "500ms", "--rate", "1000", "-q", "-o", at(out), "-p", "recordcount=100"); code != 0 {
			t.Fatalf("run: exit %d\n%s", code, errOut)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "runs/a.json"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "runs/copy.json", string(data))
	writeFile(t, dir, "elsewhere/a-copy.json", string(data))
	// the copy: its id alone changed, its measurements the same
	writeFile(t, dir, "elsewhere/a-newid.json", strings.Replace(string(data), `"id": "`, `"id": "x`, 1))
	if err := os.Symlink("a.json", filepath.Join(dir, "runs/latest.json")); err != nil {
		t.Fatal(err)
	}
	refused := []struct {
		name  string
		args  []string
		files []string // named in the message
	}{
		{"report of two files", []string{"report", at("runs/a.json"), at("elsewhere/a-copy.json")}, []string{at("runs/a.json"), at("elsewhere/a-copy.json")}},
		{"report of a directory", []string{"report", at("runs")}, []string{at("runs/a.json"), at("runs/copy.json")}},
		{"audit", []string{"audit", at("runs/a.json"), at("elsewhere/a-copy.json")}, []string{at("runs/a.json"), at("elsewhere/a-copy.json")}},
		{"bundle", []string{"report", at("runs"), "--bundle", at("bundle")}, []string{at("runs/a.json"), at("runs/copy.json")}},
		{"compare within a side", []string{"compare", at("runs"), at("b.json")}, []string{at("runs/a.json"), at("runs/copy.json")}},
		{"compare A against its copy", []string{"compare", at("runs/a.json"), at("elsewhere/a-copy.json")}, []string{at("runs/a.json"), at("elsewhere/a-copy.json")}},
		{"report of a copy with another id", []string{"report", at("runs/a.json"), at("elsewhere/a-newid.json")}, []string{at("runs/a.json"), at("elsewhere/a-newid.json"), "identical measurements"}},
		{"compare A against a copy with another id", []string{"compare", at("runs/a.json"), at("elsewhere/a-newid.json")}, []string{at("runs/a.json"), at("elsewhere/a-newid.json"), "identical measurements"}},
		{"compare a file with itself", []string{"compare", at("b.json"), at("b.json")}, []string{at("b.json"), "name the file once"}},
		{"rerun of a directory", []string{"rerun", at("runs"), "-o", at("never.json")}, []string{at("runs/a.json"), at("runs/copy.json")}},
	}
	for _, c := range refused {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runAbs(t, dir, c.args...)
			if code != ExitUsage {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, ExitUsage, out, errOut)
			}
			for _, w := range append(c.files, "the same result", "give each result once") {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errOut)
				}
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "never.json")); err == nil {
		t.Errorf("rerun ran though its directory held a result twice")
	}

	// Two different runs, and a file reached again through a link, are
	// read; so are two copies of a result without an id.
	os.Remove(filepath.Join(dir, "runs/copy.json"))
	if code, out, errOut := runAbs(t, dir, "report", at("runs"), at("runs/latest.json"), at("b.json")); code != 0 || !strings.Contains(out, "2 result file(s), 2 measured run phase(s)") {
		t.Errorf("report of two runs: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	old, err := result.Read(filepath.Join(dir, "b.json"))
	if err != nil {
		t.Fatal(err)
	}
	old.ID = ""
	for _, name := range []string{"old/1.json", "old/2.json"} {
		if err := result.Write(filepath.Join(dir, name), old); err != nil {
			t.Fatal(err)
		}
	}
	// Their measurements tell they are one run.
	if code, _, errOut := runAbs(t, dir, "report", at("old")); code != ExitUsage || !strings.Contains(errOut, "identical measurements") {
		t.Errorf("report of two copies without an id: exit %d\n%s", code, errOut)
	}
}

// TestSameResultTwiceInPlanResults: a cell's result copied within a plan's
// results directory is refused as the same result, not read as a second
// repetition of the cell.
func TestSameResultTwiceInPlanResults(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	writeFile(t, dir, "plan.yaml", `name: ids
targets: {null: "null://"}
workloads:
  - name: ycsb/c
matrix:
  threads: [1]
duration: 1s
output: out
`)
	if code, _, errOut := runAbs(t, dir, "plan", "run", filepath.Join(dir, "plan.yaml"), "-q"); code != 0 {
		t.Fatalf("plan run: exit %d\n%s", code, errOut)
	}
	cells, _ := filepath.Glob(filepath.Join(dir, "out", "*.json"))
	if len(cells) != 1 {
		t.Fatalf("plan results %v, want one cell", cells)
	}
	if code, _, errOut := runAbs(t, dir, "report", out); code != 0 {
		t.Fatalf("report of the plan's results: exit %d\n%s", code, errOut)
	}
	data, _ := os.ReadFile(cells[0])
	writeFile(t, dir, "out/again/cell-copy.json", string(data))
	code, _, errOut := runAbs(t, dir, "report", out)
	if code != ExitUsage || !strings.Contains(errOut, filepath.Join("out", filepath.Base(cells[0]))) || !strings.Contains(errOut, "out/again/cell-copy.json") ||
		!strings.Contains(errOut, "the same result") {
		t.Errorf("report of a plan's results holding a copy: exit %d\n%s", code, errOut)
	}
}

// TestLedgerFiguresAgainstItsFiles: a ledger run's result whose accounting
// was edited (acknowledged writes made failed, keeping writes = acknowledged
// + failed + unknown) is refused by compare (exit 2) and audit (exit 1),
// naming the figure, the result's value and the one recomputed from the
// ledger's files; the run's own result is read; without the files the
// report says the figures were not checked.
func TestLedgerFiguresAgainstItsFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	at := func(name string) string { return filepath.Join(dir, name) }
	for _, out := range []string{"a.json", "b.json"} {
		if code, _, errOut := runAbs(t, dir, "run", "ledger", "--target", "sqlite://"+at("l.db"), "--time", "300ms", "--rate", "500", "-q", "-o", at(out)); code != 0 {
			t.Fatalf("run: exit %d\n%s", code, errOut)
		}
	}
	if code, _, errOut := runAbs(t, dir, "compare", at("a.json"), at("b.json")); code != 0 {
		t.Fatalf("compare of the runs' own results: exit %d\n%s", code, errOut)
	}
	r, err := result.Read(at("b.json"))
	if err != nil {
		t.Fatal(err)
	}
	var a *ledger.Accounting
	for i := range r.Phases {
		if l := r.Phases[i].Ledger; l != nil && l.Accounting != nil {
			a = l.Accounting
		}
	}
	if a == nil || a.Acknowledged < 10 {
		t.Fatalf("no accounting with writes in %s", at("b.json"))
	}
	ack := a.Acknowledged
	a.Acknowledged, a.Failed = ack-5, a.Failed+5
	data, _ := json.Marshal(r)
	writeFile(t, dir, "b.json", string(data))
	// a fixture broken on purpose, older than the commands that read it
	past := time.Now().Add(-time.Hour)
	if err := os.Chtimes(at("b.json"), past, past); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("ledger-files: run: acknowledged %d in the result, %d recomputed from the ledger's files", ack-5, ack)
	if code, _, errOut := runAbs(t, dir, "compare", at("a.json"), at("b.json")); code != ExitUsage || !strings.Contains(errOut, want) {
		t.Errorf("compare of the edited result: exit %d, want %d with %q\n%s", code, ExitUsage, want, errOut)
	}
	if code, out, errOut := runAbs(t, dir, "audit", at("b.json")); code != 1 || !strings.Contains(out+errOut, "ledger-files") {
		t.Errorf("audit of the edited result: exit %d\n%s%s", code, out, errOut)
	}
	if err := os.RemoveAll(at("b.ledger")); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runAbs(t, dir, "report", at("b.json")); code != 0 || !strings.Contains(out+errOut, "not checked against the ledger's files") {
		t.Errorf("report without the ledger's files: exit %d\n%s%s", code, out, errOut)
	}
	os.Remove(at("b.json")) // the edited result is no run's: the harness checks the laws of those left
}
