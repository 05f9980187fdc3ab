package sysbench

import (
	"context"
	"fmt"
	"github.com/candor-bench/candor/internal/target/targettest"
	"math/rand/v2"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/target"
	_ "github.com/candor-bench/candor/internal/target/mysql"
	_ "github.com/candor-bench/candor/internal/target/postgres"
	_ "github.com/candor-bench/candor/internal/target/sqlite"
	"github.com/candor-bench/candor/internal/workload"
)

// Integration tests on real databases: embedded SQLite always, PostgreSQL
// when CANDOR_TEST_POSTGRES_URL is set, MySQL/MariaDB when
// CANDOR_TEST_MYSQL_URL is set. Each prepares 2 tables × 10,000 rows through
// the workload's own loader and PostLoad, runs every test's worker for a few
// hundred events checking each event's reads/writes/other against sysbench's
// table (docs/SYSBENCH.md, "Reference facts"), and drops the tables.
//
//	U=$(scripts/pg-sandbox.sh start /tmp/sbpg)
//	CANDOR_TEST_POSTGRES_URL=$U go test -race ./internal/workload/sysbench/
//	scripts/pg-sandbox.sh stop /tmp/sbpg

const (
	itTables = 2
	itSize   = 10000
	itEvents = 300
)

func TestSQLiteIntegration(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sysbench.db")
	exercise(t, "sqlite://"+path)
}

func TestPostgresIntegration(t *testing.T) {
	exercise(t, pgSchemaURL(t))
}

// pgSchemaURL returns the PostgreSQL test URL with a schema of its own on the
// search path, so the sbtest tables cannot meet another test's; the schema
// is dropped when the test ends. It skips the test without a server.
func pgSchemaURL(t *testing.T) string {
	u := targettest.PostgresURL(t)
	schema := fmt.Sprintf("candor_sb_%08x", rand.Uint32())
	admin := open(t, u)
	c := connect(t, admin)
	if _, err := c.Exec(context.Background(), "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := c.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("dropping schema %s: %v", schema, err)
		}
	})
	sep := "?"
	if strings.Contains(u, "?") {
		sep = "&"
	}
	return u + sep + "search_path=" + schema
}

// The layout options on a real PostgreSQL: the sequence cache reaches the
// SERIAL sequence before the load, --secondary replaces the primary key by
// an index on id, and PostLoad adds k_N.
func TestPostgresLayout(t *testing.T) {
	tgt := open(t, pgSchemaURL(t))
	c := connect(t, tgt)
	w, err := New(OLTPReadOnly, nil, []string{"table-size=1000", "sequence-cache=7", "secondary=on"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Bind(env(tgt)); err != nil {
		t.Fatal(err)
	}
	createTables(t, tgt, c, w)
	load(t, tgt, c, w)
	checks := []struct {
		sql  string
		want int64
	}{
		{"SELECT CAST(cache_size AS TEXT) FROM pg_sequences WHERE schemaname = current_schema() AND sequencename = 'sbtest1_id_seq'", 7},
		{"SELECT CAST(count(*) AS TEXT) FROM pg_indexes WHERE schemaname = current_schema() AND indexname IN ('xid_1', 'k_1')", 2},
		{"SELECT CAST(count(*) AS TEXT) FROM pg_indexes WHERE schemaname = current_schema() AND indexname = 'sbtest1_pkey'", 0},
		{"SELECT CAST(max(id) AS TEXT) FROM sbtest1", 1000},
	}
	for _, ch := range checks {
		if got := scalar(t, c, ch.sql); got != ch.want {
			t.Errorf("%s = %d, want %d", ch.sql, got, ch.want)
		}
	}
}

func TestMySQLIntegration(t *testing.T) {
	u := targettest.MySQLDatabaseURL(t) // sbtestN: a database of its own
	if _, err := url.Parse(u); err != nil {
		t.Fatal(err)
	}
	exercise(t, u)
}

func open(t *testing.T, u string) target.Target {
	t.Helper()
	tgt, err := target.Open(context.Background(), u, target.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tgt.Close() })
	return tgt
}

func connect(t *testing.T, tgt target.Target) target.Conn {
	t.Helper()
	c, err := tgt.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// env is what the CLI gives Bind.
func env(tgt target.Target) workload.Env {
	return workload.Env{Dialect: tgt.Dialect(), Capabilities: tgt.Capabilities()}
}

// createTables creates w's schema as the CLI does (marked as candor's) and
// drops it when the test ends.
func createTables(t *testing.T, tgt target.Target, c target.Conn, w *Workload) {
	t.Helper()
	ctx := context.Background()
	for _, tb := range w.Schema() {
		exists, owned, err := target.TableState(ctx, c, tgt.Dialect(), tb.Name)
		if err != nil {
			t.Fatal(err)
		}
		if exists && !owned {
			t.Skipf("table %s exists and is not candor's: not touching it", tb.Name)
		}
		if exists {
			if err := target.DropOwned(ctx, c, tgt.Dialect(), tb.Name, false); err != nil {
				t.Fatal(err)
			}
		}
		if err := target.CreateOwned(ctx, c, tgt.Dialect(), tb.Name, tb.Create, w.Name()); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { dropTables(t, tgt, c, w) })
}

func dropTables(t *testing.T, tgt target.Target, c target.Conn, w *Workload) {
	for _, tb := range w.Schema() {
		if err := target.DropOwned(context.Background(), c, tgt.Dialect(), tb.Name, false); err != nil {
			t.Errorf("drop %s: %v", tb.Name, err)
		}
	}
}

// load runs the load phase as the runner does: batches of at most
// MaxLoadBatch (1000 when unbounded) taken by two loaders in parallel (one
// on SQLite, which serialises writers), then PostLoad.
func load(t *testing.T, tgt target.Target, c target.Conn, w *Workload) {
	t.Helper()
	ctx := context.Background()
	start, count := w.LoadRange()
	batch := int64(1000)
	if m := w.MaxLoadBatch(); m > 0 && int64(m) < batch {
		batch = int64(m)
	}
	loaders := 2
	if tgt.Capabilities().Embedded {
		loaders = 1
	}
	var next int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make(chan error, loaders)
	for i := 0; i < loaders; i++ {
		conn := connect(t, tgt)
		r := newRand(0)
		l := w.NewLoader(i, r)
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for {
				mu.Lock()
				from := start + next
				next += batch
				mu.Unlock()
				if from >= start+count {
					return
				}
				to := min(from+batch, start+count)
				// The runner reseeds the loader's generator per batch.
				r.Seed(from)
				if err := l.LoadBatch(ctx, conn, from, to); err != nil {
					errs <- fmt.Errorf("batch %d..%d: %w", from, to, err)
					return
				}
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if err := w.PostLoad(ctx, c); err != nil {
		t.Fatal(err)
	}
}

// scalar runs a query returning one integer (cast to text, so every driver
// hands back digits).
func scalar(t *testing.T, c target.Conn, sql string) int64 {
	t.Helper()
	var v int64 = -1
	_, err := c.Query(context.Background(), sql, nil, func(cols [][]byte) error {
		n, err := strconv.ParseInt(string(cols[0]), 10, 64)
		v = n
		return err
	})
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return v
}

// castText wraps an integer expression so every driver returns it as text.
func castText(tgt target.Target, expr string) string {
	if tgt.Driver() == "mysql" {
		return "CAST(" + expr + " AS CHAR)"
	}
	return "CAST(" + expr + " AS TEXT)"
}

// eventCheck is one test's expected counts per event.
type eventCheck struct {
	test  string
	props []string
	// ok says whether one event's counts are right.
	ok   func(c counts) bool
	want string
}

func exact(rwo string) func(counts) bool { return func(c counts) bool { return c.String() == rwo } }

func exercise(t *testing.T, u string) {
	ctx := context.Background()
	tgt := open(t, u)
	c := connect(t, tgt)
	base := []string{"tables=" + strconv.Itoa(itTables), "table-size=" + strconv.Itoa(itSize)}

	w, err := New(OLTPReadWrite, nil, base)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Bind(env(tgt)); err != nil {
		t.Fatal(err)
	}
	createTables(t, tgt, c, w)
	t0 := time.Now()
	load(t, tgt, c, w)
	t.Logf("%s: loaded %d × %d rows in %v", tgt.Driver(), itTables, itSize, time.Since(t0).Round(time.Millisecond))

	// The load: every table holds ids 1..table_size and k in [1, table_size].
	for n := 1; n <= itTables; n++ {
		tb := fmt.Sprintf("sbtest%d", n)
		if got := scalar(t, c, "SELECT "+castText(tgt, "count(*)")+" FROM "+tb); got != itSize {
			t.Errorf("%s: %d rows, want %d", tb, got, itSize)
		}
		if got := scalar(t, c, "SELECT "+castText(tgt, "count(DISTINCT id)")+" FROM "+tb+" WHERE id BETWEEN 1 AND "+strconv.Itoa(itSize)); got != itSize {
			t.Errorf("%s: %d distinct ids in 1..%d", tb, got, itSize)
		}
		if got := scalar(t, c, "SELECT "+castText(tgt, "count(*)")+" FROM "+tb+" WHERE k < 1 OR k > "+strconv.Itoa(itSize)); got != 0 {
			t.Errorf("%s: %d rows with k outside [1, %d]", tb, got, itSize)
		}
		if got := scalar(t, c, "SELECT "+castText(tgt, "count(*)")+" FROM "+tb+" WHERE length(c) <> 119 OR length(pad) <> 59"); got != 0 {
			t.Errorf("%s: %d rows with c or pad of the wrong length", tb, got)
		}
	}

	checks := []eventCheck{
		{OLTPPointSelect, nil, exact("1/0/0"), "1/0/0"},
		{OLTPReadOnly, nil, exact("14/0/2"), "14/0/2"},
		{OLTPReadOnly, []string{"range-selects=off"}, exact("10/0/2"), "10/0/2"},
		{OLTPWriteOnly, nil, exact("0/4/2"), "0/4/2"},
		{OLTPWriteOnly, []string{"index-updates=0", "non-index-updates=0"}, exact("0/2/2"), "0/2/2"},
		{OLTPReadWrite, nil, exact("14/4/2"), "14/4/2"},
		{OLTPReadWrite, []string{"skip-trx=on"}, exact("14/4/0"), "14/4/0"},
		{OLTPUpdateIndex, nil, exact("0/1/0"), "0/1/0"},
		{OLTPUpdateNonIndex, nil, exact("0/1/0"), "0/1/0"},
		{OLTPInsert, nil, exact("0/1/0"), "0/1/0"},
		{SelectRandomPoints, []string{"tables=1"}, exact("1/0/0"), "1/0/0"},
		{SelectRandomRanges, []string{"tables=1"}, exact("1/0/0"), "1/0/0"},
		// last: it removes rows. A write when the row was there, else other.
		{OLTPDelete, nil, func(c counts) bool { return c[0] == 0 && c[1]+c[2] == 1 }, "0/1/0 or 0/0/1"},
	}
	for _, ch := range checks {
		props := append(append([]string(nil), base...), ch.props...)
		if ch.test == SelectRandomPoints || ch.test == SelectRandomRanges {
			props = append(props[1:], ch.props...) // tables=1 replaces tables=2
		}
		w, err := New(ch.test, nil, props)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Bind(env(tgt)); err != nil {
			t.Fatal(err)
		}
		conn := connect(t, tgt)
		wk := w.NewWorker(0, newRand(11))
		var total counts
		for ev := 0; ev < itEvents; ev++ {
			var n counts
			wk.Next()
			if err := wk.Exec(ctx, conn, &n); err != nil {
				t.Fatalf("%s %v: event %d: %v", ch.test, ch.props, ev, err)
			}
			wk.Done(nil)
			if !ch.ok(n) {
				t.Fatalf("%s %v: event %d counted %s, want %s", ch.test, ch.props, ev, n, ch.want)
			}
			for i := range total {
				total[i] += n[i]
			}
		}
		t.Logf("%s %v: %d events, r/w/o %s", ch.test, ch.props, itEvents, total)
		if ch.test == OLTPDelete && total[1] == 0 {
			t.Errorf("oltp_delete deleted nothing in %d events", itEvents)
		}
	}

	// Several workers at once on one table: conflicts are retryable or
	// constraint errors, which the runner restarts.
	concurrent(t, tgt, base)

	// oltp_insert without auto-inc starts from empty tables and inserts
	// sysbench.rand.unique() ids.
	dropTables(t, tgt, c, w)
	wi, err := New(OLTPInsert, nil, append(base, "auto-inc=off"))
	if err != nil {
		t.Fatal(err)
	}
	if err := wi.Bind(env(tgt)); err != nil {
		t.Fatal(err)
	}
	createTables(t, tgt, c, wi)
	load(t, tgt, c, wi)
	wk := wi.NewWorker(0, newRand(12))
	for ev := 0; ev < itEvents; ev++ {
		var n counts
		if err := wk.Exec(ctx, c, &n); err != nil || n.String() != "0/1/0" {
			t.Fatalf("oltp_insert auto-inc=off: event %d: %v %s", ev, err, n)
		}
	}
	if got := scalar(t, c, "SELECT "+castText(tgt, "count(*)")+" FROM sbtest1") + scalar(t, c, "SELECT "+castText(tgt, "count(*)")+" FROM sbtest2"); got != itEvents {
		t.Errorf("oltp_insert auto-inc=off inserted %d rows, want %d", got, itEvents)
	}
	dropTables(t, tgt, c, wi)

	// bulk_insert: its own tables, one per thread; rows arrive by 512 KiB.
	wb, err := New(BulkInsert, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	wb.SetThreads(1)
	if err := wb.Bind(env(tgt)); err != nil {
		t.Fatal(err)
	}
	createTables(t, tgt, c, wb)
	load(t, tgt, c, wb)
	wk = wb.NewWorker(0, newRand(13))
	var bn counts
	events := 0
	for bn[1] < 2 {
		if err := wk.Exec(ctx, c, &bn); err != nil {
			t.Fatalf("bulk_insert event %d: %v", events, err)
		}
		events++
	}
	got := scalar(t, c, "SELECT "+castText(tgt, "count(*)")+" FROM sbtest1")
	if got != int64(events-1) {
		t.Errorf("bulk_insert: %d rows after %d events and two flushes, want %d (the last event's row is buffered)", got, events, events-1)
	}
	// thread_done: Finish writes the buffered row.
	if err := wk.(workload.Finisher).Finish(ctx, c, &bn); err != nil {
		t.Fatal(err)
	}
	if got := scalar(t, c, "SELECT "+castText(tgt, "count(*)")+" FROM sbtest1"); got != int64(events) || bn[1] != 3 {
		t.Errorf("bulk_insert after Finish: %d rows and %d writes, want %d rows in 3 statements", got, bn[1], events)
	}
	t.Logf("bulk_insert: %d events, %d rows written in 2 statements and 1 more at the end", events, got)
}

// concurrent runs oltp_read_write with four workers for a while and checks
// that every failure is of a class the runner restarts.
func concurrent(t *testing.T, tgt target.Target, base []string) {
	ctx := context.Background()
	w, err := New(OLTPReadWrite, nil, base)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Bind(env(tgt)); err != nil {
		t.Fatal(err)
	}
	workers := 4
	if tgt.Capabilities().Embedded {
		workers = 1 // SQLite serialises writers: busy errors, not sysbench's
	}
	w.SetThreads(workers)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var total counts
	restarts := map[target.ErrorClass]int{}
	for id := 0; id < workers; id++ {
		conn := connect(t, tgt)
		wk := w.NewWorker(id, newRand(int64(100+id)))
		wg.Add(1)
		go func() {
			defer wg.Done()
			var n counts
			for ev := 0; ev < 100; ev++ {
				for attempt := 0; ; attempt++ {
					err := wk.Exec(ctx, conn, &n)
					if err == nil {
						break
					}
					cls := tgt.Classify(err)
					mu.Lock()
					restarts[cls]++
					mu.Unlock()
					if cls != target.ClassRetryable && cls != target.ClassConstraint || attempt > 100 {
						t.Errorf("worker %d event %d: %v (class %s)", id, ev, err, cls)
						return
					}
				}
			}
			mu.Lock()
			for i := range total {
				total[i] += n[i]
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	t.Logf("%d workers × 100 events of oltp_read_write: r/w/o %s, restarts %v", workers, total, restarts)
	if total[0] < int64(workers)*100*14 {
		t.Errorf("only %d reads", total[0])
	}
}
