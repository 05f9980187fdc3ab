// Package sysbench is sysbench 1.0.20's OLTP tests (src/lua/oltp_*.lua,
// select_random_*.lua, bulk_insert.lua) as a candor workload, statement for
// statement: the same tables, the same data, the same statements per event in
// the same order with values from the same distributions, and reads, writes
// and other queries counted by sysbench's rules (docs/SYSBENCH.md, "Reference facts").
//
// Select a test as sysbench/<test>, e.g. sysbench/oltp_read_write; plain
// "sysbench" is an error that lists the tests, as sysbench without a test
// name is. Options are sysbench's (--table-size, --rand-type, ...), given as
// flags or as name=value properties (underscores or dashes); -P files hold
// name=value lines. `candor sysbench` (internal/cli) takes a whole sysbench
// command line, connection options included.
//
// # Counting
//
// One event is one TRANSACTION operation (sysbench's "transactions"). Every
// statement an event executes is counted through workload.Counter as sysbench
// counts it: a statement that returns rows is a read (even with no row); any
// other statement is a write when it affected a row, else other (BEGIN,
// COMMIT, an UPDATE or DELETE that found nothing). A failed statement is not
// counted (sysbench counts it as an ignored error, which candor's runner
// counts by class); the ROLLBACK after it is not counted either.
//
// # Errors and restarts
//
// On an error inside BEGIN … COMMIT the worker issues ROLLBACK (best effort)
// and returns the error. Limits asks the runner to retry the event without
// limit on errors of class retryable (deadlock, serialization failure) and
// constraint, as sysbench restarts event() on its ignorable errors (pgsql:
// 40P01, 40001, 23505; mysql: --mysql-ignore-errors=1213,1020,1205). A
// restarted event draws new values, as sysbench's re-run of event() does.
// Candor's constraint class also covers MySQL's duplicate key (1062) and
// other integrity violations (foreign key, check), which sysbench's mysql
// driver would treat as fatal. A lost connection restarts the event once the
// runner has reconnected, as sysbench's mysql driver does; the runner keeps
// trying until the phase ends, where sysbench stops when it cannot reconnect
// (and its pgsql driver stops at once). Any other error ends the run
// (Limits.StopOnError), as sysbench's FATAL does; failed statements carry
// their text (StatementError), as sysbench's FATAL line names the query, and
// FatalLines words them as sysbench's drivers do.
//
// # Differences from sysbench 1.0.20
//
//   - Random values come from each worker's math/rand source seeded from the
//     run seed (or --rand-seed when not 0), not xoroshiro128+ seeded from
//     libc random(): same distributions, different values. oltp_insert's
//     rand.unique() ids follow the run seed even with --rand-seed, as
//     sysbench seeds that sequence apart from it.
//   - Loading uses COPY on PostgreSQL (sysbench: multi-row INSERT text),
//     one LOAD DATA LOCAL transaction per table on targets with
//     Capabilities.TableLoad (MariaDB's bulk path for empty tables), and
//     bind parameters in multi-row INSERTs elsewhere; rows and their values
//     are drawn as sysbench's prepare draws them (c, pad, then k). The
//     events option is accepted as operationcount, which the CLI passes to
//     every workload; the runner counts the events, over all workers as
//     sysbench does (Limits.SharedOperations), except with --rate, where each
//     worker's schedule has its share.
//   - A run uses prepared tables as they are when they hold at least
//     --table-size rows of the same shape (TableReuser), as sysbench does; a
//     table of fewer rows or another shape is prepared again (the CLI's
//     --load auto) or refused (--load never), where sysbench would run on it
//     and miss rows. Before the measured phase a test that looks rows up by
//     id checks with one SELECT by id that 16 ids spread over
//     1..--table-size are there, and is refused when most are not (PreRun),
//     where sysbench would read and write rows that do not exist. Prepare
//     refuses tables that exist, as sysbench's CREATE TABLE fails, except
//     bulk_insert's own (its CREATE TABLE IF NOT EXISTS).
//     Statements are sent as prepared statements as sysbench's default
//     --db-ps-mode=auto does; oltp_insert and bulk_insert send plain text, as
//     sysbench's con:query does; BEGIN and COMMIT are prepared too, as
//     sysbench prepares them (target.Preparer). On PostgreSQL an execution
//     of a SELECT is Bind, Execute and Sync: the columns are known from
//     preparing, so candor sends no Describe and the server no
//     RowDescription each time, where libpq (and so sysbench) describes
//     every execution (postgres fast path).
//   - On MySQL wire integer parameters are bound as BIGINT (8 bytes), where
//     sysbench binds INT (4 bytes). The executions whose rows are not read
//     go through candor's own protocol code (the MySQL target's fast path),
//     which sends the parameters' types when they change, as libmariadb
//     does; through go-sql-driver they would go with every execution.
//   - With --format sysbench (internal/cli) prepare prints its per-table
//     lines in table order once the load is done (sysbench's threads print
//     them as they go, interleaved), and the second FATAL line lacks the Lua
//     script location sysbench puts in it (FatalLines).
//   - Statements are the scripts' texts, byte for byte, multi-line
//     CREATE TABLE and select_random_points/ranges included: tests run one
//     command line through sysbench 1.0.20 and candor and compare what each
//     sends (internal/cli, TestSysbenchStatementsMatchBinary and, for
//     prepare's CREATE TABLE and CREATE INDEX,
//     TestSysbenchPrepareMatchesBinary).
//   - select_random_points/ranges partition the k range by worker as sysbench
//     partitions it by thread; the thread count comes from Env.Threads
//     (default 1). bulk_insert writes one table per thread (sbtest1..N, N from
//     Env.Threads); its ids continue across repetitions in one process. The
//     rows still buffered when the phase ends go as a last INSERT after the
//     timed events, as sysbench's thread_done sends them (Finish), but not
//     after an interrupt.
//   - Tables are completed before loading by the dialect's setup statements
//     (a sequence cache, pre-splits) and the secondary index is created after
//     loading (PostLoad), like sysbench's prepare, except with TableLoad:
//     there k_N is defined on the empty table and InnoDB builds it from the
//     sorted rows at the load's commit (the same index; the table's
//     AUTO_INCREMENT counter ends above the row count, as the bulk path
//     reserves ids in blocks).
//   - Sessions wait for replies in a blocking read per thread, as sysbench's
//     do, except where the runner puts them in Go's network poller
//     (target.ChooseSessionIO: on PostgreSQL from 16 sessions per client
//     core). The statements are
//     the same; latency then includes the wait for a thread to run the
//     session once its reply has come.
//   - An event that has not returned when --time ends is not counted, nor are its
//     queries (the runner drops an operation cut short with its counters),
//     and the phase measures --time; its restarts before the end still count
//     as ignored errors. sysbench lets it finish and counts it, its total
//     time running a little past --time.
//   - With --rate each worker keeps its own arrival schedule (sysbench: one
//     event generator feeding a queue all threads take from), so the
//     sysbench report's "queue length" counts the events due by the workers'
//     schedules and not yet begun.
//   - select_random_points/ranges accept --tables above 1 and query sbtest1,
//     as 1.0.20 does in prepare and run (its check sits in a prepare() it
//     never calls).
//   - --pgsql-variant is accepted and recorded, without effect, as in 1.0.20
//     (its script compares an unset global).
//   - Not offered: --reconnect and --create_table_options (script options of
//     sysbench 1.1, not of 1.0.20's oltp_common.lua), and the general options
//     candor has as its own flags (--threads, --time, --events, --rate, ...).
package sysbench

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/keydist"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

// Reference is the sysbench release this package reproduces.
const Reference = "sysbench 1.0.20"

// The tests, in the order `sysbench --help` lists its bundled scripts.
const (
	OLTPPointSelect    = "oltp_point_select"
	OLTPReadOnly       = "oltp_read_only"
	OLTPWriteOnly      = "oltp_write_only"
	OLTPReadWrite      = "oltp_read_write"
	OLTPInsert         = "oltp_insert"
	OLTPUpdateIndex    = "oltp_update_index"
	OLTPUpdateNonIndex = "oltp_update_non_index"
	OLTPDelete         = "oltp_delete"
	SelectRandomPoints = "select_random_points"
	SelectRandomRanges = "select_random_ranges"
	BulkInsert         = "bulk_insert"
)

// Tests lists every test (the registry's variants).
var Tests = []string{OLTPPointSelect, OLTPReadOnly, OLTPWriteOnly, OLTPReadWrite, OLTPInsert,
	OLTPUpdateIndex, OLTPUpdateNonIndex, OLTPDelete, SelectRandomPoints, SelectRandomRanges, BulkInsert}

var testDescriptions = map[string]string{
	OLTPPointSelect:    "1 point SELECT per event, no explicit transaction",
	OLTPReadOnly:       "BEGIN; 10 point SELECTs, 4 range SELECTs; COMMIT",
	OLTPWriteOnly:      "BEGIN; index UPDATE, non-index UPDATE, DELETE + INSERT; COMMIT",
	OLTPReadWrite:      "BEGIN; 10 point SELECTs, 4 range SELECTs, 2 UPDATEs, DELETE + INSERT; COMMIT",
	OLTPInsert:         "1 INSERT per event (empty tables with --auto-inc=off)",
	OLTPUpdateIndex:    "1 UPDATE of the indexed column k per event",
	OLTPUpdateNonIndex: "1 UPDATE of the non-indexed column c per event",
	OLTPDelete:         "1 DELETE by id per event",
	SelectRandomPoints: "1 SELECT ... WHERE k IN (10 random points) per event",
	SelectRandomRanges: "1 SELECT count(k) over 10 random BETWEEN ranges per event",
	BulkInsert:         "multi-row INSERTs of 512 KiB, one table per thread; 1 row per event",
}

// OpTransaction is the one operation: one sysbench event.
const OpTransaction workload.OpID = 0

// Counter indexes, as named by Counters.
const (
	CounterReads = iota
	CounterWrites
	CounterOther
)

// bulkPacketSize is sysbench's BULK_PACKET_SIZE (src/db_driver.h): the most
// bytes of one multi-row INSERT statement, its terminating NUL included.
const bulkPacketSize = 512 * 1024

// rollbackTimeout bounds the best-effort ROLLBACK after a failed statement,
// so a server that stopped answering cannot hold a worker.
const rollbackTimeout = 5 * time.Second

func init() {
	workload.Register(workload.Entry{
		Name:                "sysbench",
		Variants:            Tests,
		VariantDescriptions: testDescriptions,
		Options:             workloadOptions(),
		Description:         "sysbench 1.0.20 OLTP tests (sysbench/oltp_read_write, ...; options as flags); plain sysbench: prepare/cleanup of the shared tables",
		Reference:           Reference,
		New: func(variant string, files []string, props []string) (workload.Workload, error) {
			return New(variant, files, props)
		},
	})
}

// New builds the test variant ("oltp_read_write", ...). Options are layered,
// later ones winning: sysbench 1.0.20's defaults, the files in order (lines
// name=value, # comments), then props ("name=value"; underscores and dashes
// alike, booleans on/off/true/false). Every problem is returned at once.
//
// Plain "sysbench" (variant "") is oltp_read_write under the name
// "sysbench": what `candor prepare sysbench` and `candor cleanup sysbench`
// need, since every OLTP test shares its tables, as sysbench's own
// prepare and cleanup do.
func New(variant string, files, props []string) (*Workload, error) {
	plain := variant == ""
	if plain {
		variant = OLTPReadWrite
	}
	if _, ok := testDescriptions[variant]; !ok {
		return nil, fmt.Errorf("%w \"sysbench/%s\": valid tests: %s", workload.ErrUnknown, variant, strings.Join(Tests, ", "))
	}
	var settings []setting
	var errs []error
	for _, f := range files {
		s, err := readFile(f)
		if err != nil {
			errs = append(errs, err)
		}
		settings = append(settings, s...)
	}
	for _, p := range props {
		s, err := parseSetting(p, "-p")
		if err != nil {
			errs = append(errs, err)
			continue
		}
		settings = append(settings, s)
	}
	opts, ignored, err := resolve(variant, settings)
	if err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("sysbench/%s: invalid options:\n%w", variant, errors.Join(errs...))
	}
	w := &Workload{test: variant, plain: plain, opts: opts, ignored: ignored, threads: 1}
	w.dist = keydist.NewSysbenchRand(keydist.SysbenchParams{
		Type: opts.RandType, SpecIter: opts.RandSpecIter, SpecPct: opts.RandSpecPct,
		SpecRes: opts.RandSpecRes, ParetoH: opts.RandParetoH,
	})
	return w, nil
}

// Workload is one configured sysbench test. Besides workload.Workload it is a
// workload.CounterNamer and workload.PostLoader, and offers MaxLoadBatch,
// ReportPercentile, ReportSeed, SetThreads and Config.
type Workload struct {
	test    string
	plain   bool // selected as plain "sysbench": oltp_read_write named "sysbench"
	opts    Options
	ignored []string
	dist    keydist.SysbenchRand // sysbench.rand.default
	threads int                  // SetThreads

	// Set by Bind.
	bound     bool
	env       workload.Env
	stmts     dialect.SysbenchStatements
	loadRows  int // rows per load INSERT; 0 = no limit
	maxBatch  int
	tableLoad bool // each table loads in one go (target.TableLoader), its index defined first

	// Shared by workers and loaders.
	setupMu    sync.Mutex
	setupDone  []bool
	uniqueOnce sync.Once
	unique     *keydist.SysbenchUnique
	bulkNext   []atomic.Int64 // bulk_insert: last id written per table
}

var (
	_ workload.Workload     = (*Workload)(nil)
	_ workload.CounterNamer = (*Workload)(nil)
	_ workload.PostLoader   = (*Workload)(nil)
	_ workload.TableReuser  = (*Workload)(nil)
	_ workload.PreRunner    = (*Workload)(nil)
	_ workload.Worker       = (*worker)(nil)
	_ workload.Loader       = (*loader)(nil)
)

// Name is "sysbench/<test>".
func (w *Workload) Name() string {
	if w.plain {
		return "sysbench"
	}
	return "sysbench/" + w.test
}

// Reference is "sysbench 1.0.20".
func (w *Workload) Reference() string { return Reference }

// Ops has one operation, TRANSACTION: one event, as sysbench counts
// transactions.
func (w *Workload) Ops() []string { return []string{"TRANSACTION"} }

// Counters are sysbench's query counts: reads, writes, other.
func (w *Workload) Counters() []string { return []string{"reads", "writes", "other"} }

// Options returns the resolved options (an Options value).
func (w *Workload) Options() any { return w.opts }

// Config returns the resolved options, typed.
func (w *Workload) Config() Options { return w.opts }

// Ignored lists options that were given but that this test does not read
// (point-selects for oltp_point_select, which always runs one), sorted.
func (w *Workload) Ignored() []string { return append([]string(nil), w.ignored...) }

// ReportPercentile is --percentile (default 95; 0 turns the percentile off
// in sysbench-format reports, as in sysbench).
func (w *Workload) ReportPercentile() float64 { return float64(w.opts.Percentile) }

// ReportHistogram is --histogram: sysbench-format reports print sysbench's
// latency histogram.
func (w *Workload) ReportHistogram() bool { return w.opts.Histogram }

// ReportSeed is --rand-seed, 0 when not given (the workload then draws from
// candor's run seed), for the header of sysbench-format reports.
func (w *Workload) ReportSeed() int64 { return w.opts.RandSeed }

// PrepareLines is what sysbench 1.0.20's prepare of this test prints, in
// the order one thread prints them (oltp_common.lua's create_table,
// bulk_insert.lua's prepare): per table "Creating table", "Inserting N
// records" when it loads rows, and "Creating a secondary index" with
// --create-secondary. sysbench's prepare threads take the tables in turn
// and interleave their lines; candor prints them in table order.
func (w *Workload) PrepareLines() []string {
	rows := w.preparedRows()
	var out []string
	for n := 1; n <= w.tableCount(); n++ {
		out = append(out, fmt.Sprintf("Creating table 'sbtest%d'...", n))
		if rows > 0 {
			out = append(out, fmt.Sprintf("Inserting %d records into 'sbtest%d'", rows, n))
		}
		if w.test != BulkInsert && w.opts.CreateSecondary {
			out = append(out, fmt.Sprintf("Creating a secondary index on 'sbtest%d'...", n))
		}
	}
	return out
}

// SetThreads tells the workload how many run-phase workers there will be
// (sysbench's --threads): select_random_points and select_random_ranges give
// each worker its own slice of the k range, and bulk_insert one table per
// worker. Bind takes it from workload.Env.Threads; SetThreads changes it
// afterwards (tests). The default is 1; n < 1 is 1.
func (w *Workload) SetThreads(n int) {
	w.threads = max(n, 1)
	if w.bound && w.test == BulkInsert {
		_ = w.build() // cannot fail: the same options bound before
	}
}

// RestartClasses are the error classes on which an event is restarted, as
// sysbench restarts it on its ignorable errors.
var RestartClasses = []target.ErrorClass{target.ClassRetryable, target.ClassConstraint}

// Limits returns sysbench's run defaults: --time=10 (sysbench's default
// duration), unlimited retries of the RestartClasses (sysbench restarts an
// event on its ignorable errors without limit) and of a lost connection
// once a new one is made (sysbench's MySQL driver reconnects and restarts
// the event; the runner keeps trying to reconnect until the phase ends),
// and the end of the run at any other error (sysbench's FATAL).
func (w *Workload) Limits() workload.Limits {
	return workload.Limits{
		Duration:         10 * time.Second,
		Retries:          -1,
		RetryClasses:     append(slices.Clip(RestartClasses), target.ClassConnection),
		StopOnError:      true,
		SharedOperations: true,
		FinishInFlight:   true, // --time: a thread finishes its event in progress
	}
}

// LoadRange is every row of every table: record n is row n%table-size+1 of
// table n/table-size+1. oltp_insert with --auto-inc=off starts from empty
// tables (as its prepare does: ids loaded now could collide with the
// sysbench.rand.unique() ids it inserts), and bulk_insert loads nothing.
func (w *Workload) LoadRange() (start, count int64) {
	if w.test == BulkInsert || (w.test == OLTPInsert && !w.opts.AutoInc) {
		return 0, 0
	}
	return 0, int64(w.opts.Tables) * w.opts.TableSize
}

// ApproxRowBytes is a row's size (runner.RowSizer): id and k (4 bytes
// each), c CHAR(120) and pad CHAR(60), and the k index's entry.
func (w *Workload) ApproxRowBytes() int64 { return 200 }

// tableCount is the number of tables: --tables, or for bulk_insert the
// thread count.
func (w *Workload) tableCount() int {
	if w.test == BulkInsert {
		return w.threads
	}
	return w.opts.Tables
}

// usesTransactions says whether the test sends BEGIN/COMMIT.
func (w *Workload) usesTransactions() bool {
	switch w.test {
	case OLTPReadOnly, OLTPWriteOnly, OLTPReadWrite:
		return !w.opts.SkipTrx
	}
	return false
}

// Bind builds the statements for env's dialect (dialect.Sysbench) and checks
// the target can run the test. An option the product cannot honour (sharding
// on PostgreSQL, a sequence cache on MySQL) fails here, before any table is
// created.
func (w *Workload) Bind(env workload.Env) error {
	if err := target.NeedsSQL(w.Name(), env.Capabilities); err != nil {
		return err
	}
	if env.Dialect.Placeholder == "" {
		return errors.New("sysbench: the target's dialect is not set (no placeholder style)")
	}
	if env.Threads > 0 {
		w.threads = env.Threads
	}
	limit := env.Dialect.MaxBindParams
	if p := env.Capabilities.MaxBindParams; p > 0 && (limit == 0 || p < limit) {
		limit = p
	}
	var errs []error
	if w.usesTransactions() && !env.Capabilities.Transactions {
		errs = append(errs, fmt.Errorf("%s needs transactions (BEGIN/COMMIT), which the target does not offer; set skip-trx=on to run every statement in autocommit", w.test))
	}
	if w.test == BulkInsert && !env.Capabilities.MultiRowInsert {
		errs = append(errs, errors.New("bulk_insert needs multi-row INSERT, which the target does not offer"))
	}
	if limit > 0 && w.test == SelectRandomPoints && w.opts.RandomPoints > limit {
		errs = append(errs, fmt.Errorf("random-points=%d: more bind parameters than the target's limit of %d", w.opts.RandomPoints, limit))
	}
	if limit > 0 && w.test == SelectRandomRanges && 2*w.opts.NumberOfRanges > limit {
		errs = append(errs, fmt.Errorf("number-of-ranges=%d: %d bind parameters, more than the target's limit of %d", w.opts.NumberOfRanges, 2*w.opts.NumberOfRanges, limit))
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s: %w", w.Name(), errors.Join(errs...))
	}
	w.env = env
	if err := w.build(); err != nil {
		return fmt.Errorf("%s: %w", w.Name(), err)
	}
	cols := len(w.stmts.LoadColumns)
	switch {
	case !env.Capabilities.MultiRowInsert:
		w.loadRows = 1
	case limit > 0:
		w.loadRows = limit / cols
	default:
		w.loadRows = 0
	}
	w.maxBatch = w.loadRows
	w.tableLoad = env.Capabilities.TableLoad && w.test != BulkInsert
	if env.Capabilities.CopyFrom || w.tableLoad {
		w.maxBatch = 0
	}
	w.bound = true
	return nil
}

// build makes the statements for the bound dialect and the current table
// count.
func (w *Workload) build() error {
	o := &w.opts
	stmts, err := dialect.Sysbench(w.env.Dialect, dialect.SysbenchOptions{
		Tables:         w.tableCount(),
		TableSize:      o.TableSize,
		AutoInc:        o.AutoInc,
		Secondary:      o.Secondary,
		StorageEngine:  o.MySQLStorageEngine,
		SequenceCache:  o.SequenceCache,
		Sharding:       o.Sharding,
		SplitAt:        o.SplitAt,
		Presplit:       o.Presplit,
		RandomPoints:   o.RandomPoints,
		NumberOfRanges: o.NumberOfRanges,
	})
	if err != nil {
		return err
	}
	w.stmts = stmts
	n := w.tableCount()
	w.setupMu.Lock()
	w.setupDone = make([]bool, n)
	w.setupMu.Unlock()
	w.bulkNext = make([]atomic.Int64, n)
	return nil
}

// Statements returns the statements Bind built (for tests and tools).
func (w *Workload) Statements() dialect.SysbenchStatements { return w.stmts }

// MaxLoadBatch is the most rows one load statement carries (0 = no limit):
// the bind-parameter limit over the 3 or 4 columns for a multi-row INSERT, 1
// without multi-row INSERT, no limit with COPY. LoadBatch splits larger
// ranges, so it is an efficiency hint for the runner.
func (w *Workload) MaxLoadBatch() int { return w.maxBatch }

// LoadBatchSize implements workload.BatchSizer: a whole table on targets
// that load a table fastest in one go (target.Capabilities.TableLoad), so
// the load runs in parallel per table as sysbench's prepare does; else no
// preference.
func (w *Workload) LoadBatchSize() int64 {
	if w.tableLoad {
		return w.opts.TableSize
	}
	return 0
}

// Schema lists sbtest1..sbtestN with their CREATE TABLE in the bound dialect
// (nil before Bind): --tables tables, or for bulk_insert one per thread with
// bulk_insert.lua's columns. Statements that complete a table (a sequence
// cache, pre-splits) run before its first row is loaded, or in PostLoad when
// nothing is loaded.
func (w *Workload) Schema() []workload.Table {
	if !w.bound {
		return nil
	}
	out := make([]workload.Table, 0, len(w.stmts.Tables))
	for _, t := range w.stmts.Tables {
		create := t.Create
		if w.test == BulkInsert {
			create = t.BulkCreate
		}
		out = append(out, workload.Table{Name: t.Name, Create: create})
	}
	return out
}

// setupStatements are the statements that complete table n (1-based). On
// targets that load a table in one go, the secondary index is one of them:
// it is defined while the table is empty and the engine builds it from the
// sorted rows at the load's commit, in place of sysbench's CREATE INDEX
// after the load (the same index; one pass over the data fewer).
func (w *Workload) setupStatements(n int) []string {
	t := w.stmts.Tables[n-1]
	if w.test == BulkInsert {
		return t.BulkSetup
	}
	if w.tableLoad && w.opts.CreateSecondary {
		return append(append([]string(nil), t.Setup...), t.CreateIndex)
	}
	return t.Setup
}

// ensureSetup runs table n's setup statements on c once per Workload; other
// callers wait for it. A failure is returned and retried by the next caller.
func (w *Workload) ensureSetup(ctx context.Context, c target.Conn, n int) error {
	w.setupMu.Lock()
	defer w.setupMu.Unlock()
	if w.setupDone[n-1] {
		return nil
	}
	for _, st := range w.setupStatements(n) {
		if _, err := c.Exec(ctx, st); err != nil {
			return fmt.Errorf("sysbench: completing table sbtest%d with %q: %w", n, st, err)
		}
	}
	w.setupDone[n-1] = true
	return nil
}

// PostLoad finishes the tables as sysbench's prepare does after inserting
// the rows: any setup statement not yet run (a load of no rows), then with
// --create-secondary CREATE INDEX k_N ON sbtestN(k) on every table (on
// targets that load a table in one go, the index came with the setup).
// bulk_insert creates no index.
func (w *Workload) PostLoad(ctx context.Context, c target.Conn) error {
	if !w.bound {
		return errors.New("sysbench: PostLoad before Bind")
	}
	for n := 1; n <= len(w.stmts.Tables); n++ {
		if err := w.ensureSetup(ctx, c, n); err != nil {
			return err
		}
	}
	if w.test == BulkInsert || !w.opts.CreateSecondary || w.tableLoad {
		return nil // no index, or created with the table's setup
	}
	for _, t := range w.stmts.Tables {
		if _, err := c.Exec(ctx, t.CreateIndex); err != nil {
			return fmt.Errorf("sysbench: %s: %w", t.CreateIndex, err)
		}
	}
	return nil
}

// workerRand returns the generator of worker id: the runner's r, or with
// --rand-seed a source of its own derived from that seed.
func (w *Workload) workerRand(id int, r *rand.Rand) *rand.Rand {
	if w.opts.RandSeed == 0 {
		return r
	}
	return rand.New(rand.NewSource(w.opts.RandSeed*0x2545F4914F6CDD1D + int64(id) + 1))
}

// uniqueSeq returns the shared sysbench.rand.unique() sequence, seeded once
// from the runner's generator of the first worker created (worker 0 when the
// runner creates them in order), also with --rand-seed: sysbench seeds the
// sequence apart from --rand-seed, so that runs with one seed do not insert
// the same ids again (oltp_insert with client ids). candor's run seed
// (--seed, recorded) still reproduces it.
func (w *Workload) uniqueSeq(r *rand.Rand) *keydist.SysbenchUnique {
	w.uniqueOnce.Do(func() {
		w.unique = keydist.NewSysbenchUniqueRand(r)
	})
	return w.unique
}

// DataSignature names the options that decide what one prepared table
// holds: its shape and its rows (the CLI reloads a table prepared with other
// shape options, or with fewer rows than a run needs; see Serves). The
// number of tables is left out: a test may use fewer tables than were
// prepared.
func (w *Workload) DataSignature() string {
	return w.ShapeSignature() + " " + w.Holds()
}

// ShapeSignature implements workload.TableReuser: the options the table's
// definition depends on, by their names, and the kind of test (bulk_insert's
// tables differ from the others').
func (w *Workload) ShapeSignature() string {
	o := &w.opts
	return fmt.Sprintf("schema=%s auto-inc=%t secondary=%t create-secondary=%t mysql-storage-engine=%s sequence-cache=%d sharding=%s split-at=%v presplit=%d",
		w.schemaKind(), o.AutoInc, o.Secondary, o.CreateSecondary, o.MySQLStorageEngine, o.SequenceCache, o.Sharding, o.SplitAt, o.Presplit)
}

// Holds implements workload.TableReuser: the rows one prepared table holds
// and the options its k values were drawn with, in sysbench's option names.
func (w *Workload) Holds() string {
	o := &w.opts
	var b strings.Builder
	fmt.Fprintf(&b, "rows=%d rand-type=%s", w.preparedRows(), o.RandType)
	switch o.RandType {
	case "special":
		fmt.Fprintf(&b, " rand-spec-iter=%d rand-spec-pct=%d rand-spec-res=%d", o.RandSpecIter, o.RandSpecPct, o.RandSpecRes)
	case "pareto":
		fmt.Fprintf(&b, " rand-pareto-h=%g", o.RandParetoH)
	}
	if o.RandSeed != 0 {
		fmt.Fprintf(&b, " rand-seed=%d", o.RandSeed)
	}
	return b.String()
}

// Serves implements workload.TableReuser as sysbench behaves: a run draws
// ids 1..--table-size, so a table of at least that many rows serves it, and
// sysbench uses it whatever options its k values were drawn with (the
// select_random tests, which select by k, then find the k values that table
// holds; the run's result records them). A test that needs an empty table
// (oltp_insert with client ids) is served by an empty one only.
func (w *Workload) Serves(holds string) bool {
	for _, word := range strings.Fields(holds) {
		if v, ok := strings.CutPrefix(word, "rows="); ok {
			rows, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return false
			}
			need := w.preparedRows()
			return rows >= need && (need > 0 || rows == 0)
		}
	}
	return false
}

// preparedRows is the number of rows prepare puts in each table: 0 where
// it prepares them empty (oltp_insert with client ids, bulk_insert).
func (w *Workload) preparedRows() int64 {
	if _, count := w.LoadRange(); count == 0 {
		return 0
	}
	return w.opts.TableSize
}

func (w *Workload) schemaKind() string {
	if w.test == BulkInsert {
		return "bulk_insert"
	}
	return "oltp"
}

// ErrNoPrewarm matches the errors of Prewarm where sysbench has no prewarm
// command: bulk_insert, and drivers other than MySQL's.
var ErrNoPrewarm = errors.New("no prewarm")

// noPrewarm says why, and is ErrNoPrewarm.
type noPrewarm struct{ why string }

func (e noPrewarm) Error() string        { return e.why }
func (e noPrewarm) Is(target error) bool { return target == ErrNoPrewarm }

// Prewarm is oltp_common.lua's prewarm command on one connection: worker
// thread of threads (0-based) takes tables thread+1, thread+1+threads, ...,
// tells say each table's name, runs ANALYZE TABLE and reads the primary key
// and the rows into the server's cache (dialect.SysbenchStatements.Prewarm).
func (w *Workload) Prewarm(ctx context.Context, c target.Conn, thread, threads int, say func(table string)) error {
	if w.test == BulkInsert {
		return noPrewarm{"bulk_insert has no prewarm command, as in sysbench"}
	}
	if _, err := w.stmts.Prewarm(1); err != nil {
		return noPrewarm{err.Error()}
	}
	for _, q := range dialect.PrewarmSession {
		if _, err := c.Exec(ctx, q); err != nil {
			return err
		}
	}
	for i := thread + 1; i <= w.opts.Tables; i += threads {
		stmts, err := w.stmts.Prewarm(i)
		if err != nil {
			return err
		}
		say(w.stmts.Tables[i-1].Name)
		for _, q := range stmts {
			if _, err := c.Query(ctx, q, nil, nil); err != nil {
				return err
			}
		}
	}
	return nil
}
