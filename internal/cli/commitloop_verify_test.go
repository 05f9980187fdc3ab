package cli

import (
	"path/filepath"
	"testing"

	"github.com/candor-bench/candor/internal/testutil/oracle"
)

// A commit-loop --ledger result without table_identity, whose table lost
// its mark in candor_owned_tables, has no identity recorded anywhere (its
// table records no owner either): verify refuses it (exit 4), as it does
// the ledger workload's, and the run's accounting stays as it was.
func TestCommitLoopLedgerVerifyRefusesWithoutAnyIdentity(t *testing.T) {
	t.Parallel()
	for name, url := range ledgerURLs(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			work := t.TempDir()
			table := "commit_loop_noid_" + name
			out := filepath.Join(work, "cl.json")
			o := oracle.Open(t, url)
			t.Cleanup(func() { o.Exec(t, "DROP TABLE IF EXISTS "+table) })
			code, stdout, stderr := runAbs(t, work, "run", "commit-loop", "--rows", "50", "--jobs", "2", "--ledger",
				"-p", "table="+table, "--target", url, "-q", "-o", out)
			if code != 0 {
				t.Fatalf("run: exit %d\n%s\n%s", code, stdout, stderr)
			}
			lr := runPhaseOf(t, out).Ledger
			if lr == nil || lr.Accounting == nil || lr.Accounting.Acknowledged != 100 {
				t.Fatalf("the run's ledger %+v: want 100 acknowledged writes", lr)
			}
			if lr.TableIdentity == "" {
				t.Fatalf("the run recorded no table_identity: nothing to remove")
			}
			// The oracle: the table holds the run's 100 rows.
			if n := o.Ints(t, "SELECT COUNT(*) FROM "+table)[0]; n != 100 {
				t.Fatalf("the table holds %d rows, want 100", n)
			}
			dropIdentity(t, out)
			o.Exec(t, "DELETE FROM candor_owned_tables WHERE table_name = '"+table+"'")
			verifyRefused(t, work, out, "identity is recorded nowhere", "--target", url)
		})
	}
}

// A commit-loop --ledger table re-created by a later run of the same name
// is not the earlier ledger's, though candor_owned_tables marks it as
// candor's: without the result's table_identity (a result rebuilt after a
// crash of candor), verify reads the identity its ledger directory
// recorded before the first write and refuses the later table (exit 4);
// with neither, it refuses as the identity is recorded nowhere (the table
// holds no owner row). verify counted the later run's 60 rows against the
// earlier ledger's 100: "lost 40", exit 0. The later run's own result
// still verifies, to the rows the test counts itself.
func TestCommitLoopLedgerVerifyRefusesALaterRunsTable(t *testing.T) {
	t.Parallel()
	for name, url := range ledgerURLs(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			work := t.TempDir()
			table := "commit_loop_later_" + name
			first, second := filepath.Join(work, "first.json"), filepath.Join(work, "second.json")
			o := oracle.Open(t, url)
			t.Cleanup(func() { o.Exec(t, "DROP TABLE IF EXISTS "+table) })
			for _, r := range []struct{ out, rows string }{{first, "50"}, {second, "30"}} {
				code, stdout, stderr := runAbs(t, work, "run", "commit-loop", "--rows", r.rows, "--jobs", "2", "--ledger",
					"-p", "table="+table, "--target", url, "-q", "-o", r.out)
				if code != 0 {
					t.Fatalf("run %s: exit %d\n%s\n%s", r.out, code, stdout, stderr)
				}
			}
			dropKey(t, first, "table_identity")
			verifyRefused(t, work, first, "dropped and created again since", "--target", url)
			dropIdentity(t, first)
			verifyRefused(t, work, first, "identity is recorded nowhere", "--target", url)

			if code, stdout, stderr := runAbs(t, work, "ledger", "verify", second, "--target", url); code != 0 {
				t.Fatalf("verify of the later run: exit %d\n%s\n%s", code, stdout, stderr)
			}
			v := runPhaseOf(t, second).Ledger.LatestVerified()
			rows := o.Ints(t, "SELECT COUNT(*) FROM "+table)[0]
			if v == nil || rows != 60 || v.Accounting.Acknowledged != 60 || v.Accounting.Lost != 0 || v.Accounting.Unrecorded != 0 {
				t.Errorf("the later run's verification %+v; the table holds %d rows (want 60, all acknowledged)", v, rows)
			}
		})
	}
}
