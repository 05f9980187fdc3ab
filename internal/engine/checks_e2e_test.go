package engine

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/result/resulttest"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/target/targettest"
	"github.com/candor-bench/candor/internal/testutil/oracle"
	"github.com/candor-bench/candor/internal/testutil/pgcluster"
	"github.com/candor-bench/candor/internal/workload"
	"github.com/candor-bench/candor/internal/workload/bank"
	_ "github.com/candor-bench/candor/internal/workload/ycsb"
)

// nonAtomicBank is bank whose transfers commit their two writes in two
// transactions (bank.MakeNonAtomic): a broken transfer for the checks to
// catch. Registered for these tests only.
const nonAtomicBank = "bank-nonatomic-test"

func init() {
	workload.Register(workload.Entry{Name: nonAtomicBank, New: func(_ string, files, props []string) (workload.Workload, error) {
		w, err := bank.New(files, props)
		if err != nil {
			return nil, err
		}
		w.MakeNonAtomic()
		return w, nil
	}})
}

// failedChecks lists the names of the failed checks of res.
func failedChecks(res *result.Result) []string {
	var out []string
	for _, c := range res.Checks {
		if !c.Passed {
			out = append(out, c.Name+" ("+c.When+")")
		}
	}
	return out
}

// sumOracle is the accounts and total balance of table read by the test's
// own connection (none for SQLite: no oracle driver).
func sumOracle(t *testing.T, url, table string) (rows, sum int64, ok bool) {
	if strings.HasPrefix(url, "sqlite") {
		return 0, 0, false
	}
	o := oracle.Open(t, url)
	return o.Ints(t, "SELECT count(*) FROM "+table)[0], o.Ints(t, "SELECT COALESCE(sum(balance), 0) FROM "+table)[0], true
}

// TestBankInvariantHolds: bank under both locking modes on every real
// target keeps its total (candor's checks during and after the run pass,
// and the test's own sum agrees), and the run's retries and aborts come
// from the runner.
func TestBankInvariantHolds(t *testing.T) {
	t.Parallel()
	for name, url := range targettest.RealTargets(t, true) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, locking := range []string{"pessimistic", "optimistic"} {
				opts := []string{"accounts=50", "hot-accounts=5", "locking=" + locking, "table=bank_ok"}
				cleanupE2E(t, url, "bank", opts...)
				out := filepath.Join(t.TempDir(), locking+".json")
				s := specFor(PhaseRun, "bank", url, out)
				s.Options, s.Threads, s.Duration, s.ReportInterval = opts, ptr(4), ptr(2*time.Second), ptr(300*time.Millisecond)
				s.Retries = ptr(1000) // SQLite's optimistic transfers conflict often: no abort for this test
				r := runE2E(t, s)
				if r.code != 0 {
					t.Fatalf("%s: exit %d\n%s", locking, r.code, r.stderr)
				}
				res := resulttest.Read(t, out)
				if res.Status != result.StatusComplete || len(failedChecks(res)) > 0 {
					t.Fatalf("%s: status %s, failed checks %v", locking, res.Status, failedChecks(res))
				}
				var during, after bool
				for _, c := range res.Checks {
					during = during || c.When == "during run" && c.Name == "total balance"
					after = after || c.When == "after run" && c.Name == "total balance"
				}
				if !during || !after || len(res.Phases[len(res.Phases)-1].IntervalChecks) < 2 {
					t.Errorf("%s: checks %+v, interval checks %d: want the total checked during and after the run", locking, res.Checks, len(res.Phases[len(res.Phases)-1].IntervalChecks))
				}
				if rows, sum, ok := sumOracle(t, url, "bank_ok"); ok && (rows != 50 || sum != 50*10000) {
					t.Errorf("%s: the test's own count: %d accounts, total %d; want 50 and 500000", locking, rows, sum)
				}
			}
		})
	}
}

// TestBankNonAtomicTransfersFail: transfers that commit their two writes
// separately leave the money in neither account between the commits; the
// snapshots taken during the run see it, the result is check_failed and the
// run exits 5, even when every transfer completed and the total after the
// run is whole again.
func TestBankNonAtomicTransfersFail(t *testing.T) {
	t.Parallel()
	for name, url := range targettest.RealTargets(t, true) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			opts := []string{"accounts=100", "distribution=uniform", "table=bank_split"}
			cleanupE2E(t, url, nonAtomicBank, opts...)
			out := filepath.Join(t.TempDir(), "split.json")
			s := specFor(PhaseRun, nonAtomicBank, url, out)
			s.Options, s.Threads, s.Duration, s.ReportInterval = opts, ptr(6), ptr(3*time.Second), ptr(100*time.Millisecond)
			s.Retries = ptr(1000)
			r := runE2E(t, s)
			if r.code != ExitRunFailed {
				t.Fatalf("exit %d, want %d\n%s", r.code, ExitRunFailed, r.stderr)
			}
			res := resulttest.Read(t, out)
			if res.Status != result.StatusCheckFailed || !strings.Contains(res.Error, "total balance (during run)") {
				t.Fatalf("status %s (%s), failed checks %v; want check_failed on the total during the run", res.Status, res.Error, failedChecks(res))
			}
			var seen bool
			for _, ic := range res.Phases[len(res.Phases)-1].IntervalChecks {
				seen = seen || ic.Name == "total balance" && !ic.Passed
			}
			if !seen {
				t.Error("no interval check recorded the total's change")
			}
			// A transfer cut by the run's end between its two commits may
			// leave the total short: the check after the run says so
			// exactly when the test's own sum does.
			if _, sum, ok := sumOracle(t, url, "bank_split"); ok {
				after := true
				for _, c := range res.Checks {
					if c.Name == "total balance" && c.When == "after run" {
						after = c.Passed
					}
				}
				if after != (sum == 100*10000) {
					t.Errorf("the test's own total after the run is %d (want 1000000), and candor's check after the run passed: %t", sum, after)
				}
			}
		})
	}
}

// TestCheckCatchesWhatATestBreaks: sysbench's duplicate-id check fails on
// a table where the test duplicated an id with plain SQL (after dropping
// the primary key), YCSB's row count check passes after a run and fails
// after the test deletes a row, and candor check refuses a table candor did
// not create.
func TestCheckCatchesWhatATestBreaks(t *testing.T) {
	t.Parallel()
	for name, url := range targettest.RealTargets(t, true) {
		if name == "sqlite" {
			continue // the oracle and ALTER TABLE ... DROP PRIMARY KEY are the servers'
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			o := oracle.Open(t, url)

			// sysbench: ids checked after the prepare, then one duplicated.
			sb := []string{"tables=1", "table-size=200"}
			cleanupE2E(t, url, "sysbench", sb...)
			prep := specFor(PhaseLoad, "sysbench", url, filepath.Join(dir, "prep.json"))
			prep.Options, prep.Check = sb, true
			if r := runE2E(t, prep); r.code != 0 {
				t.Fatalf("prepare --check: exit %d\n%s", r.code, r.stderr)
			}
			if f := failedChecks(resulttest.Read(t, filepath.Join(dir, "prep.json"))); len(f) > 0 {
				t.Fatalf("prepare: failed checks %v", f)
			}
			if name == "postgres" {
				o.Exec(t, "ALTER TABLE sbtest1 DROP CONSTRAINT sbtest1_pkey")
			} else {
				o.Exec(t, "ALTER TABLE sbtest1 MODIFY id INTEGER NOT NULL", "ALTER TABLE sbtest1 DROP PRIMARY KEY")
			}
			o.Exec(t, "INSERT INTO sbtest1 (id, k, c, pad) SELECT id, k, c, pad FROM sbtest1 WHERE id = 7")
			if n := o.Ints(t, "SELECT count(*) - count(DISTINCT id) FROM sbtest1")[0]; n != 1 {
				t.Fatalf("the test's own count: %d duplicates, want 1", n)
			}
			checks, code := checkAlone(t, url, "sysbench", sb...)
			if name != "postgres" {
				// MariaDB rebuilds a table on ALTER TABLE ... DROP PRIMARY
				// KEY: a new create time (whole seconds), so unless the
				// rebuild fell in the second of the load the table is no
				// longer the one candor created (docs/TABLES.md) and check
				// refuses it; else it finds the duplicate.
				if code != ExitUnsupported && (code != ExitRunFailed || !failed(checks, "sbtest1: no duplicate ids", 1)) {
					t.Errorf("candor check sysbench of a table rebuilt by ALTER: exit %d, checks %+v; want a refusal (exit %d) or the duplicate (exit 5, 1 offending)", code, checks, ExitUnsupported)
				}
			} else if code != ExitRunFailed || !failed(checks, "sbtest1: no duplicate ids", 1) {
				t.Errorf("candor check sysbench after a duplicate: exit %d, checks %+v; want exit 5 and 1 offending", code, checks)
			}

			// YCSB: exact after a run with inserts, short of one after a delete.
			y := []string{"recordcount=300", "table=usertable_chk"}
			cleanupE2E(t, url, "ycsb/d", y...)
			out := filepath.Join(dir, "ycsb.json")
			run := specFor(PhaseRun, "ycsb/d", url, out, y...)
			run.Threads, run.Operations, run.Check = ptr(3), ptr(int64(1500)), true
			if r := runE2E(t, run); r.code != 0 {
				t.Fatalf("ycsb/d --check: exit %d\n%s", r.code, r.stderr)
			}
			res := resulttest.Read(t, out)
			var inserts int64
			for _, op := range res.Phases[len(res.Phases)-1].Ops {
				if op.Name == "INSERT" {
					inserts = op.Done
				}
			}
			rows := o.Ints(t, "SELECT count(*) FROM usertable_chk")[0]
			if len(failedChecks(res)) > 0 || inserts == 0 || rows != 300+inserts {
				t.Fatalf("ycsb/d: failed checks %v; the test's own count %d rows for 300 loaded + %d inserts", failedChecks(res), rows, inserts)
			}
			// A row deleted by the test while a run of workload C (reads
			// only) goes on: its count after the run is one short.
			c := specFor(PhaseRun, "ycsb/c", url, filepath.Join(dir, "c.json"), y...)
			c.Duration, c.Check, c.MaxErrorRate = ptr(10*time.Second), true, 1
			// The delete waits for the run's first measured interval: its
			// line in the side file ("kind":"interval"; the header before
			// it names the phase already, and a delete sent then came
			// before the run's count of the rows before it). A fixed
			// sleep missed the run, or outlived the test and raced its
			// cleanup, on a loaded machine; the test waits for it. The 9 s
			// left after the first interval let the delete commit before
			// the check counts at the end, beside two CPU hogs too.
			deleted := make(chan struct{})
			go func() {
				defer close(deleted)
				side := result.IntervalsPath(filepath.Join(dir, "c.json"))
				for end := time.Now().Add(3 * time.Minute); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
					if b, _ := os.ReadFile(side); strings.Contains(string(b), `"kind":"interval"`) {
						break
					}
				}
				oracle.Open(t, url).Exec(t, "DELETE FROM usertable_chk WHERE ycsb_key IN (SELECT * FROM (SELECT ycsb_key FROM usertable_chk ORDER BY ycsb_key LIMIT 1) AS one)")
			}()
			r := runE2E(t, c)
			<-deleted
			resC := resulttest.Read(t, filepath.Join(dir, "c.json"))
			if r.code != ExitRunFailed || resC.Status != result.StatusCheckFailed || !strings.Contains(resC.Error, "1 row(s) missing") {
				t.Errorf("ycsb/c --check with a row deleted during the run: exit %d, status %s (%s); want exit 5, check_failed, 1 row missing\n%s\nchecks %+v", r.code, resC.Status, resC.Error, r.stderr, resC.Checks)
			}
			if n := o.Ints(t, "SELECT count(*) FROM usertable_chk")[0]; n != 300+inserts-1 {
				t.Errorf("the test's own count %d, want %d", n, 300+inserts-1)
			}

			// A table candor did not create is refused.
			cleanupE2E(t, url, "bank", "table=bank_foreign")
			o.Exec(t, "CREATE TABLE bank_foreign (id BIGINT PRIMARY KEY, balance BIGINT NOT NULL)")
			t.Cleanup(func() { o.Exec(t, "DROP TABLE IF EXISTS bank_foreign") })
			if _, code := checkAlone(t, url, "bank", "table=bank_foreign"); code != ExitUnsupported {
				t.Errorf("candor check on a foreign table: exit %d, want %d", code, ExitUnsupported)
			}
		})
	}
}

// checkAlone runs candor check's engine part on url.
func checkAlone(t *testing.T, url, wl string, props ...string) ([]result.DataCheck, int) {
	t.Helper()
	w, err := ResolveWorkload(io.Discard, wl, nil, props)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tgt, err := OpenBoundConns(ctx, []string{url}, target.Options{ConnectTimeout: target.DefaultConnectTimeout}, w, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer tgt.Close()
	checks, err := CheckTables(ctx, tgt, w, CheckRequest{Stdout: io.Discard, Stderr: io.Discard})
	var ee *Error
	if err != nil && !errors.As(err, &ee) {
		t.Logf("check: %v", err)
	}
	return checks, Code(err)
}

func failed(checks []result.DataCheck, name string, offending int64) bool {
	for _, c := range checks {
		if c.Name == name {
			return !c.Passed && c.Offending == offending
		}
	}
	return false
}

// TestIndexBuiltDuringWrites: an index built by a sql= fault while
// sysbench writes is checked against its table after the run: on
// PostgreSQL with amcheck (CREATE INDEX CONCURRENTLY), on MariaDB and
// SQLite by counting through it and without it. A CREATE UNIQUE INDEX
// CONCURRENTLY that fails (k repeats) leaves an invalid index, which fails
// the check; the test's own catalog query agrees.
func TestIndexBuiltDuringWrites(t *testing.T) {
	t.Parallel()
	for name, url := range targettest.RealTargets(t, true) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			sb := []string{"tables=1", "table-size=2000"}
			cleanupE2E(t, url, "sysbench", sb...)
			build := "CREATE INDEX c_during ON sbtest1 (c)"
			if name == "postgres" {
				build = "CREATE INDEX CONCURRENTLY c_during ON sbtest1 (c)"
			}
			out := filepath.Join(dir, "run.json")
			s := specFor(PhaseRun, "sysbench/oltp_write_only", url, out)
			s.Options, s.Threads, s.Duration, s.Check = sb, ptr(2), ptr(2*time.Second), true
			s.Faults = []string{"at=500ms sql=" + build}
			if name == "sqlite" {
				// One writer at a time: the build waits for the writers'
				// lock, which one worker leaves it between transactions.
				s.Threads, s.Duration = ptr(1), ptr(4*time.Second)
			}
			if r := runE2E(t, s); r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			res := resulttest.Read(t, out)
			var checked bool
			for _, c := range res.Checks {
				checked = checked || c.Name == "index c_during of sbtest1" && c.Passed
			}
			if !checked || res.Phases[len(res.Phases)-1].Faults[0].Status != "done" {
				t.Fatalf("checks %+v, faults %+v: want c_during built and checked", res.Checks, res.Phases[len(res.Phases)-1].Faults)
			}
			if name != "postgres" {
				return
			}
			o := oracle.Open(t, url)
			s.Out = filepath.Join(dir, "bad.json")
			s.Faults, s.OnFaultError = []string{"at=500ms sql=CREATE UNIQUE INDEX CONCURRENTLY k_unique ON sbtest1 (k)"}, "continue"
			r := runE2E(t, s)
			if n := o.Ints(t, "SELECT count(*) FROM pg_index WHERE indexrelid = 'k_unique'::regclass AND NOT indisvalid")[0]; n != 1 {
				t.Fatalf("the catalog says %d invalid k_unique, want 1 (a failed unique build)", n)
			}
			res = resulttest.Read(t, s.Out)
			if r.code != ExitRunFailed || res.Status != result.StatusCheckFailed || !strings.Contains(res.Error, "index k_unique of sbtest1") {
				t.Errorf("exit %d, status %s (%s): want check_failed naming k_unique", r.code, res.Status, res.Error)
			}
		})
	}
}

// TestBankChecksAfterFailover: bank under --target-role primary on a
// cluster with a synchronous standby, the primary killed at 2 s and the
// standby promoted at 3 s: the workers follow the promoted node, the checks
// after the run are made there (the old primary is dead), and the total
// holds: no acknowledged transfer is lost. The test's own sum on the
// promoted node agrees.
func TestBankChecksAfterFailover(t *testing.T) {
	t.Parallel()
	sh := pgcluster.Script(t)
	dir, urls := pgcluster.Start(t, sh, "--standbys", "1", "--sync", "one")
	out := filepath.Join(t.TempDir(), "bank.json")
	s := specFor(PhaseRun, "bank", "", out)
	s.Targets, s.TargetRole, s.Check = urls[:2], RolePrimary, true
	s.Options = []string{"accounts=100", "locking=optimistic"}
	s.Threads, s.Duration, s.MaxErrorRate, s.Retries = ptr(4), ptr(6*time.Second), 0.5, ptr(1000)
	s.Faults = []string{"at=2s run=" + sh + " kill " + dir + " 0", "at=3s run=" + sh + " promote " + dir + " 1"}
	s.MaxUnavailable = 0 // a fail-over killed on purpose, long for a short run
	r := runE2E(t, s)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	res := resulttest.Read(t, out)
	var after bool
	for _, c := range res.Checks {
		after = after || c.When == "after run" && c.Name == "total balance" && c.Passed
	}
	if !after || len(failedChecks(res)) > 0 {
		t.Fatalf("checks %+v: want the total whole after the fail-over", res.Checks)
	}
	if _, sum, _ := sumOracle(t, urls[1], "bank_accounts"); sum != 100*10000 {
		t.Errorf("the test's own total on the promoted node: %d, want 1000000", sum)
	}
}
