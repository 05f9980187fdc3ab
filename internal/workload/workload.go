// Package workload defines the contract between workloads and the runner, and
// the registry of workloads. A workload generates schema, initial data and
// operations; the runner alone owns looping, concurrency, pacing, duration,
// warm-up, retries and the error budget.
package workload

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/isolation/elle"
	"github.com/candor-bench/candor/internal/suggest"
	"github.com/candor-bench/candor/internal/target"
)

// OpID indexes Workload.Ops(); the runner keeps one histogram per OpID.
type OpID int

// Span lets a worker report a sub-operation it timed itself (YCSB's
// read-modify-write records its READ and UPDATE as well as the whole).
// Implementations are per worker and not safe for concurrent use.
type Span interface {
	Span(op OpID, start, end time.Time, err error)
}

// Counter is implemented by the Span the runner passes to Exec: a worker adds
// to its workload's named counters (CounterNamer) there, for instance
// sysbench's reads, writes and other queries. Counters and spans of an
// attempt cut short by the end of the phase are not counted, like the
// operation itself; those of a failed attempt that is retried are.
type Counter interface {
	Add(counter int, n int64)
}

// CounterNamer is implemented by workloads that keep counters besides
// operation latencies; Counters lists their names, indexed as in Add.
type CounterNamer interface {
	Counters() []string
}

// PostLoader is implemented by workloads that finish their schema after the
// load phase (sysbench creates its secondary index then).
type PostLoader interface {
	PostLoad(ctx context.Context, c target.Conn) error
}

// FreshSchemer is implemented by workloads whose tables must be empty at
// the start of every run (commit-loop); the CLI re-creates candor's tables
// before each run instead of reusing them.
type FreshSchemer interface {
	FreshSchema() bool
}

// TableReuser is implemented by workloads whose prepared tables serve runs
// with some other data options, and whose load phase creates its tables
// itself (sysbench: a run draws ids 1..--table-size from whatever the table
// holds, and prepare refuses a table that exists, as sysbench's CREATE TABLE
// does). The CLI records ShapeSignature and Holds in the mark of each table
// it creates, and a run whose data signature differs from the mark's reuses
// the table when the shapes match and Serves says so.
type TableReuser interface {
	// ShapeSignature names the options the tables' definition depends on,
	// as space-separated words NAME=VALUE (NAME the option's flag without
	// "--"; "schema" for what no option sets).
	ShapeSignature() string
	// Holds says what one loaded table holds, as space-separated
	// NAME=VALUE words without "=" or spaces in the values ("rows=1000000
	// rand-type=special ...").
	Holds() string
	// Serves reports whether a table whose mark says holds (an earlier
	// Holds) serves this run.
	Serves(holds string) bool
}

// PreRunner is implemented by workloads that check, before the measured
// phase, that the rows their operations address are on the server (sysbench
// addresses ids 1..--table-size, whatever ids the table holds). An error
// wrapping target.ErrUnsupported refuses the run: the CLI exits 4 before
// measuring anything; other errors (a lost session) fail it as a phase's.
type PreRunner interface {
	PreRun(ctx context.Context, c target.Conn) error
}

// PostRunner is implemented by workloads that read figures from the server
// after the run phase (commit-loop's server-side rate). The figures are
// stored in the phase's result as derived values.
type PostRunner interface {
	PostRun(ctx context.Context, c target.Conn) (map[string]float64, error)
}

// PhaseFigures are what the runner measured in a run phase, as a
// Deriver reads them: the measured seconds, the operations that succeeded
// per operation name, and the workload's counters.
type PhaseFigures struct {
	DurationSec float64
	Done        map[string]int64
	Counters    map[string]int64
}

// Deriver is implemented by workloads whose headline figures are computed
// from the run phase's counts (TPC-C's tpmC: New-Orders per minute). The
// figures are stored in the phase's result as derived values, beside any
// a PostRunner read.
type Deriver interface {
	Derive(f PhaseFigures) map[string]float64
}

// Option describes one workload option the CLI offers as a flag
// (--table-size ...); a set flag reaches Entry.New as "name=value".
type Option struct {
	Name    string // flag name without dashes, e.g. "table-size"
	Default string
	Usage   string
	// Type is the value's type as help shows it and the CLI checks it:
	// one of the Option* type names; "" means the type of Default
	// (OptionType).
	Type string
}

// Option value types.
const (
	OptionInt      = "int"
	OptionFloat    = "float"
	OptionBool     = "bool" // on/off, true/false, 1/0
	OptionDuration = "duration"
	OptionString   = "string"
)

// OptionType is o.Type, or when empty the type its Default reads as: bool
// for on/off/true/false, int for a whole number, float for a decimal one,
// else string.
func (o Option) OptionType() string {
	if o.Type != "" {
		return o.Type
	}
	switch strings.ToLower(o.Default) {
	case "on", "off", "true", "false":
		return OptionBool
	}
	if _, err := strconv.ParseInt(o.Default, 10, 64); err == nil {
		return OptionInt
	}
	if _, err := strconv.ParseFloat(o.Default, 64); err == nil {
		return OptionFloat
	}
	return OptionString
}

// Worker performs one operation per Exec. It is used by one goroutine.
type Worker interface {
	// Next chooses the next operation (keys, values) from the worker's
	// seeded generator without any I/O and returns its OpID.
	Next() OpID
	// Exec performs the operation chosen by the last Next on c. The runner
	// may call Exec again with the same choice to retry it, possibly on a new
	// connection after a reconnect.
	Exec(ctx context.Context, c target.Conn, s Span) error
	// Done reports the final outcome of the chosen operation after retries
	// (nil on success). YCSB run-phase inserts acknowledge their key here.
	Done(err error)
}

// Finisher is implemented by workers that have statements left to send when
// their run phase ends, as sysbench's thread_done does (bulk_insert's last,
// partial multi-row INSERT). The runner calls Finish once per worker after
// its last operation, on the worker's connection, unless the phase was
// interrupted. What it counts through s counts; it is not an operation.
type Finisher interface {
	Finish(ctx context.Context, c target.Conn, s Span) error
}

// Historian is implemented by workloads that record every transaction of
// a run phase for an isolation checker (isolation/list-append). After each
// run phase the engine calls TakeHistory, writes the history beside the
// result and checks it (internal/isolation/elle); TakeHistory returns the
// transactions recorded since the last call and forgets them. It is called
// when the phase's workers have stopped.
type Historian interface {
	TakeHistory() []elle.Txn
}

// Ledgered is implemented by workloads whose writes can carry a durability
// ledger (the ledger workload; commit-loop with --ledger): every write has
// an id unique in the run (ledger.ID of the worker and its sequence), and
// the ids on the server can be read back.
type Ledgered interface {
	// EnableLedger turns the ledger on (before Bind); workloads that always
	// keep one accept it as is.
	EnableLedger() error
	// LedgerTable is the table the ids are read back from.
	LedgerTable() string
	// ReadBack calls fn with every write id found on the server (an id
	// twice when it is there twice).
	ReadBack(ctx context.Context, c target.Conn, fn func(id int64)) error
}

// LedgerOwner is implemented by Ledgered workloads whose table carries
// its owner, the run and repetition that created it (internal/ledger's
// Owner), so that a later read-back can tell its own table from one
// re-created by another run, another repetition or by hand.
type LedgerOwner interface {
	// WriteOwner records owner (ledger.Owner's text) in the table; rep is
	// its repetition.
	WriteOwner(ctx context.Context, c target.Conn, owner string, rep int) error
	// Owners returns the owners the table records (none: no candor ledger
	// created it).
	Owners(ctx context.Context, c target.Conn) ([]string, error)
}

// SharedLedger is implemented by Ledgered workloads that the shards of one
// run (--shard i/N) write together: one table, which the first shard
// creates and the others join, and writer ids qualified by the shard.
type SharedLedger interface {
	// ShareLedger, before Bind: the table is the run's (run: the id the
	// shards share), kept rather than created anew when it already is,
	// and the workers are numbered from first.
	ShareLedger(run string, first int)
	// FirstWriter is the number of worker 0 in write ids (0 unless
	// shared).
	FirstWriter() int
}

// LedgerWorker is implemented by the workers of a Ledgered workload:
// WriteID is the id of the write chosen by the last Next.
type LedgerWorker interface {
	WriteID() int64
}

// Loader inserts the initial data in batches.
type Loader interface {
	// LoadBatch inserts records [from, to) of the load range.
	LoadBatch(ctx context.Context, c target.Conn, from, to int64) error
}

// NoLoad is the Loader of a workload whose LoadRange is empty (commit-loop,
// ledger): it is never given records, and says so if it is. Workload names
// the workload in that error.
type NoLoad struct{ Workload string }

// LoadBatch refuses any record: there is nothing to load.
func (n NoLoad) LoadBatch(_ context.Context, _ target.Conn, from, to int64) error {
	if from < to {
		return fmt.Errorf("%s has no load phase (asked for records %d..%d)", n.Workload, from, to-1)
	}
	return nil
}

// ProgressLoader is implemented by loaders whose batches can be long (a
// whole table in one statement). Before each batch the runner calls
// SetProgress with a function the loader calls with the records of that
// batch written so far, so the progress bar moves during the batch.
type ProgressLoader interface {
	SetProgress(func(written int64))
}

// BatchSizer is implemented by workloads that know a better load batch than
// the runner's default (a whole table where the target loads a table
// fastest in one go). LoadBatchSize returns 0 for no preference; a batch
// size given by the user wins.
type BatchSizer interface {
	LoadBatchSize() int64
}

// BatchEnder is implemented by workloads whose load batches are not all of
// one size (a whole table each where the target loads a table fastest in
// one go, and the tables differ in size). LoadBatchEnd returns the end
// (exclusive) of the batch that begins at record from, or 0 for the fixed
// batch size. A batch size given by the user wins.
type BatchEnder interface {
	LoadBatchEnd(from int64) int64
}

// Env is what a workload learns about the target before it builds
// statements: its dialect and capabilities. No connection is open yet.
type Env struct {
	Dialect      dialect.Dialect
	Capabilities target.Capabilities
	// Threads is the number of run-phase workers (0 when unknown, as for
	// cleanup). Workloads that partition by worker (sysbench's bulk_insert
	// tables, select_random_* key slices) read it in Bind.
	Threads int
	// Classify and ServerError are the target's (target.Target's Classify
	// and target.ServerErrorOf), for workloads that tell errors apart
	// themselves (a sysbench Lua script's errdesc); nil when unknown.
	Classify    func(error) target.ErrorClass
	ServerError func(error) (target.ServerError, bool)
}

// Limits are run-phase defaults a workload's own configuration carries (a
// YCSB property file's operationcount, threadcount, target, maxexecutiontime).
// Command-line flags override them. Zero means unset.
type Limits struct {
	Operations int64
	// FixedOperations says Operations is part of the workload's definition
	// (commit-loop's rows per job) and applies even when --time is given.
	FixedOperations bool
	Threads         int
	Rate            float64
	Duration        time.Duration
	// LoadRetries and LoadRetryInterval are the load phase's retry policy
	// for a failed batch (YCSB's core_workload_insertion_retry_*).
	LoadRetries       int
	LoadRetryInterval time.Duration
	// Retries is the default of --retries for the run phase; -1 means
	// without limit (sysbench restarts an event until it succeeds).
	Retries int
	// RetryClasses are the error classes retried; nil means retryable and
	// connection. sysbench also restarts on unique violations.
	RetryClasses []target.ErrorClass
	// StopOnError ends the run at the first operation that fails with an
	// error of a class outside RetryClasses (sysbench's FATAL); otherwise
	// such an operation counts as failed and the run goes on (YCSB).
	StopOnError bool
	// AbortClient stops a worker at its first operation that fails with an
	// error outside RetryClasses, a lost session apart (pgbench's client
	// abort): the phase goes on with the other workers, ends when the last
	// has stopped, and is failed. In an open loop the first such error
	// ends the phase, as StopOnError.
	AbortClient bool
	// SharedOperations makes a closed-loop run's operation count one
	// budget the workers draw from as they go (sysbench's --events), not
	// an equal share per worker (YCSB's operationcount).
	SharedOperations bool
	// FinishInFlight says the reference tool lets the operation each worker
	// has in flight at the duration's end finish and counts it (pgbench's
	// -T, sysbench's --time); candor's own workloads cut it short and count
	// it unfinished.
	FinishInFlight bool
}

// ErrStopRun, wrapped in an operation's error, ends the run phase as
// failed whatever Limits.StopOnError says (a sysbench Lua script's fatal
// SQL error, where its Lua errors count against the error budget).
var ErrStopRun = errors.New("the error ends the run")

// AbortDescriber words, for a workload with Limits.AbortClient, the line
// shown at once when a client stops at err (pgbench's "client 0 script 0
// aborted in command 1 query 0: ..."); client is the 0-based worker.
type AbortDescriber interface {
	AbortMessage(client int, err error) string
}

// Table is one table a workload creates.
type Table struct {
	Name   string
	Create string // one CREATE TABLE statement
}

// Workload is one configured workload. Methods other than NewWorker and
// NewLoader are called once, from one goroutine.
type Workload interface {
	// Name is the registry name with its variant ("ycsb/a").
	Name() string
	// Reference names the reference implementation it matches ("YCSB 0.17.0 CoreWorkload").
	Reference() string
	// Ops lists operation names, indexed by OpID ("READ", "UPDATE", ...).
	Ops() []string
	// Options returns the fully resolved options for the result file (JSON-encodable).
	Options() any
	// Ignored lists input properties the workload accepted but does not use.
	Ignored() []string
	// Limits returns the run-phase defaults from the workload's configuration.
	Limits() Limits
	// Bind prepares statements for the target; it fails before any
	// connection is made when the target lacks a needed capability.
	Bind(env Env) error
	// Schema lists the tables the workload creates and owns, with their
	// CREATE statements in the bound dialect (valid after Bind). The CLI
	// creates them through target.CreateOwned so each is marked as candor's.
	Schema() []Table
	// LoadRange is the range of record numbers the load phase inserts:
	// [start, start+count).
	LoadRange() (start, count int64)
	// NewLoader returns a loader for one load worker.
	NewLoader(worker int, r *rand.Rand) Loader
	// NewWorker returns a run-phase worker with its own generator.
	NewWorker(worker int, r *rand.Rand) Worker
}

// Entry describes a registered workload.
type Entry struct {
	Name     string   // "ycsb"
	Variants []string // "a".."f": selectable as name/variant
	// VariantDescriptions gives each variant its one line for `candor list`.
	VariantDescriptions map[string]string
	// Options are offered as command-line flags of run, load and cleanup.
	Options     []Option
	Description string // one line for `candor list`
	Reference   string
	// New builds the workload. variant is "" for the base name; props are
	// key=value overrides in the order given; files are property files.
	New func(variant string, files []string, props []string) (Workload, error)
}

var (
	regMu   sync.RWMutex
	entries = map[string]Entry{}
)

// Register adds a workload; it panics on a duplicate name (caught at init).
func Register(e Entry) {
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := entries[e.Name]; dup {
		panic("workload: registered twice: " + e.Name)
	}
	entries[e.Name] = e
}

// Entries returns all workloads sorted by name.
func Entries() []Entry {
	regMu.RLock()
	defer regMu.RUnlock()
	out := make([]Entry, 0, len(entries))
	for _, e := range entries {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// ErrUnknown marks an unknown workload name.
var ErrUnknown = errors.New("unknown workload")

// Lookup resolves "name" or "name/variant".
func Lookup(full string) (Entry, string, error) {
	name, variant, _ := strings.Cut(full, "/")
	regMu.RLock()
	e, ok := entries[name]
	regMu.RUnlock()
	if !ok {
		return Entry{}, "", fmt.Errorf("%w %q%s; valid workloads: %s", ErrUnknown, full, didYouMean(full), strings.Join(Names(), ", "))
	}
	if variant != "" {
		found := false
		for _, v := range e.Variants {
			found = found || v == variant
		}
		if !found {
			return Entry{}, "", fmt.Errorf("%w %q%s; valid workloads: %s", ErrUnknown, full, didYouMean(full), strings.Join(Names(), ", "))
		}
	}
	return e, variant, nil
}

// didYouMean is "; did you mean ...?" for a mistyped workload name: a
// near name (tpc-c: tpcc), a variant named without its workload
// (oltp_read_write: sysbench/oltp_read_write) or YCSB's file name of a
// core workload (ycsb/workloada, workloada: ycsb/a).
func didYouMean(full string) string {
	names := Names()
	if c := suggest.Closest(full, names); len(c) > 0 {
		return " (did you mean " + strings.Join(c, " or ") + "?)"
	}
	word := full[strings.LastIndex(full, "/")+1:]
	if v, ok := strings.CutPrefix(word, "workload"); ok && len(v) == 1 {
		word = v // YCSB's workloads/workloada
	}
	var same, near []string
	for _, n := range names {
		prefix, v, ok := strings.Cut(n, "/")
		switch {
		case !ok:
		case v == word:
			same = append(same, n)
		case (full == word || strings.HasPrefix(full, prefix+"/")) && len(suggest.Closest(word, []string{v})) > 0:
			near = append(near, n)
		}
	}
	if len(same) == 0 {
		same = near
	}
	if len(same) == 0 || len(same) > 3 {
		return ""
	}
	return " (did you mean " + strings.Join(same, " or ") + "?)"
}

// Names lists every selectable name, variants included.
func Names() []string {
	var out []string
	for _, e := range Entries() {
		out = append(out, e.Name)
		for _, v := range e.Variants {
			out = append(out, e.Name+"/"+v)
		}
	}
	return out
}

// Warner is implemented by workloads with something to tell the user about
// their input that does not stop the run (unknown property keys, an old
// class name read as the new one). The CLI prints each warning as one line
// on stderr.
type Warner interface {
	Warnings() []string
}

// utf8BOM is the byte order mark some editors put at the start of a file.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// PropertyText checks that data, the content of the property file name, is
// text and returns it without a leading UTF-8 byte order mark (which would
// otherwise become part of the first key). A file holding NUL bytes or
// control characters other than tab, line feed, form feed and carriage
// return is refused: it is not a property file (a binary given by mistake).
func PropertyText(name string, data []byte) ([]byte, error) {
	data = bytes.TrimPrefix(data, utf8BOM)
	for i, c := range data {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\f' && c != '\r' || c == 0x7f {
			line := bytes.Count(data[:i], []byte{'\n'}) + 1
			return nil, fmt.Errorf("%s is not a property file: it holds binary data (byte 0x%02x on line %d); give a text file of key=value lines", name, c, line)
		}
	}
	return data, nil
}

// CheckResult is one check of the data a run leaves on the server
// (TPC-C's consistency conditions, bank's total balance, ids without
// duplicates): whether it held, and how many rows (or groups of rows)
// break it.
type CheckResult struct {
	Name      string // what is checked, as the reference words it
	Passed    bool
	Offending int64  // rows or groups that break it (0 when Passed)
	Detail    string // what was found: the first offenders, counts
}

// Checker is implemented by workloads that can check the data on the
// server after a run (`candor run --check`, `candor check WORKLOAD`). An
// error means the check could not be made (a lost session), not that the
// data is wrong: a failed check is a CheckResult with Passed false.
type Checker interface {
	Check(ctx context.Context, c target.Conn) ([]CheckResult, error)
}

// CheckBaseliner is implemented by Checkers whose checks compare the data
// after a run with the data before it (YCSB's row count: the rows there
// before plus the inserts acknowledged). With --check the engine calls
// BeforeRun before each run phase, on a session of its own.
type CheckBaseliner interface {
	BeforeRun(ctx context.Context, c target.Conn) error
}

// IntervalChecker is implemented by workloads with an invariant that must
// hold at every instant of a run, not only after it (bank's total
// balance). The engine calls IntervalCheck once per report interval during
// the run phase, on a session of its own, concurrently with the workers;
// each call must read in one snapshot. Such workloads are checked during
// and after every run, --check or not.
type IntervalChecker interface {
	Checker
	IntervalCheck(ctx context.Context, c target.Conn) ([]CheckResult, error)
}

// Script is a user's script a workload runs (a pgbench script, a
// sysbench Lua script) as it was read: its name as the user gave it (a
// path), the SHA-256 of its text in hex, and the text. The run's Spec
// records its scripts, so a rerun runs the same text wherever it runs.
type Script struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
	Text   string `json:"text"`
}

// Scripted is implemented by workloads that run users' scripts. The engine
// calls ScriptNames after the workload is built, reads each named script
// (from the Spec when it records one of that name, else from the file),
// and hands the texts to SetScripts before Bind; SetScripts parses them,
// and its error (a syntax error, with file:line) refuses the run as bad
// input. ScriptNames may name more scripts after SetScripts (the files a
// script requires): the engine then reads those too and calls SetScripts
// again with them all, until the names stop growing.
type Scripted interface {
	ScriptNames() []string
	SetScripts(scripts []Script) error
}
