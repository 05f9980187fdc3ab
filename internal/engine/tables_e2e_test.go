package engine

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/result/resulttest"
	"github.com/candor-bench/candor/internal/tables"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/target/targettest"
)

// Items 1 and 8 of issue 26: a load that did not finish (a crash leaves
// its table marked "loading", with part of the rows) is refused by
// --load never and by load, and reloaded, not measured, by a run.
func TestUnfinishedLoadIsReloaded(t *testing.T) {
	t.Parallel()
	for name, url := range targettest.RealTargets(t, false) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			table := targettest.TableName("tables_unfinished_" + name)
			props := []string{"table=" + table, "recordcount=2000"}
			defer cleanupE2E(t, url, "ycsb", props...)
			load := specFor(PhaseLoad, "ycsb", url, filepath.Join(dir, "load.json"), props...)
			if r := runE2E(t, load); r.code != 0 {
				t.Fatalf("load: %d %s", r.code, r.stderr)
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
			run := specFor(PhaseRun, "ycsb/c", url, filepath.Join(dir, "never.json"), props...)
			run.Operations, run.Load = ptr(int64(2000)), "never"
			if r := runE2E(t, run); r.code != ExitUnsupported || !strings.Contains(r.stderr, "unfinished load") {
				t.Errorf("--load never on an unfinished load: exit %d\n%s", r.code, r.stderr)
			}
			load.Out = filepath.Join(dir, "load2.json")
			if r := runE2E(t, load); r.code != ExitUnsupported || !strings.Contains(r.stderr, "unfinished load") || !strings.Contains(r.stderr, "candor cleanup") || strings.Contains(r.stderr, "already exists") {
				t.Errorf("load on an unfinished load: exit %d\n%s", r.code, r.stderr)
			}
			run.Load, run.Out = DefaultLoad, filepath.Join(dir, "auto.json")
			if r := runE2E(t, run); r.code != 0 || !strings.Contains(r.stderr, "did not finish") {
				t.Fatalf("run on an unfinished load: exit %d\n%s", r.code, r.stderr)
			}
			res := resulttest.Read(t, run.Out)
			if len(res.Phases) != 2 || res.Phases[0].Name != PhaseLoad {
				t.Fatalf("phases %d, first %q: the run did not reload", len(res.Phases), res.Phases[0].Name)
			}
			if n := resulttest.FailedAttempts(res.Phases[1]); n != 0 {
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
	t.Parallel()
	dir := t.TempDir()
	url := "sqlite://" + filepath.Join(dir, "s.db")
	opts := []string{"tables=2", "table-size=1000"}
	prep := specFor(PhaseLoad, "sysbench", url, filepath.Join(dir, "p.json"))
	prep.Options = opts
	if r := runE2E(t, prep); r.code != 0 {
		t.Fatalf("prepare: %d %s", r.code, r.stderr)
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
	prep.Out = filepath.Join(dir, "p2.json")
	if r := runE2E(t, prep); r.code != ExitUnsupported || !strings.Contains(r.stderr, "unfinished load") || strings.Contains(r.stderr, "already exists") {
		t.Errorf("prepare on a killed prepare: exit %d\n%s", r.code, r.stderr)
	}
	run := specFor(PhaseRun, "sysbench/oltp_point_select", url, filepath.Join(dir, "r.json"))
	run.Options, run.Duration = opts, ptr(time.Second)
	if r := runE2E(t, run); r.code != 0 || strings.Count(r.stderr, "did not finish") != 2 {
		t.Fatalf("run on a killed prepare: exit %d\n%s", r.code, r.stderr)
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
	t.Parallel()
	dir := t.TempDir()
	url := "sqlite://" + filepath.Join(dir, "c.db")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var errb lockedBuffer
	first := specFor(PhaseRun, "ycsb/c", url, filepath.Join(dir, "first.json"), "recordcount=150000")
	first.Duration, first.Quiet = ptr(time.Second), false
	done := make(chan ran, 1)
	go func() { done <- runIn(t, ctx, &errb, first) }()
	waitRows := time.Now().Add(30 * time.Second)
	for !strings.Contains(errb.String(), "load") && time.Now().Before(waitRows) {
		time.Sleep(5 * time.Millisecond)
	}
	cancel() // the signal
	if r := <-done; r.code != ExitInterrupted {
		t.Fatalf("interrupted run: exit %d\n%s", r.code, r.stderr)
	}
	m := markOf(t, url, "usertable")
	if m.Loaded() {
		t.Skipf("the load finished before the interrupt (mark %q)", m.Raw)
	}
	second := specFor(PhaseRun, "ycsb/c", url, filepath.Join(dir, "second.json"), "recordcount=150000")
	second.Operations = ptr(int64(5000))
	r := runE2E(t, second)
	if r.code != 0 || !strings.Contains(r.stderr, "did not finish") {
		t.Fatalf("second run: exit %d\n%s", r.code, r.stderr)
	}
	res := resulttest.Read(t, second.Out)
	if n := resulttest.FailedAttempts(res.Phases[len(res.Phases)-1]); n != 0 {
		t.Errorf("the second run measured %d errors (a half-loaded table)", n)
	}
}

// Item 9: a run whose records the table does not hold (recordcount
// grew) reloads with --load auto, and is refused with --load never.
func TestYCSBRecordcountChangeReloads(t *testing.T) {
	t.Parallel()
	for name, url := range targettest.RealTargets(t, false) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			table := targettest.TableName("tables_rc_" + name)
			defer cleanupE2E(t, url, "ycsb", "table="+table)
			if r := runE2E(t, specFor(PhaseLoad, "ycsb", url, filepath.Join(dir, "load.json"), "recordcount=1000", "table="+table)); r.code != 0 {
				t.Fatalf("load: %d %s", r.code, r.stderr)
			}
			run := specFor(PhaseRun, "ycsb/c", url, filepath.Join(dir, "never.json"), "recordcount=5000", "table="+table)
			run.Operations, run.Load = ptr(int64(3000)), "never"
			if r := runE2E(t, run); r.code != ExitUnsupported || !strings.Contains(r.stderr, "needs records 0..4999") {
				t.Errorf("--load never: exit %d\n%s", r.code, r.stderr)
			}
			run.Load, run.Out = DefaultLoad, filepath.Join(dir, "auto.json")
			if r := runE2E(t, run); r.code != 0 || !strings.Contains(r.stderr, "dropping and reloading") {
				t.Fatalf("--load auto: exit %d\n%s", r.code, r.stderr)
			}
			res := resulttest.Read(t, run.Out)
			if n := resulttest.FailedAttempts(res.Phases[len(res.Phases)-1]); n != 0 {
				t.Errorf("%d errors after the reload", n)
			}
			if n := countRows(t, url, table); n != 5000 {
				t.Errorf("%d rows after the reload, want 5000", n)
			}
			// A field option is part of the data: reloaded too.
			run.Properties, run.Out = append(run.Properties, "fieldlength=10"), filepath.Join(dir, "len.json")
			if r := runE2E(t, run); r.code != 0 || !strings.Contains(r.stderr, "dropping and reloading") {
				t.Errorf("fieldlength change: exit %d\n%s", r.code, r.stderr)
			}
		})
	}
}

// Item 2: commit-loop's table is created anew before each repetition:
// three clean repetitions. Its table has a fixed name: PostgreSQL in a
// database of the test's own.
func TestCommitLoopRepeatIsClean(t *testing.T) {
	t.Parallel()
	for name, url := range targettest.RealTargets(t, true) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := specFor(PhaseRun, "commit-loop", url, filepath.Join(t.TempDir(), "r.json"))
			s.Options, s.Repeat = []string{"rows=300"}, 3
			if r := runE2E(t, s); r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			defer cleanupE2E(t, url, "commit-loop")
			res := resulttest.Read(t, s.Out)
			var reps int
			for _, p := range res.Phases {
				if p.Name != PhaseRun {
					continue
				}
				reps++
				if p.Status != result.StatusComplete || p.Operations != 300 || resulttest.FailedAttempts(p) != 0 {
					t.Errorf("repetition %d: status %s, %d operations, %d errors", p.Repetition, p.Status, p.Operations, resulttest.FailedAttempts(p))
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
	t.Parallel()
	for name, url := range targettest.RealTargets(t, false) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			table := targettest.TableName("tables_conc_" + name)
			props := []string{"table=" + table, "recordcount=3000"}
			defer cleanupE2E(t, url, "ycsb", props...)
			var wg sync.WaitGroup
			runs := make([]ran, 2)
			for i := range 2 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					s := specFor(PhaseRun, "ycsb/a", url, filepath.Join(dir, "r"+string(rune('0'+i))+".json"), props...)
					s.Load, s.Duration, s.Threads, s.Quiet = "always", ptr(time.Second), ptr(2), false
					runs[i] = runE2E(t, s)
				}()
			}
			wg.Wait()
			waited := false
			for i := range 2 {
				if runs[i].code != 0 {
					t.Fatalf("run %d: exit %d\n%s", i, runs[i].code, runs[i].stderr)
				}
				waited = waited || strings.Contains(runs[i].stderr, "waiting for table "+table)
				res := resulttest.Read(t, filepath.Join(dir, "r"+string(rune('0'+i))+".json"))
				if n := resulttest.FailedAttempts(res.Phases[len(res.Phases)-1]); n != 0 {
					t.Errorf("run %d: %d errors (its table dropped under it?)\n%s", i, n, runs[i].stderr)
				}
			}
			if !waited {
				t.Error("neither run said it waited for the other")
			}
		})
	}
}
