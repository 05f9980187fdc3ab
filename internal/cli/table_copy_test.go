package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/ledger"
	"github.com/candor-bench/candor/internal/report"
	"github.com/candor-bench/candor/internal/testutil/oracle"
)

// copyTable replaces table by a copy of its definition made with the
// database's own SQL (MariaDB: CREATE TABLE ... LIKE, which copies the
// table's comment and so candor's token; PostgreSQL: LIKE ... INCLUDING
// ALL), filled by rows, then renamed to table's name. The copy is made
// once the server's clock has passed the second table was created in:
// MariaDB's create time has seconds only.
func copyTable(t *testing.T, o *oracle.Conn, name, table, fill string) {
	t.Helper()
	copyName := table + "_copy"
	if name == "mysql" {
		created := o.Ints(t, "SELECT UNIX_TIMESTAMP(create_time) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = '"+table+"'")
		for i := 0; len(created) == 1 && i < 100 && o.Ints(t, "SELECT UNIX_TIMESTAMP(NOW())")[0] <= created[0]; i++ {
			time.Sleep(50 * time.Millisecond)
		}
		o.Exec(t, "CREATE TABLE "+copyName+" LIKE "+table)
	} else {
		o.Exec(t, "CREATE TABLE "+copyName+" (LIKE "+table+" INCLUDING ALL)")
	}
	t.Cleanup(func() { o.Exec(t, "DROP TABLE IF EXISTS "+table, "DROP TABLE IF EXISTS "+copyName) })
	o.Exec(t, strings.ReplaceAll(fill, "COPY", copyName), "DROP TABLE "+table)
	if name == "mysql" {
		o.Exec(t, "RENAME TABLE "+copyName+" TO "+table)
	} else {
		o.Exec(t, "ALTER TABLE "+copyName+" RENAME TO "+table)
	}
}

// A table copied from candor's with CREATE TABLE ... LIKE, filled with
// other rows and renamed to candor's name is not candor's: MariaDB's copy
// carries the comment that held candor's whole identity (the sandbox user
// has no PROCESS privilege, so no InnoDB table id), and run --load never
// overwrote its rows while cleanup dropped it. Both are refused (exit 4)
// and the foreign rows and the table stay, counted with the server's own
// client.
func TestCopiedTableIsNotCandors(t *testing.T) {
	t.Parallel()
	for name, url := range ledgerURLs(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			work := t.TempDir()
			table := "ut_like_" + name
			opts := []string{"--target", url, "-p", "table=" + table, "-p", "recordcount=1000", "-q"}
			if code, stdout, stderr := runAbs(t, work, append([]string{"load", "ycsb/a", "-o", filepath.Join(work, "load.json")}, opts...)...); code != 0 {
				t.Fatalf("load: exit %d\n%s\n%s", code, stdout, stderr)
			}
			o := oracle.Open(t, url)
			copyTable(t, o, name, table, "INSERT INTO COPY SELECT * FROM "+table)
			o.Exec(t, "UPDATE "+table+" SET field0 = 'foreign'")
			foreign := "SELECT count(*) FROM " + table + " WHERE field0 = 'foreign'"
			if n := o.Ints(t, foreign); n[0] != 1000 {
				t.Fatalf("foreign rows before: %v", n)
			}

			code, stdout, stderr := runAbs(t, work, append([]string{"run", "ycsb/a", "--load", "never", "--time", "1s", "--threads", "1",
				"-o", filepath.Join(work, "run.json")}, opts...)...)
			if code != ExitUnsupported || !strings.Contains(stderr, "is not the table candor created") {
				t.Errorf("run --load never on the copy: exit %d, want %d refusing it\n%s\n%s", code, ExitUnsupported, stdout, stderr)
			}
			if n := o.Ints(t, foreign); n[0] != 1000 {
				t.Errorf("foreign rows after the run: %v of 1000 left", n)
			}

			code, stdout, stderr = runAbs(t, work, append([]string{"cleanup", "ycsb"}, opts...)...)
			if code != ExitUnsupported || !strings.Contains(stderr, "is not the table candor created") {
				t.Errorf("cleanup of the copy: exit %d, want %d refusing it\n%s\n%s", code, ExitUnsupported, stdout, stderr)
			}
			if n := o.Ints(t, foreign); n[0] != 1000 {
				t.Errorf("foreign rows after cleanup: %v of 1000 left", n)
			}
		})
	}
}

// A forged ledger table (a LIKE copy holding the owner row and a fifth of
// the ids, renamed to the ledger's name) is refused by ledger verify, with
// the run's accounting untouched: on MariaDB it was accepted, and its
// missing ids stored as lost.
func TestLedgerVerifyRefusesCopiedTable(t *testing.T) {
	t.Parallel()
	for name, url := range ledgerURLs(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			work := t.TempDir()
			table := "candor_ledger_like_" + name
			out := filepath.Join(work, "run.json")
			runLedger(t, work, url, table, out)
			o := oracle.Open(t, url)
			copyTable(t, o, name, table, "INSERT INTO COPY SELECT * FROM "+table+" WHERE id < 0 OR MOD(id, 5) = 0")
			verifyRefused(t, work, out, "dropped and created again", "--target", url)
		})
	}
}

// dropKey removes every key named key from the JSON file at path.
func dropKey(t *testing.T, path, key string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			delete(x, key)
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	if b, err = json.Marshal(v); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// dropIdentity removes the ledger table's identity from a result and from
// its ledger directory (as in a result and ledger of an older candor).
func dropIdentity(t *testing.T, out string) {
	t.Helper()
	dropKey(t, out, "table_identity")
	dir := strings.TrimSuffix(out, ".json") + ".ledger"
	if err := os.Remove(filepath.Join(dir, ledger.TableFile)); err != nil {
		t.Fatalf("the run's ledger directory records no table identity: %v", err)
	}
}

// A result that records no table identity (as one rebuilt after candor
// was killed does, its ledger directory none either: an older candor's)
// is still checked against the identity candor_owned_tables
// recorded when candor created the ledger's table: a forged copy is
// refused. verify took the forged table's ids as the ledger's.
func TestLedgerVerifyChecksTheMarkWithoutIdentity(t *testing.T) {
	t.Parallel()
	for name, url := range ledgerURLs(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			work := t.TempDir()
			table := "candor_ledger_noid_" + name
			out := filepath.Join(work, "run.json")
			runLedger(t, work, url, table, out)
			dropIdentity(t, out)
			o := oracle.Open(t, url)
			copyTable(t, o, name, table, "INSERT INTO COPY SELECT * FROM "+table+" WHERE id < 0 OR MOD(id, 5) = 0")
			verifyRefused(t, work, out, "is not the table candor created", "--target", url)
		})
	}
}

// A result without table_identity whose table has lost its mark in
// candor_owned_tables (its row deleted; an older candor's table) has no
// identity recorded anywhere: verify refuses it (exit 4) rather than count
// whatever table holds the name. It read the table back and exited 0.
func TestLedgerVerifyRefusesWithoutAnyIdentity(t *testing.T) {
	t.Parallel()
	for name, url := range ledgerURLs(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			work := t.TempDir()
			table := "candor_ledger_nomark_" + name
			out := filepath.Join(work, "run.json")
			runLedger(t, work, url, table, out)
			dropIdentity(t, out)
			o := oracle.Open(t, url)
			t.Cleanup(func() { o.Exec(t, "DROP TABLE IF EXISTS "+table) })
			o.Exec(t, "DELETE FROM candor_owned_tables WHERE table_name = '"+table+"'")
			verifyRefused(t, work, out, "identity is recorded nowhere", "--target", url)
		})
	}
}

// A run that made no accounting of its own (here removed from its result,
// as in one rebuilt after candor was killed) keeps none after verify:
// verify's figures are stored in its verification and reported as
// verify's. verify stored them as the run's accounting (source: verify).
func TestLedgerVerifyKeepsItsFiguresApart(t *testing.T) {
	t.Parallel()
	for name, url := range ledgerURLs(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			work := t.TempDir()
			table := "candor_ledger_apart_" + name
			out := filepath.Join(work, "run.json")
			runLedger(t, work, url, table, out)
			o := oracle.Open(t, url)
			t.Cleanup(func() { o.Exec(t, "DROP TABLE IF EXISTS "+table) })
			dropKey(t, out, "accounting")
			code, stdout, stderr := runAbs(t, work, "ledger", "verify", out, "--target", url)
			if code != 0 || !strings.Contains(stdout, "these figures are verify's") {
				t.Fatalf("verify: exit %d, want 0 saying the figures are verify's\n%s\n%s", code, stdout, stderr)
			}
			lr := runPhaseOf(t, out).Ledger
			if lr.Accounting != nil || lr.Source != "" {
				t.Errorf("verify stored its figures as the run's: accounting %+v, source %q", lr.Accounting, lr.Source)
			}
			v := lr.LatestVerified()
			if v == nil {
				t.Fatalf("verifications %+v: want one verified", lr.Verifications)
			}
			// The oracle: every id the table holds (the owner row's is
			// negative) was acknowledged, none lost.
			rows := o.Ints(t, "SELECT COUNT(*) FROM "+table+" WHERE id >= 0")[0]
			if v.Accounting.Lost != 0 || int64(v.Accounting.Acknowledged+v.Accounting.UnknownCommitted+v.Accounting.FailedPresent) != rows {
				t.Errorf("verify's accounting %+v; the table holds %d ids", v.Accounting, rows)
			}
			// The phase's summary (after a run, and in reports) labels them.
			if shown := strings.Join(report.LedgerLines(lr), "\n"); !strings.Contains(shown, "ledger: no accounting: the run made none") ||
				!strings.Contains(shown, "candor ledger verify's") || !strings.Contains(shown, "verify ledger: ") {
				t.Errorf("summary, want verify's figures labelled as verify's:\n%s", shown)
			}
		})
	}
}
