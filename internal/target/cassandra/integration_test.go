package cassandra

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/target/targettest"
)

// envURL names the Cassandra cluster the integration tests use, as
// scripts/cassandra-sandbox.sh prints it (cql://127.0.0.1:PORT/); each test
// works in keyspaces of its own, which it drops at the end.
const envURL = "CANDOR_TEST_CASSANDRA_URL"

func baseURL(t *testing.T) string {
	t.Helper()
	u := os.Getenv(envURL)
	if u == "" {
		t.Skipf("%s is not set: skipping Cassandra integration tests (start one with `U=$(scripts/cassandra-sandbox.sh start /tmp/casstest)`, about a minute, and set %s=$U)", envURL, envURL)
	}
	return u
}

// keyspaceURL returns the test cluster's URL with a new keyspace name and
// the given parameters, and drops that keyspace when the test ends.
func keyspaceURL(t *testing.T, params string) (string, string) {
	t.Helper()
	base := baseURL(t)
	ks := fmt.Sprintf("candor_test_%08x", rand.Uint32())
	t.Cleanup(func() { dropKeyspace(t, base, ks) })
	return withParams(inKeyspace(base, ks), params), ks
}

// inKeyspace returns url with keyspace ks as its path, its parameters kept.
func inKeyspace(url, ks string) string {
	rest, query, _ := strings.Cut(url, "?")
	scheme, hosts, _ := strings.Cut(rest, "://")
	hosts, _, _ = strings.Cut(hosts, "/")
	return withParams(scheme+"://"+hosts+"/"+ks, query)
}

// withParams appends URL parameters params (a=b&c=d) to url.
func withParams(url, params string) string {
	switch {
	case params == "":
		return url
	case strings.Contains(url, "?"):
		return url + "&" + params
	}
	return url + "?" + params
}

func dropKeyspace(t *testing.T, base, ks string) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tg, err := Open(ctx, base, target.Options{})
	if err != nil {
		t.Errorf("cleanup: %v", err)
		return
	}
	defer tg.Close()
	if err := tg.(*Target).boot.Query("DROP KEYSPACE IF EXISTS " + ks).ExecContext(ctx); err != nil {
		t.Errorf("cleanup: dropping keyspace %s: %v", ks, err)
	}
}

func open(t *testing.T, u string) *Target {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tg, err := target.Open(ctx, u, target.Options{ConnectTimeout: 20 * time.Second})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { tg.Close() })
	return tg.(*Target)
}

// The keyspace is created on first use with the URL's replication and
// recorded as candor's; values come back as text; the fingerprint records
// version, topology, replication, consistency and commit-log settings.
func TestKeyspaceRoundTripFingerprint(t *testing.T) {
	u, ks := keyspaceURL(t, "write_consistency=QUORUM")
	tg := open(t, u)
	ctx := context.Background()
	if _, exists, err := keyspaceReplication(ctx, tg.boot, ks); err != nil || exists {
		t.Fatalf("keyspace %s exists after Open (%v, %v): Open must create nothing", ks, exists, err)
	}
	c := targettest.Connect(t, tg)
	// Asking about a table creates nothing either (cleanup does no more).
	if ex, _, err := target.TableState(ctx, c, tg.Dialect(), "kv"); err != nil || ex {
		t.Fatalf("TableState before the keyspace exists = %v, %v", ex, err)
	}
	if err := target.DropOwned(ctx, c, tg.Dialect(), "kv", false); err != nil {
		t.Fatalf("DropOwned before the keyspace exists = %v", err)
	}
	if _, exists, err := keyspaceReplication(ctx, tg.boot, ks); err != nil || exists {
		t.Fatalf("keyspace %s exists after Connect and reads (%v, %v): only a write creates it", ks, exists, err)
	}
	if _, err := c.Exec(ctx, "CREATE TABLE kv (k text PRIMARY KEY, i int, b bigint, d double, ok boolean, u uuid, s text)"); err != nil {
		t.Fatal(err)
	}
	if owned, err := keyspaceOwned(ctx, tg.boot, ks); err != nil || !owned {
		t.Fatalf("keyspace %s after the first write: owned %v, %v; want created and marked", ks, owned, err)
	}
	n, err := c.Exec(ctx, "INSERT INTO kv (k, i, b, d, ok, u, s) VALUES (?, ?, ?, ?, ?, ?, ?)",
		"k1", 42, int64(-7), 1.5, true, "6ba7b810-9dad-11d1-80b4-00c04fd430c8", "")
	if err != nil || n != 1 {
		t.Fatalf("INSERT = %d, %v; want 1", n, err)
	}
	if _, err := c.Exec(ctx, "INSERT INTO kv (k, i) VALUES (?, ?)", "k2", 1); err != nil {
		t.Fatal(err)
	}
	got := targettest.Rows(t, c, "SELECT k, i, b, d, ok, u, s FROM kv WHERE k = ?", "k1")
	want := "k1 42 -7 1.5 true 6ba7b810-9dad-11d1-80b4-00c04fd430c8 "
	if len(got) != 1 || strings.Join(got[0], " ") != want {
		t.Errorf("row k1 = %q, want %q", got, want)
	}
	got = targettest.Rows(t, c, "SELECT k, b, s FROM kv WHERE k = ?", "k2")
	if len(got) != 1 || strings.Join(got[0], " ") != "k2 NULL NULL" {
		t.Errorf("row k2 = %q, want NULLs", got)
	}
	// Paging: more rows than a page.
	tp := open(t, withParams(u, "page_size=3"))
	cp := targettest.Connect(t, tp)
	for i := range 10 {
		if _, err := cp.Exec(ctx, "INSERT INTO kv (k, i) VALUES (?, ?)", fmt.Sprint("p", i), i); err != nil {
			t.Fatal(err)
		}
	}
	if rows := targettest.Rows(t, cp, "SELECT k FROM kv"); len(rows) != 12 {
		t.Errorf("SELECT over pages of 3: %d rows, want 12", len(rows))
	}
	if n, err := cp.Query(ctx, "SELECT k FROM kv", nil, nil); err != nil || n != 0 {
		t.Errorf("Query with nil fn = %d, %v; want 0, nil", n, err)
	}
	// A lightweight transaction reports whether it applied.
	if n, err := c.Exec(ctx, "INSERT INTO kv (k, i) VALUES (?, ?) IF NOT EXISTS", "k1", 0); err != nil || n != 0 {
		t.Errorf("INSERT IF NOT EXISTS on an existing key = %d, %v; want 0", n, err)
	}
	if n, err := c.Exec(ctx, "INSERT INTO kv (k, i) VALUES (?, ?) IF NOT EXISTS", "new", 0); err != nil || n != 1 {
		t.Errorf("INSERT IF NOT EXISTS on a new key = %d, %v; want 1", n, err)
	}

	// Loading: concurrent prepared INSERTs, a window of 4 at a time.
	tl := open(t, withParams(u, "load_window=4"))
	cl := targettest.Connect(t, tl)
	var rows [][]any
	for i := range 50 {
		rows = append(rows, []any{fmt.Sprint("load", i), i})
	}
	if n, err := cl.(target.Copier).CopyFrom(ctx, "kv", []string{"k", "i"}, rows); err != nil || n != 50 {
		t.Errorf("CopyFrom of 50 rows = %d, %v", n, err)
	}
	if got := targettest.Rows(t, c, "SELECT i FROM kv WHERE k = ?", "load49"); len(got) != 1 || got[0][0] != "49" {
		t.Errorf("row load49 after CopyFrom = %v", got)
	}
	rows[7] = []any{"bad"}
	if _, err := cl.(target.Copier).CopyFrom(ctx, "kv", []string{"k", "i"}, rows); err == nil || !strings.Contains(err.Error(), "row 7") {
		t.Errorf("CopyFrom with a short row = %v, want an error naming row 7", err)
	}
	if _, err := cl.(target.Copier).CopyFrom(ctx, "kv", []string{"k", "nosuch"}, [][]any{{"x", 1}}); err == nil || Classify(err) != target.ClassOther {
		t.Errorf("CopyFrom into a missing column = %v (%s), want a server error", err, Classify(err))
	}

	fp, err := tg.Fingerprint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if fp.Product != "Apache Cassandra" || !strings.HasPrefix(fp.Version, "5.") || !strings.Contains(fp.VersionString, "(cluster ") {
		t.Errorf("product/version = %q %q %q", fp.Product, fp.Version, fp.VersionString)
	}
	for k, want := range map[string]string{
		"keyspace": ks, "replication": "{'class': 'SimpleStrategy', 'replication_factor': '1'}",
		"read_consistency": "ONE", "write_consistency": "QUORUM", "serial_consistency": "SERIAL",
		"partitioner": "Murmur3Partitioner", "commitlog_sync": "periodic",
	} {
		if fp.Settings[k] != want {
			t.Errorf("fingerprint %s = %q, want %q", k, fp.Settings[k], want)
		}
	}
	for _, k := range []string{"nodes", "topology", "commitlog_sync_period", "concurrent_writes", "memtable_allocation_type"} {
		if fp.Settings[k] == "" {
			t.Errorf("fingerprint has no %s: %v", k, fp.Settings)
		}
	}
	if !strings.Contains(fp.Settings["topology"], "/datacenter1/rack1/") {
		t.Errorf("topology = %q, want ADDRESS/DC/RACK/VERSION", fp.Settings["topology"])
	}
	// Every node once, whichever node answers: read it several times.
	for range 4 {
		fp2, err := tg.Fingerprint(ctx)
		if err != nil {
			t.Fatal(err)
		}
		nodes := strings.Split(fp2.Settings["topology"], ", ")
		seen := map[string]bool{}
		for _, n := range nodes {
			if seen[n] {
				t.Errorf("topology %q lists %s twice", fp2.Settings["topology"], n)
			}
			seen[n] = true
		}
		if fp2.Settings["nodes"] != strconv.Itoa(len(nodes)) || fp2.Settings["topology"] != fp.Settings["topology"] {
			t.Errorf("topology %q (nodes %s), first read %q", fp2.Settings["topology"], fp2.Settings["nodes"], fp.Settings["topology"])
		}
	}
	t.Logf("fingerprint: %v", fp.Settings)
}

// ownedUsertable opens a keyspace of the test's own and creates a
// two-column usertable there, owned by candor for workload ycsb.
func ownedUsertable(t *testing.T) (*Target, target.Conn) {
	t.Helper()
	u, _ := keyspaceURL(t, "")
	tg := open(t, u)
	c := targettest.Connect(t, tg)
	ddl := "CREATE TABLE usertable (y_id varchar PRIMARY KEY, field0 varchar)"
	if err := target.CreateOwned(context.Background(), c, tg.Dialect(), "usertable", ddl, "ycsb"); err != nil {
		t.Fatal(err)
	}
	return tg, c
}

// Table ownership works in CQL through the marker table of the keyspace.
func TestOwnership(t *testing.T) {
	tg, c := ownedUsertable(t)
	d := tg.Dialect()
	ctx := context.Background()
	if ex, own, err := target.TableState(ctx, c, d, "usertable"); err != nil || !ex || !own {
		t.Errorf("TableState(owned) = %v %v %v", ex, own, err)
	}
	if _, err := c.Exec(ctx, "CREATE TABLE foreign_t (k text PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	if ex, own, err := target.TableState(ctx, c, d, "foreign_t"); err != nil || !ex || own {
		t.Errorf("TableState(foreign) = %v %v %v", ex, own, err)
	}
	if err := target.DropOwned(ctx, c, d, "foreign_t", false); !errors.Is(err, target.ErrForeignTable) {
		t.Errorf("DropOwned(foreign) = %v, want ErrForeignTable", err)
	}
	owned, err := target.OwnedTables(ctx, c, d)
	if err != nil || len(owned) != 1 || owned[0].Name != "usertable" {
		t.Errorf("OwnedTables = %v, %v; want only usertable (not the keyspace's own mark)", owned, err)
	}
	if err := target.DropOwned(ctx, c, d, "usertable", false); err != nil {
		t.Fatal(err)
	}
	if ex, _, err := target.TableState(ctx, c, d, "usertable"); err != nil || ex {
		t.Errorf("usertable after DropOwned: exists %v, %v", ex, err)
	}
	if ex, _, _ := target.TableState(ctx, c, d, "foreign_t"); !ex {
		t.Errorf("the foreign table did not survive")
	}
}

// The driver dials through blockconn.Dial, where the network-fault proxy
// hands a dial to its address over in-process: with a hook on an address
// where nothing listens, every connection of a target opened there
// (contact point and pool) goes through the hook, and statements run.
func TestDialsThroughHook(t *testing.T) {
	u, _ := keyspaceURL(t, "")
	targettest.DialsThroughHook(t, u, "SELECT release_version FROM system.local", func(t *testing.T, u string) target.Target {
		return open(t, u)
	})
}

// TestSwapMark: the mark's compare-and-swap is a lightweight transaction.
// A stale swap changes nothing, and workers that each add themselves to one
// mark by read, swap and retry lose none of one another's additions (with a
// plain UPDATE some would be overwritten).
func TestSwapMark(t *testing.T) {
	tg, c := ownedUsertable(t)
	d := tg.Dialect()
	ctx := context.Background()
	if ok, err := target.SwapMark(ctx, c, d, "usertable", "stale", "ycsb x"); ok || err != nil {
		t.Fatalf("swap from a stale mark: %v, %v; want false", ok, err)
	}
	if got, _, err := target.TableOwner(ctx, c, d, "usertable"); err != nil || got != "ycsb" {
		t.Fatalf("mark after a stale swap: %q, %v; want it unchanged", got, err)
	}
	const workers, adds = 4, 5
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wc := targettest.Connect(t, tg)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range adds {
				for {
					old, _, err := target.TableOwner(ctx, wc, d, "usertable")
					if err != nil {
						errs <- err
						return
					}
					ok, err := target.SwapMark(ctx, wc, d, "usertable", old, fmt.Sprintf("%s w%d.%d", old, w, i))
					if err != nil {
						errs <- err
						return
					}
					if ok {
						break
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	got, _, err := target.TableOwner(ctx, c, d, "usertable")
	if err != nil {
		t.Fatal(err)
	}
	for w := range workers {
		for i := range adds {
			if !strings.Contains(got+" ", fmt.Sprintf(" w%d.%d ", w, i)) {
				t.Errorf("mark %q lost worker %d's addition %d", got, w, i)
			}
		}
	}
}

// A keyspace candor did not create is refused unless the URL allows it, and
// an explicit replication that differs from the keyspace's is refused.
func TestForeignKeyspaceAndReplication(t *testing.T) {
	u, ks := keyspaceURL(t, "")
	admin := open(t, baseURL(t))
	ctx := context.Background()
	if err := admin.boot.Query("CREATE KEYSPACE " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}").ExecContext(ctx); err != nil {
		t.Fatal(err)
	}
	tg := open(t, u)
	_, err := tg.Connect(ctx)
	if !errors.Is(err, target.ErrForeignTable) || !strings.Contains(err.Error(), ks) || !strings.Contains(err.Error(), "allow_foreign_keyspace=true") {
		t.Errorf("Connect to a foreign keyspace = %v, want ErrForeignTable naming it and allow_foreign_keyspace=true", err)
	}
	ta := open(t, withParams(u, "allow_foreign_keyspace=true"))
	targettest.Connect(t, ta)

	tr := open(t, withParams(u, "allow_foreign_keyspace=true&replication_factor=2"))
	_, err = tr.Connect(ctx)
	if !errors.Is(err, ErrReplication) || !errors.Is(err, target.ErrUnsupported) || !strings.Contains(err.Error(), "'replication_factor': '1'") {
		t.Errorf("Connect with another replication = %v, want ErrReplication naming the keyspace's", err)
	}
}

// Errors from a real server classify: too few replicas for the consistency
// level is retryable, a syntax error is other, a closed target connection.
func TestClassifyServerErrors(t *testing.T) {
	u, _ := keyspaceURL(t, "replication_factor=3&write_consistency=QUORUM")
	tg := open(t, u)
	c := targettest.Connect(t, tg)
	ctx := context.Background()
	if _, err := c.Exec(ctx, "CREATE TABLE t (k text PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	fp, err := tg.Fingerprint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if fp.Settings["nodes"] == "1" {
		_, err := c.Exec(ctx, "INSERT INTO t (k) VALUES (?)", "a")
		if got := Classify(err); got != target.ClassRetryable {
			t.Errorf("QUORUM of 3 copies on one node: %v classified %q, want retryable", err, got)
		}
	}
	_, err = c.Exec(ctx, "SELEC nothing")
	if got := Classify(err); got != target.ClassOther || err == nil {
		t.Errorf("syntax error %v classified %q, want other", err, got)
	}
	tg.Close()
	_, err = c.Query(ctx, "SELECT k FROM t", nil, nil)
	if got := Classify(err); got != target.ClassConnection {
		t.Errorf("after Close: %v classified %q, want connection", err, got)
	}
}

// A wrong password is refused with a message that does not show it.
func TestUnreachable(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := target.Open(ctx, "cql://u:sekrit@127.0.0.1:1/ks", target.Options{ConnectTimeout: 2 * time.Second})
	if !errors.Is(err, target.ErrUnreachable) || strings.Contains(err.Error(), "sekrit") {
		t.Errorf("Open on a closed port = %v, want ErrUnreachable without the password", err)
	}
}

// With password authentication on (cassandra-sandbox.sh start --auth), a
// wrong password is ErrUnreachable with a hint, and the message never
// shows it.
func TestWrongPassword(t *testing.T) {
	base := baseURL(t)
	pw := target.PasswordOf(base)
	if pw == "" {
		t.Skip("the test cluster has no password authentication (start it with cassandra-sandbox.sh start DIR --auth)")
	}
	bad := strings.Replace(base, ":"+pw+"@", ":wrong-pw-123@", 1)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := target.Open(ctx, bad, target.Options{ConnectTimeout: 10 * time.Second})
	if !errors.Is(err, target.ErrUnreachable) || strings.Contains(err.Error(), "wrong-pw-123") || !strings.Contains(err.Error(), "check the user name and password") {
		t.Errorf("Open with a wrong password = %v; want ErrUnreachable naming the password as the problem, without showing it", err)
	}
}

// With TLS on the server (cassandra-sandbox.sh start DIR --tls), the URL's
// tls_ca is what lets candor in: without TLS the connection is refused,
// and a certificate the server's does not verify against is refused too.
func TestTLS(t *testing.T) {
	base := baseURL(t)
	if !strings.Contains(base, "tls_ca=") {
		t.Skip("the test cluster has no TLS (start it with cassandra-sandbox.sh start DIR --tls)")
	}
	u, _ := keyspaceURL(t, "")
	targettest.Connect(t, open(t, u))
	rest, query, _ := strings.Cut(u, "?")
	var kept []string
	for _, p := range strings.Split(query, "&") {
		if !strings.HasPrefix(p, "tls") {
			kept = append(kept, p)
		}
	}
	plain := withParams(rest, strings.Join(kept, "&"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if tg, err := target.Open(ctx, plain, target.Options{ConnectTimeout: 5 * time.Second}); !errors.Is(err, target.ErrUnreachable) {
		if err == nil {
			tg.Close()
		}
		t.Errorf("Open without TLS on a TLS port = %v, want ErrUnreachable", err)
	}
	// The system's CA pool does not know the sandbox's self-signed certificate.
	if tg, err := target.Open(ctx, withParams(plain, "tls=true"), target.Options{ConnectTimeout: 5 * time.Second}); !errors.Is(err, target.ErrUnreachable) {
		if err == nil {
			tg.Close()
		}
		t.Errorf("Open with TLS but without the sandbox's CA = %v, want ErrUnreachable", err)
	}
}

// A Conn builds one driver Query per statement text and consistency and
// rebinds it for each execution: the values of each call are the ones
// sent, a statement run at two levels gets a Query for each, and past
// maxStmts texts statements still run (uncached).
func TestConnReusesQueries(t *testing.T) {
	u, _ := keyspaceURL(t, "read_consistency=ONE&write_consistency=QUORUM")
	tg := open(t, u)
	ctx := context.Background()
	c := targettest.Connect(t, tg).(*Conn)
	if _, err := c.Exec(ctx, "CREATE TABLE kv (k text PRIMARY KEY, v text)"); err != nil {
		t.Fatal(err)
	}
	const ins = "INSERT INTO kv (k, v) VALUES (?, ?)"
	for i := range 5 {
		if n, err := c.Exec(ctx, ins, fmt.Sprint("k", i), fmt.Sprint("v", i)); err != nil || n != 1 {
			t.Fatalf("INSERT %d = %d, %v", i, n, err)
		}
	}
	var q0 any
	cached := 0
	for _, st := range c.stmts {
		if st.sql == ins {
			cached++
			q0 = st.q
		}
	}
	if cached != 1 {
		t.Fatalf("%d cached Queries for the INSERT after 5 runs, want 1", cached)
	}
	if st := c.stmt(c.s, ins, c.write); any(st.q) != q0 || !st.write {
		t.Errorf("stmt for the INSERT again = %p (write %v), want the cached %p", st.q, st.write, q0)
	}
	if st := c.stmt(c.s, ins, c.read); any(st.q) == q0 || st.q.GetConsistency() != c.read {
		t.Errorf("stmt for the INSERT at the read level = the write level's Query (%v)", st.q.GetConsistency())
	}
	const sel = "SELECT v FROM kv WHERE k = ?"
	for i := range 5 {
		got := targettest.Rows(t, c, sel, fmt.Sprint("k", i))
		if len(got) != 1 || got[0][0] != fmt.Sprint("v", i) {
			t.Errorf("row k%d = %q, want v%d", i, got, i)
		}
	}
	// More texts than the cache holds: each still runs with its values.
	for i := range maxStmts + 5 {
		sql := fmt.Sprintf("INSERT INTO kv (k, v) VALUES ('x%d', ?)", i)
		if _, err := c.Exec(ctx, sql, fmt.Sprint("w", i)); err != nil {
			t.Fatal(err)
		}
	}
	if len(c.stmts) > maxStmts {
		t.Errorf("%d cached statements, want at most %d", len(c.stmts), maxStmts)
	}
	if got := targettest.Rows(t, c, sel, fmt.Sprint("x", maxStmts+4)); len(got) != 1 || got[0][0] != fmt.Sprint("w", maxStmts+4) {
		t.Errorf("row past the cache = %q", got)
	}
}
