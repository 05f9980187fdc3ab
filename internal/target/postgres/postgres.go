// Package postgres is candor's driver for the PostgreSQL wire protocol
// (PostgreSQL, YugabyteDB YSQL, CockroachDB), built on pgx v5 connections
// (not database/sql, not a pool): every Connect opens one dedicated pgx.Conn,
// which one worker owns.
//
// URLs are libpq URLs with scheme postgres:// or postgresql://, parsed by
// pgx.ParseConfig: sslmode and the other libpq parameters are honoured, and a
// password missing from the URL comes from PGPASSWORD or the passfile, as
// with libpq. Passwords never appear in errors or fingerprints.
package postgres

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/candor-bench/candor/internal/cacheline"
	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/target/blockconn"
)

// Name is the driver's registry name.
const Name = "postgres"

// maxBindParams is the PostgreSQL protocol limit: Bind carries a 16-bit
// parameter count.
const maxBindParams = 65535

// closeTimeout bounds the Terminate message sent by Conn.Close, so closing a
// session to a dead server never hangs a worker.
const closeTimeout = 5 * time.Second

func init() {
	target.Register(target.Driver{
		Name:        Name,
		Schemes:     []string{"postgres", "postgresql"},
		Description: "PostgreSQL wire protocol via pgx v5 (PostgreSQL, YugabyteDB YSQL, CockroachDB)",
		Open:        Open,
	})
}

// Target is an opened PostgreSQL-wire endpoint. It holds no connection of
// its own: Connect and Fingerprint each open a new session. It is safe for
// concurrent use.
type Target struct {
	config   *pgx.ConnConfig // never modified after Open; copied per Connect
	redacted string
	password string
	// isolation is the SQL level set on every new session ("READ COMMITTED"),
	// or "" for the server's default.
	isolation string
	// dialect is the product's SQL dialect, read from SELECT version() at
	// Open (detectDialect); zero means PostgreSQL.
	dialect dialect.Dialect

	mu     sync.Mutex
	closed bool
}

var _ target.Target = (*Target)(nil)

// Open parses rawURL, applies opts (ConnectTimeout, default 10 s, bounds each
// connection attempt and overrides connect_timeout in the URL; Isolation,
// when set, is applied to every new session with SET SESSION
// CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL) and connects once to prove
// the server is reachable and accepts the credentials. A URL pgx cannot parse
// yields an error wrapping target.ErrBadURL; a failed connection one wrapping
// target.ErrUnreachable. Both name the redacted URL.
func Open(ctx context.Context, rawURL string, opts target.Options) (target.Target, error) {
	if err := target.ValidIsolation(opts.Isolation); err != nil {
		return nil, err
	}
	cfg, err := parseConfig(rawURL, opts)
	if err != nil {
		return nil, err
	}
	t := &Target{config: cfg, redacted: target.Redact(rawURL), password: cfg.Password,
		isolation: strings.ToUpper(strings.ReplaceAll(opts.Isolation, "-", " "))}
	c, err := t.connect(ctx)
	if err != nil {
		return nil, err
	}
	t.dialect = detectDialect(ctx, c)
	closeConn(c)
	return t, nil
}

// parseConfig turns a URL and options into a pgx configuration.
func parseConfig(rawURL string, opts target.Options) (*pgx.ConnConfig, error) {
	cfg, err := pgx.ParseConfig(rawURL)
	if err != nil {
		pw := ""
		var pce *pgconn.ParseConfigError
		if errors.As(err, &pce) {
			pw = target.PasswordOf(pce.ConnString)
		}
		return nil, fmt.Errorf("%w %q: %w; expected postgres://user[:password]@host[:port]/database[?sslmode=...]",
			target.ErrBadURL, target.Redact(rawURL), target.RedactError(err, pw))
	}
	timeout := opts.ConnectTimeout
	if timeout <= 0 {
		timeout = target.DefaultConnectTimeout
	}
	cfg.ConnectTimeout = timeout
	dialer := &net.Dialer{Timeout: timeout, KeepAlive: 5 * time.Minute}
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		return blockconn.Dial(ctx, dialer, network, addr)
	}
	return cfg, nil
}

// Driver implements target.Target.
func (t *Target) Driver() string { return Name }

// RedactedURL implements target.Target.
func (t *Target) RedactedURL() string { return t.redacted }

// Dialect implements target.Target: dialect.YugabyteDB or dialect.CockroachDB
// when the server's version() names them, else dialect.Postgres.
func (t *Target) Dialect() dialect.Dialect {
	if t.dialect.Name == "" {
		return dialect.Postgres
	}
	return t.dialect
}

// pollerFrom is Capabilities.PollerFrom: measured on two cores shared with
// the server under Debian's default scheduling (autogroups on), every
// sysbench test and YCSB workload at 4, 8, 16, 32 and 64 sessions
// (docs/BENCHMARKS.md §7), blocking sessions were the faster at 8 per core
// and below in all but a few cells (the poller lost up to 21% at 4 per
// core: select_random_points, YCSB C and E by up to 37%), and the poller
// at 32 per core in all but one (oltp_insert, 2%). Between the two the
// cells split; 16 per core keeps the single statements that favour
// blocking sessions there (select_random_*, YCSB C and E) and every
// multi-statement transaction on the side they win.
const pollerFrom = 16

// Capabilities implements target.Target: transactions, COPY FROM, multi-row
// INSERT, 65535 bind parameters per statement, and blocking sessions (on
// Linux) that give way to the network poller from pollerFrom sessions per
// core.
func (t *Target) Capabilities() target.Capabilities {
	return target.Capabilities{
		Transactions:     true,
		CopyFrom:         true,
		MultiRowInsert:   true,
		MaxBindParams:    maxBindParams,
		BlockingSessions: blockconn.Enabled,
		PollerFrom:       pollerFrom,
	}
}

// OnThisMachine implements target.Placed: every host the URL names (a Unix
// socket directory too) is this machine.
func (t *Target) OnThisMachine() bool {
	if !target.LocalHost(t.config.Host) {
		return false
	}
	for _, f := range t.config.Fallbacks {
		if !target.LocalHost(f.Host) {
			return false
		}
	}
	return true
}

// ErrClosed is returned by Connect and Fingerprint after Close.
var ErrClosed = errors.New("postgres target is closed")

// Connect opens one new session, bounded by the connect timeout. The caller
// closes the returned Conn. Errors wrap target.ErrUnreachable.
func (t *Target) Connect(ctx context.Context) (target.Conn, error) {
	pc, err := t.connect(ctx)
	if err != nil {
		return nil, err
	}
	return &Conn{pc: pc}, nil
}

func (t *Target) connect(ctx context.Context) (*pgx.Conn, error) {
	t.mu.Lock()
	closed := t.closed
	t.mu.Unlock()
	if closed {
		return nil, ErrClosed
	}
	ctx, cancel := context.WithTimeout(ctx, t.config.ConnectTimeout)
	defer cancel()
	pc, err := pgx.ConnectConfig(ctx, t.config.Copy())
	if err != nil {
		return nil, t.connectError(err)
	}
	if t.isolation != "" {
		// Without arguments pgx sends this with the simple protocol.
		if _, err := pc.Exec(ctx, "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL "+t.isolation); err != nil {
			closeConn(pc)
			return nil, fmt.Errorf("setting isolation level %s on %s: %w", t.isolation, t.redacted, target.RedactError(err, t.password))
		}
	}
	return pc, nil
}

// connectError describes a failed connection attempt. With sslmode=prefer
// (the default) pgx tries TLS first and then plain text, and joins the
// errors of every attempt in that order, so the first line would be "tls
// error: server refused TLS connection" even when the server then answered
// the real cause (database "sbtest" does not exist): the server's own error
// comes first here, the other attempts after it. A server refusing more
// sessions (SQLSTATE 53300 too_many_connections) says so and how to fix it.
func (t *Target) connectError(err error) error {
	red := target.RedactError(err, t.password)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return fmt.Errorf("%w: could not connect to %s: %w; check that the server is running and that host, port, database, user and password are right",
			target.ErrUnreachable, t.redacted, red)
	}
	server := target.RedactError(pgErr, t.password).Error()
	var others []string
	for _, line := range strings.Split(red.Error(), "\n") {
		line = strings.TrimSpace(line)
		if line != "" && !strings.HasPrefix(line, "failed to connect to") && !strings.Contains(line, server) {
			others = append(others, line)
		}
	}
	also := ""
	if len(others) > 0 {
		also = " (other attempts: " + strings.Join(others, "; ") + ")"
	}
	hint := "check that host, port, database, user and password are right"
	switch pgErr.Code {
	case "53300": // too_many_connections
		return &connectFailure{msg: fmt.Sprintf("%v: %s refused the connection: too many connections (%s); lower --threads or raise the server's max_connections",
			target.ErrUnreachable, t.redacted, server), err: red}
	case "3D000": // invalid_catalog_name
		hint = "create the database or name an existing one in the URL's path (sysbench: --pgsql-db)"
	}
	return &connectFailure{msg: fmt.Sprintf("%v: could not connect to %s: %s%s; %s", target.ErrUnreachable, t.redacted, server, also, hint), err: red}
}

// connectFailure is a connection error with its own wording; it unwraps to
// the driver's error and matches target.ErrUnreachable.
type connectFailure struct {
	msg string
	err error
}

func (e *connectFailure) Error() string { return e.msg }
func (e *connectFailure) Unwrap() []error {
	return []error{target.ErrUnreachable, e.err}
}

// Close implements target.Target. Sessions already handed out stay open
// until their owners close them; later Connect calls fail.
func (t *Target) Close() error {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	return nil
}

// Conn is one PostgreSQL session. Each distinct SQL text with arguments is
// prepared once per session and reused (fastpath.go; arguments of types it
// does not render go through pgx's QueryExecModeCacheStatement, which
// prepares too). Statements without arguments use the simple protocol, so
// several ;-separated DDL statements may be sent at once, unless run with
// ExecPrepared. A Conn is used by one goroutine at a time.
type Conn struct {
	_      cacheline.Pad // see package cacheline
	pc     *pgx.Conn
	closed bool

	// The fast path (fastpath.go).
	fast    map[string]*fastStmt
	last    *fastStmt // the statement fastDesc found last, for lastSQL
	lastSQL string
	fastSeq int
	params  [][]byte
	buf     []byte
	ends    []int
	nulls   []bool
	bind    pgproto3.Bind // the wire path's (wire.go)
	// wireInTx: the wire path's last statement left a transaction block
	// open (its ReadyForQuery), which pgconn's TxStatus does not see.
	wireInTx bool
	// fields are the columns of the last Query's result
	// (target.ColumnNamer); pgx reuses them at the next statement.
	fields []pgconn.FieldDescription

	_ cacheline.Pad
}

var (
	_ target.Conn        = (*Conn)(nil)
	_ target.Copier      = (*Conn)(nil)
	_ target.Interrupter = (*Conn)(nil)
	_ target.Preparer    = (*Conn)(nil)
	_ target.ColumnNamer = (*Conn)(nil)
)

// ResultColumns implements target.ColumnNamer.
func (c *Conn) ResultColumns() []string {
	out := make([]string, len(c.fields))
	for i, f := range c.fields {
		out[i] = f.Name
	}
	return out
}

// Interrupt implements target.Interrupter: it sets the socket's deadline to
// now, so the read or write in flight fails at once and pgx closes the
// session.
func (c *Conn) Interrupt() {
	_ = c.pc.PgConn().Conn().SetDeadline(time.Now())
}

// Exec implements target.Conn; it returns the rows affected per the
// command tag.
func (c *Conn) Exec(ctx context.Context, sql string, args ...any) (int64, error) {
	if d, err := c.fastPath(ctx, sql, args); err != nil {
		return 0, err
	} else if d != nil {
		return c.fastAffected(ctx, d)
	}
	tag, err := c.pc.Exec(ctx, sql, args...)
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}

// ExecPrepared implements target.Preparer: sql is prepared on the fast path
// and executed without parameters.
func (c *Conn) ExecPrepared(ctx context.Context, sql string) (int64, error) {
	d, err := c.fastDesc(ctx, sql)
	if err != nil {
		return 0, err
	}
	c.params, c.buf = c.params[:0], c.buf[:0]
	return c.fastAffected(ctx, d)
}

// Query implements target.Conn. Values are passed as they came off the wire,
// undecoded: bytea columns as their raw bytes, text columns as text. For
// statements with arguments of the types the fast path renders (integers,
// strings, bytes, NULL) every other column is text too, and so is every
// column of a statement without arguments (sent as plain text); otherwise
// pgx asks for binary format for some types (integers, for instance), so a
// caller that needs text whatever the arguments casts them in SQL.
func (c *Conn) Query(ctx context.Context, sql string, args []any, fn func(cols [][]byte) error) (int, error) {
	if d, err := c.fastPath(ctx, sql, args); err != nil {
		return 0, err
	} else if d != nil {
		c.fields = d.Fields
		n, _, err := c.fastExec(ctx, d, fn)
		if fn == nil {
			n = 0 // discarded rows are not counted (target.Conn)
		}
		return n, err
	}
	var rows pgx.Rows
	var err error
	plain := len(args) == 0
	if plain {
		// As plain text (the simple query protocol), the way pgx's Exec
		// sends a statement without arguments: nothing is prepared for a
		// text that may never come again (sysbench's --db-ps-mode=disable).
		// Every column comes back as text; bytea is turned into its raw
		// bytes below, as the other paths give it.
		rows, err = c.pc.Query(ctx, sql, pgx.QueryExecModeSimpleProtocol)
	} else {
		rows, err = c.pc.Query(ctx, sql, args...)
	}
	if err != nil {
		return 0, err
	}
	c.fields = rows.FieldDescriptions()
	if fn == nil {
		rows.Close() // reads the rest of the result, undecoded
		return 0, rows.Err()
	}
	n := 0
	for rows.Next() {
		n++
		vals := rows.RawValues()
		if plain {
			if vals, err = rawBytea(rows.FieldDescriptions(), vals); err != nil {
				rows.Close()
				return n, err
			}
		}
		if err := fn(vals); err != nil {
			rows.Close()
			return n, err
		}
	}
	rows.Close()
	return n, rows.Err()
}

// rawBytea replaces the text form of bytea columns (hex, PostgreSQL's
// bytea_output default: \x then two digits a byte) by their raw bytes.
func rawBytea(fields []pgconn.FieldDescription, vals [][]byte) ([][]byte, error) {
	for i, f := range fields {
		if f.DataTypeOID != pgtype.ByteaOID || f.Format != pgtype.TextFormatCode || vals[i] == nil {
			continue
		}
		v := vals[i]
		if len(v) < 2 || v[0] != '\\' || v[1] != 'x' {
			return nil, fmt.Errorf("bytea column %s in a form other than hex (bytea_output=hex is needed)", f.Name)
		}
		raw := make([]byte, hex.DecodedLen(len(v)-2))
		if _, err := hex.Decode(raw, v[2:]); err != nil {
			return nil, fmt.Errorf("bytea column %s: %w", f.Name, err)
		}
		vals[i] = raw
	}
	return vals, nil
}

// CopyFrom implements target.Copier with the COPY protocol. table and
// columns are treated like the unquoted identifiers candor's DDL uses:
// they are folded to lower case, as PostgreSQL folds unquoted names.
func (c *Conn) CopyFrom(ctx context.Context, table string, columns []string, rows [][]any) (int64, error) {
	cols := make([]string, len(columns))
	for i, col := range columns {
		cols[i] = strings.ToLower(col)
	}
	ident := pgx.Identifier(strings.Split(strings.ToLower(table), "."))
	return c.pc.CopyFrom(ctx, ident, cols, pgx.CopyFromRows(rows))
}

// Close implements target.Conn. It is safe to call more than once and never
// blocks longer than a few seconds, even when the server is gone.
func (c *Conn) Close() error {
	if c.closed {
		return nil
	}
	c.closed = true
	return closeConn(c.pc)
}

func closeConn(pc *pgx.Conn) error {
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	return pc.Close(ctx)
}

// Classify implements target.Target. Order: target.ClassifyCommon (workload
// outcomes, deadlines); then the server's SQLSTATE; then client-side
// timeouts; then anything that means the session is gone.
func (t *Target) Classify(err error) target.ErrorClass {
	return Classify(err)
}

// ServerError implements target.ServerErrorer: the SQLSTATE and the primary
// message of the server's ErrorResponse (PostgreSQL has no error numbers).
func (t *Target) ServerError(err error) (target.ServerError, bool) {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return target.ServerError{}, false
	}
	return target.ServerError{State: pgErr.Code, Message: pgErr.Message}, true
}

// NotSent implements target.NotSender: pgconn knows the statement was not
// sent (it failed before writing to the server).
func (t *Target) NotSent(err error) bool { return pgconn.SafeToRetry(err) }

// Classify maps an error from this driver's connections to a class:
//
//	40001 serialization_failure, 40P01 deadlock_detected  → retryable
//	class 23 (integrity constraint violation)             → constraint
//	57014 query_canceled (statement_timeout), 55P03 lock_not_available (lock_timeout),
//	a client deadline                                     → timeout
//	class 08, 57P01/57P02/57P03 (shutdown, cannot connect now), EOF, network
//	errors, a closed or failed connection                 → connection
//	anything else                                         → other
func Classify(err error) target.ErrorClass {
	if err == nil {
		return ""
	}
	if c := target.ClassifyCommon(err); c != "" {
		return c
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		code := pgErr.Code
		switch {
		case code == "40001" || code == "40P01":
			return target.ClassRetryable
		case strings.HasPrefix(code, "23"):
			return target.ClassConstraint
		case code == "57014" || code == "55P03":
			return target.ClassTimeout
		case strings.HasPrefix(code, "08"), code == "57P01", code == "57P02", code == "57P03":
			return target.ClassConnection
		}
		return target.ClassOther
	}
	var wt *wireTimeout
	if pgconn.Timeout(err) || errors.As(err, &wt) {
		return target.ClassTimeout
	}
	if isConnectionError(err) {
		return target.ClassConnection
	}
	return target.ClassOther
}

func isConnectionError(err error) bool {
	var (
		netErr     net.Error
		connectErr *pgconn.ConnectError
	)
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, net.ErrClosed), errors.Is(err, pgconn.ErrConnClosed),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.EPIPE), errors.Is(err, target.ErrUnreachable):
		return true
	case errors.As(err, &connectErr), errors.As(err, &netErr):
		return true
	case pgconn.SafeToRetry(err):
		// Failed before anything reached the server: in pgconn this means the
		// connection was closed or could not be used.
		return true
	}
	return strings.Contains(err.Error(), "conn closed")
}

// ServerTimeQuery is the server's clock (target.ServerClock): now(), the
// start of the statement's own transaction, as Unix seconds.
func (t *Target) ServerTimeQuery() string {
	return "SELECT CAST(EXTRACT(EPOCH FROM now()) AS text)"
}
