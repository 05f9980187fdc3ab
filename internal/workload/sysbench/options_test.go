package sysbench

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

// TestDefaults: sysbench 1.0.20's defaults (docs/SYSBENCH.md, "Reference facts"), with
// rand-type special as in 1.0.20.
func TestDefaults(t *testing.T) {
	w, err := New(OLTPReadWrite, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Options{
		Reference: "sysbench 1.0.20", Test: OLTPReadWrite,
		Tables: 1, TableSize: 10000, RangeSize: 100, PointSelects: 10,
		SimpleRanges: 1, SumRanges: 1, OrderRanges: 1, DistinctRanges: 1,
		IndexUpdates: 1, NonIndexUpdates: 1, DeleteInserts: 1,
		RangeSelects: true, AutoInc: true, SkipTrx: false, Secondary: false, CreateSecondary: true,
		MySQLStorageEngine: "innodb",
		RandType:           "special", RandSpecIter: 12, RandSpecPct: 1, RandSpecRes: 75, RandSeed: 0, RandParetoH: 0.2,
		RandomPoints: 10, NumberOfRanges: 10, Delta: 5,
		Percentile: 95, PSMode: "auto",
	}
	if got := w.Config(); !reflect.DeepEqual(got, want) {
		t.Errorf("defaults\n got %+v\nwant %+v", got, want)
	}
	if w.ReportPercentile() != 95 {
		t.Errorf("ReportPercentile = %v", w.ReportPercentile())
	}
	if len(w.Ignored()) != 0 {
		t.Errorf("Ignored = %v", w.Ignored())
	}
}

// The registry entry: every test a variant with a description, and every
// option of the brief offered as a flag whose default parses.
func TestRegistered(t *testing.T) {
	e, variant, err := workload.Lookup("sysbench/oltp_read_write")
	if err != nil || variant != OLTPReadWrite || e.Reference != "sysbench 1.0.20" {
		t.Fatalf("Lookup = %+v %q %v", e, variant, err)
	}
	for _, v := range e.Variants {
		if e.VariantDescriptions[v] == "" {
			t.Errorf("variant %s has no description", v)
		}
	}
	if len(e.Variants) != 11 {
		t.Errorf("%d variants, want 11", len(e.Variants))
	}
	names := map[string]string{}
	for _, o := range e.Options {
		names[o.Name] = o.Default
	}
	for _, n := range []string{"tables", "table-size", "range-size", "point-selects", "simple-ranges", "sum-ranges",
		"order-ranges", "distinct-ranges", "index-updates", "non-index-updates", "delete-inserts", "range-selects",
		"auto-inc", "skip-trx", "secondary", "create-secondary", "rand-type", "rand-spec-iter", "rand-spec-pct",
		"rand-spec-res", "rand-seed", "rand-pareto-h", "random-points", "number-of-ranges", "delta", "percentile", "histogram", "db-ps-mode",
		"sequence-cache", "sharding", "split-at", "presplit", "mysql-storage-engine"} {
		if _, ok := names[n]; !ok {
			t.Errorf("option %s not offered", n)
		}
	}
	if names["rand-type"] != "special" || names["table-size"] != "10000" || names["auto-inc"] != "on" {
		t.Errorf("flag defaults: %v", names)
	}
	for _, o := range e.Options {
		if _, err := New(OLTPReadWrite, nil, []string{o.Name + "=" + o.Default}); err != nil {
			t.Errorf("the default of %s does not parse: %v", o.Name, err)
		}
	}
	w, err := e.New(OLTPDelete, nil, nil)
	if err != nil || w.Name() != "sysbench/oltp_delete" {
		t.Errorf("Entry.New = %v, %v", w, err)
	}
}

// Plain "sysbench" is oltp_read_write named "sysbench" (prepare and cleanup
// of the tables every OLTP test shares); an unknown test is an error listing
// the tests.
func TestPlainSysbench(t *testing.T) {
	w, err := New("", nil, []string{"tables=3"})
	if err != nil {
		t.Fatal(err)
	}
	if w.Name() != "sysbench" || w.test != OLTPReadWrite || w.opts.Tables != 3 {
		t.Fatalf("plain sysbench: name %q test %q tables %d", w.Name(), w.test, w.opts.Tables)
	}
	_, err = New("oltp_frobnicate", nil, nil)
	if !errors.Is(err, workload.ErrUnknown) {
		t.Fatalf("unknown test: %v, want workload.ErrUnknown", err)
	}
	for _, test := range Tests {
		if !strings.Contains(err.Error(), test) {
			t.Errorf("error does not list %s: %v", test, err)
		}
	}
}

func TestParseValues(t *testing.T) {
	cases := []struct {
		name  string
		props []string
		check func(o Options) bool
	}{
		// underscores as dashes, as sysbench accepts --table_size
		{"underscores", []string{"table_size=500", "point_selects=3"}, func(o Options) bool { return o.TableSize == 500 && o.PointSelects == 3 }},
		// sysbench's on/off and true/false, any case
		{"booleans", []string{"auto-inc=off", "skip-trx=TRUE", "range-selects=false", "secondary=On"},
			func(o Options) bool { return !o.AutoInc && o.SkipTrx && !o.RangeSelects && o.Secondary }},
		// and 1/0, which sysbench's scripts take too
		{"1 and 0", []string{"auto-inc=0", "skip-trx=1", "histogram=1", "range-selects=0"},
			func(o Options) bool { return !o.AutoInc && o.SkipTrx && o.Histogram && !o.RangeSelects }},
		// later settings win
		{"later wins", []string{"tables=3", "tables=5"}, func(o Options) bool { return o.Tables == 5 }},
		// a leading -- is tolerated (copied from a sysbench command line)
		{"dashes", []string{"--rand-type=uniform"}, func(o Options) bool { return o.RandType == "uniform" }},
		// the distributions
		{"pareto", []string{"rand-type=pareto", "rand-pareto-h=0.3"}, func(o Options) bool { return o.RandType == "pareto" && o.RandParetoH == 0.3 }},
		// sharding options (Bind decides whether the product has them)
		{"layout", []string{"sharding=range", "split-at=10, 20,30", "sequence-cache=1"},
			func(o Options) bool {
				return o.Sharding == "range" && reflect.DeepEqual(o.SplitAt, []int64{10, 20, 30}) && o.SequenceCache == 1
			}},
		// Set records what was given
		{"set", []string{"tables=2", "delta=3"}, func(o Options) bool { return reflect.DeepEqual(o.Set, []string{"delta", "tables"}) }},
		// percentile 0 is accepted (sysbench: disabled)
		{"percentile 0", []string{"percentile=0"}, func(o Options) bool { return o.Percentile == 0 }},
	}
	for _, c := range cases {
		w, err := New(OLTPReadWrite, nil, c.props)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !c.check(w.Config()) {
			t.Errorf("%s: options %+v", c.name, w.Config())
		}
	}
}

// Invalid values name the option and the range; all problems come at once.
func TestValidation(t *testing.T) {
	cases := []struct {
		name  string
		test  string
		props []string
		want  []string
	}{
		// zero tables
		{"tables=0", OLTPReadWrite, []string{"tables=0"}, []string{"tables", "from 1 to 100000"}},
		// table size beyond INTEGER ids
		{"table-size", OLTPReadWrite, []string{"table-size=3000000000"}, []string{"table-size", "from 1 to 2147483647"}},
		// not a number
		{"not a number", OLTPReadWrite, []string{"point-selects=ten"}, []string{"point-selects", "not an integer"}},
		// negative count
		{"negative", OLTPReadWrite, []string{"index-updates=-1"}, []string{"index-updates", "from 0 to 100000"}},
		// not a boolean
		{"boolean", OLTPReadWrite, []string{"auto-inc=maybe"}, []string{"auto-inc", "on, off, true, false, 1 or 0"}},
		// sysbench 1.1's distribution
		{"zipfian", OLTPReadWrite, []string{"rand-type=zipfian"}, []string{"rand-type", "1.1"}},
		// unknown distribution
		{"rand-type", OLTPReadWrite, []string{"rand-type=normal"}, []string{"rand-type", "uniform, gaussian, special, pareto"}},
		// percentages
		{"spec-res", OLTPReadWrite, []string{"rand-spec-res=101"}, []string{"rand-spec-res", "from 0 to 100"}},
		// pareto h outside (0, 1)
		{"pareto-h", OLTPReadWrite, []string{"rand-pareto-h=1"}, []string{"rand-pareto-h", "between 0 and 1"}},
		// unknown option, with the list
		{"unknown", OLTPReadWrite, []string{"tabel-size=5"}, []string{"tabel-size", "unknown option", "table-size"}},
		// a general sysbench option is a candor flag
		{"threads", OLTPReadWrite, []string{"threads=8"}, []string{"threads", "--threads"}},
		// no '='
		{"malformed", OLTPReadWrite, []string{"tables"}, []string{"expected name=value"}},
		// split points need range sharding and must increase
		{"split-at", OLTPReadWrite, []string{"sharding=hash", "split-at=5,3"}, []string{"split-at needs sharding=range", "increase strictly"}},
		// presplit needs a sharding kind
		{"presplit", OLTPReadWrite, []string{"presplit=4"}, []string{"presplit=4 needs sharding"}},
		// an unknown sharding kind
		{"sharding", OLTPReadWrite, []string{"sharding=list"}, []string{"sharding", "hash, range"}},
		// several problems: every one reported
		{"several", OLTPReadWrite, []string{"tables=0", "range-size=0", "rand-type=x"}, []string{"tables", "range-size", "rand-type"}},
	}
	for _, c := range cases {
		_, err := New(c.test, nil, c.props)
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

// Options a test does not read are reported as ignored.
func TestIgnored(t *testing.T) {
	cases := []struct {
		test  string
		props []string
		want  []string
	}{
		// oltp_point_select always runs one point select
		{OLTPPointSelect, []string{"point-selects=5", "tables=2"}, []string{"point-selects"}},
		// a read-only test has no updates
		{OLTPReadOnly, []string{"index-updates=3", "range-size=10"}, []string{"index-updates"}},
		// bulk_insert has no sbtest rows to choose from
		{BulkInsert, []string{"rand-type=uniform", "percentile=99"}, []string{"rand-type"}},
		// no sequence without auto-inc (E3's plan crosses the two)
		{OLTPReadWrite, []string{"sequence-cache=100", "auto-inc=off"}, []string{"sequence-cache"}},
		// ... but with it the cache is used
		{OLTPReadWrite, []string{"sequence-cache=100", "auto-inc=on"}, nil},
	}
	for _, c := range cases {
		w, err := New(c.test, nil, c.props)
		if err != nil {
			t.Fatal(err)
		}
		if got := w.Ignored(); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s %v: Ignored = %v, want %v", c.test, c.props, got, c.want)
		}
	}
	w, _ := New(OLTPPointSelect, nil, []string{"point-selects=5"})
	if w.Config().PointSelects != 1 {
		t.Errorf("oltp_point_select runs %d point selects, want 1", w.Config().PointSelects)
	}
}

// -P files hold name=value lines; later files and -p win; errors carry
// file:line.
func TestFiles(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.conf")
	b := filepath.Join(dir, "b.conf")
	os.WriteFile(a, []byte("# sysbench options\ntable_size = 200\ntables=2\n\n"), 0o644)
	os.WriteFile(b, []byte("tables=3\n"), 0o644)
	w, err := New(OLTPReadOnly, []string{a, b}, []string{"table-size=300"})
	if err != nil {
		t.Fatal(err)
	}
	if o := w.Config(); o.TableSize != 300 || o.Tables != 3 {
		t.Errorf("layering: %+v", o)
	}
	bad := filepath.Join(dir, "bad.conf")
	os.WriteFile(bad, []byte("tables=2\njunk line\n"), 0o644)
	_, err = New(OLTPReadOnly, []string{bad, filepath.Join(dir, "missing.conf")}, nil)
	if err == nil || !strings.Contains(err.Error(), "bad.conf:2:") || !strings.Contains(err.Error(), "missing.conf") {
		t.Errorf("file errors: %v", err)
	}
}

func TestLimitsOpsCounters(t *testing.T) {
	w, _ := New(OLTPReadWrite, nil, nil)
	l := w.Limits()
	// sysbench restarts events on its ignorable errors and after a
	// reconnect, stops at any other error, and counts --events over all
	// threads.
	if l.Duration != 10*time.Second || l.Retries != -1 || !l.StopOnError || !l.SharedOperations ||
		!reflect.DeepEqual(l.RetryClasses, []target.ErrorClass{target.ClassRetryable, target.ClassConstraint, target.ClassConnection}) {
		t.Errorf("Limits = %+v", l)
	}
	// usesTransactions follows BEGIN/COMMIT: skip-trx and single-statement
	// tests run in autocommit (and need no transactions of the target).
	for _, c := range []struct {
		test  string
		props []string
		want  bool
	}{{OLTPReadWrite, []string{"skip_trx=on"}, false}, {OLTPPointSelect, nil, false}, {OLTPWriteOnly, nil, true}} {
		w, err := New(c.test, nil, c.props)
		if err != nil {
			t.Fatal(err)
		}
		if got := w.usesTransactions(); got != c.want {
			t.Errorf("%s %v: usesTransactions() = %v, want %v", c.test, c.props, got, c.want)
		}
	}
	if !reflect.DeepEqual(w.Ops(), []string{"TRANSACTION"}) || !reflect.DeepEqual(w.Counters(), []string{"reads", "writes", "other"}) {
		t.Errorf("Ops %v Counters %v", w.Ops(), w.Counters())
	}
	if w.Name() != "sysbench/oltp_read_write" || w.Reference() != "sysbench 1.0.20" {
		t.Errorf("Name %q Reference %q", w.Name(), w.Reference())
	}
	if _, ok := w.Options().(Options); !ok {
		t.Errorf("Options() is %T", w.Options())
	}
}

// FuzzNew: no input makes New panic.
func FuzzNew(f *testing.F) {
	f.Add("table-size=100", "oltp_read_write")
	f.Add("split-at=1,2,3", "oltp_insert")
	f.Add("rand_type=pareto", "select_random_points")
	f.Fuzz(func(t *testing.T, prop, test string) {
		w, err := New(test, nil, []string{prop})
		if err == nil && w == nil {
			t.Fatal("nil workload without error")
		}
	})
}

// TestHelp: `sysbench TEST help` as 1.0.20 prints it (lines from its own
// output), for oltp_read_write and the select_random tests' extra options.
func TestHelp(t *testing.T) {
	h, err := Help(OLTPReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(h, "\n"), "\n")
	want := []string{
		"oltp_read_write options:",
		"  --auto_inc[=on|off]           Use AUTO_INCREMENT column as Primary Key (for MySQL), or its alternatives in other DBMS. When disabled, use client-generated IDs [on]",
		"  --create_secondary[=on|off]   Create a secondary index in addition to the PRIMARY KEY [on]",
		"  --delete_inserts=N            Number of DELETE/INSERT combinations per transaction [1]",
		"  --distinct_ranges=N           Number of SELECT DISTINCT queries per transaction [1]",
		"  --index_updates=N             Number of UPDATE index queries per transaction [1]",
		"  --mysql_storage_engine=STRING Storage engine, if MySQL is used [innodb]",
		"  --non_index_updates=N         Number of UPDATE non-index queries per transaction [1]",
		"  --order_ranges=N              Number of SELECT ORDER BY queries per transaction [1]",
		"", // --pgsql_variant: candor says what it does
		"  --point_selects=N             Number of point SELECT queries per transaction [10]",
		"  --range_selects[=on|off]      Enable/disable all range SELECT queries [on]",
		"  --range_size=N                Range size for range SELECT queries [100]",
		"  --secondary[=on|off]          Use a secondary index in place of the PRIMARY KEY [off]",
		"  --simple_ranges=N             Number of simple range SELECT queries per transaction [1]",
		"  --skip_trx[=on|off]           Don't start explicit transactions and execute all queries in the AUTOCOMMIT mode [off]",
		"  --sum_ranges=N                Number of SELECT SUM() queries per transaction [1]",
		"  --table_size=N                Number of rows per table [10000]",
		"  --tables=N                    Number of tables [1]",
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), h)
	}
	for i, w := range want {
		if w != "" && lines[i] != w {
			t.Errorf("line %d:\n got %q\nwant %q", i+1, lines[i], w)
		}
	}
	if !strings.HasPrefix(lines[9], "  --pgsql_variant=STRING        Use this PostgreSQL variant") {
		t.Errorf("line 10: %q", lines[9])
	}
	r, _ := Help(SelectRandomRanges)
	for _, w := range []string{"  --delta=N                     Size of BETWEEN ranges [5]\n", "  --number_of_ranges=N          Number of random BETWEEN ranges per SELECT [10]\n"} {
		if !strings.Contains(r, w) {
			t.Errorf("select_random_ranges help lacks %q:\n%s", w, r)
		}
	}
	if p, _ := Help(SelectRandomPoints); !strings.Contains(p, "--random_points=N") || strings.Contains(p, "--delta") {
		t.Errorf("select_random_points help:\n%s", p)
	}
	if _, err := Help(BulkInsert); err == nil || !strings.Contains(err.Error(), "does not implement the 'help' command") {
		t.Errorf("bulk_insert help: %v", err)
	}
}
