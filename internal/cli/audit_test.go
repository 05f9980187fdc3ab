package cli

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/candor-bench/candor/internal/result"
)

func fixturePath(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "report", "testdata", "results", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestAuditExitCodes: 0 without an error-level finding, 1 with one, 2 on
// bad input (a missing file, a result of another schema major version).
func TestAuditExitCodes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	v2 := filepath.Join(dir, "v2.json")
	os.WriteFile(v2, []byte(`{"schema": "candor.result/v2", "id": "x"}`), 0o644)
	v10 := filepath.Join(dir, "v10.json")
	os.WriteFile(v10, []byte(`{"schema": "candor.result/v10", "id": "x"}`), 0o644)
	pg, sqlite := fixturePath(t, "ycsb-a-pg-t1.json"), fixturePath(t, "ycsb-a-sqlite-t4.json")
	cases := []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr []string
	}{
		// one result alone: warnings only
		{"one result", []string{"audit", pg}, ExitOK, []string{"Fairness audit", "WARNING short-run", "fix: "}, nil},
		// PostgreSQL flushing per commit against SQLite in WAL/NORMAL
		{"durability across products", []string{"audit", pg, sqlite}, ExitAuditFindings,
			[]string{"ERROR   durability-differs", "flushed locally per commit", "periodic (synchronous=normal, journal_mode=wal)"}, []string{"error-level finding"}},
		{"missing file", []string{"audit", filepath.Join(dir, "nope.json")}, ExitUsage, nil, []string{"nope.json"}},
		{"other schema version", []string{"audit", v2}, ExitUsage, nil, []string{`schema "candor.result/v2"`, "this candor reads candor.result/v1"}},
		{"schema v10 is not v1", []string{"audit", v10}, ExitUsage, nil, []string{`schema "candor.result/v10"`}},
		{"no argument", []string{"audit"}, ExitUsage, nil, []string{"at least one result"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runAbs(t, dir, c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, c.code, out, errOut)
			}
			for _, w := range c.stdout {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
			for _, w := range c.stderr {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errOut)
				}
			}
		})
	}
}

// TestRerunArgs: the recorded command line without what rerun sets, the
// recorded targets without their password, the recorded seed.
func TestRerunArgs(t *testing.T) {
	r := &result.Result{Workload: result.Workload{Seed: 42}, Target: result.Fingerprint{URL: "postgres://u:xxxxx@h:5432/db"}}
	r.Command = []string{"candor", "run", "ycsb/a", "--target", "postgres://u:xxxxx@h:5432/db", "--threads", "4", "-o", "x.json",
		"--repeat=3", "--seed", "7", "-q", "--time", "5s", "-p", "recordcount=100", "--plan-param", "a=b", "--format=json", "--warmup", "2s"}
	got, err := RerunArgs(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"run", "ycsb/a", "--threads", "4", "--time", "5s", "-p", "recordcount=100", "--warmup", "2s", "--target", "postgres://u@h:5432/db", "--seed", "42"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("args\n got %q\nwant %q", got, want)
	}
	// --target given: it replaces the recorded one
	got, _ = RerunArgs(r, []string{"null://"})
	if strings.Join(got, " ") != "run ycsb/a --threads 4 --time 5s -p recordcount=100 --warmup 2s --target null:// --seed 42" {
		t.Errorf("with --target: %q", got)
	}
	// no --target recorded: the fingerprint's URL (the default target)
	r.Command = []string{"candor", "run", "ycsb/a"}
	if got, _ = RerunArgs(r, nil); strings.Join(got, " ") != "run ycsb/a --target postgres://u@h:5432/db --seed 42" {
		t.Errorf("default target: %q", got)
	}
	// refused: another command, a masked secret, a property file not here
	// a sysbench command line: the candor run it ran, loading when needed
	r.Command = []string{"candor", "sysbench", "--db-driver=pgsql", "--pgsql-host=h", "--pgsql-user=u", "--pgsql-password=xxxxx", "--threads=8", "--time=5", "oltp_read_write", "run"}
	got, err = RerunArgs(r, nil)
	if err != nil || strings.Join(got, " ") != "run sysbench/oltp_read_write --time=10 --threads=8 --time=5 --target postgres://u@h:5432/sbtest --seed 42" {
		t.Errorf("sysbench line: %q %v", got, err)
	}
	for _, cmd := range [][]string{
		{"candor", "sysbench", "oltp_read_write", "prepare"},
		{"candor", "run", "ycsb", "-p", "db.passwd=xxxxx"},
		{"candor", "run", "ycsb", "-P", "/nonexistent/workloada"},
		// a result file must never make rerun execute a command
		{"candor", "run", "ycsb", "--fault", "at=1s run=touch /tmp/x"},
		{"candor", "run", "ycsb", "--fault=at=1s run=touch /tmp/x"},
		nil,
	} {
		r.Command = cmd
		if _, err := RerunArgs(r, nil); err == nil {
			t.Errorf("%q: no error", cmd)
		}
	}
}

// TestRerunOnNull: a run on null:// reruns "slower" against a null://
// target that waits 10 ms per statement (one session then serves at most
// 100 of the 1,000 operations per second due), with the recorded seed, options,
// duration and the original's number of repetitions. The reruns of the one
// original run at once (subtests). At 2 ms a statement a machine busy with
// the other tests spread the slow repetitions from 103 to 400 per second,
// too wide for the test to call 3 of them slower.
func TestRerunOnNull(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	at := func(name string) string { return filepath.Join(dir, name) }
	// An open loop at 1,000/s: its throughput is the schedule's, whatever
	// else the machine does (a closed loop on null:// swings by half).
	code, _, errOut := runAbs(t, dir, "run", "ycsb/c", "--target", "null://", "--time", "1s", "--rate", "1000", "--repeat", "3", "-q", "-o", at("orig.json"), "-p", "recordcount=100")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, errOut)
	}
	orig, err := result.Read(at("orig.json"))
	if err != nil {
		t.Fatal(err)
	}
	// The reruns of the one original run at once, as subtests that take no
	// slot of -test.parallel (queued behind the other tests' they made this
	// test one of the package's last).
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() {
		t.Run("slower", func(t *testing.T) {
			code, out, errOut := runAbs(t, dir, "rerun", at("orig.json"), "--target", "null://?latency=10ms", "-o", at("slow.json"))
			if code != 0 {
				t.Fatalf("rerun: exit %d\n%s\n%s", code, out, errOut)
			}
			for _, w := range []string{"verdict: not reproduced: the rerun is significantly slower (throughput -", "95% CI −", "Fairness audit"} {
				if !strings.Contains(out, w) {
					t.Errorf("rerun output lacks %q:\n%s", w, out)
				}
			}
			if !strings.Contains(errOut, "--seed") || !strings.Contains(errOut, "--repeat 3") {
				t.Errorf("rerun's command line (stderr) lacks the recorded seed or the original's 3 repetitions:\n%s", errOut)
			}
			again, err := result.Read(at("slow.json"))
			if err != nil {
				t.Fatal(err)
			}
			if again.Workload.Seed != orig.Workload.Seed || !reflect.DeepEqual(again.Workload.Options, orig.Workload.Options) || again.Run.DurationSec != orig.Run.DurationSec {
				t.Errorf("rerun's configuration differs: seed %d vs %d, duration %v vs %v", again.Workload.Seed, orig.Workload.Seed, again.Run.DurationSec, orig.Run.DurationSec)
			}
		})
	})
	// A failed original is refused before anything runs.
	wg.Go(func() {
		t.Run("failed original", func(t *testing.T) {
			failed := at("failed.json")
			copyFailed, _ := result.Read(at("orig.json"))
			for i := range copyFailed.Phases {
				copyFailed.Phases[i].Status = result.StatusFailed
			}
			copyFailed.Status, copyFailed.Error, copyFailed.Repetitions = result.StatusFailed, "every phase failed", nil
			result.Write(failed, copyFailed)
			if code, _, errOut := runAbs(t, dir, "rerun", failed, "-o", at("never.json")); code != ExitUsage || !strings.Contains(errOut, "no complete run phase") {
				t.Errorf("rerun of a failed result: exit %d\n%s", code, errOut)
			}
			if _, err := os.Stat(at("never.json")); err == nil {
				t.Errorf("a failed original was rerun")
			}
		})
	})
	// Another product is allowed, and the audit says what differs.
	wg.Go(func() {
		t.Run("other product", func(t *testing.T) {
			code, out, errOut := runAbs(t, dir, "rerun", at("orig.json"), "--target", "sqlite://"+at("other.db"), "-o", at("sqlite.json"))
			if code != 0 || !strings.Contains(out, "verdict: ") || !strings.Contains(out, "target-differs") ||
				!strings.Contains(out, "DIFFERS product") || !strings.Contains(out, "B: SQLite") || !strings.Contains(out, "same    candor") {
				t.Errorf("rerun on SQLite: exit %d\n%s\n%s", code, out, errOut)
			}
		})
	})
}

// TestBundleRerunFromCleanDirectory: a bundle holds the report, the
// results, the audit and a README whose rerun command works once the
// bundle is copied to a directory of its own.
func TestBundleRerunFromCleanDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	runs, pubDir := filepath.Join(dir, "runs"), filepath.Join(dir, "pub")
	// An open loop (--rate): a closed loop on null:// would take a core
	// from the tests running beside this one.
	code, _, errOut := runAbs(t, dir, "run", "ycsb/c", "--target", "null://", "--time", "500ms", "--rate", "1000", "--repeat", "2", "-q", "-o", filepath.Join(runs, "c.json"), "-p", "recordcount=100")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, errOut)
	}
	code, _, errOut = runAbs(t, dir, "report", "--bundle", pubDir, runs)
	if code != 0 {
		t.Fatalf("report --bundle: exit %d\n%s", code, errOut)
	}
	for _, f := range []string{"report.html", "audit.txt", "README.md", "results/c.json", "results/c.intervals.jsonl"} {
		if _, err := os.Stat(filepath.Join(pubDir, f)); err != nil {
			t.Errorf("bundle lacks %s: %v", f, err)
		}
	}
	html, _ := os.ReadFile(filepath.Join(pubDir, "report.html"))
	if !strings.Contains(string(html), "Fairness audit") {
		t.Errorf("bundled report has no fairness audit")
	}
	// A second bundle into the same directory is refused.
	if code, _, errOut = runAbs(t, dir, "report", "--bundle", pubDir, runs); code != ExitUsage || !strings.Contains(errOut, "not empty") {
		t.Errorf("bundle over a bundle: exit %d, %s", code, errOut)
	}
	// Copy the bundle elsewhere, alone, and run its README's command there
	// (in a child process: its paths are relative to the bundle).
	clean := t.TempDir()
	if out, err := exec.Command("cp", "-r", pubDir, clean).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	pub := filepath.Join(clean, "pub")
	f, _ := os.Open(filepath.Join(pub, "README.md"))
	defer f.Close()
	var command string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "candor rerun ") {
			command = sc.Text()
		}
	}
	if command == "" {
		t.Fatal("README has no candor rerun command")
	}
	args := strings.Fields(strings.TrimPrefix(command, "candor "))
	code, out, errOut := runChild(t, pub, args...)
	if code != 0 || !strings.Contains(out, "verdict: ") {
		t.Errorf("%s in a clean directory: exit %d\n%s\n%s", command, code, out, errOut)
	}
}

// TestRerunSysbenchLine: a result of a sysbench command line reruns as the
// candor run it was, loading the tables where they are absent.
func TestRerunSysbenchLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base := []string{"sysbench", "--target=sqlite://" + filepath.Join(dir, "sb.db"), "--tables=1", "--table-size=100"}
	if code, _, errOut := runAbs(t, dir, append(base, "--out="+filepath.Join(dir, "prepare.json"), "oltp_point_select", "prepare")...); code != 0 {
		t.Fatalf("prepare: exit %d\n%s", code, errOut)
	}
	sb := filepath.Join(dir, "sb.json")
	// An open loop (--rate): a closed loop on SQLite would take a core from
	// the tests running beside this one.
	if code, _, errOut := runAbs(t, dir, append(base, "--time=1", "--rate=1000", "--out="+sb, "oltp_point_select", "run")...); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, errOut)
	}
	code, out, errOut := runAbs(t, dir, "rerun", sb, "--target", "sqlite://"+filepath.Join(dir, "fresh.db"), "-o", filepath.Join(dir, "again.json"))
	if code != 0 || !strings.Contains(out, "verdict: ") {
		t.Fatalf("rerun: exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "candor run sysbench/oltp_point_select") {
		t.Errorf("rerun's command line:\n%s", errOut)
	}
}
