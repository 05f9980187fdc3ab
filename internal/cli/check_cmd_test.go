package cli

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/candor-bench/candor/internal/plan"
	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/result/resulttest"
	"github.com/candor-bench/candor/internal/runflags"
)

// TestCheckCommandAndReport: a bank run on SQLite records its checks in
// the result and prints them; candor check passes on its tables, fails
// (exit 5) once the test moves money out of the bank with plain SQL, and
// refuses a table candor did not create (exit 4); candor report shows the
// checks.
func TestCheckCommandAndReport(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "bank.db")
	tgt := "sqlite://" + db
	out := filepath.Join(dir, "bank.json")
	code, stdout, stderr := runAbs(t, dir, "run", "bank", "--accounts", "20", "--threads", "2", "--operations", "500",
		"--report-interval", "100ms", "--target", tgt, "-q", "-o", out)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "PASS  total balance [after run]") {
		t.Errorf("run summary without its checks:\n%s", stdout)
	}
	res := resulttest.Read(t, out)
	if len(res.Checks) < 2 || res.Status != result.StatusComplete {
		t.Fatalf("result: status %s, checks %+v", res.Status, res.Checks)
	}

	code, stdout, stderr = runAbs(t, dir, "check", "bank", "--accounts", "20", "--target", tgt)
	if code != 0 || !strings.Contains(stdout, "PASS  total balance") {
		t.Fatalf("check: exit %d\n%s%s", code, stdout, stderr)
	}

	// The test's own connection moves 7 out of account 3.
	conn, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Exec("UPDATE bank_accounts SET balance = balance - 7 WHERE id = 3"); err != nil {
		t.Fatal(err)
	}
	var sum int64
	if err := conn.QueryRow("SELECT sum(balance) FROM bank_accounts").Scan(&sum); err != nil || sum != 20*10000-7 {
		t.Fatalf("the test's own sum %d (%v)", sum, err)
	}
	code, stdout, _ = runAbs(t, dir, "check", "bank", "--accounts", "20", "--target", tgt)
	if code != ExitRunFailed || !strings.Contains(stdout, "FAIL (1 offending)  total balance: total 199993, expected 200000") {
		t.Errorf("check after the test took 7: exit %d\n%s", code, stdout)
	}

	// A table of the bank's name that candor did not create.
	if _, err := conn.Exec("CREATE TABLE other_accounts (id INTEGER PRIMARY KEY, balance INTEGER)"); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runAbs(t, dir, "check", "bank", "--table", "other_accounts", "--target", tgt)
	if code != ExitUnsupported || !strings.Contains(stderr, "not created by candor") {
		t.Errorf("check of a foreign table: exit %d\n%s", code, stderr)
	}
	code, _, stderr = runAbs(t, dir, "check", "bank", "--table", "no_such_accounts", "--target", tgt)
	if code != ExitUnsupported || !strings.Contains(stderr, "does not exist") {
		t.Errorf("check of a missing table: exit %d\n%s", code, stderr)
	}
	code, _, stderr = runAbs(t, dir, "check", "kv-basic", "--target", tgt)
	if code != ExitUsage || !strings.Contains(stderr, "has no checks") {
		t.Errorf("check of a workload without checks: exit %d\n%s", code, stderr)
	}
	code, _, stderr = runAbs(t, dir, "run", "kv-basic", "--check", "--operations", "10", "--target", "null://", "-q", "-o", filepath.Join(dir, "kv.json"))
	if code != ExitUsage || !strings.Contains(stderr, "--check: kv-basic has no checks") {
		t.Errorf("run --check of a workload without checks: exit %d\n%s", code, stderr)
	}

	for _, format := range []string{"txt", "md", "html"} {
		rep := filepath.Join(dir, "report."+format)
		if code, _, stderr := runAbs(t, dir, "report", out, "-o", rep); code != 0 {
			t.Fatalf("report %s: exit %d\n%s", format, code, stderr)
		}
		text := readFile(t, rep)
		if !strings.Contains(text, "Checks") || !strings.Contains(text, "total balance") {
			t.Errorf("report %s shows no checks", format)
		}
	}
}

// TestBankBadInput: bank's options are checked as they are read, every
// problem at once (exit 2).
func TestBankBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--accounts", "1"}, `accounts="1": must be between 2`},
		{[]string{"--locking", "optimstic"}, `locking="optimstic": use pessimistic or optimistic`},
		{[]string{"--distribution", "zipf"}, "use hotspot, zipfian or uniform"},
		{[]string{"--accounts", "10", "--hot-accounts", "20"}, "hot-accounts=20 is more than accounts=10"},
		{[]string{"--hot-fraction", "1.5"}, `hot-fraction="1.5"`},
	}
	for _, c := range cases {
		args := append([]string{"run", "bank", "--target", "null://", "--operations", "10", "-q", "-o", filepath.Join(dir, "r.json")}, c.args...)
		code, _, stderr := runAbs(t, dir, args...)
		if code != ExitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, want 2 and %q\n%s", c.args, code, c.want, stderr)
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A plan's args: [--check] makes every cell check its data: the cells'
// command lines parse to Specs with Check set.
func TestPlanCellsCheck(t *testing.T) {
	p, err := plan.Parse("p.yaml", []byte("name: checked\ntargets:\n  pg: postgres://u@h:5432/db\nworkloads:\n  - name: bank\nduration: 10s\nargs: [--check]\n"), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	cells := p.Cells()
	if len(cells) == 0 {
		t.Fatal("no cells")
	}
	for _, c := range cells {
		spec, err := runflags.Parse(phaseRun, c.Args)
		if err != nil || !spec.Check {
			t.Errorf("cell %v: Check %t, %v", c.Args, spec.Check, err)
		}
	}
}
