// Package cassandra is candor's CQL driver: Apache Cassandra (and other
// servers of the CQL native protocol) through the Apache Cassandra Go driver
// (github.com/apache/cassandra-gocql-driver/v2).
//
// URL form:
//
//	cql://[USER[:PASSWORD]@]HOST[:PORT][,HOST[:PORT]...][/KEYSPACE][?PARAMS]
//
// (cassandra:// is accepted too). The hosts are contact points: the driver
// discovers the other nodes and routes each statement with a partition key
// to a replica of it (token-aware, round robin among nodes otherwise, or
// among the nodes of local_dc). A port after the last host applies to every
// host given without one (default 9042). KEYSPACE defaults to ycsb, as in
// YCSB's CQL binding. Parameters:
//
//	consistency           read and write consistency level     default ONE
//	read_consistency      of statements that return rows        default ONE
//	write_consistency     of statements that do not             default ONE
//	serial_consistency    SERIAL or LOCAL_SERIAL (LWT)           default SERIAL
//	replication_factor    copies, for a keyspace candor creates default 1
//	replication_strategy  SimpleStrategy|NetworkTopologyStrategy default SimpleStrategy
//	connections           connections per node (the pool bound) default 2
//	load_window           INSERTs in flight per load thread     default 32
//	page_size             rows per page                          default 5000
//	timeout               per request, e.g. 11s                  default 11s
//	write_coalesce        hold a request this long to send it    default 0
//	                      with others in one write (0: at once; the driver's own default is 200us)
//	local_dc              route to this data centre's nodes
//	tls                   true: TLS (also implied by tls_ca/tls_cert/tls_key)
//	tls_ca, tls_cert, tls_key   PEM files; tls_verify=false skips the host name check
//	allow_foreign_keyspace true: use a keyspace candor did not create
//
// Consistency levels are ANY, ONE, TWO, THREE, QUORUM, ALL, LOCAL_QUORUM,
// EACH_QUORUM and LOCAL_ONE. ONE for both is what YCSB's CQL binding uses by
// default; the fingerprint records the levels in effect.
//
// The keyspace: when it does not exist, candor creates it with the URL's
// replication at the first write or fingerprint (after the workload has
// accepted the target, so a workload the target cannot run creates
// nothing, and a cleanup of a keyspace that is not there makes none), and
// records it as candor's in its marker table
// (dialect.MarkerTable). A keyspace that exists without that record is
// refused unless allow_foreign_keyspace=true; a keyspace whose replication
// differs from a replication the URL asks for explicitly is refused too.
package cassandra

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/dialhook"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/target/blockconn"
)

// Name is the driver's registry name.
const Name = "cassandra"

func init() {
	target.Register(target.Driver{
		Name:        Name,
		Schemes:     []string{"cql", "cassandra"},
		Description: "Apache Cassandra and other CQL servers (cassandra-gocql-driver/v2, token-aware)",
		Open:        Open,
	})
}

// keyspaceMark is the marker-table row that records a keyspace candor
// created. It is not a table name (a space), so listings of owned tables
// never show it.
func keyspaceMark(ks string) string { return "keyspace " + ks }

// ErrClosed is returned by Connect and Fingerprint after Close.
var ErrClosed = errors.New("cassandra target is closed")

// Target is an opened CQL cluster. It is safe for concurrent use. All its
// connections share one driver session (the driver multiplexes requests
// over Config.Connections connections per node).
type Target struct {
	cfg      Config
	redacted string
	opts     target.Options
	boot     *gocql.Session // without keyspace: system tables, keyspace creation

	mu     sync.Mutex
	sess   *gocql.Session // bound to cfg.Keyspace, made by ready
	closed bool
}

var _ target.Target = (*Target)(nil)

// Open parses rawURL and connects to the cluster (bounded by the connect
// timeout). It neither creates nor checks the keyspace: that happens when a
// session or the fingerprint first needs it. opts.Isolation must be "": CQL
// has no transaction isolation levels.
func Open(ctx context.Context, rawURL string, opts target.Options) (target.Target, error) {
	if err := target.ValidIsolation(opts.Isolation); err != nil {
		return nil, err
	}
	if opts.Isolation != "" {
		return nil, fmt.Errorf("%w: isolation level %q: CQL has no transactions and no isolation levels; leave --isolation unset (set consistency levels with --read-consistency and --write-consistency, or the URL parameters read_consistency and write_consistency)", target.ErrUnsupported, opts.Isolation)
	}
	cfg, err := ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	if opts.ConnectTimeout <= 0 {
		opts.ConnectTimeout = target.DefaultConnectTimeout
	}
	t := &Target{cfg: cfg, redacted: target.Redact(rawURL), opts: opts}
	boot := cfg.clusterConfig(opts.ConnectTimeout)
	boot.Keyspace = ""
	boot.NumConns = 1
	if t.boot, err = t.newSession(ctx, boot); err != nil {
		return nil, err
	}
	return t, nil
}

// clusterConfig is the driver's configuration for c: a new one for every
// session, as the driver's routing policies belong to one session.
func (c Config) clusterConfig(connectTimeout time.Duration) *gocql.ClusterConfig {
	cl := gocql.NewCluster(c.Hosts...)
	cl.Port = c.Port
	cl.Keyspace = c.Keyspace
	cl.NumConns = c.Connections
	cl.PageSize = c.PageSize
	cl.Timeout = c.Timeout
	cl.WriteCoalesceWaitTime = c.WriteCoalesce
	cl.ConnectTimeout = connectTimeout
	// The driver's own dialer, but through blockconn.Dial (sessions in Go's
	// poller), where the network-fault proxy hands a dial to its address
	// over in-process (package fault), as for the other drivers.
	d := &net.Dialer{Timeout: connectTimeout}
	if cl.SocketKeepalive > 0 {
		d.KeepAlive = cl.SocketKeepalive
	}
	cl.Dialer = dialer{d}
	// A node the driver discovers is reached through the address that
	// stands for it, if any: a network-fault proxy's (package fault), so
	// that a fault on a node acts on every connection to it, not only on
	// those to the contact point.
	cl.AddressTranslator = gocql.AddressTranslatorFunc(translate)
	cl.Consistency = consistency(c.ReadConsistency)
	cl.SerialConsistency = consistency(c.SerialConsistency)
	// Token-aware routing to a replica of the statement's partition, over
	// round robin (among the nodes of local_dc when given); replicas are
	// shuffled so that one replica does not take every request for a key.
	fallback := gocql.RoundRobinHostPolicy()
	if c.LocalDC != "" {
		fallback = gocql.DCAwareRoundRobinPolicy(c.LocalDC)
	}
	cl.PoolConfig.HostSelectionPolicy = gocql.TokenAwareHostPolicy(fallback, gocql.ShuffleReplicas())
	if c.Username != "" {
		cl.Authenticator = gocql.PasswordAuthenticator{Username: c.Username, Password: c.Password}
	}
	if c.TLS {
		cl.SslOpts = &gocql.SslOptions{
			Config:                 &tls.Config{MinVersion: tls.VersionTLS12},
			CaPath:                 c.TLSCA,
			CertPath:               c.TLSCert,
			KeyPath:                c.TLSKey,
			EnableHostVerification: c.TLSVerify,
		}
	}
	return cl
}

// dialer is the driver's Dialer (gocql.Dialer): a TCP connection in Go's
// network poller, by blockconn.Dial.
type dialer struct{ d *net.Dialer }

func (d dialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	return blockconn.Dial(target.WithSessionIO(ctx, target.IOPoller), d.d, network, addr)
}

// translate is the driver's AddressTranslator: the address that stands for
// addr:port (dialhook.Route), or addr:port itself.
func translate(addr net.IP, port int) (net.IP, int) {
	to := dialhook.Route(net.JoinHostPort(addr.String(), strconv.Itoa(port)))
	host, p, err := net.SplitHostPort(to)
	if err != nil {
		return addr, port
	}
	ip := net.ParseIP(host)
	n, err := strconv.Atoi(p)
	if ip == nil || err != nil {
		return addr, port
	}
	return ip, n
}

// newSession connects a driver session for cl, bounded by the connect
// timeout and by ctx. Failures wrap target.ErrUnreachable and never show the
// password.
func (t *Target) newSession(ctx context.Context, cl *gocql.ClusterConfig) (*gocql.Session, error) {
	type result struct {
		s   *gocql.Session
		err error
	}
	ch := make(chan result, 1)
	go func() {
		s, err := cl.CreateSession()
		ch <- result{s, err}
	}()
	var r result
	select {
	case r = <-ch:
	case <-ctx.Done():
		go func() {
			if r := <-ch; r.s != nil {
				r.s.Close()
			}
		}()
		return nil, ctx.Err()
	}
	if r.err != nil {
		err := target.RedactError(r.err, t.cfg.Password)
		hint := "check the hosts and port, and that the server is up"
		var re gocql.RequestError
		msg := strings.ToLower(r.err.Error())
		if errors.As(r.err, &re) && re.Code() == gocql.ErrCodeCredentials ||
			strings.Contains(msg, "password") || strings.Contains(msg, "authenticat") || strings.Contains(msg, "credentials") {
			hint = "check the user name and password"
		}
		return nil, fmt.Errorf("%w: cannot connect to %s: %w; %s", target.ErrUnreachable, t.redacted, err, hint)
	}
	return r.s, nil
}

// Config returns the parsed URL settings.
func (t *Target) Config() Config { return t.cfg }

// Driver implements target.Target.
func (t *Target) Driver() string { return Name }

// RedactedURL implements target.Target.
func (t *Target) RedactedURL() string { return t.redacted }

// Dialect implements target.Target: CQL, in the URL's keyspace.
func (t *Target) Dialect() dialect.Dialect {
	d := dialect.CQL
	d.Keyspace = t.cfg.Keyspace
	return d
}

// Capabilities implements target.Target. CQL is not SQL: no
// multi-statement transactions, no multi-row INSERT (a BATCH instead). Its
// bulk load (CopyFrom) is concurrent prepared INSERTs (Conn.CopyFrom).
func (t *Target) Capabilities() target.Capabilities {
	return target.Capabilities{MaxBindParams: 65535, QueryLanguage: target.LanguageCQL, CopyFrom: true}
}

// Connect implements target.Target. The Conn is a handle on the target's
// shared driver session; the first Connect creates the keyspace when it does
// not exist (see the package comment).
//
// When the keyspace does not exist yet, Connect creates nothing: the Conn
// answers queries of the system tables (which is all that asking whether a
// table exists takes), and creates the keyspace at its first Exec or
// CopyFrom. So `candor cleanup` on a keyspace that is not there leaves none
// behind.
func (t *Target) Connect(ctx context.Context) (target.Conn, error) {
	c := &Conn{t: t, read: consistency(t.cfg.ReadConsistency), write: consistency(t.cfg.WriteConsistency), load: consistency(t.cfg.loadConsistency()), window: t.cfg.LoadWindow}
	t.mu.Lock()
	c.s = t.sess
	closed := t.closed
	t.mu.Unlock()
	if closed {
		return nil, ErrClosed
	}
	if c.s != nil {
		return c, nil
	}
	_, exists, err := keyspaceReplication(ctx, t.boot, t.cfg.Keyspace)
	if err != nil {
		return nil, fmt.Errorf("%w: reading keyspace %s from system_schema.keyspaces at %s: %w", target.ErrUnreachable, t.cfg.Keyspace, t.redacted, err)
	}
	if exists {
		if c.s, err = t.ready(ctx); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// session returns the Conn's session: the keyspace's, made (and the
// keyspace created) on first need when write; for reads before the keyspace
// exists, the session without keyspace.
func (c *Conn) session(ctx context.Context, write bool) (*gocql.Session, error) {
	if c.s != nil {
		return c.s, nil
	}
	c.t.mu.Lock()
	s := c.t.sess
	c.t.mu.Unlock()
	if s == nil && write {
		var err error
		if s, err = c.t.ready(ctx); err != nil {
			return nil, err
		}
	}
	if s == nil {
		return c.t.boot, nil
	}
	c.s = s
	return s, nil
}

// Close implements target.Target: it ends the driver sessions, and with
// them every Conn handed out.
func (t *Target) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil
	}
	t.closed = true
	if t.sess != nil {
		closeWithin(t.sess, sessionCloseWait)
	}
	if t.boot != nil {
		closeWithin(t.boot, sessionCloseWait)
	}
	return nil
}

// sessionCloseWait bounds how long Close waits for a driver session.
const sessionCloseWait = 10 * time.Second

// closeWithin closes a driver session, giving up after d: the driver's
// Session.Close waits for its schema refresh, which can itself wait
// forever on a control connection that a fault broke (the fault matrix hung
// 20 minutes there once, on a busy machine). A run must end: the session is
// then left to the driver.
func closeWithin(s *gocql.Session, d time.Duration) {
	done := make(chan struct{})
	go func() {
		s.Close()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(d):
	}
}

// ready returns the session bound to the keyspace, checking the keyspace
// and creating it (with its mark) first when needed.
func (t *Target) ready(ctx context.Context) (*gocql.Session, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil, ErrClosed
	}
	if t.sess != nil {
		return t.sess, nil
	}
	if err := t.ensureKeyspace(ctx); err != nil {
		return nil, err
	}
	s, err := t.newSession(ctx, t.cfg.clusterConfig(t.opts.ConnectTimeout))
	if err != nil {
		return nil, err
	}
	t.sess = s
	return s, nil
}

// ErrForeignKeyspace marks a keyspace candor did not create; it wraps
// target.ErrForeignTable so that callers treat it as any foreign object.
var ErrForeignKeyspace = fmt.Errorf("%w (keyspace)", target.ErrForeignTable)

// ErrReplication marks an existing keyspace whose replication differs from
// the one the URL asks for.
var ErrReplication = fmt.Errorf("%w: keyspace replication differs from the URL's", target.ErrUnsupported)

func (t *Target) ensureKeyspace(ctx context.Context) error {
	ks := t.cfg.Keyspace
	repl, exists, err := keyspaceReplication(ctx, t.boot, ks)
	if err != nil {
		return fmt.Errorf("reading keyspace %s from system_schema.keyspaces: %w", ks, err)
	}
	marker := dialect.MarkerTable
	if !exists {
		stmt := "CREATE KEYSPACE IF NOT EXISTS " + ks + " WITH replication = " + t.cfg.ReplicationMap()
		if err := execSchema(ctx, t.boot, stmt); err != nil {
			return fmt.Errorf("creating keyspace %s: %w", ks, target.RedactError(err, t.cfg.Password))
		}
		o := dialect.Ownership(t.Dialect())
		if err := execSchema(ctx, t.boot, strings.Replace(o.CreateMarker, marker, ks+"."+marker, 1)); err != nil {
			return fmt.Errorf("creating candor's marker table in keyspace %s: %w", ks, err)
		}
		mark := strings.Replace(o.Mark, marker, ks+"."+marker, 1)
		created := time.Now().UTC().Format(time.RFC3339)
		if err := t.boot.Query(mark, keyspaceMark(ks), "replication "+t.cfg.ReplicationMap(), created).
			Consistency(gocql.One).ExecContext(ctx); err != nil {
			return fmt.Errorf("recording keyspace %s as candor's: %w", ks, err)
		}
		// The mark is written at ONE (the write still goes to every
		// replica): a keyspace with more copies than live nodes is created
		// and marked whatever consistency the workload asks for.
		return nil
	}
	if !t.cfg.AllowForeignKeyspace {
		owned, err := keyspaceOwned(ctx, t.boot, ks)
		if err != nil {
			return err
		}
		if !owned {
			return fmt.Errorf("%w: keyspace %q exists but candor did not create it (no record in %s.%s), so candor will not use it; "+
				"name a keyspace that does not exist in the URL (candor creates it), drop it yourself, or add allow_foreign_keyspace=true to the URL to use it as it is",
				ErrForeignKeyspace, ks, ks, marker)
		}
	}
	if t.cfg.ReplicationSet && !sameReplication(repl, t.cfg) {
		return fmt.Errorf("%w: keyspace %q has replication %s, the URL asks for %s; drop the keyspace (candor re-creates it) or change the URL",
			ErrReplication, ks, formatMap(repl), t.cfg.ReplicationMap())
	}
	return nil
}

// schemaTries is how many times execSchema sends a schema statement.
const schemaTries = 3

// execSchema runs a CREATE statement, sending it again when the driver
// saw no response within its timeout: a node busy with other schema changes
// (several keyspaces and tables created at once on a loaded machine) can
// take longer than the timeout to apply one, and applies it all the same.
// Sent again, an IF NOT EXISTS statement is harmless, and one without it
// finds the object: an "already exists" answer to a statement whose earlier
// send got no answer is the earlier send's success (candor checks that a
// table is absent before it creates it, and reads its identity right
// after). Any other error, or the last timeout, is returned.
func execSchema(ctx context.Context, s *gocql.Session, stmt string) error {
	return sendSchema(func() error { return s.Query(stmt).ExecContext(ctx) })
}

// sendSchema is execSchema's rule, with send sending the statement once.
func sendSchema(send func() error) error {
	var err error
	for try := range schemaTries {
		err = send()
		var exists *gocql.RequestErrAlreadyExists
		switch {
		case try > 0 && errors.As(err, &exists):
			return nil
		case !errors.Is(err, gocql.ErrTimeoutNoResponse):
			return err
		}
	}
	return fmt.Errorf("%w (sent %d times)", err, schemaTries)
}

// keyspaceReplication reads the replication map of keyspace ks.
func keyspaceReplication(ctx context.Context, s *gocql.Session, ks string) (map[string]string, bool, error) {
	var repl map[string]string
	err := s.Query("SELECT replication FROM system_schema.keyspaces WHERE keyspace_name = ?", ks).
		Consistency(gocql.One).ScanContext(ctx, &repl)
	if errors.Is(err, gocql.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return repl, true, nil
}

// keyspaceOwned reports whether ks holds candor's mark of the keyspace.
func keyspaceOwned(ctx context.Context, s *gocql.Session, ks string) (bool, error) {
	var n string
	err := s.Query("SELECT table_name FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?", ks, dialect.MarkerTable).
		Consistency(gocql.One).ScanContext(ctx, &n)
	if errors.Is(err, gocql.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("checking candor's marker table in keyspace %s: %w", ks, err)
	}
	err = s.Query("SELECT table_name FROM "+ks+"."+dialect.MarkerTable+" WHERE table_name = ?", keyspaceMark(ks)).
		Consistency(gocql.One).ScanContext(ctx, &n)
	if errors.Is(err, gocql.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading candor's mark of keyspace %s: %w", ks, err)
	}
	return true, nil
}

// sameReplication compares a keyspace's replication map with the URL's.
func sameReplication(repl map[string]string, c Config) bool {
	class := repl["class"]
	class = class[strings.LastIndex(class, ".")+1:]
	if class != c.Strategy {
		return false
	}
	want := fmt.Sprint(c.Replication)
	if c.Strategy == "SimpleStrategy" {
		return repl["replication_factor"] == want
	}
	n := 0
	for k, v := range repl {
		if k == "class" {
			continue
		}
		if v != want {
			return false
		}
		n++
	}
	return n > 0
}

// formatMap writes a replication map as CQL does, keys sorted.
func formatMap(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sortStrings(keys)
	var b strings.Builder
	b.WriteString("{")
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		v := m[k]
		if k == "class" {
			v = v[strings.LastIndex(v, ".")+1:]
		}
		fmt.Fprintf(&b, "'%s': '%s'", k, v)
	}
	b.WriteString("}")
	return b.String()
}
