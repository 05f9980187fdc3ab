package cli

import (
	"net/url"
	"os"
	"strings"
	"testing"
	"time"
)

func postgresTestURL(t *testing.T) *url.URL {
	t.Helper()
	raw := os.Getenv("CANDOR_TEST_POSTGRES_URL")
	if raw == "" {
		t.Skip("CANDOR_TEST_POSTGRES_URL unset: no PostgreSQL on this machine (scripts/test.sh sets it)")
	}
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// More threads than the server's max_connections: the run stops connecting
// at the first refusal, says "too many connections" and exits with the
// target's code (3), as its message says. Not parallel: while it runs the
// server refuses every other test's connections.
func TestTooManyConnectionsPostgres(t *testing.T) {
	u := postgresTestURL(t)
	dir := t.TempDir()
	t0 := time.Now()
	code, _, stderr := runCLI(t, dir, nil, "run", "ycsb/c", "--target", u.String(), "-p", "table=cliinput_too_many", "-p", "recordcount=100",
		"--threads", "1000", "--operations", "100", "-q", "-o", "r.json")
	took := time.Since(t0)
	runCLI(t, dir, nil, "cleanup", "ycsb", "--target", u.String(), "-p", "table=cliinput_too_many", "-q")
	if code != ExitUnreachable {
		t.Errorf("exit %d, want %d; stderr:\n%s", code, ExitUnreachable, stderr)
	}
	if !strings.Contains(stderr, "too many connections") || !strings.Contains(stderr, "max_connections") || !strings.Contains(stderr, "sessions open") {
		t.Errorf("stderr does not explain the refusal:\n%s", stderr)
	}
	if took > 20*time.Second {
		t.Errorf("took %v to give up", took)
	}
}

// sysbench's pgsql driver without --pgsql-db names database sbtest; when it
// does not exist the server's own error comes first, not the refusal of the
// TLS attempt sslmode=prefer makes before it.
func TestMissingDatabaseErrorFirst(t *testing.T) {
	u := postgresTestURL(t)
	code, _, stderr := runCLI(t, t.TempDir(), nil, "sysbench", "--db-driver=pgsql", "--pgsql-host="+u.Hostname(), "--pgsql-port="+u.Port(),
		"--pgsql-user="+u.User.Username(), "--pgsql-db=cliinput_no_such_db", "oltp_point_select", "run")
	if code != ExitUnreachable {
		t.Errorf("exit %d, want %d; stderr:\n%s", code, ExitUnreachable, stderr)
	}
	want := `database "cliinput_no_such_db" does not exist`
	i := strings.Index(stderr, want)
	if i < 0 {
		t.Fatalf("stderr lacks %q:\n%s", want, stderr)
	}
	if j := strings.Index(stderr, "tls"); j >= 0 && j < i {
		t.Errorf("the TLS attempt comes before the server's error:\n%s", stderr)
	}
}
