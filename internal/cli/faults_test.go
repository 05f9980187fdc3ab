package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/target"
)

// Bad fault, role and ledger input is refused before anything runs, each
// problem named with its fix, exit 2; a foreign ledger table is refused
// (exit 4).
func TestFaultAndLedgerBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := "sqlite://" + filepath.Join(dir, "x.db")
	cases := []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"fault beyond the run", []string{"run", "ledger", "--target", db, "--time", "2s", "--fault", "at=5s run=true"},
			ExitUsage, []string{"fault 1 (at=5s run=true)", "not within the run", "lengthen --time"}},
		{"network fault past the end", []string{"run", "ledger", "--target", "postgres://u@127.0.0.1:1/db", "--time", "2s", "--fault", "at=1s for=3s net=pause node=0"},
			ExitUsage, []string{"ends after the run"}},
		{"unknown node", []string{"run", "ledger", "--target", "postgres://u@127.0.0.1:1/db", "--time", "5s", "--fault", "at=1s for=1s net=pause node=3"},
			ExitUsage, []string{"node=3 does not exist", "nodes 0 to 0"}},
		{"network fault without a TCP target", []string{"run", "ledger", "--target", db, "--time", "5s", "--fault", "at=1s for=1s net=pause node=0"},
			ExitUsage, []string{"no target reached over TCP"}},
		{"network fault on a URL of several hosts", []string{"run", "ycsb/a", "--target", "cql://127.0.0.1,127.0.0.2:1/ks", "--time", "5s", "--fault", "at=1s for=1s net=pause node=0"},
			ExitUsage, []string{"one node per --target", "names 2", "a --target of its own"}},
		{"malformed fault", []string{"run", "ledger", "--target", db, "--time", "5s", "--fault", "at=soon run=true"},
			ExitUsage, []string{"at="}},
		{"bad on-fault-error", []string{"run", "ledger", "--target", db, "--time", "5s", "--on-fault-error", "ignore"},
			ExitUsage, []string{"--on-fault-error"}},
		{"fault without --time", []string{"run", "ledger", "--target", db, "--operations", "100", "--fault", "at=1s run=true"},
			ExitUsage, []string{"--fault needs --time"}},
		{"bad role", []string{"run", "ledger", "--target", db, "--time", "5s", "--target-role", "leader"},
			ExitUsage, []string{"--target-role \"leader\"", "primary"}},
		{"role primary on sqlite", []string{"run", "ledger", "--target", db, "--time", "5s", "--target-role", "primary"},
			ExitUsage, []string{"--target-role primary needs postgres://"}},
		{"ledger on ycsb", []string{"run", "ycsb/a", "--target", db, "--time", "5s", "--ledger"},
			ExitUsage, []string{"--ledger: the workload ycsb/a cannot carry a durability ledger", "commit-loop --ledger"}},
		{"ledger on an in-server commit-loop", []string{"run", "commit-loop", "--in-server", "--target", db, "--ledger"},
			ExitUsage, []string{"run without in-server"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runAt(t, dir, c.args...)
			if code != c.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, c.code, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
}

// A ledger table candor did not create is refused, as every workload's.
func TestLedgerForeignTableRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "x.db")
	code, _, stderr := runAt(t, dir, "run", "ledger", "--target", "sqlite://"+path, "--time", "300ms", "-p", "table=mine")
	if code != 0 {
		t.Fatalf("first run: exit %d: %s", code, stderr)
	}
	ctx := context.Background()
	tgt, err := target.Open(ctx, "sqlite://"+path, target.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := tgt.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, "CREATE TABLE theirs (id BIGINT)"); err != nil {
		t.Fatal(err)
	}
	c.Close()
	tgt.Close()
	code, _, stderr = runAt(t, dir, "run", "ledger", "--target", "sqlite://"+path, "--time", "300ms", "-p", "table=theirs")
	if code != ExitUnsupported || !strings.Contains(stderr, "theirs") {
		t.Fatalf("foreign table: exit %d, want %d; stderr:\n%s", code, ExitUnsupported, stderr)
	}
}

// A failing fault command is recorded with its exit status and output;
// --on-fault-error stop ends the run (exit 5), continue goes on (exit 0).
func TestFailingFaultCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct {
		policy string
		code   int
		status string
	}{{"stop", ExitRunFailed, result.StatusFailed}, {"continue", ExitOK, result.StatusComplete}} {
		t.Run(c.policy, func(t *testing.T) {
			out := filepath.Join(dir, c.policy+".json")
			code, stdout, stderr := runAbs(t, dir, "run", "ledger", "--target", "sqlite://"+filepath.Join(dir, c.policy+".db"),
				"--time", "1s", "--fault", "at=300ms run=echo no such node; exit 3", "--on-fault-error", c.policy, "-o", out)
			if code != c.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, c.code, stderr)
			}
			res, err := result.Read(out)
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != c.status || len(res.Phases) == 0 {
				t.Fatalf("status %s, want %s (%s)", res.Status, c.status, res.Error)
			}
			p := res.Phases[len(res.Phases)-1]
			if len(p.Faults) != 1 {
				t.Fatalf("faults %+v, want one", p.Faults)
			}
			ev := p.Faults[0]
			if ev.Status != "failed" || ev.ExitStatus == nil || *ev.ExitStatus != 3 || ev.Output != "no such node\n" || ev.Start.IsZero() || ev.End.IsZero() {
				t.Errorf("event %+v: want failed, exit 3, its output and its times", ev)
			}
			if !strings.Contains(stdout, "fault 1 failed") || (c.policy == "stop" && !strings.Contains(stderr, "--on-fault-error continue")) {
				t.Errorf("summary or message does not say the fault failed:\n%s\n%s", stdout, stderr)
			}
			if p.Ledger == nil || p.Ledger.Accounting == nil || p.Ledger.Accounting.Lost != 0 || p.Ledger.Accounting.Writes == 0 {
				t.Errorf("ledger %+v: want an accounting with writes and nothing lost", p.Ledger)
			}
		})
	}
}

// commit-loop --ledger accounts for every row: all acknowledged, none
// lost, ids made from (j, i).
func TestCommitLoopLedger(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "cl.json")
	code, stdout, stderr := runAt(t, dir, "run", "commit-loop", "--rows", "200", "--jobs", "2", "--ledger",
		"--target", "sqlite://"+filepath.Join(dir, "cl.db"), "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	res, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	l := res.Phases[len(res.Phases)-1].Ledger
	if l == nil || l.Accounting == nil {
		t.Fatalf("no ledger accounting: %+v\n%s", l, stdout)
	}
	a := l.Accounting
	if a.Writes != 400 || a.Acknowledged != 400 || a.Lost != 0 || a.Unrecorded != 0 || a.Duplicates != 0 {
		t.Errorf("accounting %+v: want 400 acknowledged writes, all found", a)
	}
	if _, err := os.Stat(filepath.Join(dir, l.Dir, "ledger-w00001.cdl")); err != nil {
		t.Errorf("ledger file of worker 1: %v", err)
	}
	if !strings.Contains(stdout, "ledger: 400 writes: 400 acknowledged") {
		t.Errorf("summary lacks the ledger line:\n%s", stdout)
	}
}

// load takes none of the run's fault flags and is not refused for them.
func TestLoadUnaffectedByFaultFlags(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	code, _, stderr := runAt(t, dir, "load", "ycsb/a", "--target", "sqlite://"+filepath.Join(dir, "l.db"), "-p", "recordcount=50", "-q")
	if code != 0 {
		t.Fatalf("load: exit %d: %s", code, stderr)
	}
}

// A fault command's URLs and passwords do not reach the result, its
// ledger's faults.jsonl or the summary.
func TestFaultSecretsRedacted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "s.json")
	code, stdout, stderr := runAt(t, dir, "run", "ledger", "--target", "sqlite://"+filepath.Join(dir, "s.db"), "--time", "1s",
		"--fault", "at=200ms run=echo postgres://u:s3cr3t@h/db PGPASSWORD=hunter2; exit 1", "-o", out)
	if code != ExitRunFailed {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, f := range []string{out, filepath.Join(dir, "s.ledger", "faults.jsonl")} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), "s3cr3t") || strings.Contains(string(data), "hunter2") {
			t.Errorf("%s holds a secret of the fault's command:\n%s", f, data)
		}
	}
	if strings.Contains(stdout+stderr, "s3cr3t") || strings.Contains(stdout+stderr, "hunter2") {
		t.Errorf("output holds a secret:\n%s\n%s", stdout, stderr)
	}
}

// On the null target, which keeps no rows, a ledger run ends at once and
// says why it has no accounting (it once waited out --recovery-timeout).
func TestLedgerOnNullTarget(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	t0 := time.Now()
	code, stdout, stderr := runAt(t, dir, "run", "ledger", "--target", "null://", "--time", "500ms", "-o", filepath.Join(dir, "n.json"))
	if code != 0 || time.Since(t0) > 10*time.Second || !strings.Contains(stdout, "ledger: no accounting: the null target keeps no rows") {
		t.Errorf("exit %d after %v:\n%s\n%s", code, time.Since(t0), stdout, stderr)
	}
}
