package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/tables"
	"github.com/candor-bench/candor/internal/target"
)

// lockedBuffer is an output read while the command still writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// mainAbs runs the CLI without changing directory, for commands given
// absolute paths only (--target, -o), so several may run at once.
func mainAbs(sig <-chan os.Signal, stdout, stderr *lockedBuffer, args ...string) int {
	env := &Env{Stdout: stdout, Stderr: stderr, Getenv: func(string) string { return "" }, Signals: sig, Args: append([]string{"candor"}, args...)}
	return Main(env, args)
}

// tableTargets are SQLite, and PostgreSQL and MariaDB when their test URLs
// are set, each with a table name of the test's own.
func tableTargets(t *testing.T) map[string]string {
	return integrationTargets(t)
}

func markOf(t *testing.T, url, table string) tables.Mark {
	t.Helper()
	var m tables.Mark
	withConn(t, url, func(ctx context.Context, tgt target.Target, c target.Conn) {
		raw, ok, err := target.TableOwner(ctx, c, tgt.Dialect(), table)
		if err != nil || !ok {
			t.Fatalf("mark of %s: %v %v", table, ok, err)
		}
		m = tables.Parse(raw)
	})
	return m
}

func opErrors(p result.Phase) int64 {
	var n int64
	for _, o := range p.Ops {
		for _, e := range o.Errors {
			n += e
		}
	}
	return n
}

func readResult(t *testing.T, path string) *result.Result {
	t.Helper()
	res, err := result.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// Items 1 and 8 of issue 26: a load that did not finish (a crash leaves
// its table marked "loading", with part of the rows) is refused by
// --load never and by load, and reloaded, not measured, by a run.
func TestUnfinishedLoadIsReloaded(t *testing.T) {
	for name, url := range tableTargets(t) {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			table := "tables_unfinished_" + name
			props := []string{"-p", "table=" + table, "-p", "recordcount=2000"}
			runCLI(t, dir, nil, append([]string{"cleanup", "ycsb", "--target", url, "-q"}, props...)...)
			defer runCLI(t, dir, nil, append([]string{"cleanup", "ycsb", "--target", url, "-q"}, props...)...)
			if code, _, stderr := runCLI(t, dir, nil, append([]string{"load", "ycsb", "--target", url, "-q"}, props...)...); code != 0 {
				t.Fatalf("load: %d %s", code, stderr)
			}
			if m := markOf(t, url, table); m.State != tables.StateLoaded || m.KeysText() != "2000 records (0..1999)" {
				t.Fatalf("mark after the load: %q", m.Raw)
			}
			// The crash: most rows gone, the mark as a load leaves it
			// before it finishes.
			withConn(t, url, func(ctx context.Context, tgt target.Target, c target.Conn) {
				if _, err := c.Exec(ctx, "DELETE FROM "+table+" WHERE ycsb_key > 'user5'"); err != nil {
					t.Fatal(err)
				}
				m := markOf(t, url, table)
				m.State, m.Keys = tables.StateLoading, nil
				if err := target.SetMark(ctx, c, tgt.Dialect(), table, m.String()); err != nil {
					t.Fatal(err)
				}
			})
			run := append([]string{"run", "ycsb/c", "--target", url, "--operations", "2000", "-q"}, props...)
			code, _, stderr := runCLI(t, dir, nil, append(run, "--load", "never", "-o", "never.json")...)
			if code != ExitUnsupported || !strings.Contains(stderr, "unfinished load") {
				t.Errorf("--load never on an unfinished load: exit %d\n%s", code, stderr)
			}
			code, _, stderr = runCLI(t, dir, nil, append([]string{"load", "ycsb", "--target", url, "-q"}, props...)...)
			if code != ExitUnsupported || !strings.Contains(stderr, "unfinished load") || !strings.Contains(stderr, "candor cleanup") || strings.Contains(stderr, "already exists") {
				t.Errorf("load on an unfinished load: exit %d\n%s", code, stderr)
			}
			code, _, stderr = runCLI(t, dir, nil, append(run, "-o", "auto.json")...)
			if code != 0 || !strings.Contains(stderr, "did not finish") {
				t.Fatalf("run on an unfinished load: exit %d\n%s", code, stderr)
			}
			res := readResult(t, filepath.Join(dir, "auto.json"))
			if len(res.Phases) != 2 || res.Phases[0].Name != phaseLoad {
				t.Fatalf("phases %d, first %q: the run did not reload", len(res.Phases), res.Phases[0].Name)
			}
			if n := opErrors(res.Phases[1]); n != 0 {
				t.Errorf("the run after the reload had %d errors", n)
			}
			if n := countRows(t, url, table); n != 2000 {
				t.Errorf("%d rows after the reload", n)
			}
		})
	}
}

// Item 8: a sysbench prepare killed during its load leaves its tables
// marked unfinished: a run reloads them all, a prepare refuses them.
func TestKilledSysbenchPrepare(t *testing.T) {
	dir := t.TempDir()
	url := "sqlite://" + filepath.Join(dir, "s.db")
	opts := []string{"--target", url, "--tables", "2", "--table-size", "1000", "-q"}
	if code, _, stderr := runCLI(t, dir, nil, append([]string{"prepare", "sysbench"}, opts...)...); code != 0 {
		t.Fatalf("prepare: %d %s", code, stderr)
	}
	// The kill: sbtest1 half full, sbtest2 empty, both marked as a load
	// leaves them before it ends.
	withConn(t, url, func(ctx context.Context, tgt target.Target, c target.Conn) {
		for _, q := range []string{"DELETE FROM sbtest1 WHERE id > 500", "DELETE FROM sbtest2"} {
			if _, err := c.Exec(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		for _, table := range []string{"sbtest1", "sbtest2"} {
			m := markOf(t, url, table)
			m.State = tables.StateLoading
			if err := target.SetMark(ctx, c, tgt.Dialect(), table, m.String()); err != nil {
				t.Fatal(err)
			}
		}
	})
	code, _, stderr := runCLI(t, dir, nil, append([]string{"prepare", "sysbench"}, opts...)...)
	if code != ExitUnsupported || !strings.Contains(stderr, "unfinished load") || strings.Contains(stderr, "already exists") {
		t.Errorf("prepare on a killed prepare: exit %d\n%s", code, stderr)
	}
	code, _, stderr = runCLI(t, dir, nil, append([]string{"run", "sysbench/oltp_point_select", "--time", "1s", "-o", "r.json"}, opts...)...)
	if code != 0 || strings.Count(stderr, "did not finish") != 2 {
		t.Fatalf("run on a killed prepare: exit %d\n%s", code, stderr)
	}
	for _, table := range []string{"sbtest1", "sbtest2"} {
		if n := countRows(t, url, table); n != 1000 {
			t.Errorf("%s: %d rows after the reload", table, n)
		}
	}
}

// Item 1 with a real interrupt: Ctrl-C during the load of a run leaves the
// table unfinished; the next run reloads it and reads no missing row.
func TestInterruptedLoadThenRun(t *testing.T) {
	dir := t.TempDir()
	url := "sqlite://" + filepath.Join(dir, "c.db")
	props := []string{"-p", "recordcount=150000"}
	sig := make(chan os.Signal, 1)
	var out, errb lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- mainAbs(sig, &out, &errb, append([]string{"run", "ycsb/c", "--target", url, "--time", "1s", "-o", filepath.Join(dir, "first.json")}, props...)...)
	}()
	waitRows := time.Now().Add(30 * time.Second)
	for !strings.Contains(errb.String(), "load") && time.Now().Before(waitRows) {
		time.Sleep(5 * time.Millisecond)
	}
	sig <- os.Interrupt
	if code := <-done; code != ExitInterrupted {
		t.Fatalf("interrupted run: exit %d\n%s", code, errb.String())
	}
	m := markOf(t, url, "usertable")
	if m.Loaded() {
		t.Skipf("the load finished before the interrupt (mark %q)", m.Raw)
	}
	code, _, stderr := runCLI(t, dir, nil, append([]string{"run", "ycsb/c", "--target", url, "--operations", "5000", "-q", "-o", "second.json"}, props...)...)
	if code != 0 || !strings.Contains(stderr, "did not finish") {
		t.Fatalf("second run: exit %d\n%s", code, stderr)
	}
	res := readResult(t, filepath.Join(dir, "second.json"))
	if n := opErrors(res.Phases[len(res.Phases)-1]); n != 0 {
		t.Errorf("the second run measured %d errors (a half-loaded table)", n)
	}
}

// Item 9: a run whose records the table does not hold (recordcount
// grew) reloads with --load auto, and is refused with --load never.
func TestYCSBRecordcountChangeReloads(t *testing.T) {
	for name, url := range tableTargets(t) {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			table := "tables_rc_" + name
			tbl := []string{"-p", "table=" + table}
			runCLI(t, dir, nil, append([]string{"cleanup", "ycsb", "--target", url, "-q"}, tbl...)...)
			defer runCLI(t, dir, nil, append([]string{"cleanup", "ycsb", "--target", url, "-q"}, tbl...)...)
			if code, _, stderr := runCLI(t, dir, nil, append([]string{"load", "ycsb", "--target", url, "-q", "-p", "recordcount=1000"}, tbl...)...); code != 0 {
				t.Fatalf("load: %d %s", code, stderr)
			}
			run := append([]string{"run", "ycsb/c", "--target", url, "--operations", "3000", "-q", "-p", "recordcount=5000"}, tbl...)
			if code, _, stderr := runCLI(t, dir, nil, append(run, "--load", "never", "-o", "never.json")...); code != ExitUnsupported || !strings.Contains(stderr, "needs records 0..4999") {
				t.Errorf("--load never: exit %d\n%s", code, stderr)
			}
			code, _, stderr := runCLI(t, dir, nil, append(run, "-o", "auto.json")...)
			if code != 0 || !strings.Contains(stderr, "dropping and reloading") {
				t.Fatalf("--load auto: exit %d\n%s", code, stderr)
			}
			res := readResult(t, filepath.Join(dir, "auto.json"))
			if n := opErrors(res.Phases[len(res.Phases)-1]); n != 0 {
				t.Errorf("%d errors after the reload", n)
			}
			if n := countRows(t, url, table); n != 5000 {
				t.Errorf("%d rows after the reload, want 5000", n)
			}
			// A field option is part of the data: reloaded too.
			code, _, stderr = runCLI(t, dir, nil, append(run, "-p", "fieldlength=10", "-o", "len.json")...)
			if code != 0 || !strings.Contains(stderr, "dropping and reloading") {
				t.Errorf("fieldlength change: exit %d\n%s", code, stderr)
			}
		})
	}
}

// Item 2: commit-loop's table is created anew before each repetition:
// three clean repetitions.
func TestCommitLoopRepeatIsClean(t *testing.T) {
	for name, url := range tableTargets(t) {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			code, _, stderr := runCLI(t, dir, nil, "run", "commit-loop", "--target", url, "--rows", "300", "--repeat", "3", "-q", "-o", "r.json")
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			defer runCLI(t, dir, nil, "cleanup", "commit-loop", "--target", url, "-q")
			res := readResult(t, filepath.Join(dir, "r.json"))
			var reps int
			for _, p := range res.Phases {
				if p.Name != phaseRun {
					continue
				}
				reps++
				if p.Status != result.StatusComplete || p.Operations != 300 || opErrors(p) != 0 {
					t.Errorf("repetition %d: status %s, %d operations, %d errors", p.Repetition, p.Status, p.Operations, opErrors(p))
				}
			}
			if reps != 3 || res.Repetitions == nil {
				t.Errorf("%d repetitions, statistics %v", reps, res.Repetitions != nil)
			}
		})
	}
}

// Item 14: two concurrent `run --load always` on one table: the second
// waits for the first (its load and its run) and neither measures a
// table dropped under it.
func TestConcurrentLoadAlwaysIsSerialised(t *testing.T) {
	for name, url := range tableTargets(t) {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			table := "tables_conc_" + name
			props := []string{"-p", "table=" + table, "-p", "recordcount=3000"}
			defer runCLI(t, dir, nil, append([]string{"cleanup", "ycsb", "--target", url, "-q"}, props...)...)
			var wg sync.WaitGroup
			codes := make([]int, 2)
			errs := make([]*lockedBuffer, 2)
			for i := range 2 {
				errs[i] = &lockedBuffer{}
				wg.Add(1)
				go func() {
					defer wg.Done()
					codes[i] = mainAbs(nil, &lockedBuffer{}, errs[i], append([]string{"run", "ycsb/a", "--target", url, "--load", "always", "--time", "1s", "--threads", "2",
						"-o", filepath.Join(dir, "r"+string(rune('0'+i))+".json")}, props...)...)
				}()
			}
			wg.Wait()
			waited := false
			for i := range 2 {
				if codes[i] != 0 {
					t.Fatalf("run %d: exit %d\n%s", i, codes[i], errs[i].String())
				}
				waited = waited || strings.Contains(errs[i].String(), "waiting for table "+table)
				res := readResult(t, filepath.Join(dir, "r"+string(rune('0'+i))+".json"))
				if n := opErrors(res.Phases[len(res.Phases)-1]); n != 0 {
					t.Errorf("run %d: %d errors (its table dropped under it?)\n%s", i, n, errs[i].String())
				}
			}
			if !waited {
				t.Error("neither run said it waited for the other")
			}
		})
	}
}

// Item 10: an --out that cannot be written is refused before anything
// runs or is created.
func TestOutCheckedBeforeTheRun(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "adir"), 0o755)
	os.WriteFile(filepath.Join(dir, "afile"), nil, 0o644)
	for _, c := range []struct{ out, want string }{
		{"adir", "is a directory"},
		{"afile/r.json", "cannot create directory afile"},
	} {
		code, _, stderr := runCLI(t, dir, nil, "run", "ycsb/c", "--time", "1s", "-q", "-o", c.out)
		if code != ExitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("-o %s: exit %d\n%s", c.out, code, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "candor.db")); err == nil {
		t.Error("the refused runs opened the database")
	}
}

// Item 10: a result that cannot be written at the end still prints the
// summary, keeps the side file and exits ExitResultNotWritten.
func TestResultNotWritten(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	var stdout, stderr lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- mainAbs(nil, &stdout, &stderr, "run", "ycsb/c", "--target", "sqlite://"+filepath.Join(dir, "c.db"), "-p", "recordcount=100",
			"--time", "1500ms", "-o", out)
	}()
	side := result.IntervalsPath(out)
	for end := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(side); err == nil {
			break
		}
		if time.Now().After(end) {
			t.Fatal("no side file")
		}
	}
	// Something takes the result's path during the run: the rename fails.
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	code := <-done
	if code != ExitResultNotWritten {
		t.Fatalf("exit %d, want %d\n%s", code, ExitResultNotWritten, stderr.String())
	}
	if !strings.Contains(stdout.String(), "ycsb/c run: complete") || !strings.Contains(stderr.String(), "could not be written") {
		t.Errorf("no summary or no reason:\n%s\n%s", stdout.String(), stderr.String())
	}
	if rec, err := result.Recover(side); err != nil || len(rec.Phases) == 0 {
		t.Errorf("the side file does not hold the run: %v", err)
	}
}

// Item 15: sysbench's "Dropping table" line is printed only before a drop
// candor does, not before refusing a table it did not create.
func TestSysbenchCleanupForeignSaysNoDrop(t *testing.T) {
	dir := t.TempDir()
	url := "sqlite://" + filepath.Join(dir, "s.db")
	withConn(t, url, func(ctx context.Context, _ target.Target, c target.Conn) {
		if _, err := c.Exec(ctx, "CREATE TABLE sbtest1 (id INTEGER PRIMARY KEY)"); err != nil {
			t.Fatal(err)
		}
	})
	code, stdout, stderr := runCLI(t, dir, nil, "cleanup", "sysbench", "--target", url, "--format", "sysbench")
	if code != ExitUnsupported {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if strings.Contains(stdout, "Dropping table 'sbtest1'") {
		t.Errorf("said it drops a table it refuses to drop:\n%s", stdout)
	}
}
