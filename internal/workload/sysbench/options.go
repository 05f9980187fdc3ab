package sysbench

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/keydist"
	"github.com/candor-bench/candor/internal/workload"
)

// Options are the resolved options of one sysbench test: sysbench 1.0.20's
// script options (oltp_common.lua, select_random_*.lua), its random-number
// options (sb_rand.c) and --percentile, plus candor's table-layout options
// (sequence-cache, sharding, split-at, presplit). Names are sysbench's with
// dashes; it is what a result file records, so it is JSON-encodable and a run
// can be repeated from it.
type Options struct {
	Reference string `json:"reference"` // "sysbench 1.0.20"
	Test      string `json:"test"`      // "oltp_read_write", ...
	// Set lists the options given explicitly (files and properties), sorted;
	// every other value is the default.
	Set []string `json:"set,omitempty"`

	Tables          int   `json:"tables"`
	TableSize       int64 `json:"table-size"`
	RangeSize       int64 `json:"range-size"`
	PointSelects    int   `json:"point-selects"`
	SimpleRanges    int   `json:"simple-ranges"`
	SumRanges       int   `json:"sum-ranges"`
	OrderRanges     int   `json:"order-ranges"`
	DistinctRanges  int   `json:"distinct-ranges"`
	IndexUpdates    int   `json:"index-updates"`
	NonIndexUpdates int   `json:"non-index-updates"`
	DeleteInserts   int   `json:"delete-inserts"`
	RangeSelects    bool  `json:"range-selects"`
	AutoInc         bool  `json:"auto-inc"`
	SkipTrx         bool  `json:"skip-trx"`
	Secondary       bool  `json:"secondary"`
	CreateSecondary bool  `json:"create-secondary"`
	// MySQLStorageEngine is written as /*! ENGINE = ... */ on MySQL and TiDB.
	MySQLStorageEngine string `json:"mysql-storage-engine"`
	// PGSQLVariant is accepted and has no effect, as in sysbench 1.0.20.
	PGSQLVariant string `json:"pgsql-variant,omitempty"`

	RandType     string  `json:"rand-type"`
	RandSpecIter int     `json:"rand-spec-iter"`
	RandSpecPct  int     `json:"rand-spec-pct"`
	RandSpecRes  int     `json:"rand-spec-res"`
	RandSeed     int64   `json:"rand-seed"`
	RandParetoH  float64 `json:"rand-pareto-h"`

	RandomPoints   int   `json:"random-points"`
	NumberOfRanges int   `json:"number-of-ranges"`
	Delta          int64 `json:"delta"`

	Percentile int  `json:"percentile"`
	Histogram  bool `json:"histogram"`
	// PSMode is sysbench's --db-ps-mode: auto prepares statements on the
	// server; disable sends each as text with its values written in.
	PSMode string `json:"db-ps-mode"`

	SequenceCache int64   `json:"sequence-cache"`
	Sharding      string  `json:"sharding"`
	SplitAt       []int64 `json:"split-at,omitempty"`
	Presplit      int     `json:"presplit"`
}

// Limits of counts and sizes. sysbench takes any unsigned int; candor bounds
// them so a typo (an extra zero or two) is caught rather than run.
const (
	maxInt32 = math.MaxInt32
	// maxPerEvent bounds the statements of one kind in one event.
	maxPerEvent = 100_000
	// maxTables bounds --tables (each worker prepares statements per table).
	maxTables = 100_000
	// maxInList bounds random-points and number-of-ranges: one statement
	// carries them all as bind parameters (65535 on the PostgreSQL and MySQL
	// wire, 32766 on SQLite; Bind checks the target's own limit).
	maxInList = 65535
)

// option is one entry of the option table: its flag, default, help and how
// it is read into Options.
type option struct {
	name  string
	def   string
	usage string
	// tests that read it; nil means every test.
	tests []string
	set   func(o *Options, v string) error
}

// Test groups for option.tests.
var (
	readTests = []string{"oltp_read_only", "oltp_read_write"}
	trxTests  = []string{"oltp_read_only", "oltp_write_only", "oltp_read_write"}
	// oltpTests are the tests on sysbench's sbtest tables: all but bulk_insert.
	oltpTests = []string{"oltp_point_select", "oltp_read_only", "oltp_write_only", "oltp_read_write", "oltp_insert", "oltp_update_index", "oltp_update_non_index", "oltp_delete", "select_random_points", "select_random_ranges"}
	// layoutTests are every test, bulk_insert included.
	layoutTests = []string(nil)
)

// options is the table of every option, in sysbench's help order: script
// options, then random numbers, then --percentile, then candor's.
var options = []option{
	{"tables", "1", "Number of tables", oltpTests, intOpt(func(o *Options) *int { return &o.Tables }, 1, maxTables)},
	{"table-size", "10000", "Number of rows per table", layoutTests, int64Opt(func(o *Options) *int64 { return &o.TableSize }, 1, maxInt32)},
	{"range-size", "100", "Range size for range SELECT queries", readTests, int64Opt(func(o *Options) *int64 { return &o.RangeSize }, 1, maxInt32)},
	{"point-selects", "10", "Number of point SELECT queries per transaction", readTests, intOpt(func(o *Options) *int { return &o.PointSelects }, 0, maxPerEvent)},
	{"simple-ranges", "1", "Number of simple range SELECT queries per transaction", readTests, intOpt(func(o *Options) *int { return &o.SimpleRanges }, 0, maxPerEvent)},
	{"sum-ranges", "1", "Number of SELECT SUM() queries per transaction", readTests, intOpt(func(o *Options) *int { return &o.SumRanges }, 0, maxPerEvent)},
	{"order-ranges", "1", "Number of SELECT ORDER BY queries per transaction", readTests, intOpt(func(o *Options) *int { return &o.OrderRanges }, 0, maxPerEvent)},
	{"distinct-ranges", "1", "Number of SELECT DISTINCT queries per transaction", readTests, intOpt(func(o *Options) *int { return &o.DistinctRanges }, 0, maxPerEvent)},
	{"index-updates", "1", "Number of UPDATE index queries per transaction", []string{"oltp_write_only", "oltp_read_write", "oltp_update_index"}, intOpt(func(o *Options) *int { return &o.IndexUpdates }, 0, maxPerEvent)},
	{"non-index-updates", "1", "Number of UPDATE non-index queries per transaction", []string{"oltp_write_only", "oltp_read_write", "oltp_update_non_index"}, intOpt(func(o *Options) *int { return &o.NonIndexUpdates }, 0, maxPerEvent)},
	{"delete-inserts", "1", "Number of DELETE/INSERT combinations per transaction", []string{"oltp_write_only", "oltp_read_write"}, intOpt(func(o *Options) *int { return &o.DeleteInserts }, 0, maxPerEvent)},
	{"range-selects", "on", "Enable/disable all range SELECT queries", readTests, boolOpt(func(o *Options) *bool { return &o.RangeSelects })},
	{"auto-inc", "on", "Use AUTO_INCREMENT column as Primary Key (for MySQL), or its alternatives in other DBMS. When disabled, use client-generated IDs", oltpTests, boolOpt(func(o *Options) *bool { return &o.AutoInc })},
	{"skip-trx", "off", "Don't start explicit transactions and execute all queries in the AUTOCOMMIT mode", trxTests, boolOpt(func(o *Options) *bool { return &o.SkipTrx })},
	{"secondary", "off", "Use a secondary index in place of the PRIMARY KEY", oltpTests, boolOpt(func(o *Options) *bool { return &o.Secondary })},
	{"create-secondary", "on", "Create a secondary index in addition to the PRIMARY KEY", oltpTests, boolOpt(func(o *Options) *bool { return &o.CreateSecondary })},
	{"mysql-storage-engine", "innodb", "Storage engine, if MySQL is used", oltpTests, func(o *Options, v string) error {
		if !isWord(v) {
			return errors.New("must be an engine name (letters, digits, _)")
		}
		o.MySQLStorageEngine = v
		return nil
	}},
	// oltp_common.lua 1.0.20 compares an unset global, not this option, so
	// the option changes nothing there; it is accepted and recorded.
	{"pgsql-variant", "", "Use this PostgreSQL variant when running with the PostgreSQL driver (accepted and without effect, as in sysbench 1.0.20, whose script never reads it)", oltpTests, func(o *Options, v string) error {
		o.PGSQLVariant = v
		return nil
	}},

	{"rand-type", "special", "random numbers distribution {uniform, gaussian, special, pareto} to use by default (sysbench 1.0.20's default is special; 1.1's is uniform)", oltpTests, func(o *Options, v string) error {
		for _, t := range keydist.SysbenchRandTypes {
			if v == t {
				o.RandType = v
				return nil
			}
		}
		if v == "zipfian" {
			return errors.New("zipfian is sysbench 1.1's; sysbench 1.0.20 offers uniform, gaussian, special, pareto")
		}
		return fmt.Errorf("valid values: %s", strings.Join(keydist.SysbenchRandTypes, ", "))
	}},
	{"rand-spec-iter", "12", "number of iterations for the special distribution", oltpTests, intOpt(func(o *Options) *int { return &o.RandSpecIter }, 1, 1000)},
	{"rand-spec-pct", "1", "percentage of the entire range where 'special' values will fall in the special distribution", oltpTests, intOpt(func(o *Options) *int { return &o.RandSpecPct }, 0, 100)},
	{"rand-spec-res", "75", "percentage of 'special' values to use for the special distribution", oltpTests, intOpt(func(o *Options) *int { return &o.RandSpecRes }, 0, 100)},
	{"rand-seed", "0", "seed for random number generator. When 0, candor's run seed (--seed) is used", oltpTests, int64Opt(func(o *Options) *int64 { return &o.RandSeed }, 0, math.MaxInt64)},
	{"rand-pareto-h", "0.2", "shape parameter for the Pareto distribution", oltpTests, func(o *Options, v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !(f > 0 && f < 1) {
			return errors.New("must be a number strictly between 0 and 1")
		}
		o.RandParetoH = f
		return nil
	}},

	{"random-points", "10", "Number of random points in the IN() clause in generated SELECTs", []string{"select_random_points"}, intOpt(func(o *Options) *int { return &o.RandomPoints }, 1, maxInList)},
	{"number-of-ranges", "10", "Number of random BETWEEN ranges per SELECT", []string{"select_random_ranges"}, intOpt(func(o *Options) *int { return &o.NumberOfRanges }, 1, maxInList/2)},
	{"delta", "5", "Size of BETWEEN ranges", []string{"select_random_ranges"}, int64Opt(func(o *Options) *int64 { return &o.Delta }, 0, maxInt32)},

	{"percentile", "95", "percentile to calculate in latency statistics (1-100); 0 turns it off in --format sysbench", nil, intOpt(func(o *Options) *int { return &o.Percentile }, 0, 100)},
	{"histogram", "off", "print latency histogram in report (--format sysbench)", nil, boolOpt(func(o *Options) *bool { return &o.Histogram })},
	{"db-ps-mode", "auto", "prepared statements usage mode {auto, disable}; disable sends every statement as text with its values written in, as sysbench's emulation", nil, func(o *Options, v string) error {
		if v != "auto" && v != "disable" {
			return errors.New("must be auto or disable")
		}
		o.PSMode = v
		return nil
	}},

	{"sequence-cache", "0", "candor: cache N ids per session of the id sequence (ALTER SEQUENCE ... CACHE N; a real sequence on CockroachDB; AUTO_ID_CACHE on TiDB); 0 keeps the product's default. With N > 1 and several loaders, ids are not contiguous", oltpTests, int64Opt(func(o *Options) *int64 { return &o.SequenceCache }, 0, math.MaxInt64)},
	{"sharding", "", "candor: primary key distribution, hash or range (YugabyteDB, CockroachDB, TiDB); empty keeps the product's default", layoutTests, func(o *Options, v string) error {
		switch v {
		case "", dialect.ShardingHash, dialect.ShardingRange:
			o.Sharding = v
			return nil
		}
		return errors.New("valid values: hash, range (or empty for the product's default)")
	}},
	{"split-at", "", "candor: comma-separated ids to split range-sharded tables at, e.g. 2500,5000,7500", layoutTests, func(o *Options, v string) error {
		o.SplitAt = nil
		if strings.TrimSpace(v) == "" {
			return nil
		}
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
			if err != nil {
				return fmt.Errorf("%q is not an integer; give ids separated by commas", strings.TrimSpace(f))
			}
			o.SplitAt = append(o.SplitAt, n)
		}
		return nil
	}},
	{"presplit", "0", "candor: split each table into N parts up front (tablets, ranges, regions; needs sharding); 0 for none", layoutTests, intOpt(func(o *Options) *int { return &o.Presplit }, 0, 65536)},
}

// optionIndex maps a name to its entry.
var optionIndex = func() map[string]*option {
	m := map[string]*option{}
	for i := range options {
		m[options[i].name] = &options[i]
	}
	return m
}()

// candorFlags are sysbench's general options that candor offers as its own
// flags; given as properties they get a pointer there.
var candorFlags = map[string]string{
	"threads": "--threads", "time": "--time", "events": "--events", "rate": "--rate",
	"report-interval": "--report-interval", "warmup-time": "--warmup", "db-driver": "--target",
	"pgsql-host": "--target", "pgsql-port": "--target", "pgsql-user": "--target", "pgsql-password": "--target", "pgsql-db": "--target",
	"mysql-host": "--target", "mysql-port": "--target", "mysql-user": "--target", "mysql-password": "--target", "mysql-db": "--target",
	"mysql-socket": "--target", "mysql-ignore-errors": "--retries (errors of classes retryable and constraint are retried)",
}

// workloadOptions lists the options for Entry.Options.
func workloadOptions() []workload.Option {
	out := make([]workload.Option, len(options))
	for i, o := range options {
		out[i] = workload.Option{Name: o.name, Default: o.def, Usage: o.usage}
	}
	return out
}

func intOpt(field func(*Options) *int, lo, hi int) func(*Options, string) error {
	return func(o *Options, v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("not an integer; give a whole number from %d to %d", lo, hi)
		}
		if n < int64(lo) || n > int64(hi) {
			return fmt.Errorf("out of range: must be from %d to %d", lo, hi)
		}
		*field(o) = int(n)
		return nil
	}
}

func int64Opt(field func(*Options) *int64, lo, hi int64) func(*Options, string) error {
	return func(o *Options, v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("not an integer; give a whole number from %d to %d", lo, hi)
		}
		if n < lo || n > hi {
			return fmt.Errorf("out of range: must be from %d to %d", lo, hi)
		}
		*field(o) = n
		return nil
	}
}

// boolOpt reads sysbench's on/off (and true/false, 1/0), any case.
func boolOpt(field func(*Options) *bool) func(*Options, string) error {
	return func(o *Options, v string) error {
		b, err := ParseOnOff(v)
		if err != nil {
			return err
		}
		*field(o) = b
		return nil
	}
}

// TextStatements reports whether statements go as text with their values
// written in (--db-ps-mode=disable).
func (o *Options) TextStatements() bool { return o.PSMode == "disable" }

// ParseOnOff reads a sysbench on/off value (on, off, true, false, 1, 0; any case).
func ParseOnOff(v string) (bool, error) {
	switch strings.ToLower(v) {
	case "on", "true", "1":
		return true, nil
	case "off", "false", "0":
		return false, nil
	}
	return false, errors.New("must be on, off, true, false, 1 or 0")
}

func isWord(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return s != ""
}

// setting is one name=value from a file or a property, with where it came from.
type setting struct {
	name, value, source string
}

// option is how an error names the setting: as the flag (--table-size) when
// it came from the command line, where sysbench's options are flags (the CLI
// passes flags and -p alike as "-p"), else with its file and line.
func (s setting) option() string {
	if s.source == "-p" {
		return "--" + s.name
	}
	return s.source + " " + s.name
}

// normName is an option name as candor spells it: sysbench accepts
// underscores and dashes alike (--table_size, --table-size), and a leading
// "--" is tolerated.
func normName(s string) string {
	return strings.ReplaceAll(strings.TrimPrefix(strings.TrimSpace(s), "--"), "_", "-")
}

// parseSetting splits "name=value".
func parseSetting(s, source string) (setting, error) {
	name, value, ok := strings.Cut(s, "=")
	if !ok || normName(name) == "" {
		return setting{}, fmt.Errorf("%s %q: expected name=value, e.g. table-size=100000", source, s)
	}
	return setting{name: normName(name), value: strings.TrimSpace(value), source: source}, nil
}

// readFile reads a property file of name=value lines; blank lines and lines
// starting with # are skipped.
func readFile(path string) ([]setting, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("option file: %w", err)
	}
	if data, err = workload.PropertyText(path, data); err != nil {
		return nil, err
	}
	var out []setting
	var errs []error
	sc := bufio.NewScanner(bytes.NewReader(data))
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		s, err := parseSetting(line, fmt.Sprintf("%s:%d:", path, n))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		errs = append(errs, fmt.Errorf("%s: %w", path, err))
	}
	return out, errors.Join(errs...)
}

// defaults returns sysbench 1.0.20's defaults for test.
func defaults(test string) Options {
	o := Options{Reference: Reference, Test: test}
	for _, opt := range options {
		if err := opt.set(&o, opt.def); err != nil {
			panic("sysbench: default of " + opt.name + ": " + err.Error()) // a test keeps this from happening
		}
	}
	return o
}

// resolve applies settings over the defaults of test and validates the
// result, returning every problem at once, and the set options test does
// not read.
func resolve(test string, settings []setting) (Options, []string, error) {
	o := defaults(test)
	var errs []error
	given := map[string]bool{}
	for _, s := range settings {
		if s.name == "operationcount" {
			// Added by the CLI for --events: the runner counts events.
			continue
		}
		opt, ok := optionIndex[s.name]
		if !ok {
			if flag, isFlag := candorFlags[s.name]; isFlag {
				errs = append(errs, fmt.Errorf("%s: sysbench's general option is candor's %s", s.option(), flag))
			} else {
				errs = append(errs, fmt.Errorf("%s: unknown option; valid options: %s", s.option(), strings.Join(optionNames(), ", ")))
			}
			continue
		}
		if err := opt.set(&o, s.value); err != nil {
			errs = append(errs, fmt.Errorf("%s=%q: %w", s.option(), s.value, err))
			continue
		}
		given[s.name] = true
	}
	for n := range given {
		o.Set = append(o.Set, n)
	}
	sort.Strings(o.Set)

	// Cross-option rules. Product-specific ones (sharding on PostgreSQL, ...)
	// are checked by Bind, which knows the product.
	if int64(o.Presplit) > o.TableSize && o.Sharding == dialect.ShardingRange {
		errs = append(errs, fmt.Errorf("presplit=%d: cannot split a table of table-size=%d rows into more parts", o.Presplit, o.TableSize))
	}
	if o.Presplit == 1 {
		errs = append(errs, errors.New("presplit=1: give 0 (no pre-split) or at least 2 parts"))
	}
	if o.Presplit > 1 && o.Sharding == "" {
		errs = append(errs, fmt.Errorf("presplit=%d needs sharding=hash or sharding=range", o.Presplit))
	}
	if len(o.SplitAt) > 0 {
		if o.Sharding != dialect.ShardingRange {
			errs = append(errs, errors.New("split-at needs sharding=range (split points are ids of a range-sharded key)"))
		}
		if o.Presplit > 0 {
			errs = append(errs, errors.New("presplit and split-at both give split points; choose one"))
		}
		for i, v := range o.SplitAt {
			if v < 1 || v > maxInt32 {
				errs = append(errs, fmt.Errorf("split-at: %d is not an id (ids are 1 to %d)", v, maxInt32))
				break
			}
			if i > 0 && v <= o.SplitAt[i-1] {
				errs = append(errs, fmt.Errorf("split-at: values must increase strictly (%d after %d)", v, o.SplitAt[i-1]))
				break
			}
		}
	}
	if o.Secondary && (o.Sharding != "" || len(o.SplitAt) > 0 || o.Presplit > 0) {
		errs = append(errs, errors.New("secondary=on replaces the primary key that sharding distributes; drop one of them"))
	}
	if o.TableSize+o.RangeSize-1 > maxInt32 {
		errs = append(errs, fmt.Errorf("table-size=%d with range-size=%d: range ends past the INTEGER id column (%d)", o.TableSize, o.RangeSize, maxInt32))
	}
	if int64(o.Tables)*o.TableSize > math.MaxInt64/2 {
		errs = append(errs, errors.New("tables × table-size is too large"))
	}

	var ignored []string
	for _, n := range o.Set {
		// Without auto-inc there is no sequence to cache values of (a plan
		// may cross the two options; the cells without it ignore it).
		if !usedBy(optionIndex[n], test) || n == "sequence-cache" && !o.AutoInc {
			ignored = append(ignored, n)
		}
	}
	if test == "oltp_point_select" {
		// oltp_point_select.lua sets point_selects=1 whatever was given
		// (an explicit point-selects is therefore listed as ignored).
		o.PointSelects = 1
	}
	return o, ignored, errors.Join(errs...)
}

func usedBy(o *option, test string) bool {
	if o.tests == nil {
		return true
	}
	for _, t := range o.tests {
		if t == test {
			return true
		}
	}
	return false
}

func optionNames() []string {
	out := make([]string, len(options))
	for i, o := range options {
		out[i] = o.name
	}
	return out
}

// commonScriptOptions are oltp_common.lua's options, which `sysbench TEST
// help` lists for every OLTP test; the select_random scripts add theirs.
var commonScriptOptions = []string{"tables", "table-size", "range-size", "point-selects", "simple-ranges",
	"sum-ranges", "order-ranges", "distinct-ranges", "index-updates", "non-index-updates", "delete-inserts",
	"range-selects", "auto-inc", "skip-trx", "secondary", "create-secondary", "mysql-storage-engine", "pgsql-variant"}

var scriptOwnOptions = map[string][]string{
	SelectRandomPoints: {"random-points"},
	SelectRandomRanges: {"number-of-ranges", "delta"},
}

// Help is `sysbench TEST help` of sysbench 1.0.20 after its banner: the
// test script's options in its layout (underscored names sorted, on/off
// options as [=on|off], numbers as =N, the rest as =STRING, the default in
// brackets). bulk_insert has no help command, as in sysbench.
func Help(test string) (string, error) {
	if test == BulkInsert {
		return "", fmt.Errorf("'%s' test does not implement the 'help' command", test)
	}
	if !slices.Contains(Tests, test) {
		return "", fmt.Errorf("unknown sysbench test %q", test)
	}
	names := append(slices.Clone(commonScriptOptions), scriptOwnOptions[test]...)
	type line struct{ spec, text string }
	var lines []line
	width := 0
	for _, o := range options {
		if !slices.Contains(names, o.name) {
			continue
		}
		spec := "--" + strings.ReplaceAll(o.name, "-", "_")
		switch _, err := strconv.ParseFloat(o.def, 64); {
		case o.def == "on" || o.def == "off":
			spec += "[=on|off]"
		case err == nil:
			spec += "=N"
		default:
			spec += "=STRING"
		}
		text := o.usage
		if o.def != "" {
			text += " [" + o.def + "]"
		}
		lines = append(lines, line{spec, text})
		width = max(width, len(spec))
	}
	slices.SortFunc(lines, func(a, b line) int { return strings.Compare(a.spec, b.spec) })
	var b strings.Builder
	fmt.Fprintf(&b, "%s options:\n", test)
	for _, l := range lines {
		fmt.Fprintf(&b, "  %-*s %s\n", width, l.spec, l.text)
	}
	return b.String(), nil
}
