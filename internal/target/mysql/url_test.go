package mysql

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/target"
)

// The URL becomes a go-sql-driver DSN with candor's fixed settings.
func TestParseConfigDSN(t *testing.T) {
	t.Setenv(PasswordEnv, "")
	cases := []struct {
		in, dsn string
		opts    target.Options
	}{
		// default port and connect timeout
		{"mysql://bob@db.example/ycsb", "bob@tcp(db.example:3306)/ycsb?clientFoundRows=true&multiStatements=true&timeout=10s", target.Options{}},
		// explicit port, timeout from the options
		{"mysql://bob@127.0.0.1:4000/test", "bob@tcp(127.0.0.1:4000)/test?clientFoundRows=true&multiStatements=true&timeout=2s", target.Options{ConnectTimeout: 2 * time.Second}},
		// IPv6 literal and tls
		{"mysql://bob@[::1]:3307/ycsb?tls=skip-verify", "bob@tcp([::1]:3307)/ycsb?clientFoundRows=true&multiStatements=true&timeout=10s&tls=skip-verify", target.Options{}},
		// scheme in capitals, tls=true
		{"MYSQL://root@h:1/d?tls=true", "root@tcp(h:1)/d?clientFoundRows=true&multiStatements=true&timeout=10s&tls=true", target.Options{}},
		// the protocol's compression (sysbench's --mysql-compression)
		{"mysql://root@h:1/d?compress=true&tls=skip-verify", "root@tcp(h:1)/d?clientFoundRows=true&compress=true&multiStatements=true&timeout=10s&tls=skip-verify", target.Options{}},
		{"mysql://root@h:1/d?compress=0", "root@tcp(h:1)/d?clientFoundRows=true&multiStatements=true&timeout=10s", target.Options{}},
	}
	for _, c := range cases {
		cfg, err := parseConfig(c.in, c.opts)
		if err != nil {
			t.Errorf("parseConfig(%q): %v", c.in, err)
			continue
		}
		if got := cfg.FormatDSN(); got != c.dsn {
			t.Errorf("parseConfig(%q) DSN = %q, want %q", c.in, got, c.dsn)
		}
		if !cfg.ClientFoundRows || cfg.InterpolateParams || cfg.ParseTime {
			t.Errorf("parseConfig(%q): fixed settings changed: %+v", c.in, cfg)
		}
	}
}

// The password comes from the URL, percent-decoded, else from MYSQL_PWD.
func TestParseConfigPassword(t *testing.T) {
	t.Setenv(PasswordEnv, "from-env")
	cases := map[string]string{
		"mysql://bob@h/db":            "from-env", // absent: the environment's
		"mysql://bob:in-url@h/db":     "in-url",   // the URL's wins
		"mysql://bob:p%40ss%23w@h/db": "p@ss#w",   // percent-encoded
		"mysql://bob:a:b@h/db":        "a:b",      // a colon after the first is the password's
		"mysql://bob:p@ss@h/db":       "p@ss",     // the last @ ends the user info
		"mysql://bob:@h/db":           "",         // explicitly empty
	}
	for in, want := range cases {
		cfg, err := parseConfig(in, target.Options{})
		if err != nil {
			t.Errorf("parseConfig(%q): %v", in, err)
			continue
		}
		if cfg.Passwd != want {
			t.Errorf("parseConfig(%q) password = %q, want %q", in, cfg.Passwd, want)
		}
	}
}

func TestParseConfigBad(t *testing.T) {
	bad := map[string]string{
		"mysql://h/db":                      "no user name",
		"mysql://bob@/db":                   "no host",
		"mysql://bob@h":                     "no database name",
		"mysql://bob@h/":                    "no database name",
		"mysql://bob@h/a/b":                 "contains '/'",
		"mysql://bob@h:0/db":                "port",
		"mysql://bob@h:70000/db":            "port",
		"mysql://bob@h/db?tls=maybe":        "tls=maybe",
		"mysql://bob@h/db?parseTime=true":   `unknown parameter "parseTime"`,
		"mysql://bob@h/db?compress=zlib":    "compress=zlib: expected true or false",
		"postgres://bob@h/db":               "scheme must be mysql",
		"mysql:bob@h/db":                    "missing //",
		"mysql://bob@h/db#frag":             "'#'",
		"mysql://bob:s3cret@h:notaport/db":  "not a valid URL",
		"mysql://bob:s3#cret@h/db":          "not a valid URL",
		"mysql://bob:s3/cret@h/db":          "not a valid URL",
		"mysql://bob@h:notaport/db":         "invalid port",
		"mysql://bob:s3cret@h/db?tls=maybe": "tls=maybe",
	}
	for in, want := range bad {
		_, err := parseConfig(in, target.Options{})
		if !errors.Is(err, target.ErrBadURL) || !strings.Contains(err.Error(), want) {
			t.Errorf("parseConfig(%q) = %v; want ErrBadURL mentioning %q", in, err, want)
			continue
		}
		for _, secret := range []string{"s3cret", "s3#cret", "s3/cret", "s3"} {
			if strings.Contains(in, secret) && strings.Contains(err.Error(), secret) {
				t.Errorf("parseConfig(%q) leaks the password: %v", in, err)
			}
		}
	}
}

func FuzzParseConfig(f *testing.F) {
	f.Add("mysql://candor:candor@127.0.0.1:3306/candor?tls=false")
	f.Add("mysql://bob:p%40ss@[::1]/db")
	f.Add("mysql://bob:s3#cret@h/db")
	f.Fuzz(func(t *testing.T, s string) {
		cfg, err := parseConfig(s, target.Options{})
		if err != nil {
			if !errors.Is(err, target.ErrBadURL) {
				t.Errorf("parseConfig(%q) error %v does not wrap ErrBadURL", s, err)
			}
			// The message names the redacted URL and says what is expected;
			// the password must not appear in the rest of it (unless it is
			// also some other part of the URL, or too short to tell).
			red := target.Redact(s)
			rest := strings.Replace(err.Error(), red, "", 1)
			if pw := target.PasswordOf(s); len(pw) >= 4 && !strings.Contains(red, pw) && strings.Contains(rest, pw) {
				t.Errorf("parseConfig(%q) leaks the password: %v", s, err)
			}
			return
		}
		if cfg.User == "" || cfg.DBName == "" || cfg.Addr == "" || !cfg.ClientFoundRows {
			t.Errorf("parseConfig(%q) accepted %+v", s, cfg)
		}
	})
}

func TestPasswordOf(t *testing.T) {
	cases := map[string]string{
		"mysql://bob:pw@host/db":   "pw",
		"mysql://bob@host/db":      "",
		"mysql://bob:p@ss@host/db": "p@ss",
		"mysql://bob:a#b@host/db":  "a#b",
		"host=x":                   "",
	}
	for in, want := range cases {
		if got := target.PasswordOf(in); got != want {
			t.Errorf("target.PasswordOf(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestIsolationSQL(t *testing.T) {
	cases := map[string]string{
		"read-uncommitted": "READ UNCOMMITTED",
		"read-committed":   "READ COMMITTED",
		"repeatable-read":  "REPEATABLE READ",
		"serializable":     "SERIALIZABLE",
	}
	for in, want := range cases {
		if got := isolationSQL(in); got != want {
			t.Errorf("isolationSQL(%q) = %q, want %q", in, got, want)
		}
	}
	_, err := Open(context.Background(), "mysql://bob@127.0.0.1:1/db", target.Options{Isolation: "snapshot"})
	if err == nil || !strings.Contains(err.Error(), "read-committed") {
		t.Errorf("Open with isolation snapshot = %v, want an error listing the valid levels", err)
	}
}

// A closed port fails at once with ErrUnreachable, and the message names the
// redacted URL, never the password.
func TestUnreachableClosedPort(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	u := "mysql://bob:s3cret-pw@" + addr + "/candor"
	start := time.Now()
	_, err = Open(context.Background(), u, target.Options{ConnectTimeout: time.Second})
	if !errors.Is(err, target.ErrUnreachable) {
		t.Fatalf("Open(closed port) = %v, want ErrUnreachable", err)
	}
	if strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "bob:xxxxx@"+addr) {
		t.Errorf("message should name the redacted URL only: %v", err)
	}
	if Classify(err) != target.ClassConnection {
		t.Errorf("Classify(unreachable) = %q, want connection", Classify(err))
	}
	if el := time.Since(start); el > 20*time.Second {
		t.Errorf("Open took %v with a 1 s connect timeout", el)
	}
}

// A server that accepts TCP but never sends its handshake is abandoned after
// the connect timeout (1 s here) rather than hanging.
func TestUnreachableSilentServer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		var held []net.Conn
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	start := time.Now()
	_, err = Open(context.Background(), "mysql://bob@"+l.Addr().String()+"/candor", target.Options{ConnectTimeout: time.Second})
	if !errors.Is(err, target.ErrUnreachable) {
		t.Fatalf("Open(silent server) = %v, want ErrUnreachable", err)
	}
	// A generous bound: the point is that the timeout applies at all.
	if el := time.Since(start); el > 20*time.Second {
		t.Errorf("Open took %v with a 1 s connect timeout", el)
	}
}
