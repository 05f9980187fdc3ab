package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/testutil/oracle"
)

// issue 46 A2: a ledger run killed with SIGKILL leaves no result of its
// own; verify rebuilds it from the interval file. Verify of the untouched
// table accounts for it (lost 0, against the test's own count of the
// ids), and stores its figures as verify's, not the run's. A hand-made
// table under the name, holding the owner row and every id but those
// ending in 3, is refused (exit 4): verify took it and stored "lost 141"
// as the run's accounting (source verify).
func TestLedgerVerifyAfterSIGKILL(t *testing.T) {
	urls := map[string]string{}
	for name, env := range map[string]string{"postgres": "CANDOR_TEST_POSTGRES_URL", "mysql": "CANDOR_TEST_MYSQL_URL"} {
		if u := os.Getenv(env); u != "" {
			urls[name] = u
		}
	}
	if len(urls) == 0 {
		t.Skip("CANDOR_TEST_POSTGRES_URL and CANDOR_TEST_MYSQL_URL unset: no server on this machine")
	}
	bin := buildCandor(t)
	for name, url := range urls {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			table := "candor_ledger_killed_" + name
			o := oracle.Open(t, url)
			t.Cleanup(func() { o.Exec(t, "DROP TABLE IF EXISTS "+table, "DROP TABLE IF EXISTS "+table+"_forged") })
			run := exec.Command(bin, "run", "ledger", "--target", url, "-p", "table="+table, "--threads", "2",
				"--rate", "200", "--time", "2m", "-q", "-o", "r.json")
			run.Dir = dir
			if err := run.Start(); err != nil {
				t.Fatal(err)
			}
			killed := false
			defer func() {
				if !killed {
					run.Process.Kill()
					run.Wait()
				}
			}()
			// The run phase has begun once its ledger files hold records,
			// its interval file two intervals and the table ids; bounded to tell a hang from a start.
			deadline := time.Now().Add(90 * time.Second)
			for {
				if ledgerBytes(dir) > 0 && runIntervals(dir) >= 2 && len(oracle.IDs(t, url, table)) >= 50 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the run wrote no ledger records and ids within 90 s")
				}
				time.Sleep(100 * time.Millisecond)
			}
			run.Process.Signal(syscall.SIGKILL)
			run.Wait()
			killed = true
			out := filepath.Join(dir, "r.json")
			if _, err := os.Stat(out); err == nil {
				t.Fatal("a killed run cannot have written its result")
			}

			// The untouched table: lost 0, verify's figures kept as verify's.
			ids := oracle.IDs(t, url, table)
			stdout, stderr, code := candorIn(dir, bin, "ledger", "verify", "r.json", "--target", url)
			if code != 0 || !strings.Contains(stdout, "these figures are verify's") {
				t.Fatalf("verify of the untouched table: exit %d, want 0 with verify's figures\n%s\n%s", code, stdout, stderr)
			}
			lr := ledgerOf(t, out)
			if lr.Accounting != nil || lr.Source != "" {
				t.Fatalf("verify stored its figures as the run's: accounting %+v, source %q", lr.Accounting, lr.Source)
			}
			v := lr.LatestVerified()
			if v == nil {
				t.Fatalf("verifications %+v: want one verified", lr.Verifications)
			}
			a := v.Accounting
			if present := a.Acknowledged - a.Lost + a.UnknownCommitted + a.FailedPresent + a.Unrecorded; a.Lost != 0 || present != len(ids) {
				t.Fatalf("verify's accounting %+v: want lost 0 and %d ids present (the test's count)", a, len(ids))
			}

			// A hand-made table: the owner row and every id but those ending in 3.
			var three int
			for id := range ids {
				if id%10 == 3 {
					three++
				}
			}
			if three == 0 {
				t.Fatal("no id ends in 3: the forged table would miss none")
			}
			forged := table + "_forged"
			o.Exec(t, "CREATE TABLE "+forged+" AS SELECT * FROM "+table+" WHERE id < 0 OR MOD(id, 10) <> 3", "DROP TABLE "+table)
			if name == "mysql" {
				o.Exec(t, "RENAME TABLE "+forged+" TO "+table)
			} else {
				o.Exec(t, "ALTER TABLE "+forged+" RENAME TO "+table)
			}
			n := len(lr.Verifications)
			stdout, stderr, code = candorIn(dir, bin, "ledger", "verify", "r.json", "--target", url)
			if code != 4 || !strings.Contains(stderr, "not verified") {
				t.Fatalf("verify of the hand-made table: exit %d, want 4 refusing it\n%s\n%s", code, stdout, stderr)
			}
			lr = ledgerOf(t, out)
			if lr.Accounting != nil || lr.Source != "" || len(lr.Verifications) != n+1 || lr.Verifications[n].Outcome != "refused" || lr.Verifications[n].Accounting != nil {
				t.Fatalf("after the refusal: accounting %+v, source %q, verifications %+v: want no figures, one more verification refused", lr.Accounting, lr.Source, lr.Verifications)
			}
		})
	}
}

// ledgerBytes is the size of the ledger files under dir/r.ledger.
func ledgerBytes(dir string) int64 {
	var n int64
	filepath.Walk(filepath.Join(dir, "r.ledger"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && strings.HasSuffix(p, ".cdl") {
			n += fi.Size()
		}
		return nil
	})
	return n
}

// runIntervals is how many intervals of a run phase the interval file
// of dir/r.json holds so far.
func runIntervals(dir string) int {
	res, err := result.Recover(filepath.Join(dir, "r.intervals.jsonl"))
	if err != nil {
		return 0
	}
	for _, p := range res.Phases {
		if p.Name == "run" {
			return len(p.Intervals)
		}
	}
	return 0
}

// candorIn runs bin with args in dir: its stdout, stderr and exit code.
func candorIn(dir, bin string, args ...string) (string, string, int) {
	var out, errb strings.Builder
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return out.String(), errb.String(), 0
	case errors.As(err, &ee):
		return out.String(), errb.String(), ee.ExitCode()
	}
	return out.String(), errb.String() + err.Error(), -1
}

// ledgerOf is the run phase's ledger section of the result at path.
func ledgerOf(t *testing.T, path string) *result.LedgerResult {
	t.Helper()
	res, err := result.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := len(res.Phases) - 1; i >= 0; i-- {
		if res.Phases[i].Name == "run" && res.Phases[i].Ledger != nil {
			return res.Phases[i].Ledger
		}
	}
	t.Fatalf("%s has no run phase with a ledger", path)
	return nil
}
