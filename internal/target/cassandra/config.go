package cassandra

import (
	"fmt"
	"net"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/candor-bench/candor/internal/target"
)

// Defaults applied when the URL does not set the parameter.
const (
	DefaultPort              = 9042
	DefaultKeyspace          = "ycsb" // YCSB's CQL binding's cassandra.keyspace
	DefaultConsistency       = "ONE"  // the binding's read and write default
	DefaultSerialConsistency = "SERIAL"
	DefaultConnections       = 2  // per node, the driver's default
	DefaultLoadWindow        = 32 // INSERTs in flight per Conn in CopyFrom
	maxLoadWindow            = 1024
	DefaultPageSize          = 5000
	DefaultTimeout           = 11 * time.Second // the driver's default, above the server's 10 s
	// DefaultWriteCoalesce is how long the driver holds a request to send
	// it with others in one write (the driver's own default is 200µs).
	DefaultWriteCoalesce = 0
	maxWriteCoalesce     = 10 * time.Millisecond
	DefaultStrategy      = "SimpleStrategy"
	DefaultReplication   = 1
	maxConnections       = 64
)

// Consistency levels a read or a write accepts, and those of the serial
// (Paxos) phase of a lightweight transaction.
var (
	consistencies       = []string{"ANY", "ONE", "TWO", "THREE", "QUORUM", "ALL", "LOCAL_QUORUM", "EACH_QUORUM", "LOCAL_ONE"}
	serialConsistencies = []string{"SERIAL", "LOCAL_SERIAL"}
	strategies          = []string{"SimpleStrategy", "NetworkTopologyStrategy"}
)

// params lists every URL parameter, for the message about an unknown one.
var params = []string{
	"allow_foreign_keyspace", "connections", "consistency", "load_consistency", "load_window", "local_dc", "page_size",
	"read_consistency", "replication_factor", "replication_strategy", "serial_consistency",
	"timeout", "tls", "tls_ca", "tls_cert", "tls_key", "tls_verify", "write_coalesce", "write_consistency",
}

// Config is a parsed cql:// URL.
type Config struct {
	Hosts    []string // host or host:port, as given
	Port     int      // the port of hosts given without one
	Keyspace string
	Username string
	Password string

	ReadConsistency  string // upper case, e.g. "ONE"
	WriteConsistency string
	// LoadConsistency is the level of the load's INSERTs; "" means
	// WriteConsistency. ALL makes every replica hold every loaded row
	// before the run reads at a lower level.
	LoadConsistency   string
	SerialConsistency string // SERIAL or LOCAL_SERIAL

	// Replication of a keyspace candor creates. ReplicationSet says the URL
	// gave replication_factor or replication_strategy: an existing keyspace
	// must then have it.
	Strategy       string
	Replication    int
	ReplicationSet bool

	Connections int // per node
	LoadWindow  int // INSERTs in flight per Conn when loading
	PageSize    int
	Timeout     time.Duration
	LocalDC     string // DC-aware routing when set
	// WriteCoalesce is how long the driver waits for more requests to
	// send in one write to a connection; 0 writes each request at once.
	WriteCoalesce time.Duration

	TLS                  bool
	TLSCA                string
	TLSCert              string
	TLSKey               string
	TLSVerify            bool // verify the server's host name (default true with TLS)
	AllowForeignKeyspace bool
}

// identifier is the shape of a keyspace name candor puts into CQL text
// unquoted: Cassandra allows letters, digits and underscores, at most 48.
var identifier = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,47}$`)

// ParseURL parses cql://[USER[:PASSWORD]@]HOST[:PORT][,HOST[:PORT]...][/KEYSPACE][?PARAMS]
// into a Config with defaults applied. A port after the last host applies
// to every host given without one. Errors wrap target.ErrBadURL, never show
// the password and say what is accepted.
func ParseURL(raw string) (Config, error) {
	redacted := target.Redact(raw)
	bad := func(format string, a ...any) error {
		msg := fmt.Sprintf(format, a...)
		if pw := target.PasswordOf(raw); pw != "" {
			msg = strings.ReplaceAll(msg, pw, "xxxxx")
		}
		return fmt.Errorf("%w %q: %s", target.ErrBadURL, redacted, msg)
	}
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok || !(strings.EqualFold(scheme, "cql") || strings.EqualFold(scheme, "cassandra")) {
		return Config{}, bad("expected cql://HOST[:PORT][,HOST...]/KEYSPACE, e.g. cql://127.0.0.1:9042/ycsb")
	}
	rest, query, _ := strings.Cut(rest, "?")
	authority, path, _ := strings.Cut(rest, "/")
	cfg := Config{
		Port: DefaultPort, Keyspace: DefaultKeyspace,
		ReadConsistency: DefaultConsistency, WriteConsistency: DefaultConsistency, SerialConsistency: DefaultSerialConsistency,
		Strategy: DefaultStrategy, Replication: DefaultReplication,
		Connections: DefaultConnections, LoadWindow: DefaultLoadWindow, PageSize: DefaultPageSize, Timeout: DefaultTimeout, WriteCoalesce: DefaultWriteCoalesce, TLSVerify: true,
	}
	if at := strings.LastIndex(authority, "@"); at >= 0 {
		user, pw, hasPW := strings.Cut(authority[:at], ":")
		authority = authority[at+1:]
		var err error
		if cfg.Username, err = url.PathUnescape(user); err != nil {
			return Config{}, bad("bad escape in the user name: %v", err)
		}
		if hasPW {
			if cfg.Password, err = url.PathUnescape(pw); err != nil {
				return Config{}, bad("bad escape in the password")
			}
		}
		if cfg.Username == "" {
			return Config{}, bad("empty user name before '@'; give USER:PASSWORD@ or nothing")
		}
	}
	if authority == "" {
		return Config{}, bad("no host; give at least one, e.g. cql://127.0.0.1:9042/ycsb")
	}
	hosts := strings.Split(authority, ",")
	last := hosts[len(hosts)-1]
	if h, p, err := net.SplitHostPort(last); err == nil {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return Config{}, bad("port %q is not a number in 1..65535", p)
		}
		cfg.Port = n
		hosts[len(hosts)-1] = h
		if strings.Contains(h, ":") {
			hosts[len(hosts)-1] = "[" + h + "]"
		}
	}
	for i, h := range hosts {
		if h == "" {
			return Config{}, bad("empty host in the host list %q", authority)
		}
		if strings.ContainsAny(h, " /?#@") {
			return Config{}, bad("bad host %q", h)
		}
		if i < len(hosts)-1 && strings.Contains(h, ":") && !strings.HasPrefix(h, "[") {
			if _, p, err := net.SplitHostPort(h); err != nil {
				return Config{}, bad("bad host %q: %v", h, err)
			} else if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
				return Config{}, bad("port %q of host %q is not a number in 1..65535", p, h)
			}
		}
	}
	cfg.Hosts = hosts
	if path != "" {
		ks, err := url.PathUnescape(strings.TrimSuffix(path, "/"))
		if err != nil {
			return Config{}, bad("bad escape in the keyspace: %v", err)
		}
		if !identifier.MatchString(ks) {
			return Config{}, bad("keyspace %q: use letters, digits and underscores, starting with a letter, at most 48 characters", ks)
		}
		cfg.Keyspace = strings.ToLower(ks)
	}

	q, err := url.ParseQuery(query)
	if err != nil {
		return Config{}, bad("bad query string: %v", err)
	}
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var consistency string
	for _, k := range keys {
		v := q[k][len(q[k])-1]
		switch strings.ToLower(k) {
		case "load_consistency":
			c := strings.ToUpper(v)
			if !contains(consistencies, c) {
				return Config{}, bad("%s=%s is not a consistency level; valid levels: %s", k, v, strings.Join(consistencies, ", "))
			}
			cfg.LoadConsistency = c
		case "consistency", "read_consistency", "write_consistency":
			c := strings.ToUpper(v)
			if !contains(consistencies, c) {
				return Config{}, bad("%s=%s is not a consistency level; valid levels: %s", k, v, strings.Join(consistencies, ", "))
			}
			switch strings.ToLower(k) {
			case "consistency":
				consistency = c
			case "read_consistency":
				cfg.ReadConsistency = c
			default:
				cfg.WriteConsistency = c
			}
		case "serial_consistency":
			c := strings.ToUpper(v)
			if !contains(serialConsistencies, c) {
				return Config{}, bad("serial_consistency=%s: valid levels: %s", v, strings.Join(serialConsistencies, ", "))
			}
			cfg.SerialConsistency = c
		case "replication_factor":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 100 {
				return Config{}, bad("replication_factor=%s: expected a whole number of copies, 1..100", v)
			}
			cfg.Replication, cfg.ReplicationSet = n, true
		case "replication_strategy":
			s := ""
			for _, x := range strategies {
				if strings.EqualFold(x, v) || strings.EqualFold(x, v+"Strategy") {
					s = x
				}
			}
			if s == "" {
				return Config{}, bad("replication_strategy=%s: valid strategies: %s", v, strings.Join(strategies, ", "))
			}
			cfg.Strategy, cfg.ReplicationSet = s, true
		case "connections":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > maxConnections {
				return Config{}, bad("connections=%s: expected connections per node, 1..%d", v, maxConnections)
			}
			cfg.Connections = n
		case "load_window":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > maxLoadWindow {
				return Config{}, bad("load_window=%s: expected INSERTs in flight per load thread, 1..%d", v, maxLoadWindow)
			}
			cfg.LoadWindow = n
		case "page_size":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return Config{}, bad("page_size=%s: expected rows per page, a whole number ≥ 1", v)
			}
			cfg.PageSize = n
		case "timeout":
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return Config{}, bad("timeout=%s: expected a duration such as 11s or 500ms", v)
			}
			cfg.Timeout = d
		case "write_coalesce":
			d, err := time.ParseDuration(v)
			if v == "0" {
				d, err = 0, nil
			}
			if err != nil || d < 0 || d > maxWriteCoalesce {
				return Config{}, bad("write_coalesce=%s: expected 0 (write each request at once) or a duration up to %s such as 200us", v, maxWriteCoalesce)
			}
			cfg.WriteCoalesce = d
		case "local_dc":
			if v == "" {
				return Config{}, bad("local_dc is empty: give the name of the data centre to route to")
			}
			cfg.LocalDC = v
		case "tls", "tls_verify", "allow_foreign_keyspace":
			b, err := strconv.ParseBool(v)
			if err != nil {
				return Config{}, bad("%s=%s: expected true or false", k, v)
			}
			switch strings.ToLower(k) {
			case "tls":
				cfg.TLS = b
			case "tls_verify":
				cfg.TLSVerify = b
			default:
				cfg.AllowForeignKeyspace = b
			}
		case "tls_ca":
			cfg.TLSCA, cfg.TLS = v, true
		case "tls_cert":
			cfg.TLSCert, cfg.TLS = v, true
		case "tls_key":
			cfg.TLSKey, cfg.TLS = v, true
		default:
			return Config{}, bad("unknown parameter %q; valid parameters: %s", k, strings.Join(params, ", "))
		}
	}
	if consistency != "" {
		if q.Has("read_consistency") || q.Has("write_consistency") {
			return Config{}, bad("give either consistency or read_consistency/write_consistency, not both")
		}
		cfg.ReadConsistency, cfg.WriteConsistency = consistency, consistency
	}
	if (cfg.TLSCert == "") != (cfg.TLSKey == "") {
		return Config{}, bad("tls_cert and tls_key go together: give both (a client certificate) or neither")
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

// ReplicationMap is the keyspace's replication option as CQL writes it.
func (c Config) ReplicationMap() string {
	return fmt.Sprintf("{'class': '%s', 'replication_factor': %d}", c.Strategy, c.Replication)
}

// consistency converts a name checked by ParseURL.
func consistency(name string) gocql.Consistency {
	return gocql.ParseConsistency(name)
}

// IsURL reports whether raw names a CQL target (cql:// or cassandra://).
func IsURL(raw string) bool {
	scheme, _, ok := strings.Cut(raw, "://")
	return ok && (strings.EqualFold(scheme, "cql") || strings.EqualFold(scheme, "cassandra"))
}

// Setting is a URL parameter given outside the URL, by Source (a
// command-line flag such as "--write-consistency").
type Setting struct {
	Param  string // read_consistency, write_consistency, serial_consistency, replication_factor or replication_strategy
	Value  string
	Source string
}

// WithSettings returns raw with each setting added as its URL parameter, so
// that the target, its fingerprint and the result see it as if the URL had
// given it. A value the parameter does not accept is an error naming the
// setting's source and the valid values; so is a URL that already gives the
// parameter (or consistency=, for a read or write level) another value.
func WithSettings(raw string, settings []Setting) (string, error) {
	_, query, _ := strings.Cut(raw, "?")
	q, err := url.ParseQuery(query)
	if err != nil {
		return "", fmt.Errorf("%w %q: bad query string: %v", target.ErrBadURL, target.Redact(raw), err)
	}
	given := func(name string) (string, bool) {
		for k, v := range q {
			if strings.EqualFold(k, name) {
				return v[len(v)-1], true
			}
		}
		return "", false
	}
	var add []string
	for _, s := range settings {
		v, err := normalize(s.Param, s.Value)
		if err != nil {
			return "", fmt.Errorf("%s %s: %w", s.Source, s.Value, err)
		}
		names := []string{s.Param}
		if s.Param == "read_consistency" || s.Param == "write_consistency" {
			names = append(names, "consistency")
		}
		dup := false
		for _, name := range names {
			old, ok := given(name)
			if !ok {
				continue
			}
			if o, err := normalize(s.Param, old); err == nil && o == v {
				dup = true
				continue
			}
			return "", fmt.Errorf("%s %s contradicts the URL's %s=%s: give it in one place", s.Source, s.Value, name, old)
		}
		if !dup {
			add = append(add, s.Param+"="+url.QueryEscape(v))
		}
	}
	if len(add) == 0 {
		return raw, nil
	}
	sep := "?"
	if strings.Contains(raw, "?") {
		sep = "&"
		if strings.HasSuffix(raw, "?") || strings.HasSuffix(raw, "&") {
			sep = ""
		}
	}
	return raw + sep + strings.Join(add, "&"), nil
}

// normalize checks a value of a Setting's parameter and returns it as the
// URL spells it.
func normalize(param, v string) (string, error) {
	switch param {
	case "read_consistency", "write_consistency", "consistency":
		c := strings.ToUpper(v)
		if !contains(consistencies, c) {
			return "", fmt.Errorf("not a consistency level; valid levels: %s", strings.Join(consistencies, ", "))
		}
		return c, nil
	case "serial_consistency":
		c := strings.ToUpper(v)
		if !contains(serialConsistencies, c) {
			return "", fmt.Errorf("not a serial consistency level; valid levels: %s", strings.Join(serialConsistencies, ", "))
		}
		return c, nil
	case "replication_factor":
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			return "", fmt.Errorf("expected a whole number of copies, 1..100")
		}
		return strconv.Itoa(n), nil
	case "replication_strategy":
		for _, x := range strategies {
			if strings.EqualFold(x, v) || strings.EqualFold(x, v+"Strategy") {
				return x, nil
			}
		}
		return "", fmt.Errorf("valid strategies: %s", strings.Join(strategies, ", "))
	}
	return "", fmt.Errorf("%s is not a setting of CQL targets", param)
}

// loadConsistency is the level of the load's INSERTs: load_consistency,
// else the write consistency.
func (c Config) loadConsistency() string {
	if c.LoadConsistency != "" {
		return c.LoadConsistency
	}
	return c.WriteConsistency
}
