package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// writeCounter counts the Write calls it takes.
type writeCounter struct {
	bytes.Buffer
	writes int
}

func (w *writeCounter) Write(p []byte) (int, error) {
	w.writes++
	return w.Buffer.Write(p)
}

// A run's summary reaches stdout in one Write call, so that two shards in
// one terminal do not interleave theirs mid-line; the header says
// "1 thread".
func TestSummaryInOneWrite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var out writeCounter
	var errb bytes.Buffer
	args := []string{"run", "ycsb/c", "--target", "sqlite://" + filepath.Join(dir, "c.db"), "--operations", "200", "-o", filepath.Join(dir, "r.json")}
	env := &Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }, Args: append([]string{"candor"}, args...)}
	if code := Main(env, args); code != 0 {
		t.Fatalf("exit %d\n%s", code, errb.String())
	}
	if out.writes != 1 || !strings.Contains(out.String(), "ycsb/c run: complete") {
		t.Errorf("summary in %d writes, want 1:\n%s", out.writes, out.String())
	}
	if !strings.Contains(errb.String(), ", 1 thread, ") {
		t.Errorf("header: %s", strings.SplitN(errb.String(), "\n", 2)[0])
	}
}

// plan cells prints command lines a shell reads back as the same words: a
// CQL URL's & and a fault's quotes are quoted, an unset ${VAR} is left for
// the shell to expand.
func TestPlanCellsShellQuoted(t *testing.T) {
	dir := t.TempDir()
	planFile := filepath.Join(dir, "p.yaml")
	os.WriteFile(planFile, []byte(`name: q
targets:
  cass: cql://127.0.0.1:9042/?read_consistency=ONE&write_consistency=ALL
  pg: ${PG_URL}
workloads: [{name: ycsb/a}]
duration: 5s
faults:
  - {at: 2s, run: 'echo "$CANDOR_CELL" it''s'}
`), 0o644)
	code, stdout, stderr := runCLI(t, dir, nil, "plan", "cells", planFile)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var lines []string
	for _, l := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(l, "    candor run ") {
			lines = append(lines, strings.TrimPrefix(l, "    candor "))
		}
	}
	if len(lines) != 2 {
		t.Fatalf("cells:\n%s", stdout)
	}
	// The shell reads each line back: print its words one per line.
	for i, l := range lines {
		out, err := exec.Command("sh", "-c", "set -- "+l+`; for w in "$@"; do printf '%s\n' "$w"; done`).Output()
		if err != nil {
			t.Fatalf("sh cannot read %q: %v", l, err)
		}
		words := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
		joined := strings.Join(words, "\x00") + "\x00"
		switch i {
		case 0:
			if !strings.Contains(joined, "\x00cql://127.0.0.1:9042/?read_consistency=ONE&write_consistency=ALL\x00") {
				t.Errorf("the CQL URL did not come back as one word: %q", words)
			}
		case 1:
			if !strings.Contains(l, `"${PG_URL}"`) {
				t.Errorf("unset ${PG_URL} not left to the shell: %s", l)
			}
		}
		if !strings.Contains(joined, "\x00at=2s run=echo \"$CANDOR_CELL\" it's\x00") {
			t.Errorf("the fault did not come back as one word: %q", words)
		}
	}
}

// run ycsb/a --help lists YCSB's properties with the values ycsb/a uses;
// proportions that do not add up to 1 get one note.
func TestYCSBPropertiesHelpAndWeights(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	code, stdout, _ := runAt(t, dir, "run", "ycsb/a", "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	flat := strings.Join(strings.Fields(stdout), " ")
	for _, want := range []string{"readproportion 0.5", "updateproportion 0.5", "requestdistribution zipfian", "recordcount 1000", "fieldcount 10", "weights"} {
		if !strings.Contains(flat, want) {
			t.Errorf("help lacks %q:\n%s", want, stdout)
		}
	}
	code, _, stderr := runAt(t, dir, "run", "ycsb/a", "-p", "readproportion=2", "--target", "sqlite://"+filepath.Join(dir, "w.db"), "--operations", "50", "-q")
	if code != 0 || strings.Count(stderr, "taken as weights") != 1 || !strings.Contains(stderr, "read 80.0%, update 20.0%") {
		t.Errorf("exit %d, want one note on weights:\n%s", code, stderr)
	}
}

// A plan whose cells differ only in an option their workload ignores (E3
// as a cross product: sequence-cache with auto-inc=off) is refused before
// anything runs, exit 2, naming the cells and the option.
func TestPlanIgnoredOptionRefused(t *testing.T) {
	dir := t.TempDir()
	planFile := filepath.Join(dir, "e3.yaml")
	os.WriteFile(planFile, []byte(`name: e3x
targets: {lite: sqlite://c.db}
workloads: [{name: sysbench/oltp_read_write, options: {tables: 1, table-size: 100}}]
matrix:
  auto-inc: ["on", "off"]
  sequence-cache: [1, 1000]
duration: 1s
`), 0o644)
	for _, cmd := range []string{"run", "cells"} {
		code, _, stderr := runCLI(t, dir, nil, "plan", cmd, planFile)
		if code != ExitUsage || !strings.Contains(stderr, "sysbench-oltp_read_write_lite_auto-inc-off_sequence-cache-1000 differ only in sequence-cache") {
			t.Errorf("plan %s: exit %d, want %d naming the cells\n%s", cmd, code, ExitUsage, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "results")); err == nil {
		t.Error("a refused plan ran cells")
	}
}
