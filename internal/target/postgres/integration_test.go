package postgres

import (
	"context"
	"errors"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/target/blockconn"
	"github.com/candor-bench/candor/internal/target/targettest"
)

// envURL names the PostgreSQL server the integration tests use; the project's
// test script starts one with scripts/pg-sandbox.sh and sets it.
const envURL = "CANDOR_TEST_POSTGRES_URL"

func testURL(t *testing.T) string {
	t.Helper()
	u := os.Getenv(envURL)
	if u == "" {
		t.Skipf("%s is not set: skipping PostgreSQL integration tests (start a server with `U=$(scripts/pg-sandbox.sh start /tmp/pgtest)` and set %s=$U)", envURL, envURL)
	}
	return u
}

func openTarget(t *testing.T, u string) target.Target {
	t.Helper()
	tgt, err := target.Open(context.Background(), u, target.Options{ConnectTimeout: 10 * time.Second})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { tgt.Close() })
	return tgt
}

func TestConformance(t *testing.T) {
	targettest.Run(t, openTarget(t, testURL(t)))
}

// kvTable creates an owned table (k INT PRIMARY KEY, v INT) with rows 1 and 2.
func kvTable(t *testing.T, tgt target.Target, c target.Conn) string {
	t.Helper()
	ctx := context.Background()
	table := targettest.TableName("candor_pg_kv")
	targettest.DropAtEnd(t, tgt, table)
	if err := target.CreateOwned(ctx, c, tgt.Dialect(), table, "CREATE TABLE "+table+" (k INT PRIMARY KEY, v INT)", "test"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, "INSERT INTO "+table+" (k, v) VALUES ($1, $2), ($3, $4)", 1, 0, 2, 0); err != nil {
		t.Fatal(err)
	}
	return table
}

func mustExec(t *testing.T, c target.Conn, sql string, args ...any) {
	t.Helper()
	if _, err := c.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// A write-write conflict under REPEATABLE READ is a real serialization
// failure (SQLSTATE 40001): retryable.
func TestSerializationFailure(t *testing.T) {
	tgt := openTarget(t, testURL(t))
	a, b := targettest.Connect(t, tgt), targettest.Connect(t, tgt)
	table := kvTable(t, tgt, a)
	ctx := context.Background()

	mustExec(t, a, "BEGIN ISOLATION LEVEL REPEATABLE READ")
	defer a.Exec(ctx, "ROLLBACK")
	targettest.Rows(t, a, "SELECT v::text FROM "+table+" WHERE k = $1", 1) // takes the snapshot
	mustExec(t, b, "UPDATE "+table+" SET v = v + 1 WHERE k = $1", 1)
	_, err := a.Exec(ctx, "UPDATE "+table+" SET v = v + 1 WHERE k = $1", 1)
	if err == nil {
		t.Fatal("conflicting update succeeded")
	}
	if got := tgt.Classify(err); got != target.ClassRetryable {
		t.Errorf("Classify(%v) = %q, want retryable", err, got)
	}
}

// Two transactions locking rows in opposite order: the server kills one with
// deadlock_detected (40P01): retryable.
func TestDeadlock(t *testing.T) {
	tgt := openTarget(t, testURL(t))
	a, b := targettest.Connect(t, tgt), targettest.Connect(t, tgt)
	table := kvTable(t, tgt, a)
	ctx := context.Background()
	for _, c := range []target.Conn{a, b} {
		// Detect sooner than the 1 s default when allowed (superuser only).
		c.Exec(ctx, "SET deadlock_timeout = '100ms'")
	}
	upd := "UPDATE " + table + " SET v = v + 1 WHERE k = $1"
	mustExec(t, a, "BEGIN")
	mustExec(t, b, "BEGIN")
	mustExec(t, a, upd, 1)
	mustExec(t, b, upd, 2)

	var wg sync.WaitGroup
	var errA, errB error
	wg.Add(1)
	go func() { defer wg.Done(); _, errA = a.Exec(ctx, upd, 2) }()
	time.Sleep(50 * time.Millisecond) // let a block first; either order deadlocks
	_, errB = b.Exec(ctx, upd, 1)
	if errB != nil {
		b.Exec(ctx, "ROLLBACK") // releases a
	}
	wg.Wait()
	a.Exec(ctx, "ROLLBACK")
	b.Exec(ctx, "ROLLBACK")

	failed := errA
	if failed == nil {
		failed = errB
	}
	if (errA == nil) == (errB == nil) {
		t.Fatalf("want exactly one deadlock victim: a=%v b=%v", errA, errB)
	}
	if !strings.Contains(failed.Error(), "40P01") {
		t.Errorf("victim error %v is not SQLSTATE 40P01", failed)
	}
	if got := tgt.Classify(failed); got != target.ClassRetryable {
		t.Errorf("Classify(%v) = %q, want retryable", failed, got)
	}
}

// A backend killed from another session: the next operation and every one
// after it are connection errors; a new Connect works.
func TestKilledBackend(t *testing.T) {
	tgt := openTarget(t, testURL(t))
	victim, killer := targettest.Connect(t, tgt), targettest.Connect(t, tgt)
	ctx := context.Background()
	pid := targettest.Rows(t, victim, "SELECT pg_backend_pid()::text")[0][0]
	// The two-argument form waits (up to 5 s) until the backend is gone.
	got := targettest.Rows(t, killer, "SELECT pg_terminate_backend($1::int, 5000)::text", pid)
	if got[0][0] != "true" {
		t.Fatalf("pg_terminate_backend(%s) = %v", pid, got)
	}
	for i := 0; i < 2; i++ {
		_, err := victim.Exec(ctx, "SELECT 1")
		if err == nil {
			t.Fatalf("attempt %d on a killed backend succeeded", i)
		}
		if c := tgt.Classify(err); c != target.ClassConnection {
			t.Errorf("attempt %d: Classify(%v) = %q, want connection", i, err, c)
		}
	}
	if err := victim.Close(); err != nil {
		t.Logf("Close after kill: %v", err)
	}
	fresh := targettest.Connect(t, tgt)
	if got := targettest.Rows(t, fresh, "SELECT 'ok'"); got[0][0] != "ok" {
		t.Errorf("fresh connection: %v", got)
	}
}

// statement_timeout (57014) and a client deadline are both timeouts.
func TestTimeouts(t *testing.T) {
	tgt := openTarget(t, testURL(t))
	c := targettest.Connect(t, tgt)
	mustExec(t, c, "SET statement_timeout = '50ms'")
	_, err := c.Exec(context.Background(), "SELECT pg_sleep(2)")
	if got := tgt.Classify(err); got != target.ClassTimeout {
		t.Errorf("statement_timeout: Classify(%v) = %q, want timeout", err, got)
	}
	mustExec(t, c, "SET statement_timeout = 0")

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err = c.Exec(ctx, "SELECT pg_sleep(2)")
	if got := tgt.Classify(err); got != target.ClassTimeout {
		t.Errorf("client deadline: Classify(%v) = %q, want timeout", err, got)
	}
}

var versionNumber = regexp.MustCompile(`^\d+(\.\d+)?`)

func TestFingerprint(t *testing.T) {
	tgt := openTarget(t, testURL(t))
	fp, err := tgt.Fingerprint(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if fp.Product != ProductPostgreSQL || !versionNumber.MatchString(fp.Version) || !strings.HasPrefix(fp.VersionString, "PostgreSQL "+fp.Version) {
		t.Errorf("product %q version %q from %q", fp.Product, fp.Version, fp.VersionString)
	}
	for _, s := range FingerprintSettings {
		v, ok := fp.Settings[s]
		// synchronous_standby_names is legitimately empty
		if !ok || v == Unavailable {
			t.Errorf("setting %s = %q (present %v); PostgreSQL has it", s, v, ok)
		}
	}
	if fp.Settings[StreamingReplicas] != "0" { // the sandbox has no standby
		t.Errorf("%s = %q, want 0", StreamingReplicas, fp.Settings[StreamingReplicas])
	}
	if fp.Settings["fsync"] != "on" && fp.Settings["fsync"] != "off" {
		t.Errorf("fsync = %q", fp.Settings["fsync"])
	}
	if fp.Driver != Name || fp.URL != tgt.RedactedURL() {
		t.Errorf("driver %q url %q", fp.Driver, fp.URL)
	}
	t.Logf("fingerprint: %+v", fp)
}

// A password in the URL (ignored by the sandbox's trust authentication)
// appears nowhere: not in the redacted URL, the fingerprint, nor errors.
func TestRedaction(t *testing.T) {
	u, err := url.Parse(testURL(t))
	if err != nil {
		t.Fatal(err)
	}
	const secret = "s3cret-pw-candor"
	u.User = url.UserPassword(u.User.Username(), secret)
	tgt, err := Open(context.Background(), u.String(), target.Options{})
	if err != nil {
		if strings.Contains(err.Error(), secret) {
			t.Fatalf("error leaks the password: %v", err)
		}
		t.Skipf("server refuses the made-up password (not trust auth): %v", err)
	}
	defer tgt.Close()
	fp, err := tgt.Fingerprint(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	all := tgt.RedactedURL() + fp.URL + fp.VersionString + strings.Join(mapValues(fp.Settings), " ")
	if strings.Contains(all, secret) {
		t.Errorf("password leaked: %s", all)
	}
	if !strings.Contains(fp.URL, ":xxxxx@") {
		t.Errorf("fingerprint URL %q is not redacted", fp.URL)
	}
	// A failing connection to a missing database names the URL, redacted.
	u.Path = "/candor_no_such_db"
	_, err = Open(context.Background(), u.String(), target.Options{})
	if !errors.Is(err, target.ErrUnreachable) || strings.Contains(err.Error(), secret) {
		t.Errorf("Open(missing database) = %v; want ErrUnreachable without the password", err)
	}
}

func mapValues(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// Options.Isolation is set on every new session: worker connections and the
// fingerprint's.
func TestIsolationApplied(t *testing.T) {
	u := testURL(t)
	for level, want := range map[string]string{
		"read-uncommitted": "read uncommitted",
		"read-committed":   "read committed",
		"repeatable-read":  "repeatable read",
		"serializable":     "serializable",
	} {
		tgt, err := Open(context.Background(), u, target.Options{Isolation: level})
		if err != nil {
			t.Fatalf("Open(isolation %s): %v", level, err)
		}
		for i := 0; i < 2; i++ {
			c := targettest.Connect(t, tgt)
			if got := targettest.Rows(t, c, "SHOW transaction_isolation"); got[0][0] != want {
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
		tgt.Close()
	}
	if _, err := Open(context.Background(), u, target.Options{Isolation: "snapshot"}); err == nil || !strings.Contains(err.Error(), "repeatable-read") {
		t.Errorf("Open(isolation snapshot) = %v, want an error listing the valid levels", err)
	}
}

// Sessions are dialed through blockconn.Dial, where the fault proxy hands
// them over in-process.
func TestDialsThroughHook(t *testing.T) {
	targettest.DialsThroughHook(t, testURL(t), "SELECT 'ok'", openTarget)
}

// A session opened for the network poller is a socket of Go's own, not a
// blocking one; every other session is blocking.
func TestSessionIOSocket(t *testing.T) {
	targettest.SessionIOSocket(t, openTarget(t, testURL(t)), func(c target.Conn) bool {
		_, ok := c.(*Conn).pc.PgConn().Conn().(*blockconn.Conn)
		return ok
	})
}
