// Package sqlite is candor's embedded driver: SQLite through modernc.org/sqlite
// (pure Go), used at the database/sql/driver level (see
// internal/target/drvconn).
//
// URL form: sqlite://PATH[?PARAMS]. Everything between "sqlite://" and "?" is
// the file path, percent-decoded:
//
//	sqlite://candor.db            candor.db in the current directory (relative)
//	sqlite://data/candor.db       data/candor.db, relative
//	sqlite:///tmp/candor.db       /tmp/candor.db (absolute: note the third slash)
//
// The file is created when missing; its directory must exist. Parameters:
//
//	journal_mode   DELETE TRUNCATE PERSIST MEMORY WAL OFF   default WAL
//	synchronous    OFF NORMAL FULL EXTRA (or 0..3)          default NORMAL
//	busy_timeout   milliseconds to wait for a lock          default 5000
//
// for example sqlite://candor.db?busy_timeout=5000&synchronous=NORMAL&journal_mode=WAL.
// The defaults are the usual setting for a concurrent SQLite application: WAL
// lets readers run beside the single writer, NORMAL skips the fsync per commit
// that WAL makes unnecessary for integrity (durability of the last commits is
// given up; the fingerprint records it), and 5 s of busy waiting turns most
// writer collisions into waiting instead of SQLITE_BUSY errors. The
// fingerprint records the values in effect, as SQLite reports them.
package sqlite

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	sqlitedrv "modernc.org/sqlite"

	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/target/drvconn"
)

// Name is the driver's registry name.
const Name = "sqlite"

// Defaults applied when the URL does not set the parameter.
const (
	DefaultJournalMode = "WAL"
	DefaultSynchronous = "NORMAL"
	DefaultBusyTimeout = 5000 // milliseconds
)

// maxBindParams is modernc.org/sqlite's SQLITE_MAX_VARIABLE_NUMBER (32766,
// SQLite's default since 3.32).
const maxBindParams = 32766

// isolation is the only level SQLite provides (target.Options.Isolation
// spelling): writers are serialised by the database lock.
const isolation = "serializable"

// maxCachedStmts bounds the prepared statements one Conn keeps; when full the
// cache is emptied and refilled. Workloads use a few dozen distinct texts.
const maxCachedStmts = 512

func init() {
	target.Register(target.Driver{
		Name:        Name,
		Schemes:     []string{"sqlite"},
		Description: "embedded SQLite file (modernc.org/sqlite, no server needed)",
		Open:        Open,
	})
}

// Config is a parsed sqlite:// URL.
type Config struct {
	Path        string // file path as given (relative or absolute)
	JournalMode string // upper case, e.g. "WAL"
	Synchronous string // upper case name, e.g. "NORMAL"
	BusyTimeout int    // milliseconds, ≥ 0
}

var (
	journalModes = []string{"DELETE", "TRUNCATE", "PERSIST", "MEMORY", "WAL", "OFF"}
	syncNames    = []string{"OFF", "NORMAL", "FULL", "EXTRA"} // index = PRAGMA synchronous value
)

// ParseURL parses a sqlite:// URL into a Config with defaults applied. Errors
// wrap target.ErrBadURL and say what is accepted.
func ParseURL(raw string) (Config, error) {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w %q: %s", target.ErrBadURL, target.Redact(raw), fmt.Sprintf(format, a...))
	}
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok || !strings.EqualFold(scheme, "sqlite") {
		return Config{}, bad("expected sqlite://PATH, e.g. sqlite://candor.db or sqlite:///tmp/candor.db")
	}
	pathPart, query, _ := strings.Cut(rest, "?")
	path, err := url.PathUnescape(pathPart)
	if err != nil {
		return Config{}, bad("bad escape in path: %v", err)
	}
	switch {
	case path == "":
		return Config{}, bad("no file path; use sqlite://candor.db (relative) or sqlite:///tmp/candor.db (absolute)")
	case path == ":memory:" || strings.HasPrefix(path, "file:"):
		return Config{}, bad("give a plain file path: workers share the database through the file, so in-memory databases and SQLite URIs are not supported")
	case strings.ContainsAny(path, "?\x00"):
		return Config{}, bad("the file path may not contain '?' or NUL")
	}
	cfg := Config{Path: path, JournalMode: DefaultJournalMode, Synchronous: DefaultSynchronous, BusyTimeout: DefaultBusyTimeout}
	q, err := url.ParseQuery(query)
	if err != nil {
		return Config{}, bad("bad query string: %v", err)
	}
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := q[k][len(q[k])-1]
		switch strings.ToLower(k) {
		case "journal_mode":
			m := strings.ToUpper(v)
			if !contains(journalModes, m) {
				return Config{}, bad("journal_mode=%s: expected one of %s", v, strings.Join(journalModes, ", "))
			}
			cfg.JournalMode = m
		case "synchronous":
			s := strings.ToUpper(v)
			if n, err := strconv.Atoi(s); err == nil && n >= 0 && n < len(syncNames) {
				s = syncNames[n]
			}
			if !contains(syncNames, s) {
				return Config{}, bad("synchronous=%s: expected one of %s (or 0..3)", v, strings.Join(syncNames, ", "))
			}
			cfg.Synchronous = s
		case "busy_timeout":
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return Config{}, bad("busy_timeout=%s: expected milliseconds, a whole number ≥ 0", v)
			}
			cfg.BusyTimeout = n
		default:
			return Config{}, bad("unknown parameter %q; valid parameters: busy_timeout, journal_mode, synchronous", k)
		}
	}
	return cfg, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// dsn is the modernc.org/sqlite data source name: the plain path followed by
// _pragma parameters, which the driver runs on every new connection
// (busy_timeout first).
func (c Config) dsn() string {
	v := url.Values{}
	v.Add("_pragma", "busy_timeout("+strconv.Itoa(c.BusyTimeout)+")")
	v.Add("_pragma", "journal_mode("+c.JournalMode+")")
	v.Add("_pragma", "synchronous("+c.Synchronous+")")
	return c.Path + "?" + v.Encode()
}

// Target is an opened SQLite database file. It is safe for concurrent use.
type Target struct {
	cfg       Config
	redacted  string
	opts      target.Options
	connector driver.Connector // modernc.org/sqlite's, for cfg.dsn()
	closed    atomic.Bool
}

var (
	_ target.Target        = (*Target)(nil)
	_ target.ServerErrorer = (*Target)(nil)
)

// ErrClosed is returned by Connect and Fingerprint after Close.
var ErrClosed = errors.New("sqlite target is closed")

// Open parses rawURL, checks that the file's directory exists (a missing
// directory is an error wrapping target.ErrBadURL, naming it) and opens one
// connection, which creates the file and applies the journal mode. Other
// failures to open wrap target.ErrUnreachable. opts.Isolation may only be ""
// or "serializable": SQLite transactions are always serializable.
func Open(ctx context.Context, rawURL string, opts target.Options) (target.Target, error) {
	if err := target.ValidIsolation(opts.Isolation); err != nil {
		return nil, err
	}
	if opts.Isolation != "" && opts.Isolation != isolation {
		return nil, fmt.Errorf("%w: isolation level %q is not available on SQLite: its transactions are always serializable; use %q or leave the level unset", target.ErrUnsupported, opts.Isolation, isolation)
	}
	cfg, err := ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	if opts.ConnectTimeout <= 0 {
		opts.ConnectTimeout = target.DefaultConnectTimeout
	}
	redacted := target.Redact(rawURL)
	dir := filepath.Dir(cfg.Path)
	switch st, err := os.Stat(dir); {
	case errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("%w %q: directory %q does not exist; create it first (mkdir -p %s) or choose another path", target.ErrBadURL, redacted, dir, dir)
	case err != nil:
		return nil, fmt.Errorf("%w %q: cannot use directory %q: %w", target.ErrBadURL, redacted, dir, err)
	case !st.IsDir():
		return nil, fmt.Errorf("%w %q: %q is not a directory", target.ErrBadURL, redacted, dir)
	}
	connector, err := sqlitedrv.NewConnector(cfg.dsn())
	if err != nil {
		return nil, fmt.Errorf("%w: opening %s: %w", target.ErrUnreachable, redacted, err)
	}
	t := &Target{cfg: cfg, redacted: redacted, opts: opts, connector: connector}
	c, err := t.conn(ctx)
	if err != nil {
		return nil, err
	}
	c.Close()
	return t, nil
}

// conn opens one new SQLite handle (the driver runs the DSN's pragmas on
// it) and pings it, bounded by the connect timeout.
func (t *Target) conn(ctx context.Context) (driver.Conn, error) {
	if t.closed.Load() {
		return nil, ErrClosed
	}
	ctx, cancel := context.WithTimeout(ctx, t.opts.ConnectTimeout)
	defer cancel()
	var c driver.Conn
	var err error
	for wait := 10 * time.Millisecond; ; wait = min(2*wait, 200*time.Millisecond) {
		c, err = t.connector.Connect(ctx)
		if p, ok := c.(driver.Pinger); ok && err == nil {
			if err = p.Ping(ctx); err != nil {
				c.Close()
			}
		}
		// Two processes opening one new file at once: the change to WAL
		// mode of one can meet the other's lock without the busy handler
		// (SQLITE_BUSY at open, seen when two loads started together).
		// The file is there: open it again, within the connect timeout.
		if err == nil || Classify(err) != target.ClassRetryable || !target.Sleep(ctx, wait) {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%w: cannot open SQLite database %s: %w; check the path and its permissions", target.ErrUnreachable, t.redacted, err)
	}
	return c, nil
}

// DatabaseFile is the path of the database file: candor locks a file
// beside it while it loads or cleans up tables (internal/tables).
func (t *Target) DatabaseFile() string { return t.cfg.Path }

// Config returns the parsed URL settings the target was opened with.
func (t *Target) Config() Config { return t.cfg }

// LocalSpace implements runner.LocalStorage: the directory of the database
// file, and the bytes of its free pages (freelist_count × page_size, left
// by dropped tables), which SQLite reuses before it grows the file.
func (t *Target) LocalSpace(ctx context.Context) (dir string, reusable int64, err error) {
	dir = filepath.Dir(t.cfg.Path)
	c, err := t.Connect(ctx)
	if err != nil {
		return dir, 0, err
	}
	defer c.Close()
	var n [2]int64
	for i, pragma := range []string{"PRAGMA freelist_count", "PRAGMA page_size"} {
		_, qerr := c.Query(ctx, pragma, nil, func(cols [][]byte) error {
			v, perr := strconv.ParseInt(string(cols[0]), 10, 64)
			n[i] = v
			return perr
		})
		if qerr != nil {
			return dir, 0, qerr
		}
	}
	return dir, n[0] * n[1], nil
}

// Driver implements target.Target.
func (t *Target) Driver() string { return Name }

// RedactedURL implements target.Target.
func (t *Target) RedactedURL() string { return t.redacted }

// Dialect implements target.Target.
func (t *Target) Dialect() dialect.Dialect { return dialect.SQLite }

// Capabilities implements target.Target.
func (t *Target) Capabilities() target.Capabilities {
	return target.Capabilities{
		Transactions:   true,
		MultiRowInsert: true,
		MaxBindParams:  maxBindParams,
		Embedded:       true,
	}
}

// Connect implements target.Target: the Conn owns one SQLite handle of its
// own until closed.
func (t *Target) Connect(ctx context.Context) (target.Conn, error) {
	c, err := t.conn(ctx)
	if err != nil {
		return nil, err
	}
	return drvconn.New(c, drvconn.Options{MaxStmts: maxCachedStmts, PrepareQueries: true}), nil
}

// Close implements target.Target: later Connect and Fingerprint calls fail
// with ErrClosed. Connections already handed out stay usable until their
// owners close them. In WAL mode Close checkpoints the database and
// truncates its -wal file (PRAGMA wal_checkpoint(TRUNCATE)), so that a run
// does not leave the write-ahead log (tens of MB after a load) beside the
// file; SQLite deletes it when the last connection closes, but a process
// may end before that. The error of a checkpoint that fails is returned.
func (t *Target) Close() error {
	if t.closed.Swap(true) || t.cfg.JournalMode != "WAL" {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), t.opts.ConnectTimeout)
	defer cancel()
	c, err := t.connector.Connect(ctx)
	if err != nil {
		return fmt.Errorf("sqlite: checkpoint on close of %s: %w", t.redacted, err)
	}
	defer c.Close()
	q, ok := c.(driver.QueryerContext)
	if !ok {
		return nil
	}
	rows, err := q.QueryContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)", nil)
	if err != nil {
		return fmt.Errorf("sqlite: checkpoint on close of %s: %w", t.redacted, err)
	}
	return rows.Close()
}

// An SQLite session (internal/target/drvconn): every statement, with or
// without arguments, is prepared once per session and cached by SQL text; a
// text holding several ;-separated statements runs them in turn. A
// cancellable context interrupts an Exec, or a query's first step, while it
// runs (the driver's progress handler), and ends a query between rows; the
// session stays usable. Values are text:
// integers in decimal, reals in Go's shortest form (1.5, 1e+20), text and
// blobs as stored, and values of columns declared DATE, DATETIME or
// TIMESTAMP that parse as times in RFC 3339 with nanoseconds (the driver
// turns them into time.Time).

// SQLite primary result codes (the low byte of an extended code).
const (
	codeBusy       = 5
	codeLocked     = 6
	codeConstraint = 19
)

// ServerError implements target.ServerErrorer: SQLite's extended result
// code (SQLITE_BUSY_SNAPSHOT is 517, SQLITE_BUSY 5) and its message.
func (t *Target) ServerError(err error) (target.ServerError, bool) {
	var se *sqlitedrv.Error
	if !errors.As(err, &se) {
		return target.ServerError{}, false
	}
	msg := strings.TrimSuffix(se.Error(), " ("+strconv.Itoa(se.Code())+")")
	return target.ServerError{Code: se.Code(), Message: msg}, true
}

// Classify implements target.Target.
func (t *Target) Classify(err error) target.ErrorClass { return Classify(err) }

// Classify maps an error from this driver's connections to a class:
// SQLITE_BUSY and SQLITE_LOCKED (another connection holds the lock) →
// retryable; SQLITE_CONSTRAINT → constraint; a closed connection →
// connection; client deadlines → timeout (target.ClassifyCommon); else other.
func Classify(err error) target.ErrorClass {
	if err == nil {
		return ""
	}
	if c := target.ClassifyCommon(err); c != "" {
		return c
	}
	var se *sqlitedrv.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case codeBusy, codeLocked:
			return target.ClassRetryable
		case codeConstraint:
			return target.ClassConstraint
		}
		return target.ClassOther
	}
	if errors.Is(err, driver.ErrBadConn) { // drvconn.ErrConnDone wraps it
		return target.ClassConnection
	}
	return target.ClassOther
}

// Fingerprint implements target.Target: product SQLite, sqlite_version(), and
// the settings in effect on a fresh connection: journal_mode, synchronous
// (as a name), busy_timeout (milliseconds) and transaction_isolation (always
// serializable).
func (t *Target) Fingerprint(ctx context.Context) (target.Fingerprint, error) {
	dc, err := t.conn(ctx)
	if err != nil {
		return target.Fingerprint{}, err
	}
	c := drvconn.New(dc, drvconn.Options{MaxStmts: maxCachedStmts, PrepareQueries: true})
	defer c.Close()
	one := func(q string) (string, error) {
		var v string
		n, err := c.Query(ctx, q, nil, func(cols [][]byte) error {
			v = string(cols[0])
			return nil
		})
		if err == nil && n != 1 {
			err = fmt.Errorf("%d rows, want 1", n)
		}
		if err != nil {
			return "", fmt.Errorf("reading %q from %s: %w", q, t.redacted, err)
		}
		return v, nil
	}
	fp := target.Fingerprint{Driver: Name, Product: "SQLite", URL: t.redacted, Settings: map[string]string{"transaction_isolation": isolation}}
	if fp.Version, err = one("SELECT sqlite_version()"); err != nil {
		return target.Fingerprint{}, err
	}
	fp.VersionString = "SQLite " + fp.Version
	if mod := moduleVersion("modernc.org/sqlite"); mod != "" {
		fp.VersionString += " (modernc.org/sqlite " + mod + ")"
	}
	if fp.Settings["journal_mode"], err = one("PRAGMA journal_mode"); err != nil {
		return target.Fingerprint{}, err
	}
	syncVal, err := one("PRAGMA synchronous")
	if err != nil {
		return target.Fingerprint{}, err
	}
	if n, err := strconv.Atoi(syncVal); err == nil && n >= 0 && n < len(syncNames) {
		syncVal = syncNames[n]
	}
	fp.Settings["synchronous"] = syncVal
	if fp.Settings["busy_timeout"], err = one("PRAGMA busy_timeout"); err != nil {
		return target.Fingerprint{}, err
	}
	// The page cache's size, for the audit's data-against-memory rule
	// (cache_size: pages, or KiB when negative).
	for _, p := range []string{"cache_size", "page_size"} {
		if fp.Settings[p], err = one("PRAGMA " + p); err != nil {
			return target.Fingerprint{}, err
		}
	}
	return fp, nil
}

// moduleVersion reports the version of a dependency compiled into the
// binary, or "" when build information is unavailable.
func moduleVersion(path string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, m := range bi.Deps {
		if m.Path == path {
			if m.Replace != nil {
				return m.Replace.Version
			}
			return m.Version
		}
	}
	return ""
}
