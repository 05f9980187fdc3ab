package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/candor-bench/candor/internal/target"
)

func TestClassify(t *testing.T) {
	pg := func(code string) error { return fmt.Errorf("exec: %w", &pgconn.PgError{Code: code, Message: "x"}) }
	cases := []struct {
		name string
		err  error
		want target.ErrorClass
	}{
		{"serialization failure", pg("40001"), target.ClassRetryable},
		{"deadlock", pg("40P01"), target.ClassRetryable},
		{"unique violation", pg("23505"), target.ClassConstraint},
		{"foreign key violation", pg("23503"), target.ClassConstraint},
		{"statement_timeout", pg("57014"), target.ClassTimeout},
		{"lock_timeout", pg("55P03"), target.ClassTimeout},
		{"connection failure", pg("08006"), target.ClassConnection},
		{"admin shutdown (pg_terminate_backend)", pg("57P01"), target.ClassConnection},
		{"crash shutdown", pg("57P02"), target.ClassConnection},
		{"cannot connect now", pg("57P03"), target.ClassConnection},
		{"syntax error", pg("42601"), target.ClassOther},
		{"client deadline", fmt.Errorf("q: %w", context.DeadlineExceeded), target.ClassTimeout},
		{"workload not found", target.ErrNotFound, target.ClassNotFound},
		{"EOF", fmt.Errorf("read: %w", io.ErrUnexpectedEOF), target.ClassConnection},
		{"reset", &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}, target.ClassConnection},
		{"closed conn", fmt.Errorf("x: %w", pgconn.ErrConnClosed), target.ClassConnection},
		{"plain error", errors.New("boom"), target.ClassOther},
		{"nil", nil, ""},
	}
	for _, c := range cases {
		if got := Classify(c.err); got != c.want {
			t.Errorf("%s: Classify(%v) = %q, want %q", c.name, c.err, got, c.want)
		}
	}
}

func TestParseConfig(t *testing.T) {
	// PGPASSWORD supplies a password the URL lacks; the URL's own wins.
	t.Setenv("PGPASSWORD", "from-env")
	cfg, err := parseConfig("postgres://bob@127.0.0.1:5432/db?sslmode=disable", target.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Password != "from-env" {
		t.Errorf("password = %q, want PGPASSWORD's", cfg.Password)
	}
	if cfg.ConnectTimeout != target.DefaultConnectTimeout {
		t.Errorf("default ConnectTimeout = %v", cfg.ConnectTimeout)
	}
	if cfg.TLSConfig != nil {
		t.Errorf("sslmode=disable not honoured")
	}
	cfg, err = parseConfig("postgresql://bob:in-url@127.0.0.1/db?sslmode=disable&connect_timeout=30", target.Options{ConnectTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Password != "in-url" || cfg.ConnectTimeout != 2*time.Second {
		t.Errorf("password %q timeout %v; want in-url, 2s", cfg.Password, cfg.ConnectTimeout)
	}
}

func TestOnThisMachine(t *testing.T) {
	for url, want := range map[string]bool{
		"postgres://bob@127.0.0.1:5432/db":                true,
		"postgres://bob@localhost/db":                     true,
		"postgres://bob@127.0.0.1,localhost:5433/db":      true,
		"postgres://bob@127.0.0.1,db.example.com:5433/db": false,
		"postgres://bob@db.example.com/db":                false,
		"postgres:///db?host=/var/run/postgresql":         true,
	} {
		cfg, err := parseConfig(url, target.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := (&Target{config: cfg}).OnThisMachine(); got != want {
			t.Errorf("%s: OnThisMachine = %v, want %v", url, got, want)
		}
	}
}

func TestBadURLHidesPassword(t *testing.T) {
	for _, u := range []string{
		"postgres://bob:s3cret-pw@127.0.0.1:notaport/db",
		"postgres://bob:s3cret-pw@127.0.0.1/db?sslmode=bogus",
	} {
		_, err := Open(context.Background(), u, target.Options{ConnectTimeout: time.Second})
		if !errors.Is(err, target.ErrBadURL) {
			t.Errorf("Open(%s) = %v, want ErrBadURL", target.Redact(u), err)
			continue
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("error leaks the password: %v", err)
		}
	}
}

func TestPasswordOf(t *testing.T) {
	cases := map[string]string{
		"postgres://bob:pw@host/db":   "pw",
		"postgres://bob@host/db":      "",
		"postgres://bob:p@ss@host/db": "p@ss",
		"host=x":                      "",
	}
	for in, want := range cases {
		if got := target.PasswordOf(in); got != want {
			t.Errorf("target.PasswordOf(%q) = %q, want %q", in, got, want)
		}
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
	u := "postgres://bob:s3cret-pw@" + addr + "/candor?sslmode=disable"
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
}

// A server that accepts TCP but never answers is abandoned after the connect
// timeout (1 s here) rather than hanging.
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
	_, err = Open(context.Background(), "postgres://bob@"+l.Addr().String()+"/candor?sslmode=disable", target.Options{ConnectTimeout: time.Second})
	if !errors.Is(err, target.ErrUnreachable) {
		t.Fatalf("Open(silent server) = %v, want ErrUnreachable", err)
	}
	// A generous bound: the point is that the timeout applies at all.
	if el := time.Since(start); el > 20*time.Second {
		t.Errorf("Open took %v with a 1 s connect timeout", el)
	}
}
