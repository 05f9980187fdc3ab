// Package mysql is candor's driver for the MySQL wire protocol (MySQL,
// MariaDB, TiDB), built on github.com/go-sql-driver/mysql: every Connect opens
// one session straight from the driver's connector (no database/sql pool in
// the statement path, see internal/target/drvconn), which one worker owns,
// and Close really ends that session.
//
// URL form:
//
//	mysql://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?tls=VALUE]
//
// for example mysql://candor:candor@127.0.0.1:3306/candor. USER, HOST and
// DATABASE are required; PORT defaults to 3306. A PASSWORD holding '@', ':',
// '/', '?' or '#' must be percent-encoded (%40, %3A, %2F, %3F, %23). Without
// a password in the URL, the MYSQL_PWD environment variable is used, as by
// the mysql client. The only parameter is tls: false (the default: no TLS),
// true (TLS, server certificate verified), skip-verify (TLS, certificate not
// verified) or preferred (TLS when the server offers it). Passwords never
// appear in errors or fingerprints.
//
// The URL becomes a go-sql-driver configuration with these settings, which
// are not negotiable because results depend on them:
//
//   - clientFoundRows=true: an UPDATE reports the rows it matched, not the
//     rows whose value changed. That is what JDBC (and so the YCSB JDBC
//     binding) sees from MySQL Connector/J, which sets the same flag: an
//     update writing the value a field already holds counts as 1 row, not 0,
//     so it is not mistaken for a missing key.
//   - interpolateParams=false: statements with arguments are prepared on the
//     server once per session and executed with the binary protocol, as
//     sysbench does with --db-ps-mode=auto.
//   - multiStatements=true: a statement without arguments may hold several
//     ;-separated statements, as on the PostgreSQL and SQLite drivers.
//   - timeout = target.Options.ConnectTimeout (default 10 s) for the dial, the
//     handshake and the session setup.
//   - the driver's own log output is discarded: candor classifies and reports
//     every error itself.
//
// target.Options.Isolation, when set, is applied to every new session with
// SET SESSION TRANSACTION ISOLATION LEVEL.
package mysql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/target/blockconn"
	"github.com/candor-bench/candor/internal/target/drvconn"
)

// Name is the driver's registry name.
const Name = "mysql"

// DefaultPort is used when the URL names none.
const DefaultPort = 3306

// PasswordEnv supplies the password when the URL has none.
const PasswordEnv = "MYSQL_PWD"

// maxBindParams is the protocol limit: COM_STMT_PREPARE's reply carries a
// 16-bit parameter count (ER_PS_MANY_PARAM beyond it).
const maxBindParams = 65535

// maxCachedStmts bounds the prepared statements one Conn keeps; when full the
// cache is emptied and refilled. Workloads use a few dozen distinct texts,
// and the server caps prepared statements across all sessions
// (max_prepared_stmt_count, default 16382): 128 per session leaves room for
// 128 workers.
const maxCachedStmts = 128

// tlsValues are the accepted values of the tls parameter, as go-sql-driver
// names them.
var tlsValues = []string{"false", "true", "skip-verify", "preferred"}

func init() {
	target.Register(target.Driver{
		Name:        Name,
		Schemes:     []string{"mysql"},
		Description: "MySQL wire protocol via go-sql-driver/mysql (MySQL, MariaDB, TiDB)",
		Open:        Open,
	})
}

// parseConfig turns a mysql:// URL and options into a go-sql-driver
// configuration with candor's fixed settings (see the package doc). Errors
// wrap target.ErrBadURL, name the redacted URL and say what is expected.
func parseConfig(rawURL string, opts target.Options) (*gomysql.Config, error) {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w %q: %s; expected mysql://user[:password]@host[:port]/database[?tls=true][&compress=true]",
			target.ErrBadURL, target.Redact(rawURL), fmt.Sprintf(format, a...))
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		// url.Error repeats the whole URL, password included: keep only the
		// reason. Even that may quote a piece of a password holding a '#' or
		// '/' ("invalid port ":piece" after host"), so with a password in the
		// URL the reason is left out.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		if target.PasswordOf(rawURL) != "" {
			return nil, bad("not a valid URL (check the port, and percent-encode any @ : / ? # %% in the password)")
		}
		return nil, bad("%v", err)
	}
	switch {
	case !strings.EqualFold(u.Scheme, "mysql"):
		return nil, bad("scheme must be mysql")
	case u.Opaque != "":
		return nil, bad("missing // after mysql:")
	case u.User == nil || u.User.Username() == "":
		return nil, bad("no user name")
	case u.Hostname() == "":
		return nil, bad("no host")
	case u.Fragment != "" || strings.HasSuffix(rawURL, "#"):
		return nil, bad("unexpected '#' (percent-encode it as %%23 in a password)")
	}
	port := DefaultPort
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return nil, bad("port %q is not a number from 1 to 65535", p)
		}
		port = n
	}
	db := strings.TrimPrefix(u.Path, "/")
	switch {
	case db == "":
		return nil, bad("no database name")
	case strings.Contains(db, "/"):
		return nil, bad("database name %q contains '/'", db)
	}

	cfg := gomysql.NewConfig()
	cfg.User = u.User.Username()
	if pw, ok := u.User.Password(); ok {
		cfg.Passwd = pw
	} else {
		cfg.Passwd = os.Getenv(PasswordEnv)
	}
	cfg.Net = "tcp"
	cfg.Addr = net.JoinHostPort(u.Hostname(), strconv.Itoa(port))
	cfg.DBName = db

	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return nil, bad("bad query string: %v", err)
	}
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := q[k][len(q[k])-1]
		switch k {
		case "tls":
			if !slices.Contains(tlsValues, v) {
				return nil, bad("tls=%s: expected one of %s", v, strings.Join(tlsValues, ", "))
			}
			cfg.TLSConfig = v
		case "compress":
			// The protocol's zlib compression (sysbench's --mysql-compression).
			on, err := strconv.ParseBool(v)
			if err != nil {
				return nil, bad("compress=%s: expected true or false", v)
			}
			if err := cfg.Apply(gomysql.EnableCompression(on)); err != nil {
				return nil, bad("compress=%s: %v", v, err)
			}
		default:
			return nil, bad("unknown parameter %q; the parameters are tls and compress", k)
		}
	}

	timeout := opts.ConnectTimeout
	if timeout <= 0 {
		timeout = target.DefaultConnectTimeout
	}
	cfg.Timeout = timeout
	dialer := &net.Dialer{Timeout: timeout, KeepAlive: 5 * time.Minute}
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := blockconn.Dial(ctx, dialer, network, addr)
		if d, ok := ctx.Value(dialedKey{}).(*dialed); ok && err == nil {
			g := &greetConn{Conn: c}
			d.conn = g
			return g, nil
		}
		return c, err
	}
	cfg.ClientFoundRows = true
	cfg.InterpolateParams = false
	cfg.MultiStatements = true
	cfg.Logger = &gomysql.NopLogger{}
	return cfg, nil
}

// isolationSQL turns a target.Options.Isolation value into SQL words:
// "read-committed" → "READ COMMITTED".
func isolationSQL(level string) string {
	return strings.ToUpper(strings.ReplaceAll(level, "-", " "))
}

// sessionConnector runs setup statements on every new session, whether
// Target.Connect or database/sql (Open, Fingerprint) asks for it.
type sessionConnector struct {
	driver.Connector
	setup []string
}

// errSetup marks a failure of a session setup statement: the server was
// reached, so it is not target.ErrUnreachable.
type errSetup struct{ err error }

func (e *errSetup) Error() string { return e.err.Error() }
func (e *errSetup) Unwrap() error { return e.err }

func (c *sessionConnector) Connect(ctx context.Context) (driver.Conn, error) {
	dc, err := c.Connector.Connect(ctx)
	if err != nil || len(c.setup) == 0 {
		return dc, err
	}
	ex, ok := dc.(driver.ExecerContext)
	if !ok {
		dc.Close()
		return nil, &errSetup{errors.New("the driver cannot run session setup statements")}
	}
	for _, q := range c.setup {
		if _, err := ex.ExecContext(ctx, q, nil); err != nil {
			dc.Close()
			return nil, &errSetup{fmt.Errorf("%s: %w", q, err)}
		}
	}
	return dc, nil
}

// Target is an opened MySQL-wire endpoint. It is safe for concurrent use.
type Target struct {
	sc       *sessionConnector // opens worker sessions
	db       *sql.DB           // Open's probe and Fingerprint; not in the statement path
	redacted string
	password string
	timeout  time.Duration
	dialect  dialect.Dialect // TiDB's when the server says so, else MySQL's
	// tableLoad: MariaDB with a usable bulk path for empty tables and
	// local_infile on (tableload.go).
	tableLoad bool
	// fast: sessions without TLS or compression, whose statements may take
	// the fast path (fastpath.go) when the server's greeting allows.
	fast bool

	mu     sync.Mutex
	closed bool
}

var _ target.Target = (*Target)(nil)

// ErrClosed is returned by Connect and Fingerprint after Close.
var ErrClosed = errors.New("mysql target is closed")

// Open parses rawURL (see the package doc), applies opts and opens one
// session to prove the server is reachable and accepts the credentials. A
// URL that does not parse yields an error wrapping target.ErrBadURL; a failed
// connection one wrapping target.ErrUnreachable. Both name the redacted URL;
// neither contains the password.
func Open(ctx context.Context, rawURL string, opts target.Options) (target.Target, error) {
	if err := target.ValidIsolation(opts.Isolation); err != nil {
		return nil, err
	}
	cfg, err := parseConfig(rawURL, opts)
	if err != nil {
		return nil, err
	}
	redacted := target.Redact(rawURL)
	conn, err := gomysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("%w %q: %w", target.ErrBadURL, redacted, target.RedactError(err, cfg.Passwd))
	}
	sc := &sessionConnector{Connector: conn}
	if opts.Isolation != "" {
		sc.setup = append(sc.setup, "SET SESSION TRANSACTION ISOLATION LEVEL "+isolationSQL(opts.Isolation))
	}
	db := sql.OpenDB(sc)
	// No idle sessions: Conn.Close ends the session, and every Connect opens a
	// fresh one, as the target.Target contract says.
	db.SetMaxIdleConns(0)
	t := &Target{sc: sc, db: db, redacted: redacted, password: cfg.Passwd, timeout: cfg.Timeout, dialect: dialect.MySQL,
		fast: plainSession(cfg)}
	c, err := t.conn(ctx)
	if err != nil {
		db.Close()
		return nil, err
	}
	defer c.Close()
	// TiDB's dialect adds its table-distribution clauses (sharding options).
	var v string
	if c.QueryRowContext(ctx, "SELECT VERSION()").Scan(&v) == nil && strings.Contains(v, "TiDB") {
		t.dialect = dialect.TiDB
	}
	// MariaDB's bulk path for empty tables (tableload.go), with LOAD DATA
	// LOCAL allowed by the server.
	var localInfile int
	if tableLoadVersion(v) && c.QueryRowContext(ctx, "SELECT @@local_infile").Scan(&localInfile) == nil && localInfile == 1 {
		t.tableLoad = true
	}
	return t, nil
}

// plainSession says whether cfg's sessions send the protocol as it is on
// the socket: no TLS (tls unset or false), no compression (which
// go-sql-driver's Config keeps unexported; its DSN says it).
func plainSession(cfg *gomysql.Config) bool {
	return (cfg.TLSConfig == "" || cfg.TLSConfig == "false") && !strings.Contains(cfg.FormatDSN(), "compress=true")
}

// dialed receives the network connection of a session being opened: the
// dial function finds it in the context of Target.session.
type dialed struct{ conn *greetConn }

type dialedKey struct{}

// conn opens one new database/sql session (for Open and Fingerprint),
// bounded by the connect timeout.
func (t *Target) conn(ctx context.Context) (*sql.Conn, error) {
	if t.isClosed() {
		return nil, ErrClosed
	}
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	c, err := t.db.Conn(ctx)
	if err != nil {
		return nil, t.connectError(err)
	}
	return c, nil
}

// session opens one new driver session, set up by the sessionConnector and
// bounded by the connect timeout; d receives its network connection.
func (t *Target) session(ctx context.Context, d *dialed) (driver.Conn, error) {
	if t.isClosed() {
		return nil, ErrClosed
	}
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	dc, err := t.sc.Connect(context.WithValue(ctx, dialedKey{}, d))
	if err != nil {
		return nil, t.connectError(err)
	}
	return dc, nil
}

func (t *Target) isClosed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.closed
}

// connectError wraps a failure to open a session: a failed setup statement
// as such (the server was reached), anything else as target.ErrUnreachable.
// The password never appears.
func (t *Target) connectError(err error) error {
	var se *errSetup
	if errors.As(err, &se) {
		return fmt.Errorf("setting up a session on %s: %w", t.redacted, target.RedactError(se.err, t.password))
	}
	var me *gomysql.MySQLError
	if errors.As(err, &me) && (me.Number == 1040 || me.Number == 1203) {
		// ER_CON_COUNT_ERROR, ER_TOO_MANY_USER_CONNECTIONS: a refusal, not
		// a server that cannot be reached.
		return fmt.Errorf("%w: %s refused the connection: too many connections (%w); lower --threads or raise the server's max_connections (max_user_connections)",
			target.ErrUnreachable, t.redacted, target.RedactError(err, t.password))
	}
	return fmt.Errorf("%w: could not connect to %s: %w; check that the server is running and that host, port, database, user and password are right",
		target.ErrUnreachable, t.redacted, target.RedactError(err, t.password))
}

// Driver implements target.Target.
func (t *Target) Driver() string { return Name }

// RedactedURL implements target.Target.
func (t *Target) RedactedURL() string { return t.redacted }

// Dialect implements target.Target: MySQL and MariaDB share MySQL's; TiDB
// has its own, which adds table-distribution clauses.
func (t *Target) Dialect() dialect.Dialect { return t.dialect }

// Capabilities implements target.Target: transactions, multi-row INSERT and
// 65535 bind parameters per statement; on MariaDB versions with a usable
// bulk path for empty tables and local_infile on, whole-table loads
// (TableLoad, tableload.go); blocking sessions on Linux, never the network
// poller by choice (PollerFrom 0: on MariaDB go-sql-driver's sessions in the
// poller ran oltp_point_select at 16 threads on two cores at 0.67× sysbench's
// rate, blocking ones at 1.05×; with the fast path and autogroups on, 0.60×
// against 1.01×; docs/BENCHMARKS.md §7). There is no COPY-like
// protocol for batches.
func (t *Target) Capabilities() target.Capabilities {
	return target.Capabilities{
		Transactions:     true,
		MultiRowInsert:   true,
		MaxBindParams:    maxBindParams,
		TableLoad:        t.tableLoad,
		BlockingSessions: blockconn.Enabled,
	}
}

// Connect implements target.Target: the Conn owns one dedicated session
// until closed. Errors wrap target.ErrUnreachable.
func (t *Target) Connect(ctx context.Context) (target.Conn, error) {
	var d dialed
	dc, err := t.session(ctx, &d)
	if err != nil {
		return nil, err
	}
	c := drvconn.New(dc, drvconn.Options{MaxStmts: maxCachedStmts, CloseDrains: true})
	if d.conn == nil {
		// Not dialed through the DialFunc (the driver always dials through
		// it, so this does not happen): a session that cannot be
		// interrupted, whose statements run under cancellable contexts.
		return c, nil
	}
	mc := &Conn{Conn: c, net: d.conn}
	if t.fast && d.conn.deprecatesEOF() {
		mc.fast = newFastPath(d.conn.Conn) // the socket itself: the greeting is read
	}
	return mc, nil
}

// Conn is one MySQL session (see the note at the end of this file).
type Conn struct {
	*drvconn.Conn
	net  net.Conn
	fast *fastPath // nil when the session's statements cannot take it
}

// Exec implements target.Conn: with arguments on the fast path when it can
// (fastpath.go), else through the driver.
func (c *Conn) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	if len(args) > 0 && c.fast.usable(ctx) && fastArgs(args) {
		return c.fast.exec(query, args)
	}
	return c.Conn.Exec(ctx, query, args...)
}

// ExecPrepared implements target.Preparer: on the fast path when it can.
func (c *Conn) ExecPrepared(ctx context.Context, query string) (int64, error) {
	if c.fast.usable(ctx) {
		return c.fast.exec(query, nil)
	}
	return c.Conn.ExecPrepared(ctx, query)
}

// Query implements target.Conn: a statement with arguments whose rows are
// not read (fn nil) on the fast path when it can, else through the driver.
func (c *Conn) Query(ctx context.Context, query string, args []any, fn func(cols [][]byte) error) (int, error) {
	if fn == nil && len(args) > 0 && c.fast.usable(ctx) && fastArgs(args) {
		_, err := c.fast.exec(query, args)
		return 0, err // discarded rows count 0, as drvconn's do
	}
	return c.Conn.Query(ctx, query, args, fn)
}

var (
	_ target.Interrupter = (*Conn)(nil)
	_ target.TableLoader = (*Conn)(nil)
)

// Interrupt implements target.Interrupter: the socket's deadline is set to
// now, so the read or write in flight fails at once; the driver then marks
// the session bad.
func (c *Conn) Interrupt() {
	_ = c.net.SetDeadline(time.Now())
}

// Close implements target.Target. Sessions already handed out stay usable
// until their owners close them; later Connect calls fail with ErrClosed.
func (t *Target) Close() error {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	return t.db.Close()
}

// A MySQL session (internal/target/drvconn): statements with arguments are
// prepared on the server once per session and cached by SQL text (at most
// maxCachedStmts; the cache is emptied when full); statements without
// arguments are sent as plain text, so several ;-separated statements may go
// at once (ExecPrepared, target.Preparer, prepares them too). The prepared
// executions whose rows are not read go out on the fast path where the
// session allows (fastpath.go), the others through go-sql-driver. A client
// deadline or cancellation aborts a statement by closing the session: the
// operation fails with the context's error and the session is unusable
// afterwards (its errors classify as connection). Values are text: strings,
// binary columns and DECIMAL as stored, integers in decimal (without
// ZEROFILL padding), FLOAT and DOUBLE in Go's shortest form of their size
// (1.5, 1e+20), temporal types as MySQL prints them. A FLOAT read by a
// plain statement has only the 6 digits the server sends as text (3.14159);
// read by a prepared one, all its digits (3.1415927). UPDATE counts are the
// rows matched (clientFoundRows).

// ServerTimeQuery is the server's clock (target.ServerClock): NOW(6) as
// Unix seconds to the microsecond.
func (t *Target) ServerTimeQuery() string {
	return "SELECT CAST(UNIX_TIMESTAMP(NOW(6)) AS CHAR)"
}
