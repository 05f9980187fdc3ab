package dialect

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// sysbenchBase is sysbench's defaults with two tables and short IN lists so
// the golden files stay readable.
func sysbenchBase() SysbenchOptions {
	return SysbenchOptions{Tables: 2, TableSize: 10000, AutoInc: true, RandomPoints: 3, NumberOfRanges: 2}
}

// sysbenchCases are the option sets rendered for every product; a product
// that cannot honour one shows the error instead.
var sysbenchCases = []struct {
	name string
	mod  func(o *SysbenchOptions)
}{
	// sysbench's defaults: SERIAL / AUTO_INCREMENT ids, primary key
	{"default", func(o *SysbenchOptions) {}},
	// --auto-inc=off: client ids, INTEGER NOT NULL, id loaded explicitly
	{"auto-inc=off", func(o *SysbenchOptions) { o.AutoInc = false }},
	// --secondary: KEY xid (id) on MySQL, a CREATE INDEX elsewhere
	{"secondary", func(o *SysbenchOptions) { o.Secondary = true; o.AutoInc = false }},
	// --mysql-storage-engine=myisam: only the MySQL wire writes it
	{"mysql-storage-engine=myisam", func(o *SysbenchOptions) { o.StorageEngine = "myisam" }},
	// E3: real sequences with a cache
	{"sequence-cache=1000", func(o *SysbenchOptions) { o.SequenceCache = 1000 }},
	// a cache without a sequence has no effect
	{"sequence-cache=1 auto-inc=off", func(o *SysbenchOptions) { o.SequenceCache = 1; o.AutoInc = false }},
	// hash-sharded primary key
	{"sharding=hash", func(o *SysbenchOptions) { o.Sharding = ShardingHash }},
	// hash sharding pre-split into 4 parts
	{"sharding=hash presplit=4", func(o *SysbenchOptions) { o.Sharding = ShardingHash; o.Presplit = 4 }},
	// hash sharding of client ids (TiDB: non-clustered key + SHARD_ROW_ID_BITS)
	{"sharding=hash auto-inc=off presplit=8", func(o *SysbenchOptions) { o.Sharding = ShardingHash; o.AutoInc = false; o.Presplit = 8 }},
	// E3: range-sharded, split at given ids
	{"sharding=range split-at=2500,5000,7500", func(o *SysbenchOptions) { o.Sharding = ShardingRange; o.SplitAt = []int64{2500, 5000, 7500} }},
	// range sharding pre-split into 4 equal parts of 1..table_size
	{"sharding=range presplit=4", func(o *SysbenchOptions) { o.Sharding = ShardingRange; o.Presplit = 4 }},
	// split points need range sharding
	{"sharding=hash split-at=5000", func(o *SysbenchOptions) { o.Sharding = ShardingHash; o.SplitAt = []int64{5000} }},
	// a pre-split needs a sharding kind
	{"presplit=4", func(o *SysbenchOptions) { o.Presplit = 4 }},
}

// sysbenchDialects are the products with a sysbench golden file.
var sysbenchDialects = []Dialect{Postgres, YugabyteDB, CockroachDB, MySQL, TiDB, SQLite}

func renderSysbench(d Dialect) string {
	var b strings.Builder
	// A statement laid out on several lines (select_random_points and
	// _ranges, as the scripts have them) is written quoted, whitespace shown.
	line := func(name, sql string) {
		if strings.ContainsAny(sql, "\n") {
			sql = strconv.Quote(sql)
		}
		fmt.Fprintf(&b, "%s: %s\n", name, sql)
	}
	for _, c := range sysbenchCases {
		o := sysbenchBase()
		c.mod(&o)
		fmt.Fprintf(&b, "## %s\n", c.name)
		s, err := Sysbench(d, o)
		if err != nil {
			line("error", strings.ReplaceAll(err.Error(), "\n", " | "))
			continue
		}
		for i, t := range s.Tables {
			line(t.Name+".create", t.Create)
			for j, st := range t.Setup {
				line(fmt.Sprintf("%s.setup[%d]", t.Name, j), st)
			}
			line(t.Name+".create_index", t.CreateIndex)
			if i > 0 && c.name != "default" {
				continue
			}
			line(t.Name+".bulk_create", t.BulkCreate)
			for j, st := range t.BulkSetup {
				line(fmt.Sprintf("%s.bulk_setup[%d]", t.Name, j), st)
			}
			if c.name != "default" && c.name != "auto-inc=off" && c.name != "sharding=hash" {
				continue
			}
			line(t.Name+".load_insert(2)", s.LoadInsert(i+1, 2))
			line(t.Name+".insert_event", string(s.AppendInsert(nil, i+1, -2147483000, 42, []byte("01-23"), []byte("45"))))
			if c.name != "default" {
				continue
			}
			line(t.Name+".point_select", t.PointSelect)
			line(t.Name+".simple_range", t.SimpleRange)
			line(t.Name+".sum_range", t.SumRange)
			line(t.Name+".order_range", t.OrderRange)
			line(t.Name+".distinct_range", t.DistinctRange)
			line(t.Name+".index_update", t.IndexUpdate)
			line(t.Name+".non_index_update", t.NonIndexUpdate)
			line(t.Name+".delete", t.Delete)
			line(t.Name+".insert", t.Insert)
			line(t.Name+".bulk_insert", string(AppendBulkRow(AppendBulkRow([]byte(t.BulkInsert), true, 1), false, 2)))
		}
		if c.name == "default" || c.name == "auto-inc=off" {
			line("load_columns", strings.Join(s.LoadColumns, ","))
			line("max_load_rows", fmt.Sprint(s.MaxLoadRows))
		}
		if c.name == "default" {
			line("begin", s.Begin)
			line("commit", s.Commit)
			line("rollback", s.Rollback)
			line("random_points", s.RandomPoints)
			line("random_ranges", s.RandomRanges)
		}
	}
	return b.String()
}

func TestSysbenchGolden(t *testing.T) {
	for _, d := range sysbenchDialects {
		t.Run(d.Name, func(t *testing.T) {
			golden(t, filepath.Join("testdata", "sysbench_"+d.Name+".golden"), renderSysbench(d))
		})
	}
}

// The prepared statements carry exactly sysbench's parameters, numbered in
// order on the PostgreSQL wire.
func TestSysbenchParams(t *testing.T) {
	o := sysbenchBase()
	o.RandomPoints, o.NumberOfRanges = 10, 10
	for _, d := range sysbenchDialects {
		s, err := Sysbench(d, o)
		if err != nil {
			t.Fatalf("%s: %v", d.Name, err)
		}
		tb := s.Tables[0]
		cases := []struct {
			name string
			sql  string
			n    int
		}{
			{"point select", tb.PointSelect, 1},
			{"simple range", tb.SimpleRange, 2},
			{"sum range", tb.SumRange, 2},
			{"order range", tb.OrderRange, 2},
			{"distinct range", tb.DistinctRange, 2},
			{"index update", tb.IndexUpdate, 1},
			{"non-index update", tb.NonIndexUpdate, 2},
			{"delete", tb.Delete, 1},
			{"insert", tb.Insert, 4},
			{"random points", s.RandomPoints, 10},
			{"random ranges", s.RandomRanges, 20},
			{"load insert of 3 rows", s.LoadInsert(1, 3), 9},
		}
		for _, c := range cases {
			if got := countParams(d, c.sql); got != c.n {
				t.Errorf("%s %s: %d parameters, want %d: %q", d.Name, c.name, got, c.n, c.sql)
			}
		}
		for _, c := range []string{tb.Create, tb.BulkCreate, s.Begin, s.Commit, tb.CreateIndex} {
			if countParams(d, c) != 0 {
				t.Errorf("%s: DDL with parameters: %q", d.Name, c)
			}
		}
	}
}

// countParams counts placeholders, checking that $n ones run 1..n in order.
func countParams(d Dialect, sql string) int {
	if d.Placeholder == Question {
		return strings.Count(sql, "?")
	}
	n := 0
	for i := 0; i < len(sql); i++ {
		if sql[i] != '$' {
			continue
		}
		j := i + 1
		for j < len(sql) && sql[j] >= '0' && sql[j] <= '9' {
			j++
		}
		if sql[i+1:j] != fmt.Sprint(n+1) {
			return -1
		}
		n++
	}
	return n
}

// MaxLoadRows fills the bind-parameter limit as tightly as the column count
// allows, with and without the id column.
func TestSysbenchMaxLoadRows(t *testing.T) {
	for _, autoInc := range []bool{true, false} {
		o := sysbenchBase()
		o.AutoInc = autoInc
		for _, d := range sysbenchDialects {
			s, err := Sysbench(d, o)
			if err != nil {
				t.Fatal(err)
			}
			cols := len(s.LoadColumns)
			if s.MaxLoadRows*cols > d.MaxBindParams || (s.MaxLoadRows+1)*cols <= d.MaxBindParams {
				t.Errorf("%s auto-inc=%v: MaxLoadRows %d for %d columns and %d parameters", d.Name, autoInc, s.MaxLoadRows, cols, d.MaxBindParams)
			}
		}
	}
	d := Postgres
	d.MaxBindParams = 0
	if s, _ := Sysbench(d, sysbenchBase()); s.MaxLoadRows != 0 {
		t.Errorf("no bind limit: MaxLoadRows = %d, want 0", s.MaxLoadRows)
	}
}

// The errors name the option, the product and the products that offer it.
func TestSysbenchErrors(t *testing.T) {
	cases := []struct {
		name string
		d    Dialect
		mod  func(o *SysbenchOptions)
		want []string
	}{
		// plain PostgreSQL has no sharding
		{"postgres hash", Postgres, func(o *SysbenchOptions) { o.Sharding = ShardingHash }, []string{"sharding=hash", "postgres", "yugabytedb, cockroachdb and tidb"}},
		// SQLite neither
		{"sqlite range", SQLite, func(o *SysbenchOptions) { o.Sharding = ShardingRange }, []string{"sharding=range", "sqlite", "yugabytedb, cockroachdb and tidb"}},
		// MySQL/MariaDB neither, and no split points
		{"mysql split-at", MySQL, func(o *SysbenchOptions) { o.Sharding = ShardingRange; o.SplitAt = []int64{5} }, []string{"sharding=range", "split-at", "mysql"}},
		// presplit on PostgreSQL
		{"postgres presplit", Postgres, func(o *SysbenchOptions) { o.Sharding = ShardingRange; o.Presplit = 3 }, []string{"presplit=3", "postgres"}},
		// MySQL's AUTO_INCREMENT has no cache option
		{"mysql sequence-cache", MySQL, func(o *SysbenchOptions) { o.SequenceCache = 10 }, []string{"sequence-cache=10", "mysql", "AUTO_ID_CACHE"}},
		// split points must increase
		{"unordered split-at", YugabyteDB, func(o *SysbenchOptions) { o.Sharding = ShardingRange; o.SplitAt = []int64{5, 5} }, []string{"split-at", "increase"}},
		// more parts than rows
		{"presplit > rows", CockroachDB, func(o *SysbenchOptions) { o.Sharding = ShardingRange; o.Presplit = 20000 }, []string{"presplit=20000", "10000 rows"}},
		// TiDB's hash pre-split is a power of two
		{"tidb presplit 3", TiDB, func(o *SysbenchOptions) { o.Sharding = ShardingHash; o.Presplit = 3 }, []string{"presplit=3", "power of two"}},
		// TiDB's hash-sharded ids need AUTO_ID_CACHE = 1 to be 1..table_size
		{"tidb hash cache", TiDB, func(o *SysbenchOptions) { o.Sharding = ShardingHash; o.SequenceCache = 10 }, []string{"sequence-cache=10", "AUTO_ID_CACHE = 1"}},
		// an unknown sharding kind
		{"bad sharding", YugabyteDB, func(o *SysbenchOptions) { o.Sharding = "list" }, []string{`sharding="list"`, "hash and range"}},
		// secondary with sharding
		{"secondary sharded", CockroachDB, func(o *SysbenchOptions) { o.Secondary = true; o.Sharding = ShardingHash }, []string{"secondary=on"}},
		// every problem at once
		{"several", Postgres, func(o *SysbenchOptions) { o.Tables = 0; o.Sharding = ShardingHash; o.RandomPoints = 0 }, []string{"tables=0", "sharding=hash", "random-points=0"}},
		// an engine name that would inject SQL
		{"engine", MySQL, func(o *SysbenchOptions) { o.StorageEngine = "innodb */ x" }, []string{"mysql-storage-engine"}},
		// an unknown product
		{"unknown dialect", Dialect{Name: "oracle", Placeholder: Question}, func(o *SysbenchOptions) {}, []string{"oracle", "sysbench runs on"}},
	}
	for _, c := range cases {
		o := sysbenchBase()
		c.mod(&o)
		_, err := Sysbench(c.d, o)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not mention %q", c.name, err, w)
			}
		}
	}
}

// oltp_insert's text per product: the id column is omitted where the
// database fills it from an omitted value, 0 on AUTO_INCREMENT, the client
// id without auto-inc.
func TestSysbenchInsertEvent(t *testing.T) {
	cases := []struct {
		d       Dialect
		autoInc bool
		hash    bool
		want    string
	}{
		{Postgres, true, false, "INSERT INTO sbtest1 (k, c, pad) VALUES (7, 'c', 'p')"},
		{Postgres, false, false, "INSERT INTO sbtest1 (id, k, c, pad) VALUES (-5, 7, 'c', 'p')"},
		{MySQL, true, false, "INSERT INTO sbtest1 (id, k, c, pad) VALUES (0, 7, 'c', 'p')"},
		{MySQL, false, false, "INSERT INTO sbtest1 (id, k, c, pad) VALUES (-5, 7, 'c', 'p')"},
		{SQLite, true, false, "INSERT INTO sbtest1 (k, c, pad) VALUES (7, 'c', 'p')"},
		{TiDB, true, false, "INSERT INTO sbtest1 (id, k, c, pad) VALUES (0, 7, 'c', 'p')"},
		{TiDB, true, true, "INSERT INTO sbtest1 (id, k, c, pad) VALUES (0, 7, 'c', 'p')"}, // hash: AUTO_INCREMENT too
		{CockroachDB, true, false, "INSERT INTO sbtest1 (k, c, pad) VALUES (7, 'c', 'p')"},
	}
	for _, c := range cases {
		o := sysbenchBase()
		o.AutoInc = c.autoInc
		if c.hash {
			o.Sharding = ShardingHash
		}
		s, err := Sysbench(c.d, o)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(s.AppendInsert(nil, 1, -5, 7, []byte("c"), []byte("p"))); got != c.want {
			t.Errorf("%s auto-inc=%v hash=%v: %q, want %q", c.d.Name, c.autoInc, c.hash, got, c.want)
		}
	}
}

func TestSysbenchLoadInsertPanics(t *testing.T) {
	s, _ := Sysbench(Postgres, sysbenchBase())
	defer func() {
		if recover() == nil {
			t.Error("LoadInsert(1, 0) did not panic")
		}
	}()
	s.LoadInsert(1, 0)
}

// --db-ps-mode=disable: the statements with their values written in, as
// sysbench's emulation sends them.
func TestSysbenchInterpolated(t *testing.T) {
	for _, d := range []Dialect{Postgres, MySQL} {
		o := sysbenchBase()
		o.AutoInc = false
		s, err := Sysbench(d, o)
		if err != nil {
			t.Fatal(err)
		}
		tb := &s.Tables[0]
		cases := []struct {
			sql  string
			args []any
			want string
		}{
			{tb.PointSelect, []any{int64(42)}, "SELECT c FROM sbtest1 WHERE id=42"},
			{tb.SimpleRange, []any{int64(5), int64(104)}, "SELECT c FROM sbtest1 WHERE id BETWEEN 5 AND 104"},
			{tb.NonIndexUpdate, []any{"01-23", int64(7)}, "UPDATE sbtest1 SET c='01-23' WHERE id=7"},
			{tb.Insert, []any{int64(-5), 7, "c", "p"}, "INSERT INTO sbtest1 (id, k, c, pad) VALUES (-5, 7, 'c', 'p')"},
			{"SELECT '$1 ?' FROM t WHERE a=" + d.Param(1), []any{int64(1)}, "SELECT '$1 ?' FROM t WHERE a=1"},
		}
		for _, c := range cases {
			got, err := s.AppendInterpolated(nil, c.sql, c.args)
			if err != nil || string(got) != c.want {
				t.Errorf("%s: %q with %v: %q, %v; want %q", d.Name, c.sql, c.args, got, err, c.want)
			}
		}
		for _, bad := range []struct {
			sql  string
			args []any
		}{
			{tb.PointSelect, nil},                       // missing
			{tb.PointSelect, []any{1.5}},                // a float
			{tb.NonIndexUpdate, []any{"o'k", int64(1)}}, // a quote
			{tb.NonIndexUpdate, []any{`a\b`, int64(1)}}, // a backslash
			{"SELECT 'open FROM t", []any{}},            // unterminated quote
		} {
			if got, err := s.AppendInterpolated(nil, bad.sql, bad.args); err == nil {
				t.Errorf("%s: %q with %v accepted: %q", d.Name, bad.sql, bad.args, got)
			}
		}
	}
}

// oltp_common.lua's prewarm, on MySQL wire only.
func TestSysbenchPrewarm(t *testing.T) {
	o := sysbenchBase()
	o.Tables, o.TableSize = 2, 1000
	s, err := Sysbench(MySQL, o)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Prewarm(2)
	want := []string{
		"ANALYZE TABLE sbtest2",
		"SELECT AVG(id) FROM (SELECT * FROM sbtest2 FORCE KEY (PRIMARY) LIMIT 1000) t",
		"SELECT COUNT(*) FROM (SELECT * FROM sbtest2 WHERE k LIKE '%0%' LIMIT 1000) t",
	}
	if err != nil || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("prewarm of sbtest2: %q, %v; want %q", got, err, want)
	}
	pg, err := Sysbench(Postgres, o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pg.Prewarm(1); err == nil {
		t.Error("prewarm accepted on PostgreSQL")
	}
}
