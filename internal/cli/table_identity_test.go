package cli

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	gomysql "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	_ "modernc.org/sqlite" // database/sql driver "sqlite"

	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/result/resulttest"
	"github.com/candor-bench/candor/internal/tables"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/target/targettest"
)

// ownDB is a connection of the test's own to the database of a candor
// target URL, with the driver's own package (pgx, go-sql-driver/mysql,
// modernc.org/sqlite through database/sql), not candor's target code: the
// tests' oracle, and the "other tool" that replaces candor's tables.
type ownDB struct {
	pg *pgx.Conn
	db *sql.DB
}

func openOwnDB(t *testing.T, target string) *ownDB {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	o := &ownDB{}
	switch u.Scheme {
	case "postgres", "postgresql":
		o.pg, err = pgx.Connect(context.Background(), target)
	case "sqlite":
		o.db, err = sql.Open("sqlite", u.Path)
	case "mysql":
		cfg := gomysql.NewConfig()
		cfg.Net, cfg.Addr, cfg.User, cfg.DBName = "tcp", u.Host, u.User.Username(), strings.TrimPrefix(u.Path, "/")
		cfg.Passwd, _ = u.User.Password()
		o.db, err = sql.Open("mysql", cfg.FormatDSN())
	default:
		t.Fatalf("no driver of the test's own for %s", u.Scheme)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if o.pg != nil {
			o.pg.Close(context.Background())
		} else {
			o.db.Close()
		}
	})
	return o
}

func (o *ownDB) exec(stmt string) error {
	if o.pg != nil {
		_, err := o.pg.Exec(context.Background(), stmt)
		return err
	}
	_, err := o.db.Exec(stmt)
	return err
}

// count counts table's rows; -1 when the table does not exist (or cannot
// be read).
func (o *ownDB) count(t *testing.T, table string) int {
	t.Helper()
	var n int
	var err error
	if o.pg != nil {
		err = o.pg.QueryRow(context.Background(), "SELECT COUNT(*) FROM "+table).Scan(&n)
	} else {
		err = o.db.QueryRow("SELECT COUNT(*) FROM " + table).Scan(&n)
	}
	if err != nil {
		t.Logf("counting %s: %v", table, err)
		return -1
	}
	return n
}

// withOut is the command args with rest, and a result file in dir for the
// commands that write one.
func withOut(args []string, dir string, rest []string) []string {
	out := append(append([]string(nil), args...), rest...)
	if args[0] != "cleanup" {
		out = append(out, "-o", filepath.Join(dir, "r.json"))
	}
	return out
}

// freshLoad drops what an earlier test run left of the table props name
// (whoever created it) and loads ycsb into it with the extra load args.
func freshLoad(t *testing.T, dir, url string, props []string, extra ...string) {
	t.Helper()
	runAt(t, dir, append([]string{"cleanup", "ycsb", "--target", url, "-q", "--allow-foreign-tables"}, props...)...)
	if code, _, stderr := runAt(t, dir, append(append([]string{"load", "ycsb", "--target", url, "-q"}, extra...), props...)...); code != 0 {
		t.Fatalf("load: exit %d\n%s", code, stderr)
	}
}

// TestReplacedTableRefused is issue 35's repro: after another tool dropped
// candor's usertable and created its own under the same name (the mark in
// candor_owned_tables still names it), no command of candor's writes or
// drops it: runs (--load never, auto, always), load and cleanup all refuse
// it with exit 4, naming the table and the identity that differs, and the
// other tool's table and rows are still there, counted by a connection of
// the test's own. --allow-foreign-tables still lets cleanup drop it.
func TestReplacedTableRefused(t *testing.T) {
	t.Parallel()
	for name, url := range targettest.RealTargets(t, true) { // databases of its own: tests run at once
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			table := "replaced_" + name
			props := []string{"-p", "table=" + table, "-p", "recordcount=100"}
			freshLoad(t, dir, url, props)
			db := openOwnDB(t, url)
			defer db.exec("DROP TABLE IF EXISTS " + table)
			for _, stmt := range []string{
				"DROP TABLE " + table,
				"CREATE TABLE " + table + " (ycsb_key VARCHAR(64) PRIMARY KEY, tool_value INT)",
				"INSERT INTO " + table + " (ycsb_key, tool_value) VALUES ('a', 1), ('b', 2), ('c', 3), ('d', 4), ('e', 5), ('f', 6), ('g', 7)",
			} {
				if err := db.exec(stmt); err != nil {
					t.Fatalf("%s: %v", stmt, err)
				}
			}
			for _, args := range [][]string{
				{"run", "ycsb/c", "--operations", "10", "--load", "never"},
				{"run", "ycsb/a", "--operations", "10"},
				{"run", "ycsb/a", "--operations", "10", "--load", "always"},
				{"load", "ycsb"},
				{"cleanup", "ycsb"},
			} {
				code, _, stderr := runAt(t, dir, withOut(args, dir, append([]string{"--target", url, "-q"}, props...))...)
				if code != ExitUnsupported || !strings.Contains(stderr, "table "+table+" is not the table candor created") ||
					!strings.Contains(stderr, "identity is") || !strings.Contains(stderr, "drop it yourself") {
					t.Errorf("%v on a replaced table: exit %d, want %d naming the table, its identity and the fix:\n%s", args, code, ExitUnsupported, stderr)
				}
			}
			if n := db.count(t, table); n != 7 {
				t.Errorf("the other tool's table holds %d rows after candor's commands, want its 7", n)
			}
			if code, _, stderr := runAt(t, dir, append([]string{"cleanup", "ycsb", "--target", url, "-q", "--allow-foreign-tables"}, props...)...); code != 0 {
				t.Errorf("cleanup --allow-foreign-tables: exit %d\n%s", code, stderr)
			}
			if n := db.count(t, table); n != -1 {
				t.Errorf("cleanup --allow-foreign-tables left the table (%d rows)", n)
			}
		})
	}
}

// TestMarkWithoutIdentityRefused: a mark written before candor recorded
// identities (an earlier version) cannot tell candor's table from another
// tool's: candor refuses to use or drop it, says why and what to do, and
// --allow-foreign-tables still works.
func TestMarkWithoutIdentityRefused(t *testing.T) {
	t.Parallel()
	for name, url := range targettest.RealTargets(t, true) { // databases of its own: tests run at once
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			table := "unidentified_" + name
			props := []string{"-p", "table=" + table, "-p", "recordcount=100"}
			freshLoad(t, dir, url, props)
			defer runAt(t, dir, append([]string{"cleanup", "ycsb", "--target", url, "-q", "--allow-foreign-tables"}, props...)...)
			m := markOf(t, url, table)
			if m.ID == "" || m.ID == tables.NoIdentity {
				t.Fatalf("the load recorded no identity: %q", m.Raw)
			}
			m.ID = ""
			withConn(t, url, func(ctx context.Context, tgt target.Target, c target.Conn) {
				if err := target.SetMark(ctx, c, tgt.Dialect(), table, m.String()); err != nil {
					t.Fatal(err)
				}
			})
			for _, args := range [][]string{{"run", "ycsb/c", "--operations", "10", "--load", "never"}, {"cleanup", "ycsb"}} {
				code, _, stderr := runAt(t, dir, withOut(args, dir, append([]string{"--target", url, "-q"}, props...))...)
				if code != ExitUnsupported || !strings.Contains(stderr, "earlier version of candor") {
					t.Errorf("%v on a mark without identity: exit %d\n%s", args, code, stderr)
				}
			}
			if n := openOwnDB(t, url).count(t, table); n != 100 {
				t.Errorf("%d rows after the refusals, want 100", n)
			}
			code, _, stderr := runAt(t, dir, append([]string{"run", "ycsb/c", "--operations", "10", "--load", "never", "--allow-foreign-tables",
				"--target", url, "-q", "-o", filepath.Join(dir, "r.json")}, props...)...)
			if code != 0 {
				t.Errorf("run --allow-foreign-tables on a mark without identity: exit %d\n%s", code, stderr)
			}
		})
	}
}

// TestReusedDataKeepsItsLoadBatch: a run on tables loaded earlier records
// the load batch the load used (from the tables' marks), not its own
// --batch-size; a run that loads records its own.
func TestReusedDataKeepsItsLoadBatch(t *testing.T) {
	t.Parallel()
	for name, url := range targettest.RealTargets(t, true) { // databases of its own: tests run at once
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			table := "provenance_" + name
			props := []string{"-p", "table=" + table, "-p", "recordcount=200"}
			freshLoad(t, dir, url, props, "--batch-size", "37", "-o", "load.json")
			defer runAt(t, dir, append([]string{"cleanup", "ycsb", "--target", url, "-q"}, props...)...)
			if b := resulttest.Read(t, filepath.Join(dir, "load.json")).Run.LoadBatch; b != 37 {
				t.Errorf("load's result: load batch %d, want 37", b)
			}
			code, _, stderr := runAt(t, dir, append([]string{"run", "ycsb/c", "--target", url, "-q", "--operations", "10", "--batch-size", "500", "-o", "run.json"}, props...)...)
			if code != 0 {
				t.Fatalf("run: exit %d\n%s", code, stderr)
			}
			if b := resulttest.Read(t, filepath.Join(dir, "run.json")).Run.LoadBatch; b != 37 {
				t.Errorf("run on the loaded table: load batch %d, want the load's 37 (the run said --batch-size 500)", b)
			}
		})
	}
}

// cqlOwnSession is a gocql session of the test's own on the cluster of a
// candor CQL URL (host and port only), not candor's driver.
func cqlOwnSession(t *testing.T, candorURL string) *gocql.Session {
	t.Helper()
	u, err := url.Parse(strings.Replace(candorURL, "cql://", "http://", 1))
	if err != nil {
		t.Fatal(err)
	}
	cluster := gocql.NewCluster(strings.Split(u.Hostname(), ",")...)
	fmt.Sscan(u.Port(), &cluster.Port)
	cluster.Timeout, cluster.ConnectTimeout = 30*time.Second, 30*time.Second
	s, err := cluster.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// TestCassandraReplacedTableAndProvenance: on Cassandra, (1) a run on a
// keyspace loaded at QUORUM records load_consistency QUORUM whatever its
// own URL says (issue 35, B5); (2) a usertable dropped and created again by
// another client (a gocql session of the test's own) is refused by run and
// cleanup with exit 4 and keeps its rows; (3) a keyspace candor did not
// create is a safety refusal, exit 4.
func TestCassandraReplacedTableAndProvenance(t *testing.T) {
	ks := fmt.Sprintf("candor_id_%08x", rand.Uint32())
	url := cassandraURL(t, ks)
	t.Parallel()
	own := cqlOwnSession(t, url)
	defer own.Query("DROP KEYSPACE IF EXISTS " + ks).Exec()
	dir := t.TempDir()
	props := []string{"-p", "recordcount=300"}

	load := cqlParams(url, "load_consistency=QUORUM")
	if code, _, stderr := runAt(t, dir, append([]string{"load", "ycsb", "--target", load, "-q", "--batch-size", "40", "-o", "load.json"}, props...)...); code != 0 {
		t.Fatalf("load: exit %d\n%s", code, stderr)
	}
	run := cqlParams(url, "load_consistency=ALL")
	if code, _, stderr := runAt(t, dir, append([]string{"run", "ycsb/c", "--target", run, "-q", "--operations", "20", "--load", "never", "-o", "run.json"}, props...)...); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	var res *result.Result = resulttest.Read(t, filepath.Join(dir, "run.json"))
	if got := res.Target.Settings["load_consistency"]; got != "QUORUM" {
		t.Errorf("run on data loaded at QUORUM records load_consistency %q (its URL says ALL)", got)
	}
	if res.Run.LoadBatch != 40 {
		t.Errorf("run on data loaded in batches of 40 records load batch %d", res.Run.LoadBatch)
	}

	for _, stmt := range []string{
		"DROP TABLE " + ks + ".usertable",
		"CREATE TABLE " + ks + ".usertable (y_id text PRIMARY KEY, tool_value int)",
		"INSERT INTO " + ks + ".usertable (y_id, tool_value) VALUES ('a', 1)",
		"INSERT INTO " + ks + ".usertable (y_id, tool_value) VALUES ('b', 2)",
	} {
		if err := own.Query(stmt).Exec(); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	for _, args := range [][]string{{"run", "ycsb/c", "--operations", "10", "--load", "never"}, {"cleanup", "ycsb"}} {
		code, _, stderr := runAt(t, dir, withOut(args, dir, append([]string{"--target", url, "-q"}, props...))...)
		if code != ExitUnsupported || !strings.Contains(stderr, "table usertable is not the table candor created") {
			t.Errorf("%v on a replaced table: exit %d\n%s", args, code, stderr)
		}
	}
	var n int
	if err := own.Query("SELECT count(*) FROM " + ks + ".usertable").Scan(&n); err != nil || n != 2 {
		t.Errorf("the other client's table: %d rows (%v), want 2", n, err)
	}

	foreign := fmt.Sprintf("candor_fks_%08x", rand.Uint32())
	if err := own.Query("CREATE KEYSPACE " + foreign + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}").Exec(); err != nil {
		t.Fatal(err)
	}
	defer own.Query("DROP KEYSPACE IF EXISTS " + foreign).Exec()
	code, _, stderr := runAt(t, dir, "run", "ycsb/c", "--target", cassandraURL(t, foreign), "-q", "--operations", "10", "-o", filepath.Join(dir, "f.json"))
	if code != ExitUnsupported || !strings.Contains(stderr, "candor did not create it") {
		t.Errorf("run on a keyspace candor did not create: exit %d, want %d (a safety refusal)\n%s", code, ExitUnsupported, stderr)
	}
}
