package sysbench

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

func TestLoadRange(t *testing.T) {
	cases := []struct {
		test  string
		props []string
		count int64
	}{
		{OLTPReadWrite, []string{"tables=3", "table-size=7"}, 21}, // every row of every table
		{OLTPInsert, nil, 10000},                                  // oltp_insert with auto-inc loads table_size rows
		{OLTPInsert, []string{"auto-inc=off"}, 0},                 // ... and empty tables without it
		{BulkInsert, nil, 0},                                      // bulk_insert's tables start empty
		{SelectRandomPoints, []string{"table-size=50"}, 50},       // one table
		// sysbench 1.0.20 prepares --tables of them for select_random_* too
		// (its check of --tables == 1 is in a prepare() it never calls)
		{SelectRandomRanges, []string{"tables=2", "table-size=50"}, 100},
	}
	for _, c := range cases {
		w, err := New(c.test, nil, c.props)
		if err != nil {
			t.Fatal(err)
		}
		if start, count := w.LoadRange(); start != 0 || count != c.count {
			t.Errorf("%s %v: LoadRange = %d, %d; want 0, %d", c.test, c.props, start, count, c.count)
		}
	}
	// ... and queries sbtest1 only.
	w := bound(t, workload.Env{Dialect: dialect.MySQL}, SelectRandomPoints, "tables=3")
	if len(w.Schema()) != 3 || !strings.Contains(w.stmts.RandomPoints, "FROM sbtest1\n") {
		t.Errorf("select_random_points with 3 tables: %d tables, statement %q", len(w.Schema()), w.stmts.RandomPoints)
	}
}

// TestPrepareLines: sysbench 1.0.20's prepare output, as its scripts print
// it with one thread (oltp_common.lua's create_table, bulk_insert.lua).
func TestPrepareLines(t *testing.T) {
	cases := []struct {
		test    string
		props   []string
		threads int
		want    []string
	}{
		{OLTPReadWrite, []string{"tables=2", "table-size=1000"}, 1, []string{
			"Creating table 'sbtest1'...", "Inserting 1000 records into 'sbtest1'", "Creating a secondary index on 'sbtest1'...",
			"Creating table 'sbtest2'...", "Inserting 1000 records into 'sbtest2'", "Creating a secondary index on 'sbtest2'..."}},
		{OLTPReadOnly, []string{"create-secondary=off", "table-size=5"}, 1, []string{
			"Creating table 'sbtest1'...", "Inserting 5 records into 'sbtest1'"}},
		// table_size is set to 0 before create_table: no "Inserting" line
		{OLTPInsert, []string{"auto-inc=off"}, 1, []string{
			"Creating table 'sbtest1'...", "Creating a secondary index on 'sbtest1'..."}},
		{BulkInsert, nil, 2, []string{"Creating table 'sbtest1'...", "Creating table 'sbtest2'..."}},
	}
	for _, c := range cases {
		w, err := New(c.test, nil, c.props)
		if err != nil {
			t.Fatal(err)
		}
		w.SetThreads(c.threads)
		if got := w.PrepareLines(); !slices.Equal(got, c.want) {
			t.Errorf("%s %v:\n got %q\nwant %q", c.test, c.props, got, c.want)
		}
	}
}

// TestTableReuse: a prepared table serves a run as sysbench uses it — any
// table of at least --table-size rows of the same shape, whatever its k
// values were drawn with — and the signatures tell shape from contents.
func TestTableReuse(t *testing.T) {
	prep, err := New(OLTPReadWrite, nil, []string{"table-size=1000"})
	if err != nil {
		t.Fatal(err)
	}
	holds := prep.Holds()
	if want := "rows=1000 rand-type=special rand-spec-iter=12 rand-spec-pct=1 rand-spec-res=75"; holds != want {
		t.Errorf("Holds = %q, want %q", holds, want)
	}
	cases := []struct {
		test   string
		props  []string
		serves bool
		shape  bool // same shape signature as the prepared table
	}{
		{OLTPPointSelect, []string{"table-size=1000"}, true, true},
		{OLTPPointSelect, []string{"table-size=10"}, true, true}, // fewer ids than rows
		{OLTPPointSelect, nil, false, true},                      // the default 10,000 > 1,000
		{OLTPReadOnly, []string{"table-size=1000", "rand-type=uniform"}, true, true},
		{OLTPReadOnly, []string{"table-size=1000", "rand-spec-pct=5"}, true, true},
		{OLTPInsert, []string{"table-size=1000", "auto-inc=off"}, false, false}, // needs empty tables, and another shape
		{OLTPReadWrite, []string{"table-size=1000", "secondary=on"}, true, false},
		{OLTPReadWrite, []string{"table-size=1000", "create-secondary=off"}, true, false},
		{BulkInsert, nil, false, false},
	}
	for _, c := range cases {
		w, err := New(c.test, nil, c.props)
		if err != nil {
			t.Fatal(err)
		}
		if got := w.Serves(holds); got != c.serves {
			t.Errorf("%s %v: Serves(%q) = %v, want %v", c.test, c.props, holds, got, c.serves)
		}
		if got := w.ShapeSignature() == prep.ShapeSignature(); got != c.shape {
			t.Errorf("%s %v: same shape = %v, want %v\n%s\n%s", c.test, c.props, got, c.shape, w.ShapeSignature(), prep.ShapeSignature())
		}
		if same := w.DataSignature() == prep.DataSignature(); same != (c.shape && w.Holds() == holds) {
			t.Errorf("%s %v: DataSignature is not shape plus contents", c.test, c.props)
		}
	}
	// A table prepared empty serves only tests that need it empty.
	empty, _ := New(OLTPInsert, nil, []string{"auto-inc=off"})
	if !empty.Serves(empty.Holds()) || prep.Serves(empty.Holds()) {
		t.Errorf("empty table: %q served by oltp_insert %v, by oltp_read_write %v", empty.Holds(), empty.Serves(empty.Holds()), prep.Serves(empty.Holds()))
	}
	for _, bad := range []string{"", "rand-type=special", "rows=x"} {
		if prep.Serves(bad) {
			t.Errorf("Serves(%q) = true for a mark without a row count", bad)
		}
	}
	if w, _ := New(OLTPReadWrite, nil, []string{"rand-type=pareto", "rand-seed=7"}); !strings.Contains(w.Holds(), "rand-pareto-h=0.2 rand-seed=7") {
		t.Errorf("pareto with a seed: Holds = %q", w.Holds())
	}
}

// loadedRows runs LoadBatch over ranges and returns the rows inserted per
// table (each row as the parameters of its columns), from INSERTs or COPY.
func loadedRows(t *testing.T, w *Workload, conn target.Conn, ranges [][2]int64) map[string][][]any {
	t.Helper()
	for i, r := range ranges {
		l := w.NewLoader(i, newRand(int64(i)))
		if err := l.LoadBatch(ctx, conn, r[0], r[1]); err != nil {
			t.Fatal(err)
		}
	}
	out := map[string][][]any{}
	var fc *fakeConn
	switch c := conn.(type) {
	case *copyConn:
		for _, cp := range c.copies {
			out[cp.table] = append(out[cp.table], cp.rows...)
		}
		fc = c.fakeConn
	case *tableLoadConn:
		for _, cp := range c.copies {
			out[cp.table] = append(out[cp.table], cp.rows...)
		}
		fc = c.fakeConn
	case *fakeConn:
		fc = c
	}
	per := len(w.stmts.LoadColumns)
	for _, c := range fc.calls {
		if !strings.HasPrefix(c.sql, "INSERT INTO sbtest") {
			continue
		}
		table := c.sql[len("INSERT INTO "):strings.Index(c.sql, "(")]
		for i := 0; i < len(c.args); i += per {
			out[table] = append(out[table], c.args[i:i+per])
		}
	}
	return out
}

// TestLoaderRows: batches that cross table boundaries give every table ids
// 1..table_size exactly, k in [1, table_size], c and pad from the templates;
// with auto-inc the id column is left out.
func TestLoaderRows(t *testing.T) {
	ranges := [][2]int64{{0, 4}, {4, 11}, {11, 15}} // tables of 5 rows: 0-4 | 5-9 | 10-14
	for _, autoInc := range []string{"on", "off"} {
		for _, env := range []workload.Env{pgEnv, sqliteEnv} {
			w := bound(t, env, OLTPReadWrite, "tables=3", "table-size=5", "auto-inc="+autoInc)
			var conn target.Conn = &fakeConn{}
			if env.Capabilities.CopyFrom {
				conn = &copyConn{fakeConn: &fakeConn{}}
			}
			rows := loadedRows(t, w, conn, ranges)
			what := fmt.Sprintf("%s auto-inc=%s", env.Dialect.Name, autoInc)
			if len(rows) != 3 {
				t.Fatalf("%s: rows in tables %v", what, len(rows))
			}
			for tbl := 1; tbl <= 3; tbl++ {
				name := fmt.Sprintf("sbtest%d", tbl)
				rs := rows[name]
				if len(rs) != 5 {
					t.Fatalf("%s: %s has %d rows, want 5", what, name, len(rs))
				}
				ids := map[int64]bool{}
				for _, r := range rs {
					if autoInc == "off" {
						ids[r[0].(int64)] = true
						r = r[1:]
					}
					if len(r) != 3 {
						t.Fatalf("%s: row %v", what, r)
					}
					k, c, pad := r[0].(int64), r[1].(string), r[2].(string)
					if k < 1 || k > 5 {
						t.Errorf("%s: k=%d outside [1, 5]", what, k)
					}
					if len(c) != 119 || len(pad) != 59 || strings.Trim(c+pad, "0123456789-") != "" || c[11] != '-' || pad[47] != '-' {
						t.Errorf("%s: c=%q pad=%q", what, c, pad)
					}
				}
				if autoInc == "off" && (len(ids) != 5 || !ids[1] || !ids[5]) {
					t.Errorf("%s: %s ids %v, want 1..5", what, name, ids)
				}
			}
		}
	}
}

// On a target that loads a table in one go, the runner is asked for whole
// tables, each goes in one LoadTable call with the same rows a batched load
// draws, progress is reported, and the secondary index is created with the
// empty table instead of after the load. Batches that are not whole tables
// still go by INSERT.
func TestLoaderWholeTables(t *testing.T) {
	w := bound(t, mariadbEnv, OLTPReadWrite, "tables=3", "table-size=5", "auto-inc=off")
	if w.LoadBatchSize() != 5 || w.MaxLoadBatch() != 0 {
		t.Fatalf("LoadBatchSize %d MaxLoadBatch %d, want 5 and 0 (no cap)", w.LoadBatchSize(), w.MaxLoadBatch())
	}
	if b := bound(t, pgEnv, OLTPReadWrite); b.LoadBatchSize() != 0 {
		t.Errorf("LoadBatchSize without TableLoad = %d, want 0 (no preference)", b.LoadBatchSize())
	}
	conn := &tableLoadConn{fakeConn: &fakeConn{}}
	var reported int64
	l := w.NewLoader(0, newRand(1))
	l.(workload.ProgressLoader).SetProgress(func(n int64) { reported = n })
	for from := int64(0); from < 15; from += 5 {
		if err := l.LoadBatch(ctx, conn, from, from+5); err != nil {
			t.Fatal(err)
		}
		if reported != 5 {
			t.Errorf("progress after table %d: %d, want 5", from/5+1, reported)
		}
	}
	if len(conn.copies) != 3 {
		t.Fatalf("%d LoadTable calls, want 3", len(conn.copies))
	}
	for i, cp := range conn.copies {
		if cp.table != fmt.Sprintf("sbtest%d", i+1) || len(cp.rows) != 5 || strings.Join(cp.columns, ",") != "id,k,c,pad" {
			t.Errorf("LoadTable %d: %s %v with %d rows", i, cp.table, cp.columns, len(cp.rows))
		}
		for j, r := range cp.rows {
			if r[0].(int64) != int64(j+1) || r[1].(int64) < 1 || r[1].(int64) > 5 || len(r[2].(string)) != 119 || len(r[3].(string)) != 59 {
				t.Errorf("sbtest%d row %d: %v", i+1, j, r)
			}
		}
	}
	var created []string
	for _, c := range conn.calls {
		if strings.HasPrefix(c.sql, "CREATE INDEX") {
			created = append(created, c.sql)
		}
	}
	if len(created) != 3 {
		t.Errorf("index statements before the load: %v, want one per table", created)
	}
	post := &fakeConn{}
	if err := w.PostLoad(ctx, post); err != nil {
		t.Fatal(err)
	}
	for _, c := range post.calls {
		if strings.HasPrefix(c.sql, "CREATE INDEX") {
			t.Errorf("PostLoad created an index again: %s", c.sql)
		}
	}
	// A batch that is not a whole table falls back to INSERTs.
	w2 := bound(t, mariadbEnv, OLTPReadWrite, "table-size=5", "auto-inc=off")
	conn2 := &tableLoadConn{fakeConn: &fakeConn{}}
	if err := w2.NewLoader(0, newRand(1)).LoadBatch(ctx, conn2, 0, 3); err != nil {
		t.Fatal(err)
	}
	if rows := loadedRows(t, w2, conn2, nil); len(conn2.copies) != 0 || len(rows["sbtest1"]) != 3 {
		t.Errorf("partial table: %d LoadTable calls, %d rows by INSERT; want 0 and 3", len(conn2.copies), len(rows["sbtest1"]))
	}
}

// Without COPY the rows go in multi-row INSERTs within the bind limit: a
// limit of 9 parameters carries 2 rows of 4 columns.
func TestLoaderInsertBatches(t *testing.T) {
	env := sqliteEnv
	env.Capabilities.MaxBindParams = 9
	w := bound(t, env, OLTPReadOnly, "table-size=5", "auto-inc=off")
	if w.MaxLoadBatch() != 2 {
		t.Errorf("MaxLoadBatch = %d, want 2", w.MaxLoadBatch())
	}
	conn := &fakeConn{}
	if err := w.NewLoader(0, newRand(1)).LoadBatch(ctx, conn, 0, 5); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"INSERT INTO sbtest1(id, k, c, pad) VALUES(?, ?, ?, ?),(?, ?, ?, ?)",
		"INSERT INTO sbtest1(id, k, c, pad) VALUES(?, ?, ?, ?),(?, ?, ?, ?)",
		"INSERT INTO sbtest1(id, k, c, pad) VALUES(?, ?, ?, ?)",
	}
	if len(conn.calls) != 3 {
		t.Fatalf("%d statements, want 3", len(conn.calls))
	}
	for i, c := range conn.calls {
		if c.sql != want[i] || len(c.args) != strings.Count(want[i], "?") {
			t.Errorf("statement %d: %q with %d args", i, c.sql, len(c.args))
		}
	}
	// COPY: no bound on a batch.
	if w := bound(t, pgEnv, OLTPReadOnly); w.MaxLoadBatch() != 0 {
		t.Errorf("with COPY MaxLoadBatch = %d, want 0", w.MaxLoadBatch())
	}
	// No multi-row INSERT: one row per statement.
	env.Capabilities.MultiRowInsert = false
	if w := bound(t, env, OLTPReadOnly); w.MaxLoadBatch() != 1 {
		t.Errorf("without multi-row INSERT MaxLoadBatch = %d, want 1", w.MaxLoadBatch())
	}
}

// k is drawn with --rand-type: with special, three quarters of the loaded k
// fall in the hot window at the middle of [1, table_size].
func TestLoaderKDistribution(t *testing.T) {
	w := bound(t, pgEnv, OLTPReadOnly, "table-size=10000")
	conn := &copyConn{fakeConn: &fakeConn{}}
	rows := loadedRows(t, w, conn, [][2]int64{{0, 10000}})["sbtest1"]
	hot := 0
	for _, r := range rows {
		if k := r[0].(int64); k >= 4975 && k <= 5051 {
			hot++
		}
	}
	if share := float64(hot) / 10000; share < 0.72 || share > 0.80 {
		t.Errorf("%.3f of k in the special window, want ≈ 0.76", share)
	}
	w = bound(t, pgEnv, OLTPReadOnly, "table-size=10000", "rand-type=uniform")
	rows = loadedRows(t, w, &copyConn{fakeConn: &fakeConn{}}, [][2]int64{{0, 10000}})["sbtest1"]
	hot = 0
	for _, r := range rows {
		if k := r[0].(int64); k >= 4975 && k <= 5051 {
			hot++
		}
	}
	if hot > 200 {
		t.Errorf("uniform k: %d of 10000 in a 77-value window", hot)
	}
}

// Setup statements run once per table, before its first row; PostLoad runs
// the missing ones and then the secondary indexes.
func TestSetupAndPostLoad(t *testing.T) {
	w := bound(t, pgEnv, OLTPReadWrite, "tables=2", "table-size=5", "sequence-cache=100")
	conn := &fakeConn{}
	l := w.NewLoader(0, newRand(1))
	for _, r := range [][2]int64{{0, 3}, {3, 5}} { // table 1 only
		if err := l.LoadBatch(ctx, conn, r[0], r[1]); err != nil {
			t.Fatal(err)
		}
	}
	if conn.calls[0].sql != "ALTER SEQUENCE sbtest1_id_seq CACHE 100" || strings.Count(fmt.Sprint(conn.calls), "ALTER SEQUENCE") != 1 {
		t.Errorf("setup before loading: %v", conn.calls[0].sql)
	}
	conn.calls = nil
	if err := w.PostLoad(ctx, conn); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range conn.calls {
		got = append(got, c.sql)
	}
	want := "ALTER SEQUENCE sbtest2_id_seq CACHE 100|CREATE INDEX k_1 ON sbtest1(k)|CREATE INDEX k_2 ON sbtest2(k)"
	if strings.Join(got, "|") != want {
		t.Errorf("PostLoad ran\n %s\nwant\n %s", strings.Join(got, "|"), want)
	}
	// create-secondary=off: no index; bulk_insert: none either.
	for _, c := range []struct {
		test  string
		props []string
	}{{OLTPReadOnly, []string{"create-secondary=off"}}, {BulkInsert, nil}} {
		w := bound(t, pgEnv, c.test, c.props...)
		conn := &fakeConn{}
		if err := w.PostLoad(ctx, conn); err != nil || len(conn.calls) != 0 {
			t.Errorf("%s %v: PostLoad ran %v (%v)", c.test, c.props, conn.calls, err)
		}
	}
	// A failed setup statement is an error and is tried again next time.
	w = bound(t, pgEnv, OLTPReadWrite, "sequence-cache=5")
	bad := &fakeConn{failAt: 1, failErr: fmt.Errorf("permission denied")}
	if err := w.NewLoader(0, newRand(1)).LoadBatch(ctx, bad, 0, 1); err == nil || !strings.Contains(err.Error(), "ALTER SEQUENCE") {
		t.Errorf("failed setup: %v", err)
	}
	good := &fakeConn{}
	w.NewLoader(0, newRand(1)).LoadBatch(ctx, good, 1, 2)
	if good.calls[0].sql != "ALTER SEQUENCE sbtest1_id_seq CACHE 5" {
		t.Errorf("setup not retried: %v", good.calls[0].sql)
	}
}

// Bind rejects options the product lacks, before anything is created.
func TestBindErrors(t *testing.T) {
	yb := workload.Env{Dialect: dialect.YugabyteDB, Capabilities: pgEnv.Capabilities}
	cases := []struct {
		name  string
		env   workload.Env
		test  string
		props []string
		want  []string
	}{
		// plain PostgreSQL has no sharding
		{"postgres sharding", pgEnv, OLTPReadWrite, []string{"sharding=hash"}, []string{"sharding=hash", "postgres", "yugabytedb, cockroachdb and tidb"}},
		// nor SQLite
		{"sqlite sharding", sqliteEnv, OLTPReadWrite, []string{"sharding=range", "split-at=100"}, []string{"sharding=range", "sqlite"}},
		// SQLite has no sequence cache
		{"sqlite sequence-cache", sqliteEnv, OLTPInsert, []string{"sequence-cache=10"}, []string{"sequence-cache=10", "sqlite"}},
		// no transactions
		{"no transactions", workload.Env{Dialect: dialect.SQLite, Capabilities: target.Capabilities{MultiRowInsert: true}}, OLTPReadOnly, nil, []string{"transactions", "skip-trx"}},
		// IN list longer than the bind limit
		{"random points", workload.Env{Dialect: dialect.SQLite, Capabilities: target.Capabilities{MaxBindParams: 5}}, SelectRandomPoints, []string{"random-points=6"}, []string{"random-points=6", "limit of 5"}},
		// TiDB-only power of two does not bother YugabyteDB, but presplit > rows does
		{"presplit", yb, OLTPReadWrite, []string{"sharding=range", "presplit=20000"}, []string{"presplit=20000"}},
	}
	for _, c := range cases {
		w, err := New(c.test, nil, c.props)
		if err != nil {
			if c.name == "presplit" && strings.Contains(err.Error(), "presplit=20000") {
				continue // caught by New already
			}
			t.Fatalf("%s: New: %v", c.name, err)
		}
		err = w.Bind(c.env)
		if err == nil {
			t.Errorf("%s: Bind succeeded", c.name)
			continue
		}
		for _, s := range c.want {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%s: %q does not mention %q", c.name, err, s)
			}
		}
		if w.Schema() != nil {
			t.Errorf("%s: Schema after a failed Bind", c.name)
		}
	}
	// The same options bind on YugabyteDB.
	w := bound(t, yb, OLTPReadWrite, "sharding=range", "split-at=2500,5000")
	if s := w.Schema(); len(s) != 1 || !strings.HasSuffix(s[0].Create, "PRIMARY KEY (id ASC)\n)  SPLIT AT VALUES ((2500), (5000))") {
		t.Errorf("YugabyteDB schema %+v", s)
	}
}
