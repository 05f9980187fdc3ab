package planrun

import (
	"bytes"
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/engine"
	"github.com/candor-bench/candor/internal/plan"
	"github.com/candor-bench/candor/internal/report"
	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/result/resulttest"
	"github.com/candor-bench/candor/internal/runner"
	"github.com/candor-bench/candor/internal/target/targettest"
	"github.com/candor-bench/candor/internal/testutil/dbtest"

	_ "github.com/candor-bench/candor/internal/target/fake"
	_ "github.com/candor-bench/candor/internal/target/postgres"
	_ "github.com/candor-bench/candor/internal/target/sqlite"
	_ "github.com/candor-bench/candor/internal/workload/commitloop"
	_ "github.com/candor-bench/candor/internal/workload/kv"
	_ "github.com/candor-bench/candor/internal/workload/ledgerwl"
	_ "github.com/candor-bench/candor/internal/workload/ycsb"
)

// quiet is a Display that prints nothing: the tests read results.
type quiet struct{}

func (quiet) Start(*runner.Runner, engine.Started) {}
func (quiet) Summary(engine.Finished) error        { return nil }

// runPlan reads the plan file (its ${VAR}s from vars) and runs it through
// the engine, without the CLI; it returns the exit code the error carries
// and what the plan said on stderr, with the error. Every result written breaks no law.
func runPlan(t *testing.T, file string, vars map[string]string, opt Options) (int, string) {
	t.Helper()
	p, err := plan.Read(file, func(k string) string { return vars[k] })
	if err != nil {
		t.Fatalf("plan %s: %v", file, err)
	}
	var errb dbtest.LockedBuffer
	began := time.Now().Add(-time.Second)
	env := &engine.Env{Stdout: io.Discard, Stderr: &errb, Args: []string{"candor", "plan", "run", file}, Display: quiet{}}
	err = Run(context.Background(), env, p, opt)
	resulttest.CheckFilesSince(t, filepath.Dir(file), began)
	if err != nil {
		return engine.Code(err), errb.String() + "\nerror: " + err.Error()
	}
	return 0, errb.String()
}

func writePlan(t *testing.T, dir, text string) string {
	t.Helper()
	file := filepath.Join(dir, "plan.yaml")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// A 2×2 plan (2 thread counts × 2 workloads, 2 repetitions, 3 s each) on
// PostgreSQL, then a report in which every cell appears with a confidence
// interval.
func TestPlanToReportOnPostgres(t *testing.T) {
	u := targettest.PostgresURL(t)
	if testing.Short() {
		t.Skip("a 30 s plan")
	}
	t.Parallel()
	dir := t.TempDir()
	file := writePlan(t, dir, `name: e2e
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
`)
	if code, errOut := runPlan(t, file, map[string]string{"E2E_PG": u}, Options{Quiet: true}); code != 0 {
		t.Fatalf("plan run: exit %d\n%s", code, errOut)
	}
	inputs, err := report.LoadWarn(func(w string) { t.Log(w) }, filepath.Join(dir, "results", "e2e"))
	if err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	if err := report.Write(&md, report.Build(inputs), "md"); err != nil {
		t.Fatal(err)
	}
	sections := map[string]string{} // workload -> its section of the report
	for _, sec := range strings.Split(md.String(), "## Workload ")[1:] {
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
		t.Logf("report:\n%s", md.String())
	}
}

// Every cell gets the plan's --metrics-addr: a taken address fails the
// first cell with exit 2, before it runs; a free one is served by each cell.
func TestPlanRunMetricsAddr(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := writePlan(t, dir, `name: obs
targets: {null: "null://"}
workloads:
  - name: ycsb/c
matrix:
  threads: [1, 2]
duration: 1s
`)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	code, errOut := runPlan(t, file, nil, Options{Quiet: true, MetricsAddr: ln.Addr().String()})
	ln.Close()
	if code != engine.ExitUsage || !strings.Contains(errOut, "cannot serve metrics") {
		t.Fatalf("taken address: exit %d\n%s", code, errOut)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "results", "obs", "*.json")); len(files) != 0 {
		t.Fatalf("a cell ran on a taken metrics address: %v", files)
	}
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := free.Addr().String()
	free.Close()
	linger := time.Duration(0)
	if code, errOut := runPlan(t, file, nil, Options{Quiet: true, MetricsAddr: addr, MetricsLinger: &linger}); code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "results", "obs", "*.json"))
	if len(files) != 2 {
		t.Fatalf("results %v, want 2 cells", files)
	}
	for _, f := range files {
		res, err := result.Read(f)
		if err != nil {
			t.Fatal(err)
		}
		if cmd := strings.Join(res.Command, " "); !strings.Contains(cmd, "--metrics-addr "+addr) || !strings.Contains(cmd, "--metrics-linger 0s") {
			t.Errorf("%s: command %v lacks --metrics-addr or --metrics-linger", f, res.Command)
		}
	}
}

// shardedPlan is a plan of two cells (ycsb/c on null:// at 2 and 4
// threads), 1 s each.
const shardedPlan = `name: p
output: out
targets:
  null: null://
workloads:
  - name: ycsb/c
    options: {recordcount: 100}
matrix:
  threads: [2, 4]
repetitions: 1
duration: 1s
`

// runShards runs the plan in file as two shards, started together as on
// two client machines, each with opt and its --shard, the run id and
// --start-at start; it fails the test unless both succeed, and returns the
// 4 shard results, sorted (a cell's two shards side by side).
func runShards(t *testing.T, file string, opt Options, runID, start string) []string {
	t.Helper()
	var wg sync.WaitGroup
	codes, errs := make([]int, 2), make([]string, 2)
	for i := range 2 {
		wg.Go(func() {
			o := opt
			o.Shard = engine.Shard{Of: string(rune('0'+i)) + "/2", RunID: runID, StartAt: start}
			codes[i], errs[i] = runPlan(t, file, nil, o)
		})
	}
	wg.Wait()
	for i := range 2 {
		if codes[i] != 0 {
			t.Fatalf("plan shard %d: exit %d: %s", i, codes[i], errs[i])
		}
	}
	shards, _ := filepath.Glob(filepath.Join(filepath.Dir(file), "out", "*.shard-*-of-2.json"))
	if len(shards) != 4 {
		t.Fatalf("shard results %v, want 2 cells × 2 shards", shards)
	}
	return shards
}

// Two shards of a plan, started together: each cell's two shard results
// merge; a second pass finds every cell done.
func TestPlanRunSharded(t *testing.T) {
	t.Parallel()
	file := writePlan(t, t.TempDir(), shardedPlan)
	// merge refuses shards that did not measure the same time.
	start := time.Now().Add(5 * time.Second).UTC().Format(time.RFC3339Nano)
	shards := runShards(t, file, Options{Quiet: true}, "prun", start)
	var in []result.MergeInput
	for _, f := range shards[:2] { // sorted: the cell's id comes first in the name
		in = append(in, result.MergeInput{File: f, Result: resulttest.Read(t, f)})
	}
	merged, err := result.Merge(in)
	if err != nil {
		t.Fatalf("merge of a cell's shards: %v", err)
	}
	if merged.Merged == nil || !strings.HasPrefix(merged.Merged.RunID, "prun-") {
		t.Errorf("merged run id %+v, want prun-<cell>", merged.Merged)
	}
	if code, errOut := runPlan(t, file, nil, Options{Quiet: true, Shard: engine.Shard{Of: "0/2", RunID: "prun"}}); code != 0 || !strings.Contains(errOut, "2 done, 0 to run") {
		t.Errorf("resumed plan shard: exit %d: %s", code, errOut)
	}
}

// With --cell-every, every cell of a sharded plan starts at its own slot
// in every shard (--start-at + i×every): the shards of the second cell
// merge too, and record the slot as their start. A slot that has passed
// when its cell comes starts the cell at once, late.
func TestPlanRunShardedCellEvery(t *testing.T) {
	t.Parallel()
	file := writePlan(t, t.TempDir(), shardedPlan)
	start := time.Now().Add(4 * time.Second).Truncate(time.Second)
	const every = 4 * time.Second
	shards := runShards(t, file, Options{Quiet: true, CellEvery: every}, "slots", start.UTC().Format(time.RFC3339Nano))
	for cell := range 2 { // sorted: the cell's id comes first in the name, t2 before t4
		var in []result.MergeInput
		for _, f := range shards[2*cell : 2*cell+2] {
			r := resulttest.Read(t, f)
			want := start.Add(time.Duration(cell) * every)
			if !r.Shard.StartAt.Equal(want) {
				t.Errorf("%s: start %v, want cell %d's slot %v", f, r.Shard.StartAt, cell, want)
			}
			// The measured phase itself began at the slot, by the
			// process's clock (not only the recorded setting).
			run := r.Phases[len(r.Phases)-1]
			if d := run.Started.Sub(want); d < 0 || d > time.Second {
				t.Errorf("%s: its %s phase began %v after cell %d's slot, want within a second of it", f, run.Name, d, cell)
			}
			in = append(in, result.MergeInput{File: f, Result: r})
		}
		if _, err := result.Merge(in); err != nil {
			t.Errorf("merge of cell %d's shards: %v", cell, err)
		}
	}

	file = writePlan(t, t.TempDir(), shardedPlan)
	code, errOut := runPlan(t, file, nil, Options{CellEvery: time.Millisecond,
		Shard: engine.Shard{StartAt: time.Now().Add(2 * time.Second).UTC().Format(time.RFC3339Nano)}})
	if code != 0 || !strings.Contains(errOut, "starting now, late") {
		t.Errorf("a cell whose slot passed: exit %d, want 0 and a late start:\n%s", code, errOut)
	}
	if code, errOut := runPlan(t, file, nil, Options{CellEvery: time.Second}); code != engine.ExitUsage || !strings.Contains(errOut, "give --start-at too") {
		t.Errorf("--cell-every without --start-at: exit %d: %s", code, errOut)
	}
}

// A target the plan starts: the setup's URL is the cell's target, the
// cell's faults and teardown see CANDOR_CELL_DIR and CANDOR_TARGET.
func TestPlanSetupTeardownAndFaults(t *testing.T) {
	dir := t.TempDir()
	file := writePlan(t, dir, `name: setup-demo
output: out
targets:
  local:
    setup: ['echo setting up >&2; echo "sqlite://`+dir+`/db-$CANDOR_CELL.db"']
    teardown: ['echo "$CANDOR_CELL_DIR" > `+dir+`/torn-down']
workloads:
  - name: ledger
duration: 1s
faults:
  - {at: 200ms, run: 'echo "dir=$CANDOR_CELL_DIR target=$CANDOR_TARGET"'}
`)
	if code, errOut := runPlan(t, file, nil, Options{Quiet: true}); code != 0 {
		t.Fatalf("plan run: exit %d: %s", code, errOut)
	}
	res := resulttest.Read(t, filepath.Join(dir, "out", "ledger_local.json"))
	p := res.Phases[len(res.Phases)-1]
	if !res.Plan.TargetSetup || !strings.Contains(res.Target.URL, "db-ledger_local.db") {
		t.Errorf("plan %+v, target %s: want the setup's URL, marked", res.Plan, res.Target.URL)
	}
	if len(p.Faults) != 1 || !strings.Contains(p.Faults[0].Output, "/c target=local") || p.Ledger == nil || p.Ledger.Accounting == nil {
		t.Errorf("faults %+v, ledger %+v", p.Faults, p.Ledger)
	}
	torn, err := os.ReadFile(filepath.Join(dir, "torn-down"))
	if err != nil || !strings.HasSuffix(strings.TrimSpace(string(torn)), "/c") {
		t.Errorf("teardown did not run with CANDOR_CELL_DIR: %q %v", torn, err)
	}
}

// plan run does not take a fixed-size cell's duration cap for its length
// (E4 announced "ETA 3h0m0s plus loading" and took 1 min 46 s).
func TestPlanETAFixedSize(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := writePlan(t, dir, "name: eta\ntargets: {lite: sqlite://"+dir+"/c.db}\nworkloads: [{name: commit-loop, options: {rows: 100}}]\nduration: 10m\n")
	code, errOut := runPlan(t, file, nil, Options{Quiet: true})
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "ETA unknown until a cell has run") || strings.Contains(errOut, "10m0s") {
		t.Errorf("ETA of a fixed-size cell:\n%s", errOut)
	}
}
