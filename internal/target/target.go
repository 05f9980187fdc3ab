// Package target defines what candor needs from a database endpoint: a driver
// registry keyed by URL scheme, one connection per worker, declared
// capabilities, a fingerprint of the settings that decide comparability, and a
// classification of errors. Drivers live in sub-packages and register
// themselves from init; they never import the runner, reports or the CLI.
package target

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/candor-bench/candor/internal/dialect"
)

// Capabilities declares, as data, what a target can do. Workloads check them
// before connecting and fail naming what is missing; nothing in a workload or
// the runner branches on a product name.
type Capabilities struct {
	Transactions   bool `json:"transactions"`     // BEGIN/COMMIT on one connection
	CopyFrom       bool `json:"copy_from"`        // bulk load protocol; the Conn implements Copier
	MultiRowInsert bool `json:"multi_row_insert"` // INSERT ... VALUES (...), (...)
	MaxBindParams  int  `json:"max_bind_params"`  // bind parameters in one statement; 0 = no limit
	Embedded       bool `json:"embedded"`         // runs inside the candor process (no server)
	// TableLoad: a whole empty table loads fastest in one transaction with
	// its secondary indexes already defined (MariaDB's bulk insert into an
	// empty table sorts the rows and builds every index in one pass at
	// commit); the Conn implements TableLoader.
	TableLoad bool `json:"table_load,omitempty"`
	// BlockingSessions: a session can wait for its server in a blocking
	// system call that holds its thread (package blockconn) or in Go's
	// network poller, as its Connect context asks (SessionIOFrom; blocking
	// unless it asks otherwise). In a run phase with blocking sessions the
	// runner gives every worker a scheduler P of its own
	// (blockconn.Reserve). Load phases, whose sessions mostly send, block
	// and leave GOMAXPROCS alone.
	BlockingSessions bool `json:"blocking_sessions,omitempty"`
	// PollerFrom: with BlockingSessions, the sessions per client core from
	// which a run phase's sessions are better off waiting in Go's network
	// poller, where one thread serves every session whose reply has come
	// (see SessionIO); 0: never. A run whose operations are multi-statement
	// transactions waits for four times as many, and sessions to a server
	// on this machine under per-thread scheduling never do (ChooseSessionIO).
	PollerFrom int `json:"poller_from,omitempty"`
	// QueryLanguage is the language the target's statements are written
	// in: "" (LanguageSQL) for SQL, LanguageCQL for the Cassandra Query
	// Language, which has no joins, no ORDER BY across partitions and no
	// multi-statement transactions. A workload whose statements exist only
	// in SQL refuses a target without SQL in Bind, before anything is
	// created.
	QueryLanguage string `json:"query_language,omitempty"`
}

// Query languages of Capabilities.QueryLanguage.
const (
	LanguageSQL = ""
	LanguageCQL = "cql"
)

// SQL reports whether the target runs SQL statements.
func (c Capabilities) SQL() bool { return c.QueryLanguage == LanguageSQL }

// ErrNeedsSQL is returned (wrapped) by Bind of workloads whose statements
// exist only in SQL, on a target that speaks another language.
var ErrNeedsSQL = errors.New("the workload needs a SQL target")

// NeedsSQL returns nil when caps runs SQL, else an error wrapping
// ErrNeedsSQL and ErrUnsupported that names the workload, the target's
// language and what to run instead.
func NeedsSQL(workload string, caps Capabilities) error {
	if caps.SQL() {
		return nil
	}
	return fmt.Errorf("%w: %s: %w: its statements are SQL, and this target speaks %s; run it on a SQL target (PostgreSQL, MySQL, SQLite), or run a workload with %s statements (ycsb)",
		ErrUnsupported, workload, ErrNeedsSQL, strings.ToUpper(caps.QueryLanguage), strings.ToUpper(caps.QueryLanguage))
}

// SessionIO is how a session waits for its server's reply.
type SessionIO string

const (
	// IOBlocking: in a blocking system call that holds the session's
	// thread, as libpq and libmysqlclient wait (package blockconn). Cheapest
	// when few sessions share a core: the kernel wakes the one thread whose
	// reply came, and the Go scheduler is not involved.
	IOBlocking SessionIO = "blocking"
	// IOPoller: in Go's network poller. Cheapest when many sessions share a
	// core: a thread that finds its session's reply missing runs another
	// session whose reply has come, without a thread switch.
	IOPoller SessionIO = "poller"
	// IOLoop: in an event loop of candor's own (package evloop): a few
	// threads each serve many sessions as coroutines and wait for all of
	// their replies in one system call, as pgbench's threads do (-j). The
	// runner's Config.Loops sets how many.
	IOLoop SessionIO = "loop"
	// IOAuto asks ChooseSessionIO to choose by the target's PollerFrom and
	// by how the kernel shares the cores with a server on this machine.
	IOAuto SessionIO = "auto"
)

// ValidSessionIO returns nil when s is a value --session-io accepts ("" is
// IOAuto), else an error naming s and listing the valid values.
func ValidSessionIO(s SessionIO) error {
	switch s {
	case "", IOAuto, IOBlocking, IOPoller, IOLoop:
		return nil
	}
	return fmt.Errorf("--session-io %q is not valid; use auto, blocking, poller or loop", s)
}

// ChooseSessionIO returns the session I/O of a run phase with sessions
// sessions on cores client cores, on a target with caps. A target without
// BlockingSessions has no choice: "" (IOAuto requested) or an error wrapping
// ErrUnsupported (a mode requested). Otherwise a requested IOBlocking or
// IOPoller is returned as it is, and IOAuto ("" too) chooses IOPoller from
// caps.PollerFrom sessions per core, whatever the operations (measured on
// every sysbench test and YCSB workload, docs/BENCHMARKS.md §7),
// IOBlocking below, and
// always IOBlocking when threadFair says that the server runs on the
// client's machine and the kernel shares the cores among threads rather
// than among sessions (Linux with autogroups off). The kernel then weighs
// the poller's few threads one by one against the server's many, and at 16
// sessions on 2 cores the poller lost to blocking sessions where with
// autogroups on it had won (docs/BENCHMARKS.md §7).
func ChooseSessionIO(caps Capabilities, requested SessionIO, sessions, cores int, threadFair bool) (SessionIO, error) {
	if err := ValidSessionIO(requested); err != nil {
		return "", err
	}
	auto := requested == "" || requested == IOAuto
	switch {
	case !caps.BlockingSessions && auto:
		return "", nil
	case !caps.BlockingSessions:
		return "", fmt.Errorf("--session-io %s: %w: only PostgreSQL- and MySQL-wire sessions can choose how they wait; leave --session-io at auto", requested, ErrUnsupported)
	case !auto:
		return requested, nil
	}
	if threadFair {
		return IOBlocking, nil
	}
	if from := caps.PollerFrom; from > 0 && sessions >= from*max(cores, 1) {
		return IOPoller, nil
	}
	return IOBlocking, nil
}

type sessionIOKey struct{}

// WithSessionIO returns ctx carrying io for the sessions connected under it;
// drivers with BlockingSessions read it when they dial (SessionIOFrom).
func WithSessionIO(ctx context.Context, io SessionIO) context.Context {
	return context.WithValue(ctx, sessionIOKey{}, io)
}

// SessionIOFrom returns the session I/O ctx carries, IOBlocking when none
// (load phases and every other connection).
func SessionIOFrom(ctx context.Context) SessionIO {
	if io, ok := ctx.Value(sessionIOKey{}).(SessionIO); ok && io != "" {
		return io
	}
	return IOBlocking
}

// Conn is one dedicated session to the target. A Conn is used by one goroutine
// at a time; the runner gives each worker its own.
type Conn interface {
	// Exec runs a statement that returns no rows and reports the rows it
	// affected. Statements are prepared and cached per connection.
	Exec(ctx context.Context, sql string, args ...any) (int64, error)
	// Query runs a statement and calls fn once per row with the raw column
	// values in select-list order (nil for SQL NULL). The slices are valid only
	// during the call. It returns the number of rows read. An error from fn
	// stops the query and is returned. A nil fn discards the rows: the
	// statement runs to its end and its rows are received, but they are
	// neither decoded nor counted, and Query returns 0 (sysbench's reads,
	// whose values nobody looks at).
	Query(ctx context.Context, sql string, args []any, fn func(cols [][]byte) error) (int, error)
	// Close ends the session. It is safe to call more than once.
	Close() error
}

// Interrupter is implemented by connections that can abort a statement in
// flight from another goroutine, without a cancellable context. The runner
// runs statements on such connections under a context whose Done channel is
// nil, so drivers register no cancellation watcher per statement (pgx and
// database/sql start one for every call with a cancellable context, a
// large share of a short query's client CPU), and calls Interrupt when the
// phase ends or is interrupted while a statement is still running. Interrupt
// may be called concurrently with a statement, and more than once; the
// statement in flight then fails (its error classifies as connection or
// timeout) and the connection is unusable afterwards. It must return
// promptly.
type Interrupter interface {
	Interrupt()
}

// Preparer is implemented by connections that send a statement without
// arguments as plain text from Exec (so that several ;-separated statements
// may go at once) but can also run it as a prepared statement: ExecPrepared
// prepares sql once per session, caches it as Exec caches statements with
// arguments, executes it and returns the rows it affected. sysbench prepares
// its BEGIN and COMMIT (--db-ps-mode=auto), and the sysbench workload sends
// them this way to do the same.
type Preparer interface {
	ExecPrepared(ctx context.Context, sql string) (int64, error)
}

// ColumnNamer is implemented by connections that can name the columns of
// the result the last Query read (pgbench's \gset stores each column in
// the variable of its name). ResultColumns is valid until the next
// statement on the connection.
type ColumnNamer interface {
	ResultColumns() []string
}

// TableLoader is implemented by connections of targets with
// Capabilities.TableLoad. LoadTable writes n rows into table, which must be
// empty, in one transaction of its own on this session; row(i, dst) appends
// row i's values (in columns order) to dst[:0] and returns it. progress, when
// not nil, is called from time to time with the rows sent so far. It returns
// n, or an error and then nothing is loaded (a row the server would skip,
// such as a duplicate key, fails the whole load).
type TableLoader interface {
	LoadTable(ctx context.Context, table string, columns []string, n int64,
		row func(i int64, dst []any) []any, progress func(sent int64)) (int64, error)
}

// Copier is implemented by connections with a bulk-load protocol (COPY on
// PostgreSQL). rows holds one []any per row in column order.
type Copier interface {
	CopyFrom(ctx context.Context, table string, columns []string, rows [][]any) (int64, error)
}

// Target is an opened endpoint: it hands out connections and describes itself.
// It is safe for concurrent use.
type Target interface {
	// Driver is the registry name of the driver that opened it ("postgres").
	Driver() string
	// RedactedURL is the URL with any password replaced by "xxxxx".
	RedactedURL() string
	Dialect() dialect.Dialect
	Capabilities() Capabilities
	// Connect opens one new session, bounded by the connect timeout.
	Connect(ctx context.Context) (Conn, error)
	// Fingerprint reads product, version and comparability settings.
	Fingerprint(ctx context.Context) (Fingerprint, error)
	// Classify maps an error returned by this target's connections to a class.
	Classify(err error) ErrorClass
	Close() error
}

// ServerError is what a database server said about a failed statement.
type ServerError struct {
	Code    int    // the server's error number (MySQL wire); 0 where there is none (PostgreSQL)
	State   string // SQLSTATE
	Message string // the server's message, without the driver's decoration
}

// ServerErrorer is implemented by targets whose driver errors carry the
// server's error: ServerError finds it in err's chain.
type ServerErrorer interface {
	ServerError(err error) (ServerError, bool)
}

// ServerErrorOf is t's ServerError for err, when t's driver has one in err.
func ServerErrorOf(t Target, err error) (ServerError, bool) {
	if s, ok := t.(ServerErrorer); ok {
		return s.ServerError(err)
	}
	return ServerError{}, false
}

// NotSender is implemented by targets whose driver can tell that a failed
// statement never reached the server (pgconn.SafeToRetry).
type NotSender interface {
	NotSent(err error) bool
}

// NotSent reports whether t's driver knows err happened before anything of
// the statement was sent: it cannot have been executed.
func NotSent(t Target, err error) bool {
	if s, ok := t.(NotSender); ok {
		return s.NotSent(err)
	}
	return false
}

// Options are driver-independent settings for opening a target.
type Options struct {
	// ConnectTimeout bounds every connection attempt. Default 10 s.
	ConnectTimeout time.Duration
	// Isolation is the transaction isolation level every new session is set
	// to: "read-uncommitted", "read-committed", "repeatable-read" or
	// "serializable"; "" keeps the server's default. Drivers refuse a level
	// their product cannot provide (SQLite accepts only "serializable").
	Isolation string
}

// isolationLevels are the values Options.Isolation accepts besides "".
var isolationLevels = []string{"read-uncommitted", "read-committed", "repeatable-read", "serializable"}

// ValidIsolation returns nil when s is a value Options.Isolation accepts
// ("" or one of the four SQL levels, lower case with hyphens), else an error
// naming s and listing the valid values.
func ValidIsolation(s string) error {
	if s == "" {
		return nil
	}
	for _, l := range isolationLevels {
		if s == l {
			return nil
		}
	}
	return fmt.Errorf("unknown isolation level %q; valid levels: %s (or empty for the server's default)", s, strings.Join(isolationLevels, ", "))
}

// DefaultConnectTimeout is used when Options.ConnectTimeout is zero.
const DefaultConnectTimeout = 10 * time.Second

// Fingerprint identifies what was measured: product, version and the settings
// that decide whether two runs are comparable. It never holds secrets.
type Fingerprint struct {
	Driver        string            `json:"driver"`
	Product       string            `json:"product"`
	Version       string            `json:"version"`
	VersionString string            `json:"version_string,omitempty"`
	URL           string            `json:"url"`
	Settings      map[string]string `json:"settings"`
}

// ErrorClass groups failed operations for accounting and the retry policy.
type ErrorClass string

// The error classes, in the order reports list them.
const (
	ClassRetryable  ErrorClass = "retryable"  // serialization failure or deadlock: safe to retry
	ClassConstraint ErrorClass = "constraint" // unique, foreign key, check violation
	ClassTimeout    ErrorClass = "timeout"    // statement or client deadline exceeded
	ClassConnection ErrorClass = "connection" // session lost; the runner reconnects
	ClassNotFound   ErrorClass = "not_found"  // the row an operation needed was absent (YCSB NOT_FOUND)
	ClassUnexpected ErrorClass = "unexpected" // a write touched an unexpected number of rows (YCSB UNEXPECTED_STATE)
	ClassOther      ErrorClass = "other"
)

// Classes lists every class in report order.
var Classes = []ErrorClass{ClassRetryable, ClassConstraint, ClassTimeout, ClassConnection, ClassNotFound, ClassUnexpected, ClassOther}

// ErrNotFound and ErrUnexpectedRows are returned by workloads for the outcomes
// YCSB reports as NOT_FOUND and UNEXPECTED_STATE.
var (
	ErrNotFound       = errors.New("row not found")
	ErrUnexpectedRows = errors.New("unexpected number of rows affected")
)

// ClassifyCommon handles the classes every driver shares: workload outcomes and
// context deadlines. It returns "" when the error is not one of them.
func ClassifyCommon(err error) ErrorClass {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrNotFound):
		return ClassNotFound
	case errors.Is(err, ErrUnexpectedRows):
		return ClassUnexpected
	case errors.Is(err, context.DeadlineExceeded):
		return ClassTimeout
	}
	return ""
}

// Driver describes one registered driver.
type Driver struct {
	Name        string   // "postgres"
	Schemes     []string // URL schemes it opens: "postgres", "postgresql"
	Description string   // one line for `candor list`
	Open        func(ctx context.Context, url string, opts Options) (Target, error)
}

var (
	regMu   sync.RWMutex
	drivers = map[string]Driver{}
)

// Register adds a driver; it panics on a duplicate scheme (a programming error
// caught at init).
func Register(d Driver) {
	regMu.Lock()
	defer regMu.Unlock()
	for _, s := range d.Schemes {
		if _, dup := drivers[s]; dup {
			panic("target: scheme registered twice: " + s)
		}
		drivers[s] = d
	}
}

// Drivers returns every registered driver once, sorted by name.
func Drivers() []Driver {
	regMu.RLock()
	defer regMu.RUnlock()
	seen := map[string]bool{}
	var out []Driver
	for _, d := range drivers {
		if !seen[d.Name] {
			seen[d.Name] = true
			out = append(out, d)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// ErrBadURL marks a target URL candor cannot use.
var ErrBadURL = errors.New("bad target URL")

// ErrUnsupported marks an option the target cannot honour (an isolation
// level SQLite lacks, a sharding clause on a product without sharding).
var ErrUnsupported = errors.New("not supported by this target")

// ErrUnreachable marks a target that could not be connected to.
var ErrUnreachable = errors.New("target unreachable")

// Open finds the driver for the URL's scheme and opens the target.
func Open(ctx context.Context, url string, opts Options) (Target, error) {
	if opts.ConnectTimeout <= 0 {
		opts.ConnectTimeout = DefaultConnectTimeout
	}
	scheme, _, ok := strings.Cut(url, "://")
	if !ok || scheme == "" {
		return nil, fmt.Errorf("%w %q: expected scheme://..., one of %s", ErrBadURL, Redact(url), schemeList())
	}
	regMu.RLock()
	d, found := drivers[strings.ToLower(scheme)]
	regMu.RUnlock()
	if !found {
		return nil, fmt.Errorf("%w %q: unknown scheme %q; valid schemes: %s", ErrBadURL, Redact(url), scheme, schemeList())
	}
	return d.Open(ctx, url, opts)
}

func schemeList() string {
	regMu.RLock()
	defer regMu.RUnlock()
	var s []string
	for k := range drivers {
		s = append(s, k+"://")
	}
	sort.Strings(s)
	return strings.Join(s, ", ")
}
