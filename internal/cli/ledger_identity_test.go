package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/ledger"
	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/testutil/oracle"
	"github.com/candor-bench/candor/internal/testutil/pgcluster"
)

// ledgerURLs are the servers the ledger's identity is tested on: the owner
// row and the writability query differ between PostgreSQL and MariaDB.
func ledgerURLs(t *testing.T) map[string]string {
	urls := map[string]string{}
	if u := os.Getenv("CANDOR_TEST_POSTGRES_URL"); u != "" {
		urls["postgres"] = u
	}
	if u := os.Getenv("CANDOR_TEST_MYSQL_URL"); u != "" {
		urls["mysql"] = u
	}
	if len(urls) == 0 {
		t.Skip("CANDOR_TEST_POSTGRES_URL and CANDOR_TEST_MYSQL_URL unset: no server on this machine (scripts/test.sh sets them)")
	}
	return urls
}

// runLedger runs the ledger workload briefly into out and fails the test
// unless it exits 0.
func runLedger(t *testing.T, work, url, table, out string, extra ...string) {
	t.Helper()
	args := append([]string{"run", "ledger", "--target", url, "-p", "table=" + table, "--threads", "2", "--rate", "200",
		"--time", "1s", "-q", "-o", out}, extra...)
	if code, stdout, stderr := runAbs(t, work, args...); code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// ledgerJSON is a phase's ledger section as the file holds it, to compare
// before and after a verify.
func ledgerJSON(t *testing.T, lr *result.LedgerResult) string {
	t.Helper()
	c := *lr
	c.Verifications = nil
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// verifyRefused runs verify, wants exit 4 with want (or one of its
// "|"-separated alternatives) in its message, and
// the run's accounting in the result untouched with a refused verification
// beside it.
func verifyRefused(t *testing.T, work, out, want string, args ...string) {
	t.Helper()
	before := ledgerJSON(t, runPhaseOf(t, out).Ledger)
	n := len(runPhaseOf(t, out).Ledger.Verifications)
	code, stdout, stderr := runAbs(t, work, append([]string{"ledger", "verify", out}, args...)...)
	said := false
	for _, w := range strings.Split(want, "|") {
		said = said || strings.Contains(stderr, w)
	}
	if code != ExitUnsupported || !said {
		t.Fatalf("verify: exit %d, want %d saying %q\n%s\n%s", code, ExitUnsupported, want, stdout, stderr)
	}
	lr := runPhaseOf(t, out).Ledger
	if after := ledgerJSON(t, lr); after != before {
		t.Errorf("verify changed the run's accounting:\nbefore %s\nafter  %s", before, after)
	}
	if len(lr.Verifications) != n+1 || lr.Verifications[n].Outcome == "verified" {
		t.Errorf("verifications %+v: want one more, not verified", lr.Verifications)
	}
}

// A ledger table is identified by its owner, not its name. verify of an
// earlier run's result is refused once a later run re-created the table
// (it reported the later run's rows against the earlier ledger: hundreds
// "lost", or 0 when the ids happened to match), as are a table made by
// hand under the name and a dropped table (it exited 0 and replaced the
// accounting with an error). The run's accounting stays as it was, and
// the later run's result verifies to the ids the test counts itself.
func TestLedgerVerifyChecksTheTablesOwner(t *testing.T) {
	t.Parallel()
	for name, url := range ledgerURLs(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			work := t.TempDir()
			table := "candor_ledger_owner_" + name
			first, second := filepath.Join(work, "first.json"), filepath.Join(work, "second.json")
			runLedger(t, work, url, table, first)
			runLedger(t, work, url, table, second)
			if ids := oracle.Open(t, url).Ints(t, "SELECT w FROM "+table+" WHERE id < 0"); len(ids) != 1 || ids[0] != 1 {
				t.Fatalf("owner rows (their repetition): %v, want one, repetition 1", ids)
			}

			verifyRefused(t, work, first, "holds the ledger of run", "--target", url)

			code, stdout, stderr := runAbs(t, work, "ledger", "verify", second, "--target", url)
			if code != 0 {
				t.Fatalf("verify of the table's own run: exit %d\n%s\n%s", code, stdout, stderr)
			}
			p := runPhaseOf(t, second)
			v := p.Ledger.Verifications
			present := oracle.IDs(t, url, table)
			records, _, err := ledger.ReadDir(filepath.Join(work, p.Ledger.Dir))
			if err != nil {
				t.Fatal(err)
			}
			acked := map[int64]bool{}
			for _, r := range records {
				if r.Outcome == ledger.Acknowledged {
					acked[r.ID] = true
				}
			}
			lost := 0
			for id := range acked {
				if present[id] == 0 {
					lost++
				}
			}
			if len(v) != 1 || v[0].Outcome != "verified" || v[0].Accounting.Acknowledged != len(acked) || v[0].Accounting.Lost != lost ||
				v[0].Accounting.Unrecorded != 0 || len(present) != len(acked) {
				t.Errorf("verification %+v: want %d acknowledged, %d lost, none unrecorded (the server holds %d ids)", v, len(acked), lost, len(present))
			}

			// A table made by hand under the name (the marker still
			// names it), then no table at all.
			o := oracle.Open(t, url)
			o.Exec(t, "DROP TABLE "+table, "CREATE TABLE "+table+" (id BIGINT NOT NULL, w INTEGER NOT NULL, pad VARCHAR(200))",
				"INSERT INTO "+table+" (id, w, pad) VALUES (0, 0, 'x'), (1, 0, 'x')")
			// (Which of the two depends on whether the marker checks
			// the table's identity too.)
			verifyRefused(t, work, second, "records no ledger owner|candor did not create it", "--target", url)
			o.Exec(t, "DROP TABLE "+table)
			verifyRefused(t, work, second, "does not exist", "--target", url)
			runAbs(t, work, "cleanup", "ledger", "--target", url, "-p", "table="+table)
		})
	}
}

// With --repeat each repetition creates the table anew: verify checks the
// repetition the table holds (the last), names it, and refuses an earlier
// one asked for by --repetition (it reported the last repetition's rows
// against the first's ledger).
func TestLedgerVerifyRepetitions(t *testing.T) {
	url := postgresURL(t)
	t.Parallel()
	work := t.TempDir()
	out := filepath.Join(work, "rep.json")
	runLedger(t, work, url, "candor_ledger_reps", out, "--repeat", "2")
	code, stdout, stderr := runAbs(t, work, "ledger", "verify", out)
	if code != 0 || !strings.Contains(stdout, "repetition 2") || !strings.Contains(stderr, "holds repetition 2 of this run, not repetition 1") {
		t.Fatalf("verify: exit %d, want 0 verifying repetition 2 and refusing 1\n%s\n%s", code, stdout, stderr)
	}
	res, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	var reps []*result.LedgerResult
	for i := range res.Phases {
		if res.Phases[i].Name == phaseRun {
			reps = append(reps, res.Phases[i].Ledger)
		}
	}
	if len(reps) != 2 || reps[0].Verifications[0].Outcome != "refused" || reps[1].Verifications[0].Outcome != "verified" {
		t.Fatalf("repetitions' ledgers %+v", reps)
	}
	// The table holds the acknowledged writes and those of unknown outcome
	// that committed (a write in flight when the phase ended, on a loaded
	// machine), none lost and none unrecorded.
	a := reps[1].Verifications[0].Accounting
	if got, want := a.Acknowledged+a.UnknownCommitted, len(oracle.IDs(t, url, "candor_ledger_reps")); got != want || a.Lost != 0 || a.Unrecorded != 0 {
		t.Errorf("repetition 2 verified %d acknowledged + %d unknown that committed, %d lost, %d unrecorded; the table holds %d ids", a.Acknowledged, a.UnknownCommitted, a.Lost, a.Unrecorded, want)
	}
	code, stdout, stderr = runAbs(t, work, "ledger", "verify", out, "--repetition", "1")
	if code != ExitUnsupported || !strings.Contains(stderr, "not repetition 1") {
		t.Errorf("verify --repetition 1: exit %d, want %d\n%s\n%s", code, ExitUnsupported, stdout, stderr)
	}
}

// Two shards of one run write one table: the first creates it, the other
// joins it (it re-created it, deleting the first's rows), their writer ids
// are distinct (both numbered their workers from 0), each accounts for its
// own writers' ids, and merge keeps the union accounting (it dropped it),
// which verify of the merged result reproduces from the table, and which
// matches the ids the test counts itself.
func TestLedgerShardsShareOneTable(t *testing.T) {
	url := postgresURL(t)
	t.Parallel()
	var work string
	table := "candor_ledger_shards"
	var outs []string
	codes, logs := make([]int, 2), make([]string, 2)
	shardsTogether(t, func(start string) []string {
		work = t.TempDir()
		runAbs(t, work, "cleanup", "ledger", "--target", url, "-p", "table="+table)
		outs = []string{filepath.Join(work, "s0.json"), filepath.Join(work, "s1.json")}
		var wg sync.WaitGroup
		for i := range outs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				code, stdout, stderr := runCLIConcurrent(work, "run", "ledger", "--target", url, "-p", "table="+table,
					"--threads", "4", "--rate", "400", "--time", "2s", "--shard", []string{"0/2", "1/2"}[i], "--start-at", start,
					"--run-id", "ledger-shards-test", "-q", "-o", outs[i])
				codes[i], logs[i] = code, stdout+stderr
			}()
		}
		wg.Wait()
		return logs
	})
	for i := range outs {
		if codes[i] != 0 {
			t.Fatalf("shard %d: exit %d\n%s", i, codes[i], logs[i])
		}
	}
	present := oracle.IDs(t, url, table)
	writers := map[int]int{}
	for id := range present {
		w, _ := ledger.SplitID(id)
		writers[w]++
	}
	if len(writers) != 4 {
		t.Errorf("the table holds ids of writers %v, want 4 distinct writers", writers)
	}
	total := 0
	for i, out := range outs {
		a := runPhaseOf(t, out).Ledger.Accounting
		if a == nil || a.Lost != 0 || a.Unrecorded != 0 || a.Duplicates != 0 {
			t.Fatalf("shard %d's accounting %+v: want nothing lost, unrecorded or duplicated", i, a)
		}
		total += a.Acknowledged
	}
	if total != len(present) {
		t.Errorf("the shards acknowledged %d writes; the table holds %d ids", total, len(present))
	}
	merged := filepath.Join(work, "merged.json")
	if code, stdout, stderr := runAbs(t, work, "merge", outs[0], outs[1], "-q", "-o", merged); code != 0 {
		t.Fatalf("merge: exit %d\n%s\n%s", code, stdout, stderr)
	}
	ma := runPhaseOf(t, merged).Ledger.Accounting
	if ma == nil || ma.Acknowledged != len(present) || ma.Writes != total || ma.Lost != 0 || ma.Unrecorded != 0 {
		t.Fatalf("merged accounting %+v: want %d acknowledged, none lost", ma, len(present))
	}
	if code, stdout, stderr := runAbs(t, work, "ledger", "verify", merged, "--target", url); code != 0 {
		t.Fatalf("verify of the merged result: exit %d\n%s\n%s", code, stdout, stderr)
	}
	lr := runPhaseOf(t, merged).Ledger
	va := lr.Verifications[0].Accounting
	mb, _ := json.Marshal(lr.Accounting)
	vb, _ := json.Marshal(va)
	if string(mb) != string(vb) {
		t.Errorf("merged accounting differs from verify of the merged result:\nmerged %s\nverify %s", mb, vb)
	}
	runAbs(t, work, "cleanup", "ledger", "--target", url, "-p", "table="+table)
}

// runCLIConcurrent is runCLI for commands run at the same time (it does not
// change the working directory: the paths given are absolute).
func runCLIConcurrent(dir string, args ...string) (int, string, string) {
	var out, errb strings.Builder
	env := &Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }, Args: append([]string{"candor"}, args...)}
	code := Main(env, args)
	return code, out.String(), errb.String()
}

// A fault that fails under --on-fault-error stop ends the run while the
// server is down: no worker recovered because the run stopped, and the
// ledger says the RTO was not measured, and why, instead of "never (a
// worker did not recover)".
func TestLedgerRTONotMeasuredWhenStopped(t *testing.T) {
	t.Parallel()
	sh := pgcluster.Script(t)
	dir, urls := pgcluster.Start(t, sh, "--standbys", "0")
	work := t.TempDir()
	out := filepath.Join(work, "stopped.json")
	// The node comes back for the read-back, after the fault killed it and
	// the run stopped (the fault leaves a mark: on a busy machine the run,
	// and with it the kill, starts seconds late).
	killed := filepath.Join(work, "killed")
	go func() {
		for range 600 {
			if _, err := os.Stat(killed); err == nil {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		time.Sleep(time.Second)
		exec.Command(sh, "restart", dir, "0").Run()
	}()
	code, stdout, stderr := runAbs(t, work, "run", "ledger", "--target", urls[0], "--threads", "2", "--rate", "200",
		"--time", "5s", "--max-error-rate", "100%", "--recovery-timeout", "30s",
		"--fault", "at=1s run="+sh+" kill "+dir+" 0; touch "+killed+"; exit 1", "-o", out)
	if code != ExitRunFailed {
		t.Fatalf("exit %d, want %d (the fault failed)\n%s\n%s", code, ExitRunFailed, stdout, stderr)
	}
	p := runPhaseOf(t, out)
	if p.Ledger == nil || p.Ledger.Accounting == nil || p.Ledger.Accounting.Fault == nil {
		t.Fatalf("no fault accounting: %+v", p.Ledger)
	}
	f := p.Ledger.Accounting.Fault
	if f.RTOAllSeconds != nil || !strings.Contains(f.RTONotMeasured, "fault 1 failed (--on-fault-error stop)") {
		t.Errorf("fault accounting %+v: want the RTO not measured, the run stopped at fault 1", f)
	}
	if !strings.Contains(stdout+stderr, "RTO not measured") || strings.Contains(stdout+stderr, "did not recover") {
		t.Errorf("summary: want the RTO not measured, not 'did not recover'\n%s\n%s", stdout, stderr)
	}
}

// Two shards of one run given different --threads (8 and 4) write
// distinct ids: their workers were numbered from the split of each one's
// own --threads, so shard 1's writers 2 and 3 were shard 0's too and both
// reported the other's writes as duplicates. The table holds every
// acknowledged write once (counted by psql), and merge refuses the shards,
// naming --threads.
func TestLedgerShardsOfDifferentThreads(t *testing.T) {
	url := postgresURL(t)
	t.Parallel()
	var work string
	table := "candor_ledger_shards_threads"
	var outs []string
	codes, logs := make([]int, 2), make([]string, 2)
	threads := []string{"8", "4"}
	shardsTogether(t, func(start string) []string {
		work = t.TempDir()
		runAbs(t, work, "cleanup", "ledger", "--target", url, "-p", "table="+table)
		outs = []string{filepath.Join(work, "s0.json"), filepath.Join(work, "s1.json")}
		var wg sync.WaitGroup
		for i := range outs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				code, stdout, stderr := runCLIConcurrent(work, "run", "ledger", "--target", url, "-p", "table="+table,
					"--threads", threads[i], "--rate", "400", "--time", "2s", "--shard", []string{"0/2", "1/2"}[i], "--start-at", start,
					"--run-id", "ledger-shards-threads-test", "-q", "-o", outs[i])
				codes[i], logs[i] = code, stdout+stderr
			}()
		}
		wg.Wait()
		return logs
	})
	for i := range outs {
		if codes[i] != 0 {
			t.Fatalf("shard %d: exit %d\n%s", i, codes[i], logs[i])
		}
	}
	present := oracle.IDs(t, url, table)
	writers := map[int]int{}
	for id, n := range present {
		if n != 1 {
			t.Errorf("id %d is in the table %d times", id, n)
		}
		w, _ := ledger.SplitID(id)
		writers[w]++
	}
	if len(writers) != 6 {
		t.Errorf("the table holds ids of writers %v, want 6 distinct writers (4 + 2)", writers)
	}
	total := 0
	for i, out := range outs {
		a := runPhaseOf(t, out).Ledger.Accounting
		if a == nil || a.Lost != 0 || a.Unrecorded != 0 || a.Duplicates != 0 {
			t.Fatalf("shard %d's accounting %+v: want nothing lost, unrecorded or duplicated", i, a)
		}
		total += a.Acknowledged
	}
	rows := int(oracle.Open(t, url).Ints(t, "SELECT count(*) FROM "+table+" WHERE id >= 0")[0])
	if total != len(present) || rows != len(present) {
		t.Errorf("the shards acknowledged %d writes; the table holds %d ids in %d rows", total, len(present), rows)
	}
	merged := filepath.Join(work, "merged.json")
	code, stdout, stderr := runAbs(t, work, "merge", outs[0], outs[1], "-q", "-o", merged)
	if code != ExitUsage || !strings.Contains(stderr, "--threads") {
		t.Errorf("merge of shards given --threads 8 and 4: exit %d, want %d naming --threads\n%s\n%s", code, ExitUsage, stdout, stderr)
	}
	runAbs(t, work, "cleanup", "ledger", "--target", url, "-p", "table="+table)
}
