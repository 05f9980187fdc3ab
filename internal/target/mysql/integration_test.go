package mysql

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/target/blockconn"
	"github.com/candor-bench/candor/internal/target/targettest"
)

// envURL names the MySQL-wire server the integration tests use; the
// project's test script starts a MariaDB with scripts/mariadb-sandbox.sh and
// sets it.
const envURL = "CANDOR_TEST_MYSQL_URL"

func testURL(t *testing.T) string {
	t.Helper()
	u := os.Getenv(envURL)
	if u == "" {
		t.Skipf("%s is not set: skipping MySQL-wire integration tests (start a server with `U=$(scripts/mariadb-sandbox.sh start /tmp/mariadbtest)` and set %s=$U)", envURL, envURL)
	}
	return u
}

func openTarget(t *testing.T, u string, opts target.Options) target.Target {
	t.Helper()
	if opts.ConnectTimeout == 0 {
		opts.ConnectTimeout = 10 * time.Second
	}
	tgt, err := target.Open(context.Background(), u, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { tgt.Close() })
	return tgt
}

func TestConformance(t *testing.T) {
	targettest.Run(t, openTarget(t, testURL(t), target.Options{}))
}

func mustExec(t *testing.T, c target.Conn, sql string, args ...any) int64 {
	t.Helper()
	n, err := c.Exec(context.Background(), sql, args...)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// kvTable creates an owned InnoDB table (k INT PRIMARY KEY, v INT) with rows
// 1 and 2.
func kvTable(t *testing.T, tgt target.Target, c target.Conn) string {
	t.Helper()
	table := targettest.TableName("candor_my_kv")
	targettest.DropAtEnd(t, tgt, table)
	if err := target.CreateOwned(context.Background(), c, tgt.Dialect(), table, "CREATE TABLE "+table+" (k INT PRIMARY KEY, v INT)", "test"); err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, "INSERT INTO "+table+" (k, v) VALUES (?, ?), (?, ?)", 1, 0, 2, 0)
	return table
}

// A real duplicate key is error 1062: constraint.
func TestDuplicateKey(t *testing.T) {
	tgt := openTarget(t, testURL(t), target.Options{})
	c := targettest.Connect(t, tgt)
	table := kvTable(t, tgt, c)
	_, err := c.Exec(context.Background(), "INSERT INTO "+table+" (k, v) VALUES (?, ?)", 1, 5)
	var me *gomysql.MySQLError
	if !errors.As(err, &me) || me.Number != 1062 {
		t.Fatalf("duplicate insert: %v, want error 1062", err)
	}
	if got := tgt.Classify(err); got != target.ClassConstraint {
		t.Errorf("Classify(%v) = %q, want constraint", err, got)
	}
}

// Two transactions locking rows in opposite order: InnoDB rolls one back
// with error 1213: retryable.
func TestDeadlock(t *testing.T) {
	tgt := openTarget(t, testURL(t), target.Options{})
	a, b := targettest.Connect(t, tgt), targettest.Connect(t, tgt)
	table := kvTable(t, tgt, a)
	ctx := context.Background()
	upd := "UPDATE " + table + " SET v = v + 1 WHERE k = ?"
	mustExec(t, a, "BEGIN")
	mustExec(t, b, "BEGIN")
	mustExec(t, a, upd, 1)
	mustExec(t, b, upd, 2)

	var wg sync.WaitGroup
	var errA, errB error
	wg.Add(1)
	go func() { defer wg.Done(); _, errA = a.Exec(ctx, upd, 2) }()
	time.Sleep(100 * time.Millisecond) // let a block first; either order deadlocks
	_, errB = b.Exec(ctx, upd, 1)
	if errB != nil {
		b.Exec(ctx, "ROLLBACK") // releases a
	}
	wg.Wait()
	a.Exec(ctx, "ROLLBACK")
	b.Exec(ctx, "ROLLBACK")

	if (errA == nil) == (errB == nil) {
		t.Fatalf("want exactly one deadlock victim: a=%v b=%v", errA, errB)
	}
	failed := errA
	if failed == nil {
		failed = errB
	}
	var me *gomysql.MySQLError
	if !errors.As(failed, &me) || me.Number != 1213 {
		t.Errorf("victim error %v is not 1213", failed)
	}
	if got := tgt.Classify(failed); got != target.ClassRetryable {
		t.Errorf("Classify(%v) = %q, want retryable", failed, got)
	}
}

// A session killed from another one: the next operation and every one after
// it are connection errors, Close still succeeds, and a new Connect works.
func TestKilledConnection(t *testing.T) {
	tgt := openTarget(t, testURL(t), target.Options{})
	victim, killer := targettest.Connect(t, tgt), targettest.Connect(t, tgt)
	ctx := context.Background()
	// A prepared statement, so the cache holds one for a dead session.
	id := targettest.Rows(t, victim, "SELECT CONNECTION_ID() + ?", 0)[0][0]
	mustExec(t, killer, "KILL CONNECTION "+id)
	time.Sleep(100 * time.Millisecond) // KILL is asynchronous
	for i, q := range []string{"SELECT 1", "SELECT CONNECTION_ID() + ?", "SELECT 1"} {
		var err error
		if strings.Contains(q, "?") {
			_, err = victim.Query(ctx, q, []any{0}, func([][]byte) error { return nil })
		} else {
			_, err = victim.Exec(ctx, q)
		}
		if err == nil {
			t.Fatalf("attempt %d (%s) on a killed session succeeded", i, q)
		}
		t.Logf("attempt %d: %v", i, err)
		if c := tgt.Classify(err); c != target.ClassConnection {
			t.Errorf("attempt %d (%s): Classify(%v) = %q, want connection", i, q, err, c)
		}
	}
	if err := victim.Close(); err != nil {
		t.Errorf("Close after kill: %v", err)
	}
	fresh := targettest.Connect(t, tgt)
	if got := targettest.Rows(t, fresh, "SELECT 'ok'"); got[0][0] != "ok" {
		t.Errorf("fresh connection: %v", got)
	}
}

// MariaDB's max_statement_time (1969) and a client deadline are timeouts;
// after a client deadline the session is gone (the driver closes it to abort
// the statement) and further use is a connection error.
func TestTimeouts(t *testing.T) {
	tgt := openTarget(t, testURL(t), target.Options{})
	c := targettest.Connect(t, tgt)
	if _, err := c.Exec(context.Background(), "SET SESSION max_statement_time = 0.05"); err == nil {
		_, err := c.Query(context.Background(), "SELECT SLEEP(?)", []any{2}, func([][]byte) error { return nil })
		if got := tgt.Classify(err); got != target.ClassTimeout {
			t.Errorf("max_statement_time: Classify(%v) = %q, want timeout", err, got)
		}
		mustExec(t, c, "SET SESSION max_statement_time = 0")
	} else {
		t.Logf("no max_statement_time (not MariaDB?): %v", err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := c.Exec(ctx, "SELECT SLEEP(2)")
	if got := tgt.Classify(err); got != target.ClassTimeout {
		t.Errorf("client deadline: Classify(%v) = %q, want timeout", err, got)
	}
	_, err = c.Exec(context.Background(), "SELECT 1")
	if got := tgt.Classify(err); err == nil || got != target.ClassConnection {
		t.Errorf("after a client deadline: %v (class %q), want a connection error", err, got)
	}
}

// clientFoundRows: an UPDATE that writes the value a row already holds
// reports the row it matched, as JDBC does; a missing key reports 0.
func TestUpdateCountsMatchedRows(t *testing.T) {
	tgt := openTarget(t, testURL(t), target.Options{})
	c := targettest.Connect(t, tgt)
	table := kvTable(t, tgt, c)
	upd := "UPDATE " + table + " SET v = ? WHERE k = ?"
	if n := mustExec(t, c, upd, 7, 1); n != 1 {
		t.Errorf("changing update: %d rows, want 1", n)
	}
	if n := mustExec(t, c, upd, 7, 1); n != 1 {
		t.Errorf("same-value update: %d rows, want 1 (matched, not changed)", n)
	}
	if n := mustExec(t, c, upd, 7, 99); n != 0 {
		t.Errorf("missing key: %d rows, want 0", n)
	}
}

// Every statement the dialect writes is valid here, including a multi-row
// INSERT at the bind-parameter limit the dialect declares.
func TestDialectStatementsRun(t *testing.T) {
	tgt := openTarget(t, testURL(t), target.Options{})
	c := targettest.Connect(t, tgt)
	ctx := context.Background()
	table := targettest.TableName("candor_my_ycsb")
	targettest.DropAtEnd(t, tgt, table)
	y := dialect.YCSB(tgt.Dialect(), table, 10)
	if err := target.CreateOwned(ctx, c, tgt.Dialect(), table, y.CreateTable, "test"); err != nil {
		t.Fatal(err)
	}
	if y.MaxInsertRows != 65535/11 {
		t.Fatalf("MaxInsertRows = %d", y.MaxInsertRows)
	}
	args := make([]any, 0, y.MaxInsertRows*11)
	for r := 0; r < y.MaxInsertRows; r++ {
		args = append(args, fmt.Sprintf("user%05d", r))
		for f := 0; f < 10; f++ {
			args = append(args, "v")
		}
	}
	if n := mustExec(t, c, y.InsertRows(y.MaxInsertRows), args...); n != int64(y.MaxInsertRows) {
		t.Errorf("InsertRows(%d): %d rows", y.MaxInsertRows, n)
	}
	vals := []any{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}
	for _, fields := range [][]int{{3}, {0, 9}, {9, 0}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}} {
		if n := mustExec(t, c, y.Update(fields), append(append([]any{}, vals[:len(fields)]...), "user00001")...); n != 1 {
			t.Errorf("Update(%v): %d rows", fields, n)
		}
	}
	if got := targettest.Rows(t, c, y.Read, "user00001"); len(got) != 1 || strings.Join(got[0], ",") != "user00001,a,b,c,d,e,f,g,h,i,j" {
		t.Errorf("Read after updates = %v", got)
	}
	if got := targettest.Rows(t, c, y.Scan, "user00100", 3); len(got) != 3 || got[2][0] != "user00102" {
		t.Errorf("Scan = %v", got)
	}
	if n := mustExec(t, c, y.Insert, append([]any{"zz"}, vals...)...); n != 1 {
		t.Errorf("Insert: %d", n)
	}
	if n := mustExec(t, c, y.Delete, "zz"); n != 1 {
		t.Errorf("Delete: %d", n)
	}
	// Integers come back as decimal text from both protocols.
	if got := targettest.Rows(t, c, "SELECT COUNT(*) FROM "+table); got[0][0] != fmt.Sprint(y.MaxInsertRows) {
		t.Errorf("count (text protocol) = %v", got)
	}
	if got := targettest.Rows(t, c, "SELECT COUNT(*), ? FROM "+table, 2.5); got[0][0] != fmt.Sprint(y.MaxInsertRows) || got[0][1] != "2.5" {
		t.Errorf("count (binary protocol) = %v", got)
	}
	// Statements without arguments may come several at once.
	other := targettest.TableName("candor_my_multi")
	mustExec(t, c, "CREATE TABLE "+other+" (k INT); INSERT INTO "+other+" VALUES (1), (2); DROP TABLE "+other)
}

var versionNumber = regexp.MustCompile(`^\d+\.\d+(\.\d+)?$`)

func TestFingerprint(t *testing.T) {
	tgt := openTarget(t, testURL(t), target.Options{})
	fp, err := tgt.Fingerprint(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("fingerprint: %+v", fp)
	if fp.Product != ProductMariaDB {
		t.Skipf("the test server is %s, not MariaDB: product checks skipped", fp.Product)
	}
	if !versionNumber.MatchString(fp.Version) || !strings.HasPrefix(fp.VersionString, fp.Version+"-MariaDB") {
		t.Errorf("version %q from %q", fp.Version, fp.VersionString)
	}
	for _, s := range append(FingerprintSettings, productSettings[ProductMariaDB]...) {
		if v, ok := fp.Settings[s]; !ok || v == "" {
			t.Errorf("setting %s = %q (present %v)", s, v, ok)
		}
	}
	// Read from @@tx_isolation where @@transaction_isolation is missing.
	if v := fp.Settings["transaction_isolation"]; v != "REPEATABLE-READ" {
		t.Errorf("transaction_isolation = %q, want the default REPEATABLE-READ", v)
	}
	if v := fp.Settings["innodb_flush_log_at_trx_commit"]; v != "1" {
		t.Errorf("innodb_flush_log_at_trx_commit = %q, want the default 1", v)
	}
	if _, ok := fp.Settings["tidb_txn_mode"]; ok {
		t.Errorf("TiDB setting recorded on MariaDB")
	}
	if fp.Driver != Name || fp.URL != tgt.RedactedURL() {
		t.Errorf("driver %q url %q", fp.Driver, fp.URL)
	}
	caps := tgt.Capabilities()
	if !caps.Transactions || !caps.MultiRowInsert || caps.CopyFrom || caps.MaxBindParams != 65535 || tgt.Dialect() != dialect.MySQL {
		t.Errorf("capabilities %+v dialect %+v", caps, tgt.Dialect())
	}
}

// Options.Isolation is set on every new session: worker connections and the
// fingerprint's.
func TestIsolationApplied(t *testing.T) {
	u := testURL(t)
	for level, want := range map[string]string{
		"read-committed":   "READ-COMMITTED",
		"serializable":     "SERIALIZABLE",
		"read-uncommitted": "READ-UNCOMMITTED",
		"repeatable-read":  "REPEATABLE-READ",
	} {
		tgt := openTarget(t, u, target.Options{Isolation: level})
		for i := 0; i < 2; i++ {
			c := targettest.Connect(t, tgt)
			got := targettest.Rows(t, c, "SELECT @@tx_isolation")
			if got[0][0] != want {
				t.Errorf("%s: session %d isolation %v, want %s", level, i, got, want)
			}
			c.Close()
		}
		fp, err := tgt.Fingerprint(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if fp.Settings["transaction_isolation"] != want {
			t.Errorf("%s: fingerprint records %q", level, fp.Settings["transaction_isolation"])
		}
	}
}

// A password appears nowhere: not in the redacted URL, the fingerprint, nor
// errors; a wrong one is ErrUnreachable naming the redacted URL.
func TestRedaction(t *testing.T) {
	u, err := url.Parse(testURL(t))
	if err != nil {
		t.Fatal(err)
	}
	pw, _ := u.User.Password()
	if pw == "" {
		t.Skip("the test URL has no password")
	}
	tgt := openTarget(t, u.String(), target.Options{})
	fp, err := tgt.Fingerprint(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	all := tgt.RedactedURL() + fp.URL + fp.VersionString + fmt.Sprint(fp.Settings)
	if strings.Contains(all, ":"+pw+"@") {
		t.Errorf("password leaked: %s", all)
	}
	if !strings.Contains(fp.URL, ":xxxxx@") {
		t.Errorf("fingerprint URL %q is not redacted", fp.URL)
	}

	const secret = "s3cret-pw-candor"
	u.User = url.UserPassword(u.User.Username(), secret)
	_, err = Open(context.Background(), u.String(), target.Options{})
	if !errors.Is(err, target.ErrUnreachable) || strings.Contains(err.Error(), secret) || !strings.Contains(err.Error(), ":xxxxx@") {
		t.Errorf("Open(wrong password) = %v; want ErrUnreachable naming the redacted URL", err)
	}

	// The password from MYSQL_PWD when the URL has none.
	t.Setenv(PasswordEnv, pw)
	u.User = url.User(u.User.Username())
	tgt2 := openTarget(t, u.String(), target.Options{})
	if fp, err := tgt2.Fingerprint(context.Background()); err != nil || strings.Contains(fp.URL+fmt.Sprint(fp.Settings), ":"+pw+"@") {
		t.Errorf("with %s: %v %+v", PasswordEnv, err, fp)
	}
}

// The statement cache is emptied, not grown, past its bound; statements keep
// working.
func TestStatementCacheBound(t *testing.T) {
	tgt := openTarget(t, testURL(t), target.Options{})
	c := targettest.Connect(t, tgt).(*Conn).Conn
	for i := 0; i < maxCachedStmts+10; i++ {
		q := fmt.Sprintf("SELECT ? + %d", i)
		if got := targettest.Rows(t, c, q, 1); got[0][0] != fmt.Sprint(i+1) {
			t.Fatalf("%s = %v", q, got)
		}
	}
	if c.Cached() > maxCachedStmts {
		t.Errorf("cache holds %d statements, bound %d", c.Cached(), maxCachedStmts)
	}
}

// Close on the target leaves handed-out sessions usable and refuses new ones.
func TestTargetClose(t *testing.T) {
	tgt, err := Open(context.Background(), testURL(t), target.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := targettest.Connect(t, tgt)
	tgt.Close()
	if _, err := tgt.Connect(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("Connect after Close = %v, want ErrClosed", err)
	}
	if got := targettest.Rows(t, c, "SELECT 'still'"); got[0][0] != "still" {
		t.Errorf("open session after target Close: %v", got)
	}
}

// Sessions are dialed through blockconn.Dial, where the fault proxy hands
// them over in-process.
func TestDialsThroughHook(t *testing.T) {
	targettest.DialsThroughHook(t, testURL(t), "SELECT 'ok'", func(t *testing.T, u string) target.Target {
		return openTarget(t, u, target.Options{})
	})
}

// A session opened for the network poller is a socket of Go's own, not a
// blocking one; every other session is blocking.
func TestSessionIOSocket(t *testing.T) {
	targettest.SessionIOSocket(t, openTarget(t, testURL(t), target.Options{}), func(c target.Conn) bool {
		_, ok := c.(*Conn).net.(*greetConn).Conn.(*blockconn.Conn)
		return ok
	})
}

// TestCompression: compress=true (sysbench's --mysql-compression) gives
// compressed sessions that read results larger than one compressed packet.
func TestCompression(t *testing.T) {
	u, err := url.Parse(testURL(t))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("compress", "true")
	u.RawQuery = q.Encode()
	tgt := openTarget(t, u.String(), target.Options{})
	ctx := context.Background()
	c, err := tgt.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var status, big string
	if _, err := c.Query(ctx, "SHOW SESSION STATUS LIKE 'Compression'", nil, func(cols [][]byte) error {
		status = string(cols[1])
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if status != "ON" {
		t.Errorf("session status Compression = %q with compress=true, want ON", status)
	}
	if c.(*Conn).fast != nil {
		t.Error("a compressed session takes the fast path, which writes the protocol uncompressed")
	}
	if _, err := c.Query(ctx, "SELECT REPEAT(?, 200000)", []any{"ab"}, func(cols [][]byte) error {
		big = string(cols[0])
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if big != strings.Repeat("ab", 200000) {
		t.Errorf("a 400,000-byte value read back as %d bytes", len(big))
	}
}

// TestFastPathInUse: a plain session's prepared executions whose rows are
// not read take the fast path (fastpath.go), and it reports what the
// driver's path reports: affected rows, server errors with their class.
func TestFastPathInUse(t *testing.T) {
	tgt := openTarget(t, testURL(t), target.Options{})
	ctx := context.Background()
	c, err := tgt.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.(*Conn).fast == nil {
		t.Fatal("a plain session to MariaDB does not take the fast path")
	}
	table := kvTable(t, tgt, c) // (1, 0), (2, 0)
	for k := 3; k <= 5; k++ {
		if n, err := c.Exec(ctx, "INSERT INTO "+table+" (k, v) VALUES (?, ?)", k, 0); err != nil || n != 1 {
			t.Fatalf("insert %d: %d, %v", k, n, err)
		}
	}
	if n, err := c.Exec(ctx, "UPDATE "+table+" SET v = ? WHERE k <> ?", 7, 1); err != nil || n != 4 {
		t.Errorf("update: %d rows, %v; want 4", n, err)
	}
	if _, err := c.Exec(ctx, "INSERT INTO "+table+" (k, v) VALUES (?, ?)", 1, 0); tgt.Classify(err) != target.ClassConstraint {
		t.Errorf("duplicate key on the fast path: %v, class %q", err, tgt.Classify(err))
	}
	if n, err := c.Query(ctx, "SELECT v FROM "+table+" WHERE k > ?", []any{0}, nil); err != nil || n != 0 {
		t.Errorf("a discarded result: %d, %v", n, err)
	}
	// The driver's path reads on after the fast path's commands.
	var got []string
	if _, err := c.Query(ctx, "SELECT v FROM "+table+" WHERE k = ?", []any{2}, func(cols [][]byte) error {
		got = append(got, string(cols[0]))
		return nil
	}); err != nil || len(got) != 1 || got[0] != "7" {
		t.Errorf("read through the driver after the fast path: %q, %v", got, err)
	}
	if c.(*Conn).fast.broken != nil {
		t.Errorf("the fast path gave up: %v", c.(*Conn).fast.broken)
	}
}
