// Package targettest is the conformance suite every driver runs against a
// real database: the behaviour candor relies on, checked the same way for
// each target. It holds no mocks: a driver's integration test opens a real
// target and calls Run.
package targettest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/dialhook"
	"github.com/candor-bench/candor/internal/target"
)

// TableName returns a table name unique to this test run, so tests can share
// a database with other packages' tests.
func TableName(prefix string) string {
	return fmt.Sprintf("%s_%08x", prefix, rand.Uint32())
}

// Connect opens a Conn and closes it when the test ends.
func Connect(t testing.TB, tgt target.Target) target.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := tgt.Connect(ctx)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// DropAtEnd drops table (owned or not) when the test ends.
func DropAtEnd(t testing.TB, tgt target.Target, table string) {
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := tgt.Connect(ctx)
		if err != nil {
			t.Errorf("cleanup: %v", err)
			return
		}
		defer c.Close()
		if err := target.DropOwned(ctx, c, tgt.Dialect(), table, true); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
}

// Rows runs a query and returns its rows as strings ("NULL" for SQL NULL).
func Rows(t testing.TB, c target.Conn, sql string, args ...any) [][]string {
	t.Helper()
	var out [][]string
	_, err := c.Query(context.Background(), sql, args, func(cols [][]byte) error {
		row := make([]string, len(cols))
		for i, v := range cols {
			if v == nil {
				row[i] = "NULL"
			} else {
				row[i] = string(v)
			}
		}
		out = append(out, row)
		return nil
	})
	if err != nil {
		t.Fatalf("Query(%q): %v", sql, err)
	}
	return out
}

// Run runs the conformance suite against tgt, which the caller opened and
// closes.
func Run(t *testing.T, tgt target.Target) {
	t.Run("RoundTrip", func(t *testing.T) { testRoundTrip(t, tgt) })
	t.Run("Constraint", func(t *testing.T) { testConstraint(t, tgt) })
	t.Run("CopyFrom", func(t *testing.T) { testCopyFrom(t, tgt) })
	t.Run("Ownership", func(t *testing.T) { testOwnership(t, tgt) })
	t.Run("CloseTwice", func(t *testing.T) { testCloseTwice(t, tgt) })
	t.Run("Fingerprint", func(t *testing.T) { testFingerprint(t, tgt) })
	t.Run("Interrupt", func(t *testing.T) { testInterrupt(t, tgt) })
	t.Run("ServerClock", func(t *testing.T) { testServerClock(t, tgt) })
	if tgt.Capabilities().BlockingSessions {
		// The same sessions waiting in Go's network poller instead
		// (target.IOPoller, chosen by the runner for many sessions per core).
		p := pollerTarget{tgt}
		t.Run("Poller/RoundTrip", func(t *testing.T) { testRoundTrip(t, p) })
		t.Run("Poller/Interrupt", func(t *testing.T) { testInterrupt(t, p) })
	}
}

// SessionIOSocket checks that a session of tgt opened for Go's network
// poller (target.IOPoller) has a socket of Go's own and every other session
// a blocking one, and that each answers a query. blocking reports whether a
// session of tgt's driver has a blocking socket (package blockconn).
func SessionIOSocket(t *testing.T, tgt target.Target, blocking func(target.Conn) bool) {
	t.Helper()
	for mode, want := range map[target.SessionIO]bool{target.IOPoller: false, target.IOBlocking: true, "": true} {
		c, err := tgt.Connect(target.WithSessionIO(context.Background(), mode))
		if err != nil {
			t.Fatal(err)
		}
		if got := blocking(c); got != want {
			t.Errorf("session I/O %q: blocking socket %v, want %v", mode, got, want)
		}
		if got := Rows(t, c, "SELECT 'ok'"); len(got) != 1 || got[0][0] != "ok" {
			t.Errorf("session I/O %q: SELECT 'ok' = %v", mode, got)
		}
		c.Close()
	}
}

// DialsThroughHook checks that a driver dials through blockconn.Dial, which
// asks internal/dialhook first: the network-fault proxy hands candor's
// sessions over in-process that way (package fault), and a driver that
// dialed otherwise would go through its relay instead. It registers a hook
// for an address where nothing listens, opens rawURL with its host:port
// replaced by that address, and checks that sessions opened in both session
// I/O modes answer query (one row, its first value not empty) and were
// dialed by the hook: each of them on a target with blocking sessions,
// whose every session is a connection of its own, and at least one
// otherwise (a driver's pool serves the sessions).
func DialsThroughHook(t *testing.T, rawURL, query string, open func(t *testing.T, rawURL string) target.Target) {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		t.Fatalf("DialsThroughHook: %s has no host:port", target.Redact(rawURL))
	}
	node := u.Host
	const fake = "127.0.0.1:1" // nothing listens there
	var calls atomic.Int64
	defer dialhook.Intercept(fake, func(_ context.Context, dial func(string) (net.Conn, error)) (net.Conn, error) {
		calls.Add(1)
		return dial(node)
	})()
	u.Host = fake
	tgt := open(t, u.String())
	own := tgt.Capabilities().BlockingSessions
	for _, mode := range []target.SessionIO{target.IOBlocking, target.IOPoller} {
		before := calls.Load()
		c, err := tgt.Connect(target.WithSessionIO(context.Background(), mode))
		if err != nil {
			t.Fatalf("session I/O %q: a session through the dial hook: %v", mode, err)
		}
		if got := Rows(t, c, query); len(got) != 1 || len(got[0]) == 0 || got[0][0] == "" {
			t.Errorf("session I/O %q: %s = %v", mode, query, got)
		}
		c.Close()
		if own && calls.Load() == before {
			t.Errorf("session I/O %q: the session was not dialed through the hook", mode)
		}
	}
	if calls.Load() == 0 {
		t.Error("no connection was dialed through the hook")
	}
}

// pollerTarget opens every session of its target for Go's network poller.
type pollerTarget struct{ target.Target }

func (p pollerTarget) Connect(ctx context.Context) (target.Conn, error) {
	return p.Target.Connect(target.WithSessionIO(ctx, target.IOPoller))
}

// ycsbTable creates a YCSB-shaped table with two fields, owned by candor.
func ycsbTable(t *testing.T, tgt target.Target, c target.Conn) (string, dialect.YCSBStatements) {
	t.Helper()
	table := TableName("candor_tt")
	y := dialect.YCSB(tgt.Dialect(), table, 2)
	DropAtEnd(t, tgt, table)
	if err := target.CreateOwned(context.Background(), c, tgt.Dialect(), table, y.CreateTable, "targettest"); err != nil {
		t.Fatalf("CreateOwned: %v", err)
	}
	return table, y
}

func testRoundTrip(t *testing.T, tgt target.Target) {
	ctx := context.Background()
	c := Connect(t, tgt)
	_, y := ycsbTable(t, tgt, c)

	n, err := c.Exec(ctx, y.Insert, "user1", "a1", "b1")
	if err != nil || n != 1 {
		t.Fatalf("Insert: rows=%d err=%v, want 1 row", n, err)
	}
	if n, err = c.Exec(ctx, y.InsertRows(2), "user2", "a2", nil, "user3", "a3", "b3"); err != nil || n != 2 {
		t.Fatalf("InsertRows(2): rows=%d err=%v, want 2 rows", n, err)
	}
	// Read returns the row, NULL as nil.
	if got := Rows(t, c, y.Read, "user2"); len(got) != 1 || strings.Join(got[0], ",") != "user2,a2,NULL" {
		t.Errorf("Read(user2) = %v, want [[user2 a2 NULL]]", got)
	}
	// Missing key: no row.
	if got := Rows(t, c, y.Read, "nope"); len(got) != 0 {
		t.Errorf("Read(nope) = %v, want no rows", got)
	}
	// Scan from user2, 5 rows at most: user2, user3 in key order.
	if got := Rows(t, c, y.Scan, "user2", 5); len(got) != 2 || got[0][0] != "user2" || got[1][0] != "user3" {
		t.Errorf("Scan(user2, 5) = %v", got)
	}
	if got := Rows(t, c, y.Scan, "user1", 1); len(got) != 1 || got[0][0] != "user1" {
		t.Errorf("Scan(user1, 1) = %v", got)
	}
	// Update: one row affected, then zero for a missing key.
	if n, err = c.Exec(ctx, y.Update([]int{1}), "B2", "user2"); err != nil || n != 1 {
		t.Errorf("Update(user2): rows=%d err=%v, want 1", n, err)
	}
	if n, err = c.Exec(ctx, y.Update([]int{0, 1}), "x", "y", "nope"); err != nil || n != 0 {
		t.Errorf("Update(nope): rows=%d err=%v, want 0", n, err)
	}
	if got := Rows(t, c, y.Read, "user2"); len(got) != 1 || got[0][2] != "B2" {
		t.Errorf("after update Read(user2) = %v", got)
	}
	// An error from fn stops the query and comes back as is.
	stop := errors.New("stop")
	calls := 0
	rows, err := c.Query(ctx, y.Scan, []any{"user1", 10}, func([][]byte) error { calls++; return stop })
	if !errors.Is(err, stop) || calls != 1 || rows != 1 {
		t.Errorf("Query with failing fn: rows=%d calls=%d err=%v, want 1, 1, stop", rows, calls, err)
	}
	// The connection is still usable afterwards.
	if got := Rows(t, c, y.Read, "user1"); len(got) != 1 {
		t.Errorf("Read after stopped query = %v", got)
	}
	// A nil fn discards the rows and returns 0; the session reads on
	// cleanly after it (the rows did not stay on the wire).
	if rows, err := c.Query(ctx, y.Scan, []any{"user1", 10}, nil); err != nil || rows != 0 {
		t.Errorf("Query with nil fn: rows=%d err=%v, want 0, nil", rows, err)
	}
	if got := Rows(t, c, y.Read, "user2"); len(got) != 1 || got[0][2] != "B2" {
		t.Errorf("Read after a discarding query = %v", got)
	}
	if n, err = c.Exec(ctx, y.Delete, "user3"); err != nil || n != 1 {
		t.Errorf("Delete(user3): rows=%d err=%v, want 1", n, err)
	}
}

func testConstraint(t *testing.T, tgt target.Target) {
	ctx := context.Background()
	c := Connect(t, tgt)
	_, y := ycsbTable(t, tgt, c)
	if _, err := c.Exec(ctx, y.Insert, "k", "a", "b"); err != nil {
		t.Fatal(err)
	}
	_, err := c.Exec(ctx, y.Insert, "k", "a", "b")
	if err == nil {
		t.Fatal("duplicate key inserted without error")
	}
	if got := tgt.Classify(err); got != target.ClassConstraint {
		t.Errorf("Classify(%v) = %q, want constraint", err, got)
	}
	// The session survives a constraint violation.
	if _, err := c.Exec(ctx, y.Insert, "k2", "a", "b"); err != nil {
		t.Errorf("insert after a violation: %v", err)
	}
	// Common classes hold for every driver.
	cases := map[error]target.ErrorClass{
		fmt.Errorf("op: %w", context.DeadlineExceeded): target.ClassTimeout,
		fmt.Errorf("op: %w", target.ErrNotFound):       target.ClassNotFound,
		target.ErrUnexpectedRows:                       target.ClassUnexpected,
		errors.New("something else"):                   target.ClassOther,
	}
	for e, want := range cases {
		if got := tgt.Classify(e); got != want {
			t.Errorf("Classify(%v) = %q, want %q", e, got, want)
		}
	}
}

func testCopyFrom(t *testing.T, tgt target.Target) {
	c := Connect(t, tgt)
	cp, ok := c.(target.Copier)
	if ok != tgt.Capabilities().CopyFrom {
		t.Fatalf("Capabilities.CopyFrom = %v but Conn implements Copier = %v", tgt.Capabilities().CopyFrom, ok)
	}
	if !ok {
		t.Skip("target has no bulk-load protocol")
	}
	table, y := ycsbTable(t, tgt, c)
	rows := [][]any{{"c1", "x", "y"}, {"c2", nil, "z"}, {"c3", "p", "q"}}
	n, err := cp.CopyFrom(context.Background(), table, y.Columns, rows)
	if err != nil || n != 3 {
		t.Fatalf("CopyFrom: n=%d err=%v, want 3", n, err)
	}
	if got := Rows(t, c, y.Scan, "c", 10); len(got) != 3 || strings.Join(got[1], ",") != "c2,NULL,z" {
		t.Errorf("after CopyFrom, Scan = %v", got)
	}
}

func testOwnership(t *testing.T, tgt target.Target) {
	ctx := context.Background()
	c := Connect(t, tgt)
	d := tgt.Dialect()

	// Unknown table: neither exists nor owned; dropping it is not an error.
	missing := TableName("candor_tt_missing")
	if ex, own, err := target.TableState(ctx, c, d, missing); err != nil || ex || own {
		t.Errorf("TableState(missing) = %v, %v, %v", ex, own, err)
	}
	if err := target.DropOwned(ctx, c, d, missing, false); err != nil {
		t.Errorf("DropOwned(missing) = %v, want nil", err)
	}

	// Created by candor: owned, and a second create is refused without the
	// foreign-table error.
	owned := TableName("candor_tt_owned")
	DropAtEnd(t, tgt, owned)
	ddl := dialect.YCSB(d, owned, 1).CreateTable
	if err := target.CreateOwned(ctx, c, d, owned, ddl, "ycsb"); err != nil {
		t.Fatalf("CreateOwned: %v", err)
	}
	if ex, own, err := target.TableState(ctx, c, d, strings.ToUpper(owned)); err != nil || !ex || !own {
		t.Errorf("TableState(owned, upper case) = %v, %v, %v; want true, true", ex, own, err)
	}
	err := target.CreateOwned(ctx, c, d, owned, ddl, "ycsb")
	if !errors.Is(err, target.ErrTableExists) || errors.Is(err, target.ErrForeignTable) || !strings.Contains(err.Error(), owned) {
		t.Errorf("second CreateOwned = %v, want ErrTableExists naming the table", err)
	}

	// Created by someone else: exists, not owned; create and drop refused
	// with a message naming the table and the flag.
	foreign := TableName("candor_tt_foreign")
	DropAtEnd(t, tgt, foreign)
	if _, err := c.Exec(ctx, dialect.YCSB(d, foreign, 1).CreateTable); err != nil {
		t.Fatal(err)
	}
	if ex, own, err := target.TableState(ctx, c, d, foreign); err != nil || !ex || own {
		t.Errorf("TableState(foreign) = %v, %v, %v; want true, false", ex, own, err)
	}
	for name, err := range map[string]error{
		"CreateOwned": target.CreateOwned(ctx, c, d, foreign, "CREATE TABLE "+foreign+" (k INT)", "ycsb"),
		"DropOwned":   target.DropOwned(ctx, c, d, foreign, false),
	} {
		if !errors.Is(err, target.ErrForeignTable) || !strings.Contains(err.Error(), foreign) ||
			!strings.Contains(err.Error(), target.AllowForeignTablesFlag) {
			t.Errorf("%s(foreign) = %v, want ErrForeignTable naming %s and %s", name, err, foreign, target.AllowForeignTablesFlag)
		}
	}

	// OwnedTables lists the owned table with its mark, not the foreign one.
	if marks := ownedMarks(t, c, d); marks[strings.ToLower(owned)] != "ycsb" || marks[strings.ToLower(foreign)] != "" {
		t.Errorf("OwnedTables = %v, want %s marked ycsb and no %s", marks, owned, foreign)
	}

	// Dropping the owned table removes it and its mark; the foreign one survives.
	if err := target.DropOwned(ctx, c, d, owned, false); err != nil {
		t.Fatalf("DropOwned(owned): %v", err)
	}
	if ex, own, err := target.TableState(ctx, c, d, owned); err != nil || ex || own {
		t.Errorf("after DropOwned, TableState(owned) = %v, %v, %v", ex, own, err)
	}
	if got := Rows(t, c, dialect.Ownership(d).Owner, strings.ToLower(owned)); len(got) != 0 {
		t.Errorf("mark of dropped table still there: %v", got)
	}
	if ex, _, err := target.TableState(ctx, c, d, foreign); err != nil || !ex {
		t.Errorf("foreign table gone after dropping the owned one: %v, %v", ex, err)
	}

	// A stale mark (table dropped by hand) does not make the table owned or
	// block re-creating it.
	if err := target.CreateOwned(ctx, c, d, owned, ddl, "ycsb"); err != nil {
		t.Fatalf("re-create: %v", err)
	}
	if _, err := c.Exec(ctx, dialect.Ownership(d).DropTable(owned)); err != nil {
		t.Fatal(err)
	}
	if _, ok := ownedMarks(t, c, d)[strings.ToLower(owned)]; ok {
		t.Errorf("OwnedTables lists %s, whose table was dropped by hand", owned)
	}
	if err := target.CreateOwned(ctx, c, d, owned, ddl, "ycsb"); err != nil {
		t.Errorf("CreateOwned over a stale mark: %v", err)
	}

	// With allowForeign the foreign table is dropped.
	if err := target.DropOwned(ctx, c, d, foreign, true); err != nil {
		t.Errorf("DropOwned(foreign, allow): %v", err)
	}
	if ex, _, err := target.TableState(ctx, c, d, foreign); err != nil || ex {
		t.Errorf("foreign table survived DropOwned(allow): %v, %v", ex, err)
	}

	// Names that are not plain identifiers never reach SQL.
	for _, bad := range []string{"x; DROP TABLE y", "", "1abc", target.MarkerTable} {
		if err := target.DropOwned(ctx, c, d, bad, true); !errors.Is(err, target.ErrBadTableName) {
			t.Errorf("DropOwned(%q) = %v, want ErrBadTableName", bad, err)
		}
	}
}

// ownedMarks is target.OwnedTables as a map from table to mark.
func ownedMarks(t *testing.T, c target.Conn, d dialect.Dialect) map[string]string {
	t.Helper()
	owned, err := target.OwnedTables(context.Background(), c, d)
	if err != nil {
		t.Fatalf("OwnedTables: %v", err)
	}
	marks := map[string]string{}
	for _, o := range owned {
		marks[o.Name] = o.Mark
	}
	return marks
}

func testCloseTwice(t *testing.T, tgt target.Target) {
	c, err := tgt.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("first Close: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// sleepSQL is a statement that runs for a minute, per driver.
var sleepSQL = map[string]string{"postgres": "SELECT pg_sleep(60)", "mysql": "SELECT SLEEP(60)"}

// testInterrupt: a connection that is a target.Interrupter ends a running
// statement at once when interrupted from another goroutine; the error is a
// connection or timeout error and the connection still closes promptly.
func testInterrupt(t *testing.T, tgt target.Target) {
	c := Connect(t, tgt)
	in, ok := c.(target.Interrupter)
	if !ok {
		t.Skipf("%s connections cannot be interrupted (statements run under cancellable contexts)", tgt.Driver())
	}
	q, ok := sleepSQL[tgt.Driver()]
	if !ok {
		t.Fatalf("no sleep statement for driver %s", tgt.Driver())
	}
	time.AfterFunc(200*time.Millisecond, in.Interrupt)
	t0 := time.Now()
	_, err := c.Query(context.Background(), q, nil, func([][]byte) error { return nil })
	if err == nil {
		t.Fatal("an interrupted statement succeeded")
	}
	if d := time.Since(t0); d > 5*time.Second {
		t.Fatalf("interrupted statement returned after %v", d)
	}
	if cls := tgt.Classify(err); cls != target.ClassConnection && cls != target.ClassTimeout {
		t.Errorf("interrupted statement's error %v classifies as %q, want connection or timeout", err, cls)
	}
	t0 = time.Now()
	c.Close()
	if d := time.Since(t0); d > 5*time.Second {
		t.Errorf("closing an interrupted connection took %v", d)
	}
}

func testFingerprint(t *testing.T, tgt target.Target) {
	fp, err := tgt.Fingerprint(context.Background())
	if err != nil {
		t.Fatalf("Fingerprint: %v", err)
	}
	if fp.Driver != tgt.Driver() || fp.URL != tgt.RedactedURL() || fp.Product == "" || fp.Version == "" || len(fp.Settings) == 0 {
		t.Errorf("incomplete fingerprint: %+v", fp)
	}
	// Values may legitimately be empty (PostgreSQL's synchronous_standby_names).
	for k := range fp.Settings {
		if k == "" {
			t.Errorf("setting with an empty name: %v", fp.Settings)
		}
	}
}

// PostgresURL returns the PostgreSQL the integration tests use
// (CANDOR_TEST_POSTGRES_URL, set by scripts/test.sh), or skips the test
// saying how to start one.
func PostgresURL(t testing.TB) string {
	return envURL(t, "CANDOR_TEST_POSTGRES_URL", "scripts/pg-sandbox.sh")
}

// MySQLURL returns the MySQL-wire server the integration tests use
// (CANDOR_TEST_MYSQL_URL, set by scripts/test.sh), or skips the test.
func MySQLURL(t testing.TB) string {
	return envURL(t, "CANDOR_TEST_MYSQL_URL", "scripts/mariadb-sandbox.sh")
}

// MySQLDatabaseURL returns MySQLURL with a database of the test's own,
// created now and dropped when the test ends, for tests whose tables have
// fixed names (sysbench's sbtestN) while other packages' tests run on the
// same server. When the user may not create databases (a server other than
// scripts/mariadb-sandbox.sh's, which grants candor% to its user), the URL's
// own database is used.
func MySQLDatabaseURL(t testing.TB) string {
	t.Helper()
	return ownDatabase(t, MySQLURL(t), "CANDOR_TEST_MYSQL_URL", "")
}

// PostgresDatabaseURL is MySQLDatabaseURL's PostgreSQL twin: PostgresURL
// with a database of the test's own, dropped (its sessions ended) when the
// test ends.
func PostgresDatabaseURL(t testing.TB) string {
	t.Helper()
	return ownDatabase(t, PostgresURL(t), "CANDOR_TEST_POSTGRES_URL", " WITH (FORCE)")
}

// ownDatabase creates a database on raw's server and returns raw with it,
// dropped with DROP DATABASE name+dropSuffix when the test ends; raw itself
// when the user may not create one.
func ownDatabase(t testing.TB, raw, env, dropSuffix string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatalf("%s: %v", env, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tgt, err := target.Open(ctx, raw, target.Options{})
	if err != nil {
		t.Fatalf("open %s: %v", u.Redacted(), err)
	}
	defer tgt.Close()
	c := Connect(t, tgt)
	db := TableName("candor_t")
	if _, err := c.Exec(ctx, "CREATE DATABASE "+db); err != nil {
		t.Logf("using %s's own database: CREATE DATABASE failed: %v", u.Redacted(), err)
		return raw
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		tgt, err := target.Open(ctx, raw, target.Options{})
		if err != nil {
			t.Errorf("dropping database %s: %v", db, err)
			return
		}
		defer tgt.Close()
		c, err := tgt.Connect(ctx)
		if err != nil {
			t.Errorf("dropping database %s: %v", db, err)
			return
		}
		defer c.Close()
		if _, err := c.Exec(ctx, "DROP DATABASE "+db+dropSuffix); err != nil {
			t.Errorf("dropping database %s: %v", db, err)
		}
	})
	u.Path = "/" + db
	return u.String()
}

// CassandraURL returns the test cluster's URL (CANDOR_TEST_CASSANDRA_URL,
// as scripts/cassandra-sandbox.sh prints it) with keyspace ks in place of
// its path, or skips the test.
func CassandraURL(t testing.TB, ks string) string {
	t.Helper()
	u := os.Getenv("CANDOR_TEST_CASSANDRA_URL")
	if u == "" {
		t.Skip("CANDOR_TEST_CASSANDRA_URL unset: run `U=$(scripts/cassandra-sandbox.sh start /tmp/cass)` (about a minute), " +
			"`CANDOR_TEST_CASSANDRA_URL=$U go test ./internal/cli ./internal/engine -run Cassandra` and `scripts/cassandra-sandbox.sh stop /tmp/cass`")
	}
	rest, query, _ := strings.Cut(u, "?")
	scheme, hosts, _ := strings.Cut(rest, "://")
	hosts, _, _ = strings.Cut(hosts, "/")
	if query != "" {
		return scheme + "://" + hosts + "/" + ks + "?" + query
	}
	return scheme + "://" + hosts + "/" + ks
}

func envURL(t testing.TB, name, script string) string {
	t.Helper()
	u := os.Getenv(name)
	if u == "" {
		t.Skipf("%s is not set (scripts/test.sh sets it; or start a server with `U=$(%s start /tmp/db)` and export %s=$U)", name, script, name)
	}
	return u
}

// SysbenchBinary returns the sysbench 1.0.20 the reference tests compare
// candor with: $CANDOR_TEST_SYSBENCH (scripts/test.sh installs Debian's
// sysbench package and sets it), else sysbench on the PATH. It skips the test
// without one, or when the binary is another version (1.1 changed the
// default distribution and dropped special).
func SysbenchBinary(t testing.TB) string {
	t.Helper()
	p := os.Getenv("CANDOR_TEST_SYSBENCH")
	if p == "" {
		var err error
		if p, err = exec.LookPath("sysbench"); err != nil {
			t.Skip("sysbench 1.0.20 not found: set CANDOR_TEST_SYSBENCH or install Debian's sysbench package (scripts/test.sh does)")
		}
	}
	out, err := exec.Command(p, "--version").Output()
	if err != nil {
		t.Fatalf("%s --version: %v", p, err)
	}
	if v := strings.TrimSpace(string(out)); !strings.HasPrefix(v, "sysbench 1.0.20") {
		t.Skipf("%s is %q; the reference is sysbench 1.0.20", p, v)
	}
	return p
}

// testServerClock: the server's clock, read as a sharded run reads it
// (target.ClockOffset): on one machine the offset is within half the round
// trip, and a round trip within a second. Targets that cannot tell their
// clock say so with ErrUnsupported.
func testServerClock(t *testing.T, tgt target.Target) {
	off, rtt, err := target.ClockOffset(context.Background(), tgt, 5)
	if errors.Is(err, target.ErrUnsupported) {
		t.Skipf("%s: %v", tgt.Driver(), err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if rtt <= 0 || rtt > time.Second || off.Abs() > rtt/2+time.Millisecond {
		t.Errorf("offset %s, round trip %s: want the offset within half the round trip on one machine", off, rtt)
	}
}

// RealTargets are the databases an integration suite runs on: SQLite
// always (a file in a directory of the test's own), PostgreSQL and MariaDB
// when CANDOR_TEST_POSTGRES_URL and CANDOR_TEST_MYSQL_URL are set
// (scripts/test.sh sets them). The MariaDB URL names a database of the
// test's own (sysbench's tables have fixed names); PostgreSQL's does too
// when pgOwn, else it is the shared database.
func RealTargets(t testing.TB, pgOwn bool) map[string]string {
	out := map[string]string{"sqlite": "sqlite://" + filepath.Join(t.TempDir(), "ycsb.db")}
	switch {
	case os.Getenv("CANDOR_TEST_POSTGRES_URL") == "":
		t.Log("CANDOR_TEST_POSTGRES_URL unset: PostgreSQL part skipped (scripts/test.sh sets it)")
	case pgOwn:
		out["postgres"] = PostgresDatabaseURL(t)
	default:
		out["postgres"] = PostgresURL(t)
	}
	if os.Getenv("CANDOR_TEST_MYSQL_URL") != "" {
		out["mysql"] = MySQLDatabaseURL(t)
	} else {
		t.Log("CANDOR_TEST_MYSQL_URL unset: MariaDB part skipped (scripts/test.sh sets it)")
	}
	return out
}
