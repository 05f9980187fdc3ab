// Package voltdb is candor's VoltDB driver. It speaks VoltDB's client wire
// protocol itself (wire.go), from the protocol's public description: the
// Go client VoltDB publishes is unfit here (AGPL headers under an MIT
// licence file, failed calls that return no error, no reconnection).
//
// URL form:
//
//	voltdb://[USER[:PASSWORD]@]HOST[:PORT][,HOST[:PORT]...][?user=U&password=P]
//
// Port 21212 (VoltDB's client port) by default. Every session is one TCP
// connection to one node; sessions are spread over the nodes in turn. A
// session's calls are synchronous, one in flight at a time, except the
// statements of one multi-statement Exec with arguments, which go out
// together (pipelined), and a load's CopyFrom, 128 rows in flight. Calls are not routed to
// their partition's leader (no client affinity): the node a session is
// connected to forwards a single-partition call to the leader, one extra
// hop on a cluster, none on one node.
//
// SQL runs through the system procedure @AdHoc (SQL text with ? parameters,
// then the parameters). A statement of the form
//
//	EXEC @Procedure [ARG | ? ...] [WHERE COLUMN = ?]
//
// calls a procedure instead (sqlcmd's syntax): each ARG is a string
// parameter (a BIGINT when it is a decimal integer), each ? takes the next argument; the optional WHERE keeps the
// rows of the result whose COLUMN equals the argument, compared without
// regard to case (how candor asks @SystemCatalog whether a table exists).
//
// Transactions: each call is one serializable transaction; there is no
// BEGIN/COMMIT across calls (Capabilities.Transactions is false, so the
// workloads that need multi-statement transactions refuse the target at
// bind), and --isolation accepts only serializable.
package voltdb

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/target"
)

// Name is the driver's registry name.
const Name = "voltdb"

// DefaultPort is VoltDB's client port.
const DefaultPort = 21212

func init() {
	target.Register(target.Driver{
		Name:        Name,
		Schemes:     []string{"voltdb"},
		Description: "VoltDB (its client wire protocol, written by candor; SQL through @AdHoc)",
		Open:        Open,
	})
}

// Config is a parsed voltdb:// URL.
type Config struct {
	Hosts    []string // host:port
	User     string
	Password string
}

// urlParams are the parameters a voltdb:// URL accepts.
var urlParams = []string{"user", "password"}

// ParseURL parses a voltdb:// URL. Errors wrap target.ErrBadURL and never
// show the password.
func ParseURL(raw string) (Config, error) {
	var c Config
	bad := func(why string) (Config, error) {
		return Config{}, fmt.Errorf("%w %q: %s; the form is voltdb://[user[:password]@]host[:port][,host[:port]...][?user=&password=]",
			target.ErrBadURL, target.Redact(raw), why)
	}
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok || !strings.EqualFold(scheme, "voltdb") {
		return bad("the scheme is not voltdb")
	}
	rest, query, _ := strings.Cut(rest, "?")
	if at := strings.LastIndex(rest, "@"); at >= 0 {
		info := rest[:at]
		rest = rest[at+1:]
		user, pass, hasPass := strings.Cut(info, ":")
		var err error
		if c.User, err = url.PathUnescape(user); err != nil {
			return bad("the user name is not well escaped")
		}
		if hasPass {
			if c.Password, err = url.PathUnescape(pass); err != nil {
				return bad("the password is not well escaped")
			}
		}
	}
	rest = strings.TrimSuffix(rest, "/")
	if strings.Contains(rest, "/") {
		return bad("a VoltDB URL has no path (VoltDB has one database)")
	}
	if rest == "" {
		return bad("no host")
	}
	for _, h := range strings.Split(rest, ",") {
		if h == "" {
			return bad("an empty host in the list")
		}
		host, port, err := net.SplitHostPort(h)
		if err != nil {
			host, port = h, strconv.Itoa(DefaultPort)
		}
		if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
			return bad("port " + strconv.Quote(port) + " is not a number from 1 to 65535")
		}
		if host == "" {
			return bad("an empty host name")
		}
		c.Hosts = append(c.Hosts, net.JoinHostPort(host, port))
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		return bad("the parameters do not parse")
	}
	for k, v := range q {
		switch k {
		case "user":
			c.User = v[len(v)-1]
		case "password":
			c.Password = v[len(v)-1]
		default:
			return bad("unknown parameter " + strconv.Quote(k) + "; valid parameters: " + strings.Join(urlParams, ", "))
		}
	}
	return c, nil
}

// ErrClosed is returned by Connect and Fingerprint after Close.
var ErrClosed = errors.New("voltdb target is closed")

// Target is an opened VoltDB database. It is safe for concurrent use.
type Target struct {
	cfg      Config
	redacted string
	opts     target.Options
	next     atomic.Uint32 // the node the next session connects to

	mu     sync.Mutex
	build  string // the build string of the first login
	closed bool
}

var _ target.Target = (*Target)(nil)

// Open parses rawURL and logs in to one of its nodes once, so that a
// target nobody can reach fails here, naming the nodes. opts.Isolation
// must be "" or "serializable": every VoltDB call is a serializable
// transaction, and no setting changes that.
func Open(ctx context.Context, rawURL string, opts target.Options) (target.Target, error) {
	if err := target.ValidIsolation(opts.Isolation); err != nil {
		return nil, err
	}
	if opts.Isolation != "" && opts.Isolation != "serializable" {
		return nil, fmt.Errorf("%w: isolation level %q: VoltDB runs every call (a procedure or an @AdHoc statement) as one serializable transaction and has no other level; use --isolation serializable or leave it unset",
			target.ErrUnsupported, opts.Isolation)
	}
	cfg, err := ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	if opts.ConnectTimeout <= 0 {
		opts.ConnectTimeout = target.DefaultConnectTimeout
	}
	t := &Target{cfg: cfg, redacted: target.Redact(rawURL), opts: opts}
	c, err := t.dialAny(ctx)
	if err != nil {
		return nil, err
	}
	t.build = c.build
	c.Close()
	return t, nil
}

// Config is the parsed URL (with its password).
func (t *Target) Config() Config { return t.cfg }

// Driver implements target.Target.
func (t *Target) Driver() string { return Name }

// RedactedURL implements target.Target.
func (t *Target) RedactedURL() string { return t.redacted }

// Dialect implements target.Target.
func (t *Target) Dialect() dialect.Dialect { return dialect.VoltDB }

// Capabilities implements target.Target: no transactions across calls, no
// multi-row INSERT, a load by CopyFrom (pipelined UPSERTs, one per row),
// blocking sessions (package blockconn).
func (t *Target) Capabilities() target.Capabilities {
	return target.Capabilities{
		CopyFrom:         true,
		MaxBindParams:    dialect.VoltDB.MaxBindParams,
		BlockingSessions: true,
	}
}

// Connect implements target.Target: a session on the next node in turn, or
// on the one after it when that one cannot be reached.
func (t *Target) Connect(ctx context.Context) (target.Conn, error) {
	t.mu.Lock()
	closed := t.closed
	t.mu.Unlock()
	if closed {
		return nil, ErrClosed
	}
	return t.dialAny(ctx)
}

// dialAny logs in to the nodes in turn, starting with the next one, and
// returns the first session that succeeds.
func (t *Target) dialAny(ctx context.Context) (*Conn, error) {
	n := len(t.cfg.Hosts)
	start := int(t.next.Add(1)-1) % n
	var errs []error
	for i := 0; i < n; i++ {
		c, err := dial(ctx, t, t.cfg.Hosts[(start+i)%n])
		if err == nil {
			return c, nil
		}
		errs = append(errs, err)
		var le *LoginError
		if errors.As(err, &le) {
			break // another node would refuse the same user
		}
	}
	err := target.RedactError(errors.Join(errs...), t.cfg.Password)
	return nil, fmt.Errorf("%w: voltdb %s: %w", target.ErrUnreachable, strings.Join(t.cfg.Hosts, ","), err)
}

// Close implements target.Target; sessions already open stay usable until
// closed.
func (t *Target) Close() error {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	return nil
}
