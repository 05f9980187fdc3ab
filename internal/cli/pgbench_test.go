package cli

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/target/targettest"
	"github.com/candor-bench/candor/internal/testutil/oracle"
)

// pgbenchScript writes a script file into dir.
func pgbenchScript(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// pgbench -i creates pgbench's tables with its row counts per scale, and
// the built-in scripts run on every SQL target; the counts are read by
// the test's own connection (the oracle), not by candor.
func TestPgbenchInitAndBuiltinsOnEveryTarget(t *testing.T) {
	t.Parallel()
	for name, u := range targettest.RealTargets(t, true) { // databases of its own: pgbench's tables have fixed names
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			runAbs(t, dir, "cleanup", "script/pgbench", "-p", "tables=true", "--target", u)
			if code, out, errOut := runAbs(t, dir, "pgbench", "-i", "-s", "1", "--target", u, "-o", filepath.Join(dir, "init.json")); code != 0 {
				t.Fatalf("pgbench -i: exit %d\n%s%s", code, out, errOut)
			}
			t.Cleanup(func() { runAbs(t, dir, "cleanup", "script/pgbench", "-p", "tables=true", "--target", u) })
			var o *oracle.Conn
			if name != "sqlite" {
				o = oracle.Open(t, u)
				for table, want := range map[string]int64{"pgbench_accounts": 100000, "pgbench_branches": 1, "pgbench_tellers": 10, "pgbench_history": 0} {
					if got := o.Ints(t, "SELECT count(*) FROM "+table); len(got) != 1 || got[0] != want {
						t.Errorf("%s: %v rows, want %d", table, got, want)
					}
				}
				if got := o.Ints(t, "SELECT count(*) FROM pgbench_accounts WHERE bid = FLOOR((aid - 1) / 100000) + 1 AND abalance = 0"); got[0] != 100000 {
					t.Errorf("accounts with pgbench's bid and abalance: %v, want 100000", got)
				}
			}
			for _, b := range []string{"tpcb-like", "simple-update", "select-only"} {
				for _, mode := range []string{"simple", "prepared"} {
					// -n: the history is not emptied before each run
					code, out, errOut := runAbs(t, dir, "pgbench", "-n", "-c", "2", "-t", "10", "-b", b, "-M", mode, "--target", u, "-o", filepath.Join(dir, b+"-"+mode+".json"))
					if code != 0 || !strings.Contains(out, "number of transactions actually processed: 20/20") || !strings.Contains(out, "scaling factor: 1") {
						t.Errorf("%s -M %s: exit %d\n%s%s", b, mode, code, out, errOut)
					}
				}
			}
			if o != nil {
				// tpcb-like and simple-update insert one history row each.
				if got := o.Ints(t, "SELECT count(*) FROM pgbench_history"); got[0] != 80 {
					t.Errorf("pgbench_history: %v rows, want 80", got)
				}
			}
			// Without -n the run empties (candor's) history first, as
			// pgbench does, in the product's words.
			if code, out, errOut := runAbs(t, dir, "pgbench", "-c", "2", "-t", "10", "--target", u, "-o", filepath.Join(dir, "vacuumed.json")); code != 0 || !strings.Contains(errOut, "starting vacuum...end.") {
				t.Errorf("a run without -n: exit %d\n%s%s", code, out, errOut)
			}
			if o != nil {
				if got := o.Ints(t, "SELECT count(*) FROM pgbench_history"); got[0] != 20 {
					t.Errorf("pgbench_history after a run without -n: %v rows, want 20", got)
				}
			}
		})
	}
}

// A rerun runs the script text the result recorded, not the file as it
// is now.
func TestPgbenchRerunRunsRecordedScript(t *testing.T) {
	u := postgresURL(t)
	t.Parallel() // its table is its own
	dir := t.TempDir()
	o := oracle.Open(t, u)
	o.Exec(t, "DROP TABLE IF EXISTS pgb_rerun", "CREATE TABLE pgb_rerun (v INTEGER)")
	t.Cleanup(func() { o.Exec(t, "DROP TABLE IF EXISTS pgb_rerun") })
	f := pgbenchScript(t, dir, "ins.sql", "INSERT INTO pgb_rerun (v) VALUES (1);\n")
	orig := filepath.Join(dir, "orig.json")
	if code, out, errOut := runAbs(t, dir, "run", "script/pgbench", "-p", "file="+f, "--target", u, "--operations", "5", "-q", "-o", orig); code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, out, errOut)
	}
	pgbenchScript(t, dir, "ins.sql", "INSERT INTO pgb_rerun (v) VALUES (2);\n")
	if code, out, errOut := runAbs(t, dir, "rerun", orig, "-o", filepath.Join(dir, "again.json")); code != 0 {
		t.Fatalf("rerun: exit %d\n%s%s", code, out, errOut)
	}
	if got := o.Ints(t, "SELECT count(*) FROM pgb_rerun WHERE v = 1"); got[0] != 10 {
		t.Errorf("rows of the recorded script: %v, want 10 (5 by the run, 5 by the rerun)", got)
	}
	if got := o.Ints(t, "SELECT count(*) FROM pgb_rerun WHERE v = 2"); got[0] != 0 {
		t.Errorf("rows of the edited file: %v, want 0", got)
	}
	data, err := os.ReadFile(orig)
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Spec struct {
			Scripts []struct{ Name, SHA256, Text string }
		}
	}
	if err := json.Unmarshal(data, &res); err != nil || len(res.Spec.Scripts) != 1 || !strings.Contains(res.Spec.Scripts[0].Text, "VALUES (1)") {
		t.Errorf("the result's spec.scripts: %+v (%v)", res.Spec.Scripts, err)
	}
}

// Bad scripts are refused before anything runs (exit 2), with pgbench's
// file:line message.
func TestPgbenchBadScripts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	u := "sqlite://" + filepath.Join(dir, "x.db")
	bin := filepath.Join(dir, "bin.sql")
	if err := os.WriteFile(bin, []byte("SELECT 1;\x00\x01\x02"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ file, text, want string }{
		{"syntax.sql", "SELECT 1;\n\\set x 1 +\n", "syntax.sql:2: syntax error in command \"set\""},
		{"meta.sql", "\\nosuch 1\n", "meta.sql:1: invalid command in command \"nosuch\""},
		{"func.sql", "\\set x nosuch(1)\n", "func.sql:1: unexpected function name (nosuch)"},
		{"shell.sql", "\\shell ls\n", "--allow-shell"},
		{"bin.sql", "", "is not a text file"},
	} {
		path := bin
		if c.text != "" {
			path = pgbenchScript(t, dir, c.file, c.text)
		}
		code, out, errOut := runAt(t, dir, "pgbench", "-t", "1", "-f", path, "--target", u)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: exit %d, want 2 and %q\n%s%s", c.file, code, c.want, out, errOut)
		}
	}
}

// An error pgbench does not retry aborts the client, as pgbench's: each
// client stops at its first such error (one failed transaction each), the
// line saying which command of which script failed and why is on stderr,
// and the run ends once every client has stopped, long before its -T, as
// failed (exit 5).
func TestPgbenchRunTimeErrorsAbortTheClient(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	u := "sqlite://" + filepath.Join(dir, "x.db")
	for _, c := range []struct {
		name, text, want string
	}{
		{"div", "\\set r random(0, 1)\n\\set x 10 / :r\nSELECT :x;\n", "aborted in command 1 (set) of script 0; evaluation of meta-command failed: division by zero"},
		{"gset", "\\set r random(0, 1)\nSELECT 1 AS one WHERE :r = 1 \\gset\n", "script 0 aborted in command 1 query 0: expected one row, got 0"},
		{"sql", "SELECT 1;\nSELECT * FROM i7_nosuch;\n", "script 0 aborted in command 1 query 0: SQL logic error: no such table: i7_nosuch"},
	} {
		f := pgbenchScript(t, dir, c.name+".sql", c.text)
		out := filepath.Join(dir, c.name+".json")
		began := time.Now()
		code, stdout, errOut := runAt(t, dir, "pgbench", "-c", "2", "-T", "600", "-f", f, "--target", u, "-o", out)
		if took := time.Since(began); took > 5*time.Minute { // a -T of 10 minutes that ran out, not an abort
			t.Errorf("%s: the run took %v", c.name, took)
		}
		if code != ExitRunFailed || !strings.Contains(errOut, c.want) || !strings.Contains(errOut, "2 of 2 clients aborted") {
			t.Errorf("%s: exit %d, want %d and %q\n%s%s", c.name, code, ExitRunFailed, c.want, stdout, errOut)
			continue
		}
		if strings.Contains(errOut, "--max-error-rate") {
			t.Errorf("%s: raising the error budget does not help an abort:\n%s", c.name, errOut)
		}
		res, err := result.Read(out)
		if err != nil {
			t.Fatal(err)
		}
		ph := res.Phases[len(res.Phases)-1]
		op := ph.Ops[0]
		var failed int64
		for _, n := range op.Errors {
			failed += n
		}
		if failed != 2 || ph.Status != result.StatusFailed || !strings.Contains(ph.Failure, c.want) {
			t.Errorf("%s: %d failed (want one a client), status %s: %s", c.name, failed, ph.Status, ph.Failure)
		}
	}
}

// On PostgreSQL the abort line carries the server's own message and the
// statement, as pgbench 15's does; pgbench itself (when installed) is the
// oracle of the server's text.
func TestPgbenchSQLErrorAbortsWithServersMessage(t *testing.T) {
	t.Parallel()
	u := postgresURL(t)
	dir := t.TempDir()
	f := pgbenchScript(t, dir, "bad.sql", "SELECT 1;\nSELECT * FROM i7_no_such_table;\n")
	began := time.Now()
	code, stdout, errOut := runAt(t, dir, "pgbench", "-c", "4", "-T", "600", "-f", f, "--target", u, "-o", filepath.Join(dir, "r.json"))
	if took := time.Since(began); took > 5*time.Minute {
		t.Errorf("the run took %v", took)
	}
	want := `script 0 aborted in command 1 query 0: ERROR: relation "i7_no_such_table" does not exist (SQLSTATE 42P01); the statement (` + f + ` line 2): SELECT * FROM i7_no_such_table;`
	if code != ExitRunFailed || !strings.Contains(errOut, want) || !strings.Contains(errOut, "4 of 4 clients aborted") {
		t.Fatalf("exit %d, want %d and %q\n%s%s", code, ExitRunFailed, want, stdout, errOut)
	}
	if n := strings.Count(errOut, "aborted in command 1"); n != 2 { // the line at once, and in the run's failure
		t.Errorf("the same error shown %d times, want once at once and once in the failure:\n%s", n, errOut)
	}
	bin := "/usr/lib/postgresql/15/bin/pgbench"
	if _, err := os.Stat(bin); err != nil {
		return
	}
	pu, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-n", "-c", "1", "-T", "600", "-f", f, "-h", pu.Hostname(), "-p", pu.Port(), "-U", pu.User.Username(), strings.TrimPrefix(pu.Path, "/"))
	ref, _ := cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() != 2 || !strings.Contains(string(ref), `client 0 script 0 aborted in command 1 query 0: ERROR:  relation "i7_no_such_table" does not exist`) {
		t.Errorf("pgbench 15 itself (exit %d):\n%s", cmd.ProcessState.ExitCode(), ref)
	}
}

// A variable read before any command set it fails the transaction.
func TestPgbenchUndefinedVariable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	u := "sqlite://" + filepath.Join(dir, "x.db")
	f := pgbenchScript(t, dir, "undef.sql", "\\set x :nope + 1\nSELECT :x;\n")
	out := filepath.Join(dir, "u.json")
	code, stdout, errOut := runAt(t, dir, "pgbench", "-t", "3", "-f", f, "--target", u, "-o", out)
	if code != 5 || !strings.Contains(stdout, "number of failed transactions: 1 (100.000%)") || !strings.Contains(errOut, "client 0 aborted in command 0 (set) of script 0") {
		t.Fatalf("exit %d, want 5 with the client aborted at its first transaction\n%s%s", code, stdout, errOut)
	}
	res, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range res.Phases[len(res.Phases)-1].Ops[0].FirstErrors {
		if !strings.Contains(m, `undef.sql: line 1 (command 1): undefined variable "nope"`) {
			t.Errorf("first error %q", m)
		}
	}
}

// \gset stores a NULL column as pgbench does, an empty string, which an
// expression refuses; the other columns are read as numbers.
func TestPgbenchGsetNull(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	u := "sqlite://" + filepath.Join(dir, "x.db")
	for _, c := range []struct{ script, want string }{
		{"SELECT 5 AS five, NULL AS nada \\gset g_\n\\set x :g_five * 2\nSELECT :x AS ten \\gset\n\\if :ten = 10\nSELECT 1;\n\\endif\n", ""},
		{"SELECT 5 AS five, NULL AS nada \\gset g_\n\\set x :g_nada + 1\n", `line 2 (command 2): empty value for variable "g_nada"`},
	} {
		f := pgbenchScript(t, dir, "g.sql", c.script)
		out := filepath.Join(dir, "g.json")
		code, stdout, errOut := runAt(t, dir, "pgbench", "-t", "1", "-M", "prepared", "-f", f, "--target", u, "-o", out)
		if c.want == "" {
			if code != 0 {
				t.Errorf("exit %d\n%s%s", code, stdout, errOut)
			}
			continue
		}
		res, err := result.Read(out)
		if err != nil {
			t.Fatal(err)
		}
		if m := res.Phases[len(res.Phases)-1].Ops[0].FirstErrors; code != 5 || !strings.Contains(m["other"], c.want) {
			t.Errorf("exit %d, first errors %v; want 5 and %q", code, m, c.want)
		}
	}
}

// Tables pgbench -i created are pgbench's, not candor's: candor pgbench -i
// refuses to drop them (exit 4, saying why), and a run uses them as
// pgbench would.
func TestPgbenchForeignTables(t *testing.T) {
	postgresURL(t)
	bin, err := exec.LookPath("pgbench")
	if err != nil {
		t.Skip("no pgbench binary")
	}
	u := targettest.PostgresDatabaseURL(t) // a database of its own: pgbench's tables have fixed names
	t.Parallel()
	dir := t.TempDir()
	runAt(t, dir, "cleanup", "script/pgbench", "-p", "tables=true", "--target", u)
	o := oracle.Open(t, u)
	t.Cleanup(func() {
		o.Exec(t, "DROP TABLE IF EXISTS pgbench_accounts, pgbench_branches, pgbench_tellers, pgbench_history")
	})
	pu, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bin, "-i", "-s", "1", "-q", "-h", pu.Hostname(), "-p", pu.Port(), "-U", pu.User.Username(), strings.TrimPrefix(pu.Path, "/")).CombinedOutput(); err != nil {
		t.Fatalf("pgbench -i: %v\n%s", err, out)
	}
	code, out, errOut := runAt(t, dir, "pgbench", "-i", "-s", "1", "--target", u)
	if code != 4 || !strings.Contains(errOut, "candor did not create it") || !strings.Contains(errOut, "pgbench_") {
		t.Errorf("candor pgbench -i over pgbench's tables: exit %d, want 4 and the reason\n%s%s", code, out, errOut)
	}
	if got := o.Ints(t, "SELECT count(*) FROM pgbench_accounts"); got[0] != 100000 {
		t.Errorf("pgbench's accounts after the refusal: %v, want 100000", got)
	}
	code, out, errOut = runAt(t, dir, "pgbench", "-c", "2", "-t", "5", "--target", u)
	if code != 0 || !strings.Contains(out, "number of transactions actually processed: 10/10") {
		t.Errorf("a run on pgbench's tables: exit %d\n%s%s", code, out, errOut)
	}
	if got := o.Ints(t, "SELECT count(*) FROM pgbench_history"); got[0] != 10 {
		t.Errorf("pgbench_history: %v, want 10", got)
	}
}

// pgbench's -j threads are candor's event loops (--loops): 8 clients on 2
// loops run tpcb-like transactions whole (the TPC-B balances agree, read by
// the test's own connection), and a script that sleeps between statements
// under -R runs every client, each transaction it counts once (the rows
// it inserted).
func TestPgbenchClientsOnLoops(t *testing.T) {
	postgresURL(t)
	u := targettest.PostgresDatabaseURL(t) // a database of its own: pgbench's tables have fixed names
	t.Parallel()
	dir := t.TempDir()
	if code, out, errOut := runAbs(t, dir, "pgbench", "-i", "-s", "1", "--target", u, "-o", filepath.Join(dir, "init.json")); code != 0 {
		t.Fatalf("pgbench -i: exit %d\n%s%s", code, out, errOut)
	}
	o := oracle.Open(t, u)
	t.Cleanup(func() {
		o.Exec(t, "DROP TABLE IF EXISTS pgbench_accounts, pgbench_branches, pgbench_tellers, pgbench_history, pgb_loops")
	})
	out1 := filepath.Join(dir, "tpcb.json")
	code, out, errOut := runAbs(t, dir, "pgbench", "-c", "8", "-j", "2", "-t", "25", "-M", "prepared", "--target", u, "-o", out1)
	if code != 0 || !strings.Contains(out, "number of transactions actually processed: 200/200") || !strings.Contains(out, "number of threads: 2") {
		t.Fatalf("tpcb-like on 2 loops: exit %d\n%s%s", code, out, errOut)
	}
	if io := runPhaseOf(t, out1).Client.SessionIO; io != "loop" {
		t.Errorf("session I/O %q, want loop", io)
	}
	if got := o.Ints(t, "SELECT count(*) FROM pgbench_history"); got[0] != 200 {
		t.Errorf("pgbench_history: %v rows, want 200", got)
	}
	sums := o.Ints(t, "SELECT (SELECT sum(delta) FROM pgbench_history) - (SELECT sum(abalance) FROM pgbench_accounts) UNION ALL "+
		"SELECT (SELECT sum(delta) FROM pgbench_history) - (SELECT sum(bbalance) FROM pgbench_branches) UNION ALL "+
		"SELECT (SELECT sum(delta) FROM pgbench_history) - (SELECT sum(tbalance) FROM pgbench_tellers)")
	for i, d := range sums {
		if d != 0 {
			t.Errorf("balance %d differs from the history's deltas by %d", i, d)
		}
	}
	o.Exec(t, "CREATE TABLE pgb_loops (client INTEGER)")
	f := pgbenchScript(t, dir, "sleepy.sql", "\\sleep 2 ms\nINSERT INTO pgb_loops VALUES (:client_id);\n")
	out2 := filepath.Join(dir, "sleepy.json")
	code, out, errOut = runAbs(t, dir, "pgbench", "-c", "8", "-j", "2", "-T", "2", "-R", "200", "-f", f, "--target", u, "-o", out2)
	if code != 0 {
		t.Fatalf("a sleeping script on 2 loops: exit %d\n%s%s", code, out, errOut)
	}
	p := runPhaseOf(t, out2)
	// A transaction in flight at the end commits uncounted: one a client.
	if got := o.Ints(t, "SELECT count(*) FROM pgb_loops"); got[0] < p.Operations || got[0] > p.Operations+8 || p.Operations == 0 {
		t.Errorf("pgb_loops: %v rows; the run counted %d transactions (and at most 8 in flight at its end)", got, p.Operations)
	}
	if got := o.Ints(t, "SELECT count(DISTINCT client) FROM pgb_loops"); got[0] != 8 {
		t.Errorf("%v clients inserted rows, want all 8", got)
	}
}

// -T's end lets each client's transaction in flight finish, and counts it,
// as pgbench does: the transactions processed are the rows the script
// inserted (read by the test's own connection), and the result records the
// rule; its laws hold.
func TestPgbenchDurationCountsInFlight(t *testing.T) {
	u := postgresURL(t)
	t.Parallel() // its table is its own
	dir := t.TempDir()
	o := oracle.Open(t, u)
	o.Exec(t, "DROP TABLE IF EXISTS pgb_inflight", "CREATE TABLE pgb_inflight (v INTEGER)")
	t.Cleanup(func() { o.Exec(t, "DROP TABLE IF EXISTS pgb_inflight") })
	// Each transaction sleeps after its insert: at the end every client is
	// all but surely in one.
	f := pgbenchScript(t, dir, "ins.sql", "INSERT INTO pgb_inflight (v) VALUES (1);\nSELECT pg_sleep(0.05);\n")
	out := filepath.Join(dir, "t.json")
	code, stdout, stderr := runAbs(t, dir, "pgbench", "-n", "-c", "4", "-T", "2", "-f", f, "--target", u, "-o", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	res, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	ph := res.Phases[len(res.Phases)-1]
	rows := o.Ints(t, "SELECT count(*) FROM pgb_inflight")[0]
	if ph.Operations != rows || !ph.FinishInFlight {
		t.Errorf("processed %d, rows inserted %d (finish_in_flight %v): want equal, counted by pgbench's rule", ph.Operations, rows, ph.FinishInFlight)
	}
	if !strings.Contains(stdout, "number of transactions actually processed: "+strconv.FormatInt(rows, 10)) {
		t.Errorf("the report does not say %d processed:\n%s", rows, stdout)
	}
}

// candor pgbench vacuums as pgbench 15 does: -i ends with VACUUM ANALYZE of
// the four tables; a run first vacuums pgbench_branches and
// pgbench_tellers and empties pgbench_history, -v also vacuums
// pgbench_accounts, -n none of it (-n wins over -v). The same command
// lines run by pgbench itself on a database of its own are the oracle:
// after each, the server's vacuum and analyze counters
// (pg_stat_user_tables) and the history's rows must have moved alike.
func TestPgbenchVacuumAsPgbench(t *testing.T) {
	postgresURL(t)
	bin, err := exec.LookPath("pgbench")
	if err != nil {
		if _, serr := os.Stat("/usr/lib/postgresql/15/bin/pgbench"); serr != nil {
			t.Skip("no pgbench binary")
		}
		bin = "/usr/lib/postgresql/15/bin/pgbench"
	}
	ours, theirs := targettest.PostgresDatabaseURL(t), targettest.PostgresDatabaseURL(t)
	t.Parallel()
	dir := t.TempDir()
	oo, ot := oracle.Open(t, ours), oracle.Open(t, theirs)
	pu, err := url.Parse(theirs)
	if err != nil {
		t.Fatal(err)
	}
	snapshot := func(o *oracle.Conn) string {
		var b strings.Builder
		for _, tb := range []string{"pgbench_accounts", "pgbench_branches", "pgbench_history", "pgbench_tellers"} {
			v := o.Ints(t, "SELECT vacuum_count FROM pg_stat_user_tables WHERE relname = '"+tb+"'")
			a := o.Ints(t, "SELECT analyze_count FROM pg_stat_user_tables WHERE relname = '"+tb+"'")
			fmt.Fprintf(&b, "%s vacuums %v analyzes %v; ", tb, v, a)
		}
		fmt.Fprintf(&b, "history rows %v", o.Ints(t, "SELECT count(*) FROM pgbench_history"))
		return b.String()
	}
	for i, args := range [][]string{
		{"-i", "-s", "1"},
		{"-c", "1", "-t", "5"},
		{"-c", "1", "-t", "5"}, // the history of the run before is emptied
		{"-n", "-c", "1", "-t", "5"},
		{"-v", "-c", "1", "-t", "5"},
		{"-n", "-v", "-c", "1", "-t", "5"},
	} {
		code, out, errOut := runAbs(t, dir, append(append([]string{"pgbench"}, args...), "--target", ours, "-o", filepath.Join(dir, fmt.Sprintf("r%d.json", i)))...)
		if code != 0 {
			t.Fatalf("candor pgbench %v: exit %d\n%s%s", args, code, out, errOut)
		}
		ref := exec.Command(bin, append(args, "-h", pu.Hostname(), "-p", pu.Port(), "-U", pu.User.Username(), strings.TrimPrefix(pu.Path, "/"))...)
		if b, err := ref.CombinedOutput(); err != nil {
			t.Fatalf("pgbench %v: %v\n%s", args, err, b)
		}
		if got, want := snapshot(oo), snapshot(ot); got != want {
			t.Errorf("after pgbench %v:\ncandor:  %s\npgbench: %s", args, got, want)
		}
	}
}
