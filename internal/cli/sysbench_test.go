package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/target/targettest"
)

func TestSysbenchBadInput(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		// unknown test lists the tests
		{"unknown test", []string{"run", "sysbench/oltp_frobnicate", "--target", "null://"}, ExitUsage, "oltp_read_write"},
		// option out of range names the option
		{"range-size 0", []string{"run", "sysbench/oltp_read_only", "--range-size", "0", "--target", "null://"}, ExitUsage, "range-size"},
		// a sysbench option on a ycsb workload
		{"option of another workload", []string{"run", "ycsb/a", "--tables", "4", "--target", "null://"}, ExitUsage, "--tables is an option of sysbench"},
		// sharding on a target without it, before anything is created
		{"sharding on SQLite", []string{"prepare", "sysbench", "--sharding", "hash"}, ExitUnsupported, "sharding"},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(t, dir, nil, c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d (want %d), stderr:\n%s", c.name, code, c.code, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "candor.db")); err == nil && exists(t, "sqlite://"+filepath.Join(dir, "candor.db"), "sbtest1") {
		t.Error("a refused sharding option still created tables")
	}
}

// failUpdates makes every UPDATE of sbtest1 on url (a target of
// integrationTargets' name) fail with an error of the server's own, 'boom'
// raised by a trigger, until t ends.
func failUpdates(t *testing.T, name, url string) {
	t.Helper()
	trigger := map[string][]string{
		"postgres": {"CREATE OR REPLACE FUNCTION candor_boom() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN RAISE EXCEPTION 'boom'; END$$",
			"CREATE TRIGGER boom BEFORE UPDATE ON sbtest1 FOR EACH ROW EXECUTE FUNCTION candor_boom()"},
		"mysql": {"CREATE TRIGGER boom BEFORE UPDATE ON sbtest1 FOR EACH ROW SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'boom'"},
	}[name]
	if trigger == nil {
		t.Fatalf("failUpdates: no trigger for %s", name)
	}
	for _, sql := range trigger {
		execSQL(t, url, sql)
	}
	if name == "postgres" {
		t.Cleanup(func() { execSQL(t, url, "DROP FUNCTION candor_boom() CASCADE") })
	}
}

// TestSysbenchFatalError: an error sysbench does not ignore ends the run as
// sysbench's FATAL does: exit 5, its driver's FATAL lines (naming the query
// on MySQL wire) instead of the report, and a result marked failed.
func TestSysbenchFatalError(t *testing.T) {
	t.Parallel()
	for name, url := range targettest.RealTargets(t, true) { // databases of its own: tests run at once
		if name == "sqlite" {
			continue // a trigger's error is a constraint violation there, which sysbench restarts on
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			common := []string{"--target", url, "--table-size", "1000"}
			runAt(t, dir, append([]string{"cleanup", "sysbench", "-q"}, common...)...)
			if code, _, stderr := runAt(t, dir, append([]string{"prepare", "sysbench", "-q"}, common...)...); code != 0 {
				t.Fatalf("prepare: exit %d\n%s", code, stderr)
			}
			defer runAt(t, dir, append([]string{"cleanup", "sysbench", "-q"}, common...)...)
			failUpdates(t, name, url)
			code, stdout, stderr := runAt(t, dir, append([]string{"run", "sysbench/oltp_update_index", "--time", "5", "--format", "sysbench", "-o", "f.json"}, common...)...)
			want := map[string]string{
				"mysql": "FATAL: mysql_stmt_execute() returned error 1644 (boom) for query 'UPDATE sbtest1 SET k=k+1 WHERE id=?'\n" +
					"FATAL: `thread_run' function failed: SQL error, errno = 1644, state = '45000': boom\n",
				"postgres": "FATAL: PQexecPrepared() failed: 7 boom\n" +
					"FATAL: `thread_run' function failed: SQL error, errno = 0, state = 'P0001': boom\n",
			}[name]
			if code != ExitRunFailed || !strings.HasSuffix(stdout, "\n"+want) || strings.Contains(stdout, "SQL statistics") {
				t.Fatalf("exit %d, want %d and stdout ending with\n%s\nstdout:\n%s\nstderr:\n%s", code, ExitRunFailed, want, stdout, stderr)
			}
			if !strings.Contains(stderr, "for query 'UPDATE sbtest1 SET k=k+1 WHERE id=") {
				t.Errorf("stderr does not name the query:\n%s", stderr)
			}
			res, err := result.Read(filepath.Join(dir, "f.json"))
			if err != nil || res.Status != result.StatusFailed || !strings.Contains(res.Error, "boom") || res.Phases[len(res.Phases)-1].Status != result.StatusFailed {
				t.Fatalf("result: %v %+v", err, res)
			}
		})
	}
}

// TestSysbenchTableReuse: a run uses prepared tables as sysbench does (any
// table of at least --table-size rows of the same shape), records what they
// hold, and reloads (--load auto) or refuses (--load never) the others;
// prepare refuses tables that exist.
func TestSysbenchTableReuse(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := "sqlite://" + filepath.Join(dir, "candor.db")
	run := func(out string, args ...string) (int, string, *result.Result) {
		t.Helper()
		code, _, stderr := runAt(t, dir, append([]string{"run", "-q", "--time", "0", "--events", "20", "-o", out, "--target", db}, args...)...)
		res, _ := result.Read(filepath.Join(dir, out))
		return code, stderr, res
	}
	if code, _, stderr := runAt(t, dir, on(db, "prepare", "sysbench", "-q", "--tables", "2", "--table-size", "3000")...); code != 0 {
		t.Fatalf("prepare: exit %d\n%s", code, stderr)
	}
	// Fewer ids than rows, another distribution, no --table-size at all (10,000
	// > 3,000 rows: reloaded).
	code, stderr, res := run("a.json", "sysbench/oltp_point_select", "--table-size", "1000", "--rand-type", "uniform")
	if code != 0 || !strings.Contains(stderr, "table sbtest1 holds rows=3000 rand-type=special") || strings.Contains(stderr, "[load]") {
		t.Fatalf("run on a bigger table: exit %d\n%s", code, stderr)
	}
	if res == nil || len(res.Workload.ReusedTables) != 1 || !strings.HasPrefix(res.Workload.ReusedTables[0], "sbtest1: rows=3000 rand-type=special") {
		t.Fatalf("reused tables not recorded: %+v", res)
	}
	code, stderr, res = run("b.json", "sysbench/oltp_read_only", "--tables", "2", "--table-size", "3000")
	if code != 0 || strings.Contains(stderr, "holds") || res == nil || len(res.Workload.ReusedTables) != 0 {
		t.Fatalf("the prepared options again: exit %d, %+v\n%s", code, res, stderr)
	}
	if code, stderr, _ = run("m.json", "sysbench/oltp_read_only", "--tables", "3", "--table-size", "3000", "--load", "never"); code != ExitUnsupported ||
		!strings.Contains(stderr, "table sbtest3 does not exist and --load=never") {
		t.Fatalf("a missing third table with --load never: exit %d\n%s", code, stderr)
	}
	if code, stderr, _ = run("c.json", "sysbench/oltp_point_select", "--load", "never"); code != ExitUnsupported || !strings.Contains(stderr, "table sbtest1 holds rows=3000 where this run says rows=10000;") {
		t.Fatalf("too few rows with --load never: exit %d\n%s", code, stderr)
	}
	if code, stderr, _ = run("d.json", "sysbench/oltp_point_select"); code != 0 || !strings.Contains(stderr, "dropping and reloading") {
		t.Fatalf("too few rows with --load auto: exit %d\n%s", code, stderr)
	}
	if n := countRows(t, db, "sbtest1"); n != 10000 {
		t.Fatalf("sbtest1 has %d rows after the reload, want 10000", n)
	}
	// Another shape is reloaded even with rows enough.
	if code, stderr, _ = run("e.json", "sysbench/oltp_point_select", "--table-size", "100", "--tables", "2", "--create-secondary=off"); code != 0 ||
		!strings.Contains(stderr, "other values of --auto-inc, --secondary, --create-secondary, --mysql-storage-engine") || !strings.Contains(stderr, "dropping and reloading") {
		t.Fatalf("another shape: exit %d\n%s", code, stderr)
	}
	// prepare over tables that exist is refused, and they survive.
	code, _, stderr = runAt(t, dir, on(db, "prepare", "sysbench", "-q", "--table-size", "100")...)
	if code != ExitUnsupported || !strings.Contains(stderr, "table sbtest1 already exists") || !strings.Contains(stderr, "candor cleanup sysbench") {
		t.Fatalf("prepare over existing tables: exit %d\n%s", code, stderr)
	}
	if n := countRows(t, db, "sbtest1"); n != 100 {
		t.Fatalf("sbtest1 has %d rows after a refused prepare, want 100", n)
	}
	// cleanup drops the tables its options name, as sysbench's, and says
	// which of candor's sysbench tables are left.
	code, _, stderr = runAt(t, dir, on(db, "cleanup", "sysbench")...)
	if code != 0 || !strings.Contains(stderr, "candor's sysbench tables sbtest2 are still there") || exists(t, db, "sbtest1") || !exists(t, db, "sbtest2") {
		t.Fatalf("cleanup of one of two tables: exit %d\n%s", code, stderr)
	}
	code, _, stderr = runAt(t, dir, on(db, "cleanup", "sysbench", "--tables", "2")...)
	if code != 0 || strings.Contains(stderr, "still there") || exists(t, db, "sbtest2") {
		t.Fatalf("cleanup of both tables: exit %d\n%s", code, stderr)
	}
	// bulk_insert has a table per thread, and its cleanup drops them all.
	// Its prepare loads nothing and, as sysbench's CREATE TABLE IF NOT
	// EXISTS, may run again.
	for i := 0; i < 2; i++ {
		if code, _, stderr = runAt(t, dir, on(db, "prepare", "sysbench/bulk_insert", "-q", "--threads", "3")...); code != 0 || !exists(t, db, "sbtest3") {
			t.Fatalf("bulk_insert prepare %d: exit %d\n%s", i+1, code, stderr)
		}
	}
	code, _, stderr = runAt(t, dir, on(db, "cleanup", "sysbench/bulk_insert", "--threads", "3")...)
	if code != 0 || strings.Contains(stderr, "still there") || exists(t, db, "sbtest1") || exists(t, db, "sbtest3") {
		t.Fatalf("bulk_insert cleanup: exit %d\n%s", code, stderr)
	}
}

// TestSysbenchRefusesTablesWithoutItsIDs: a test whose statements look rows
// up by id (1..--table-size) is refused, exit 4, before anything is
// measured, when the table's ids are numbered otherwise (as TiDB's
// AUTO_RANDOM or CockroachDB's unique_rowid() number them); a table with a
// few rows deleted still runs. Before the check such a run read nothing,
// exited 0 and was called complete.
func TestSysbenchRefusesTablesWithoutItsIDs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := "sqlite://" + filepath.Join(dir, "candor.db")
	if code, _, stderr := runAt(t, dir, on(db, "prepare", "sysbench", "-q", "--tables", "1", "--table-size", "1000")...); code != 0 {
		t.Fatalf("prepare: exit %d\n%s", code, stderr)
	}
	run := func(out, test string) (int, string, *result.Result) {
		t.Helper()
		code, _, stderr := runAt(t, dir, on(db, "run", "sysbench/"+test, "-q", "--tables", "1", "--table-size", "1000", "--time", "0", "--events", "50", "--load", "never", "-o", out)...)
		res, _ := result.Read(filepath.Join(dir, out))
		return code, stderr, res
	}
	// A few rows gone (a run of oltp_delete): the run goes on.
	execSQL(t, db, "DELETE FROM sbtest1 WHERE id IN (1, 1000, 500)")
	if code, stderr, _ := run("few.json", "oltp_point_select"); code != 0 {
		t.Fatalf("a table with 3 rows deleted: exit %d\n%s", code, stderr)
	}
	// Every id moved out of 1..1000: the point SELECTs would find nothing,
	// the UPDATEs change nothing.
	execSQL(t, db, "UPDATE sbtest1 SET id = id + 2305843009213693952")
	if n := countRows(t, db, "sbtest1"); n != 997 {
		t.Fatalf("sbtest1 has %d rows, want 997", n)
	}
	for _, test := range []string{"oltp_point_select", "oltp_read_write", "oltp_update_index"} {
		code, stderr, res := run(test+".json", test)
		if code != ExitUnsupported || !strings.Contains(stderr, "sbtest1 has no row with id 1, 67,") ||
			!strings.Contains(stderr, "(16 of 16 ids looked up across 1..1000)") || !strings.Contains(stderr, "--load always") {
			t.Errorf("%s on a table without ids 1..1000: exit %d, want %d\n%s", test, code, ExitUnsupported, stderr)
		}
		if res != nil && (res.Status == result.StatusComplete || len(res.Phases) > 0) {
			t.Errorf("%s: the refused run's result is %s with %d phases, want no measured phase", test, res.Status, len(res.Phases))
		}
	}
	// Tests that do not address ids run on it: select_random_points looks
	// rows up by k.
	if code, stderr, _ := run("points.json", "select_random_points"); code != 0 {
		t.Fatalf("select_random_points: exit %d\n%s", code, stderr)
	}
}
