package engine

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/result/resulttest"
	"github.com/candor-bench/candor/internal/target/targettest"
	"github.com/candor-bench/candor/internal/testutil/oracle"
)

// TestLedgerVerifyRefusesARecreatedTable: commit-loop --ledger's table
// carries no owner row (its rows are the published loop's), so verify knew
// it only by its name: a table dropped and created again with the same rows
// (the test copies them in with its own connection) passed as the run's.
// The result now records the table's identity when the run reads it back,
// and verify refuses a table whose identity differs (exit 4), keeping the
// run's accounting.
func TestLedgerVerifyRefusesARecreatedTable(t *testing.T) {
	t.Parallel()
	url := targettest.PostgresDatabaseURL(t)
	out := filepath.Join(t.TempDir(), "cl.json")
	s := specFor("run", "commit-loop", url, out)
	s.Options, s.Ledger, s.RecoveryTimeout = []string{"jobs=1", "rows=200"}, true, 30*time.Second
	if r := runE2E(t, s); r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	res := resulttest.Read(t, out)
	lr := res.Phases[len(res.Phases)-1].Ledger
	if lr == nil || lr.Accounting == nil || lr.TableIdentity == "" {
		t.Fatalf("ledger %+v: want an accounting and the table's identity", lr)
	}
	if code, _, stderr := verifyE2E(t, out, VerifyRequest{}); code != 0 {
		t.Fatalf("verify of the run's own table: exit %d\n%s", code, stderr)
	}
	// Another tool's table of the name, holding the very same rows.
	db := oracle.Open(t, url)
	db.Exec(t, "CREATE TABLE commit_loop_copy AS SELECT * FROM commit_loop", "DROP TABLE commit_loop",
		"CREATE TABLE commit_loop AS SELECT * FROM commit_loop_copy", "DROP TABLE commit_loop_copy")
	code, _, stderr := verifyE2E(t, out, VerifyRequest{})
	if code != ExitUnsupported || !strings.Contains(stderr, "dropped and created again since") {
		t.Fatalf("verify of a re-created table: exit %d, want %d naming it re-created\n%s", code, ExitUnsupported, stderr)
	}
	after := resulttest.Read(t, out).Phases[len(res.Phases)-1].Ledger
	if a, b := after.Accounting, lr.Accounting; a == nil || a.Writes != b.Writes || a.Acknowledged != b.Acknowledged || a.Lost != b.Lost {
		t.Errorf("the run's accounting changed: %+v, was %+v", after.Accounting, lr.Accounting)
	}
}
