package sysbench

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

// kind names a recorded statement by its shape, for comparing sequences.
func kind(c call) string {
	s := c.sql
	switch {
	case s == "BEGIN", s == "COMMIT", s == "ROLLBACK":
		return s
	case strings.HasPrefix(s, "SELECT c FROM") && strings.HasSuffix(s, "WHERE id=$1"):
		return "point"
	case strings.HasPrefix(s, "SELECT c FROM") && strings.HasSuffix(s, "ORDER BY c"):
		return "order"
	case strings.HasPrefix(s, "SELECT c FROM"):
		return "simple"
	case strings.HasPrefix(s, "SELECT SUM(k)"):
		return "sum"
	case strings.HasPrefix(s, "SELECT DISTINCT c"):
		return "distinct"
	case strings.Contains(s, "SET k=k+1"):
		return "index_update"
	case strings.Contains(s, "SET c="):
		return "non_index_update"
	case strings.HasPrefix(s, "DELETE"):
		return "delete"
	case strings.HasPrefix(s, "INSERT"):
		return "insert"
	case strings.Contains(s, "WHERE k IN"):
		return "random_points"
	case strings.Contains(s, "count(k)"):
		return "random_ranges"
	}
	return "?" + s
}

func kinds(calls []call) string {
	out := make([]string, len(calls))
	for i, c := range calls {
		out[i] = kind(c)
	}
	return strings.Join(out, " ")
}

// repeat returns n copies of s joined by spaces.
func repeat(s string, n int) string {
	return strings.TrimSpace(strings.Repeat(s+" ", n))
}

// TestEventComposition runs one event of every test on a fake connection
// and compares the statements and sysbench's r/w/o counts with the spec's
// table (docs/SYSBENCH.md, "Reference facts").
func TestEventComposition(t *testing.T) {
	rw := "BEGIN " + repeat("point", 10) + " simple sum order distinct index_update non_index_update delete insert COMMIT"
	cases := []struct {
		name     string
		test     string
		props    []string
		affected int64 // rows an UPDATE/DELETE/INSERT reports
		want     string
		rwo      string
	}{
		// oltp_read_write with the defaults: 14/4/2
		{"read_write", OLTPReadWrite, nil, 1, rw, "14/4/2"},
		// --skip-trx: no BEGIN/COMMIT
		{"read_write skip-trx", OLTPReadWrite, []string{"skip-trx=on"}, 1, strings.TrimSuffix(strings.TrimPrefix(rw, "BEGIN "), " COMMIT"), "14/4/0"},
		// writes that touch nothing are "other"
		{"read_write no rows", OLTPReadWrite, nil, 0, rw, "14/0/6"},
		// oltp_read_only: 14/0/2
		{"read_only", OLTPReadOnly, nil, 1, "BEGIN " + repeat("point", 10) + " simple sum order distinct COMMIT", "14/0/2"},
		// E2's read-only without range selects: 10/0/2
		{"read_only no ranges", OLTPReadOnly, []string{"range-selects=off"}, 1, "BEGIN " + repeat("point", 10) + " COMMIT", "10/0/2"},
		// oltp_write_only: 0/4/2
		{"write_only", OLTPWriteOnly, nil, 1, "BEGIN index_update non_index_update delete insert COMMIT", "0/4/2"},
		// E2's write-only keeping only the delete+insert pair
		{"write_only delete+insert", OLTPWriteOnly, []string{"index-updates=0", "non-index-updates=0"}, 1, "BEGIN delete insert COMMIT", "0/2/2"},
		// counts per option
		{"read_write 2 deletes", OLTPReadWrite, []string{"point-selects=2", "simple-ranges=0", "sum-ranges=2", "order-ranges=0", "distinct-ranges=0", "index-updates=0", "non-index-updates=0", "delete-inserts=2"}, 1,
			"BEGIN point point sum sum delete insert delete insert COMMIT", "4/4/2"},
		// oltp_point_select: 1/0/0, no BEGIN (point-selects is forced to 1)
		{"point_select", OLTPPointSelect, []string{"point-selects=10"}, 1, "point", "1/0/0"},
		// oltp_update_index / non_index: 0/1/0, no BEGIN
		{"update_index", OLTPUpdateIndex, nil, 1, "index_update", "0/1/0"},
		{"update_index x3", OLTPUpdateIndex, []string{"index-updates=3"}, 1, "index_update index_update index_update", "0/3/0"},
		{"update_non_index", OLTPUpdateNonIndex, nil, 1, "non_index_update", "0/1/0"},
		// oltp_delete: a write when a row went, else other
		{"delete found", OLTPDelete, nil, 1, "delete", "0/1/0"},
		{"delete missing", OLTPDelete, nil, 0, "delete", "0/0/1"},
		// oltp_insert: one INSERT
		{"insert", OLTPInsert, nil, 1, "insert", "0/1/0"},
		// select_random_*: one read
		{"random points", SelectRandomPoints, nil, 1, "random_points", "1/0/0"},
		{"random ranges", SelectRandomRanges, nil, 1, "random_ranges", "1/0/0"},
	}
	for _, c := range cases {
		w := bound(t, pgEnv, c.test, c.props...)
		conn := &fakeConn{affected: func(string, []any) int64 { return c.affected }}
		wk := w.NewWorker(0, newRand(1))
		var n counts
		if op := wk.Next(); op != OpTransaction {
			t.Fatalf("%s: Next = %d", c.name, op)
		}
		if err := wk.Exec(ctx, conn, &n); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		wk.Done(nil)
		if got := kinds(conn.calls); got != c.want {
			t.Errorf("%s: statements\n got %s\nwant %s", c.name, got, c.want)
		}
		if n.String() != c.rwo {
			t.Errorf("%s: r/w/o %s, want %s", c.name, n, c.rwo)
		}
	}
}

// BEGIN and COMMIT are "other" even where a driver reports the previous
// statement's row count for them, as SQLite's sqlite3_changes() does.
func TestControlStatementsAreOther(t *testing.T) {
	w := bound(t, sqliteEnv, OLTPWriteOnly)
	var n counts
	if err := w.NewWorker(0, newRand(1)).Exec(ctx, &fakeConn{controlRows: 1}, &n); err != nil {
		t.Fatal(err)
	}
	if n.String() != "0/4/2" {
		t.Errorf("counted %s, want 0/4/2", n)
	}
}

// sysbench prepares BEGIN and COMMIT like its other statements, and sends
// them as text with --db-ps-mode=disable; a connection without
// target.Preparer gets them through Exec.
func TestControlStatementsPrepared(t *testing.T) {
	for _, c := range []struct {
		props []string
		prep  bool // the connection implements target.Preparer
		want  string
	}{
		{nil, true, "BEGIN:prepared COMMIT:prepared"},
		{[]string{"db-ps-mode=disable"}, true, "BEGIN:exec COMMIT:exec"},
		{nil, false, "BEGIN:exec COMMIT:exec"},
	} {
		w := bound(t, pgEnv, OLTPReadOnly, c.props...)
		fc := &fakeConn{}
		var conn target.Conn = fc
		if c.prep {
			conn = prepConn{fc}
		}
		var n counts
		if err := w.NewWorker(0, newRand(1)).Exec(ctx, conn, &n); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, call := range fc.calls {
			switch {
			case call.sql != "BEGIN" && call.sql != "COMMIT":
				if call.prepared {
					t.Errorf("%v: %s went through ExecPrepared", c.props, call.sql)
				}
			case call.prepared:
				got = append(got, call.sql+":prepared")
			default:
				got = append(got, call.sql+":exec")
			}
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("%v (Preparer %v): %s, want %s", c.props, c.prep, strings.Join(got, " "), c.want)
		}
		if n.String() != "14/0/2" {
			t.Errorf("%v: counted %s, want 14/0/2", c.props, n)
		}
	}
}

// Parameters follow sysbench: ids in [1, table_size], ranges
// id..id+range_size-1, the same id deleted and re-inserted with a fresh k,
// c and pad, and one table per statement group.
func TestEventParameters(t *testing.T) {
	w := bound(t, pgEnv, OLTPReadWrite, "tables=4", "table-size=1000", "range-size=7")
	wk := w.NewWorker(0, newRand(2))
	groupTables := map[string]bool{} // "event/group" -> seen several tables
	differ := false
	for ev := 0; ev < 300; ev++ {
		conn := &fakeConn{}
		if err := wk.Exec(ctx, conn, nil); err != nil {
			t.Fatal(err)
		}
		var pointTable, firstTable string
		for i, c := range conn.calls {
			tbl := ""
			if f := strings.Fields(c.sql); len(f) > 3 {
				for _, x := range f {
					if strings.HasPrefix(x, "sbtest") {
						tbl = x
						break
					}
				}
			}
			switch kind(c) {
			case "point":
				id := c.args[0].(int64)
				if id < 1 || id > 1000 {
					t.Fatalf("point select id %d", id)
				}
				if pointTable != "" && tbl != pointTable {
					t.Fatalf("event %d: point selects on %s and %s", ev, pointTable, tbl)
				}
				pointTable = tbl
			case "simple", "sum", "order", "distinct":
				lo, hi := c.args[0].(int64), c.args[1].(int64)
				if hi != lo+6 || lo < 1 || lo > 1000 {
					t.Fatalf("range %d..%d", lo, hi)
				}
			case "delete":
				ins := conn.calls[i+1]
				if kind(ins) != "insert" || ins.args[0] != c.args[0] {
					t.Fatalf("delete %v followed by %v", c.args, ins.args)
				}
				k := ins.args[1].(int64)
				cv, pad := ins.args[2].(string), ins.args[3].(string)
				if k < 1 || k > 1000 || len(cv) != 119 || len(pad) != 59 || strings.Trim(cv, "0123456789-") != "" {
					t.Fatalf("insert %v", ins.args)
				}
				if firstTable != "" && tbl != firstTable {
					differ = true
				}
			case "non_index_update":
				if cv := c.args[0].(string); len(cv) != 119 || cv[11] != '-' {
					t.Fatalf("c value %q", cv)
				}
			}
			if firstTable == "" && tbl != "" {
				firstTable = tbl
			}
		}
		groupTables[pointTable] = true
	}
	if len(groupTables) != 4 {
		t.Errorf("point selects used tables %v, want all 4", groupTables)
	}
	if !differ {
		t.Error("within 300 events the groups of one event never used different tables")
	}
}

// TestRestart: an error mid-transaction rolls back, returns the error, and
// counts only what succeeded; the next Exec (the runner's retry) draws new
// values.
func TestRestart(t *testing.T) {
	w := bound(t, pgEnv, OLTPReadWrite)
	wk := w.NewWorker(0, newRand(3))
	boom := errors.New("deadlock detected (SQLSTATE 40P01)")
	conn := &fakeConn{failAt: 5, failErr: boom} // BEGIN, 3 point selects, then the 4th fails
	var n counts
	err := wk.Exec(ctx, conn, &n)
	if !errors.Is(err, boom) {
		t.Fatalf("Exec = %v, want the statement's error", err)
	}
	if got, want := kinds(conn.calls), "BEGIN point point point point ROLLBACK"; got != want {
		t.Errorf("statements %s, want %s", got, want)
	}
	if n.String() != "3/0/1" {
		t.Errorf("counted %s, want 3/0/1 (the failed statement and ROLLBACK uncounted)", n)
	}
	first := conn.calls[1].args[0]
	// The retry: a new event with new values.
	conn2 := &fakeConn{}
	if err := wk.Exec(ctx, conn2, &n); err != nil {
		t.Fatal(err)
	}
	if conn2.calls[1].args[0] == first && conn2.calls[2].args[0] == conn.calls[2].args[0] {
		t.Errorf("the restarted event repeated the failed one's ids %v", first)
	}
	if n.String() != "17/4/3" {
		t.Errorf("after the retry: %s, want 17/4/3", n)
	}

	// A failing COMMIT is rolled back too.
	conn3 := &fakeConn{failAt: 20, failErr: boom}
	if err := wk.Exec(ctx, conn3, nil); !errors.Is(err, boom) || kind(conn3.calls[len(conn3.calls)-1]) != "ROLLBACK" {
		t.Errorf("failed COMMIT: %v, last %s", err, kind(conn3.calls[len(conn3.calls)-1]))
	}

	// Without a transaction there is nothing to roll back.
	for _, c := range []struct {
		test  string
		props []string
	}{{OLTPPointSelect, nil}, {OLTPReadWrite, []string{"skip-trx=on"}}, {OLTPDelete, nil}} {
		w := bound(t, pgEnv, c.test, c.props...)
		conn := &fakeConn{failAt: 1, failErr: boom}
		if err := w.NewWorker(0, newRand(4)).Exec(ctx, conn, nil); !errors.Is(err, boom) {
			t.Errorf("%s: %v", c.test, err)
		}
		if got := kinds(conn.calls); strings.Contains(got, "ROLLBACK") {
			t.Errorf("%s %v: %s", c.test, c.props, got)
		}
	}
}

// The same seed draws the same events; Next draws nothing.
func TestDeterministic(t *testing.T) {
	w := bound(t, pgEnv, OLTPReadWrite, "tables=3")
	run := func(nexts int) []call {
		wk := w.NewWorker(0, newRand(5))
		for i := 0; i < nexts; i++ {
			wk.Next()
		}
		conn := &fakeConn{}
		wk.Exec(ctx, conn, nil)
		wk.Exec(ctx, conn, nil)
		return conn.calls
	}
	a, b := run(0), run(50)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Error("Next changed the drawn values, or the same seed drew different events")
	}
}

// oltp_insert: plain-text INSERTs; without auto-inc the ids come from one
// sysbench.rand.unique() sequence shared by all workers, as SQL INTs.
func TestInsertEvent(t *testing.T) {
	w := bound(t, pgEnv, OLTPInsert, "auto-inc=off", "tables=2")
	seen := map[string]bool{}
	for id := 0; id < 3; id++ {
		wk := w.NewWorker(id, newRand(int64(id)))
		for i := 0; i < 200; i++ {
			conn := &fakeConn{}
			if err := wk.Exec(ctx, conn, nil); err != nil {
				t.Fatal(err)
			}
			c := conn.calls[0]
			if len(c.args) != 0 || !strings.HasPrefix(c.sql, "INSERT INTO sbtest") || !strings.Contains(c.sql, " (id, k, c, pad) VALUES (") {
				t.Fatalf("insert %q %v", c.sql, c.args)
			}
			var tbl, idv, k int64
			var rest string
			if _, err := fmt.Sscanf(c.sql, "INSERT INTO sbtest%d (id, k, c, pad) VALUES (%d, %d, %s", &tbl, &idv, &k, &rest); err != nil {
				t.Fatalf("%q: %v", c.sql, err)
			}
			if idv < -2147483648 || idv > 2147483647 || k < 1 || k > 10000 || tbl < 1 || tbl > 2 {
				t.Fatalf("%q", c.sql)
			}
			key := fmt.Sprint(idv)
			if seen[key] {
				t.Fatalf("id %s inserted twice", key)
			}
			seen[key] = true
		}
	}
	// With auto-inc on PostgreSQL the id column is omitted.
	w = bound(t, pgEnv, OLTPInsert)
	conn := &fakeConn{}
	w.NewWorker(0, newRand(1)).Exec(ctx, conn, nil)
	if !strings.HasPrefix(conn.calls[0].sql, "INSERT INTO sbtest1 (k, c, pad) VALUES (") {
		t.Errorf("auto-inc insert %q", conn.calls[0].sql)
	}
}

// select_random_*: each worker draws k from its slice of the range,
// [table_size/threads·tid, +table_size/threads], as sysbench's threads do.
func TestRandomSelectPartitions(t *testing.T) {
	w := bound(t, pgEnv, SelectRandomRanges, "rand-type=uniform", "delta=3", "number-of-ranges=4")
	w.SetThreads(4)
	wk := w.NewWorker(2, newRand(6))
	for i := 0; i < 200; i++ {
		conn := &fakeConn{}
		if err := wk.Exec(ctx, conn, nil); err != nil {
			t.Fatal(err)
		}
		args := conn.calls[0].args
		if len(args) != 8 {
			t.Fatalf("%d parameters, want 8", len(args))
		}
		for j := 0; j < len(args); j += 2 {
			lo, hi := args[j].(int64), args[j+1].(int64)
			if lo < 5000 || lo > 7500 || hi != lo+3 {
				t.Fatalf("range %d..%d outside worker 2's [5000, 7500]", lo, hi)
			}
		}
	}
	// Without SetThreads a worker uses the whole range [0, table_size].
	w = bound(t, pgEnv, SelectRandomPoints, "rand-type=uniform", "random-points=3")
	conn := &fakeConn{}
	w.NewWorker(3, newRand(7)).Exec(ctx, conn, nil)
	for _, a := range conn.calls[0].args {
		if v := a.(int64); v < 0 || v > 10000 {
			t.Errorf("point %d outside [0, 10000]", v)
		}
	}
}

// bulk_insert: rows (n, n) gather into one INSERT per worker's table, sent
// by the event whose row would take it past 512 KiB, rows numbered on.
func TestBulkInsert(t *testing.T) {
	w := bound(t, pgEnv, BulkInsert)
	w.SetThreads(2)
	schema := w.Schema()
	if len(schema) != 2 || schema[1].Name != "sbtest2" || !strings.Contains(schema[1].Create, "CREATE TABLE IF NOT EXISTS sbtest2 (\n          id INTEGER NOT NULL,\n          k INTEGER DEFAULT '0' NOT NULL,\n          PRIMARY KEY (id))") {
		t.Fatalf("schema %+v", schema)
	}
	wk := w.NewWorker(1, newRand(8))
	conn := &fakeConn{}
	var n counts
	for len(conn.calls) < 2 {
		if err := wk.Exec(ctx, conn, &n); err != nil {
			t.Fatal(err)
		}
	}
	first, second := conn.calls[0].sql, conn.calls[1].sql
	rows := strings.Count(first, "(")
	if !strings.HasPrefix(first, "INSERT INTO sbtest2 VALUES(1,1),(2,2),") || !strings.HasSuffix(first, fmt.Sprintf("(%d,%d)", rows, rows)) {
		t.Errorf("first flush %q...%q", first[:40], first[len(first)-20:])
	}
	next := fmt.Sprintf(",(%d,%d)", rows+1, rows+1)
	if len(first)+1 > bulkPacketSize || len(first)+len(next)+1 <= bulkPacketSize {
		t.Errorf("flushed at %d bytes; with the next row %d (limit %d with the NUL)", len(first), len(first)+len(next), bulkPacketSize)
	}
	if !strings.HasPrefix(second, fmt.Sprintf("INSERT INTO sbtest2 VALUES(%d,%d),", rows+1, rows+1)) {
		t.Errorf("second flush starts %q", second[:40])
	}
	if n.String() != "0/2/0" {
		t.Errorf("counts %s, want two writes", n)
	}
	// Finish (thread_done) sends the rows still pending, once: the row of the
	// event that sent the second INSERT and three more.
	for range 3 {
		if err := wk.Exec(ctx, conn, &n); err != nil {
			t.Fatal(err)
		}
	}
	f := wk.(workload.Finisher)
	for range 2 {
		if err := f.Finish(ctx, conn, &n); err != nil {
			t.Fatal(err)
		}
	}
	if len(conn.calls) != 3 {
		t.Fatalf("%d statements after Finish, want the pending rows in a third", len(conn.calls))
	}
	if last, r := conn.calls[2].sql, strings.Count(second, "("); strings.Count(last, "(") != 4 ||
		!strings.HasPrefix(last, fmt.Sprintf("INSERT INTO sbtest2 VALUES(%d,%d),", rows+r+1, rows+r+1)) {
		t.Errorf("finishing INSERT %q, want the four rows after the second flush's %d", last, r)
	}
	if n.String() != "0/3/0" {
		t.Errorf("counts %s, want three writes", n)
	}
	// Other tests have nothing to finish.
	other := &fakeConn{}
	if err := bound(t, pgEnv, OLTPReadWrite).NewWorker(0, newRand(1)).(workload.Finisher).Finish(ctx, other, nil); err != nil || len(other.calls) != 0 {
		t.Errorf("oltp_read_write Finish: %v, %d statements", err, len(other.calls))
	}
	// A worker beyond the thread count has no table.
	if err := w.NewWorker(2, newRand(9)).Exec(ctx, conn, nil); err == nil || !strings.Contains(err.Error(), "Env.Threads") {
		t.Errorf("worker 2 of 2: %v", err)
	}
}

// Counting needs a Counter; a plain Span is fine too.
func TestExecWithoutCounter(t *testing.T) {
	w := bound(t, pgEnv, OLTPReadWrite)
	if err := w.NewWorker(0, newRand(1)).Exec(ctx, &fakeConn{}, nil); err != nil {
		t.Error(err)
	}
	var unbound Workload
	unbound.test = OLTPReadWrite
	if err := (&worker{w: &unbound}).Exec(ctx, &fakeConn{}, nil); err == nil {
		t.Error("Exec before Bind succeeded")
	}
}

// --rand-seed makes events independent of the runner's generator.
func TestRandSeed(t *testing.T) {
	w := bound(t, pgEnv, OLTPPointSelect, "rand-seed=42")
	get := func(seed int64) any {
		conn := &fakeConn{}
		w.NewWorker(0, newRand(seed)).Exec(ctx, conn, nil)
		return conn.calls[0].args[0]
	}
	if a, b := get(1), get(2); a != b {
		t.Errorf("rand-seed=42: runner seeds changed the draw (%v, %v)", a, b)
	}
	// ... but not the ids of oltp_insert without auto-inc: sysbench seeds
	// rand.unique() apart from --rand-seed, so that two runs with one seed
	// do not insert the same ids; the runner's seed decides them.
	firstID := func(seed int64) string {
		w := bound(t, pgEnv, OLTPInsert, "auto-inc=off", "rand-seed=42")
		conn := &fakeConn{}
		if err := w.NewWorker(0, newRand(seed)).Exec(ctx, conn, nil); err != nil {
			t.Fatal(err)
		}
		_, rest, _ := strings.Cut(conn.calls[0].sql, "VALUES (")
		id, _, _ := strings.Cut(rest, ",")
		return id
	}
	if a, b, c := firstID(1), firstID(2), firstID(1); a == b || a != c {
		t.Errorf("unique ids with rand-seed=42 and runner seeds 1, 2, 1: %s, %s, %s", a, b, c)
	}
	w = bound(t, pgEnv, OLTPPointSelect)
	var vals []any
	for s := int64(1); s <= 5; s++ {
		conn := &fakeConn{}
		w.NewWorker(0, newRand(s)).Exec(ctx, conn, nil)
		vals = append(vals, conn.calls[0].args[0])
	}
	if fmt.Sprint(vals[:1]) == fmt.Sprint(vals[1:2]) && fmt.Sprint(vals[1:2]) == fmt.Sprint(vals[2:3]) {
		t.Errorf("rand-seed=0 ignores the runner's seed: %v", vals)
	}
}

// Bind takes the worker count from Env.Threads: bulk_insert gets one table
// per worker without any other call.
func TestBindTakesThreadsFromEnv(t *testing.T) {
	w, err := New(BulkInsert, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	env := pgEnv
	env.Threads = 3
	if err := w.Bind(env); err != nil {
		t.Fatal(err)
	}
	if n := len(w.Schema()); n != 3 {
		t.Fatalf("bulk_insert with Env.Threads=3 has %d tables, want 3", n)
	}
}

// TestFatalLines: sysbench 1.0.20's FATAL lines per driver and --db-ps-mode
// (drv_mysql.c, drv_pgsql.c; checked against the binary's in
// TestSysbenchFatalMatchesBinary), without the Lua location.
func TestFatalLines(t *testing.T) {
	my := target.ServerError{Code: 1644, State: "45000", Message: "boom"}
	pg := target.ServerError{State: "P0001", Message: "boom"}
	prepared := &StatementError{SQL: "UPDATE sbtest1 SET k=k+1 WHERE id=?", Prepared: true}
	text := &StatementError{SQL: "UPDATE sbtest1 SET k=k+1 WHERE id=40"}
	cases := []struct {
		driver string
		e      *StatementError
		se     target.ServerError
		want   []string
	}{
		{"mysql", prepared, my, []string{
			"FATAL: mysql_stmt_execute() returned error 1644 (boom) for query 'UPDATE sbtest1 SET k=k+1 WHERE id=?'",
			"FATAL: `thread_run' function failed: SQL error, errno = 1644, state = '45000': boom"}},
		{"mysql", text, my, []string{
			"FATAL: mysql_drv_query() returned error 1644 (boom) for query 'UPDATE sbtest1 SET k=k+1 WHERE id=40'",
			"FATAL: `thread_run' function failed: SQL error, errno = 1644, state = '45000': boom"}},
		{"pgsql", &StatementError{SQL: "UPDATE sbtest1 SET k=k+1 WHERE id=$1", Prepared: true}, pg, []string{
			"FATAL: PQexecPrepared() failed: 7 boom",
			"FATAL: `thread_run' function failed: SQL error, errno = 0, state = 'P0001': boom"}},
		{"pgsql", text, pg, []string{
			"FATAL: PQexec() failed: 7 boom",
			"FATAL: failed query was: UPDATE sbtest1 SET k=k+1 WHERE id=40",
			"FATAL: `thread_run' function failed: SQL error, errno = 0, state = 'P0001': boom"}},
		{"sqlite", text, pg, nil},
	}
	for _, c := range cases {
		if got := FatalLines(c.driver, c.e, c.se); !slices.Equal(got, c.want) {
			t.Errorf("%s prepared=%t:\n got %q\nwant %q", c.driver, c.e.Prepared, got, c.want)
		}
	}
}
