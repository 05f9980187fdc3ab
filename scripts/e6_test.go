package scripts

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/ledger"
	"github.com/candor-bench/candor/internal/report"
	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/testutil/pgcluster"
)

// E6 scaled down, run as a plan: a lagging asynchronous standby (detached
// before the kill) and a synchronous one, two repetitions each on fresh
// clusters (new ports each time). The lagging setup loses acknowledged
// writes and the synchronous one none, by the ledger and by the servers
// themselves (each cell's teardown reads the ids the promoted standby and
// the restarted old primary hold, with psql); the report prints what the
// standby lacked at the kill; the audit of the plan's results finds no
// error (durability and the schedule's lag around the kill are the
// experiment) and no single run (each setup has n = 2 across its ports);
// compare takes one setup's repetitions as one side.
func TestE6ScaledDown(t *testing.T) {
	sh := pgcluster.Script(t)
	t.Parallel()
	dir := t.TempDir()
	bin := buildCandor(t)
	runAbs := func(t *testing.T, dir string, args ...string) (int, string, string) {
		t.Helper()
		var out, errb strings.Builder
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Stdout, cmd.Stderr = dir, &out, &errb
		err := cmd.Run()
		code := cmd.ProcessState.ExitCode()
		if err != nil && code < 0 {
			t.Fatalf("candor %v: %v", args, err)
		}
		return code, out.String(), errb.String()
	}
	oracle := filepath.Join(dir, "oracle")
	os.Mkdir(oracle, 0o777)
	os.Chmod(dir, 0o755)
	// The teardown's oracle: the ids the promoted standby holds, then
	// those of the old primary restarted alone, read with psql.
	script := filepath.Join(dir, "oracle.sh")
	os.WriteFile(script, []byte(`set -e
q='SELECT id FROM candor_ledger WHERE id >= 0'
psql "$(sed -n 2p "$1/urls")" -Atc "$q" > `+oracle+`/"$2".promoted
`+sh+` restart "$1" 0 >/dev/null
psql "$(sed -n 1p "$1/urls")" -Atc "$q" > `+oracle+`/"$2".old
`), 0o755)
	setup := func(sync string) string {
		return fmt.Sprintf(`
    setup: ['%[1]s start "$CANDOR_CELL_DIR" --standbys 1 --sync %[2]s']
    teardown: ['sh %[3]s "$CANDOR_CELL_DIR" "$CANDOR_CELL"', '%[1]s stop "$CANDOR_CELL_DIR"']`, sh, sync, script)
	}
	planFile := filepath.Join(dir, "e6.yaml")
	os.WriteFile(planFile, []byte(`name: e6-small
output: results
targets:
  pg-async-lag:`+setup("none")+`
  pg-sync:`+setup("one")+`
workloads: [{name: ledger}]
matrix:
  target: [pg-async-lag, pg-sync]
  repetition: [1, 2]
duration: 9s
args: [--threads, "2", --rate, "200", --target-role, primary, --recovery-timeout, 30s, --max-unavailable, "50%", --max-error-rate, "100%"]
faults:
  - {at: 2s, run: '`+sh+` detach "$CANDOR_CELL_DIR" 1', targets: [pg-async-lag]}
  - {at: 5s, run: '`+sh+` kill "$CANDOR_CELL_DIR" 0'}
  - {at: 6s, run: '`+sh+` promote "$CANDOR_CELL_DIR" 1'}
`), 0o644)
	code, _, stderr := runAbs(t, dir, "plan", "run", planFile, "-q")
	if code != 0 {
		t.Fatalf("plan run: exit %d\n%s", code, stderr)
	}
	results := filepath.Join(dir, "results")
	files, _ := filepath.Glob(filepath.Join(results, "*.json"))
	if len(files) != 4 {
		t.Fatalf("%d results, want 4: %v", len(files), files)
	}
	for _, f := range files {
		r, err := result.Read(f)
		if err != nil {
			t.Fatal(err)
		}
		p := &r.Phases[len(r.Phases)-1]
		if p.Ledger == nil || p.Ledger.Accounting == nil {
			t.Fatalf("%s: no accounting", f)
		}
		a := p.Ledger.Accounting
		lag := r.Plan.Params["target"] == "pg-async-lag"
		// The servers' own account: acknowledged writes the old primary
		// holds and the promoted standby lacks.
		records, _, err := ledger.ReadDir(filepath.Join(results, p.Ledger.Dir))
		if err != nil {
			t.Fatal(err)
		}
		acked := map[int64]ledger.Record{}
		for _, rec := range records {
			if rec.Outcome == ledger.Acknowledged {
				acked[rec.ID] = rec
			}
		}
		old, promoted := readIDs(t, filepath.Join(oracle, r.Plan.Cell+".old")), readIDs(t, filepath.Join(oracle, r.Plan.Cell+".promoted"))
		lostByServers := 0
		for id := range old {
			if _, ok := acked[id]; ok && !promoted[id] {
				lostByServers++
			}
		}
		if a.Lost != lostByServers {
			t.Errorf("%s: the ledger lost %d, the servers %d", r.Plan.Cell, a.Lost, lostByServers)
		}
		// Each lost id is an acknowledged write of the ledger, sent once
		// the detach had begun; and every write sent after it returned and
		// acknowledged before the kill is lost.
		for _, id := range a.LostIDs {
			rec, ok := acked[id]
			if !ok || !lag || rec.Start < p.Faults[0].Start.UnixNano() {
				t.Errorf("%s: lost id %d is no acknowledged write sent after the detach began (%+v)", r.Plan.Cell, id, rec)
			}
		}
		if lag {
			for id, rec := range acked {
				if rec.Start > p.Faults[0].End.UnixNano() && rec.End < p.Faults[1].Start.UnixNano() && promoted[id] {
					t.Errorf("%s: write %d, sent after the detach and acknowledged before the kill, is on the promoted standby", r.Plan.Cell, id)
				}
			}
		}
		u, ok := report.UnreplicatedAtFault(p)
		switch {
		case lag && (a.Lost == 0 || !ok || u.Bytes < 1024):
			t.Errorf("%s: lost %d, unreplicated at the kill %+v (%v): want writes lost and the standby's lag", r.Plan.Cell, a.Lost, u, ok)
		case !lag && a.Lost != 0:
			t.Errorf("%s: lost %d with a synchronous standby", r.Plan.Cell, a.Lost)
		}
		// The counters' session followed the fail-over: readings after
		// the promote, from the promoted node.
		after := 0
		if p.Server != nil {
			for _, smp := range p.Server.Samples {
				if smp.ElapsedSec > p.Faults[len(p.Faults)-1].EndS+1 && len(smp.Values) > 0 {
					after++
				}
			}
		}
		if after == 0 {
			t.Errorf("%s: no server-counter reading after the promote", r.Plan.Cell)
		}
		t.Logf("%s: acknowledged %d, lost %d, unreplicated at the kill %.0f bytes (%v); %d counter readings after the promote", r.Plan.Cell, a.Acknowledged, a.Lost, u.Bytes, ok, after)
	}

	code, out, stderr := runAbs(t, dir, "audit", results)
	if !strings.Contains(out, "0 error(s)") || strings.Contains(out, "single-run") || !strings.Contains(out, "over 2 configurations") {
		t.Errorf("audit: exit %d\n%s%s", code, out, stderr)
	}
	code, out, stderr = runAbs(t, dir, "report", results)
	if code != 0 || !strings.Contains(out, "unreplicated at the fault") {
		t.Errorf("report: exit %d\n%s%s", code, out, stderr)
	}
	// compare: one setup's repetitions are one side, whatever their ports.
	side := func(target string) string {
		d := filepath.Join(dir, target)
		os.Mkdir(d, 0o755)
		for _, f := range files {
			if strings.Contains(filepath.Base(f), "_"+target+"_") {
				data, _ := os.ReadFile(f)
				os.WriteFile(filepath.Join(d, filepath.Base(f)), data, 0o644)
			}
		}
		return d
	}
	code, out, stderr = runAbs(t, dir, "compare", side("pg-async-lag"), side("pg-sync"), "--force")
	if code != 0 || !strings.Contains(out, "ledger") {
		t.Errorf("compare of the two setups' repetitions: exit %d\n%s%s", code, out, stderr)
	}
}

// readIDs reads one id per line (psql -At).
func readIDs(t *testing.T, file string) map[int64]bool {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("the teardown's oracle: %v", err)
	}
	out := map[int64]bool{}
	for _, l := range strings.Fields(string(data)) {
		id, err := strconv.ParseInt(l, 10, 64)
		if err != nil {
			t.Fatalf("%s: %q", file, l)
		}
		out[id] = true
	}
	return out
}
