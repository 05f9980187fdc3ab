// Package pgcluster runs scripts/pg-cluster.sh for the tests that need a
// replicated PostgreSQL: it finds the script, starts a cluster in a fresh
// short directory (the nodes' Unix sockets live in it) and stops it when
// the test ends.
package pgcluster

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Script returns the absolute path of scripts/pg-cluster.sh, skipping the
// test in -short mode and when the PostgreSQL binaries are not installed
// (the script would install them as root; scripts/test.sh starts a
// PostgreSQL first, which does).
func Script(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: skipping the PostgreSQL cluster test")
	}
	if m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_basebackup"); len(m) == 0 {
		t.Skip("PostgreSQL binaries are not installed (/usr/lib/postgresql/*/bin): skipping the cluster test")
	}
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot locate the pgcluster package's source to find scripts/pg-cluster.sh")
	}
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "scripts", "pg-cluster.sh")
}

// Start runs `sh start DIR args...` in a fresh directory under the
// temporary directory, registers its stop (and the directory's removal)
// for the test's end, and returns DIR and the URLs in node order (node 0,
// the primary, first).
func Start(t testing.TB, sh string, args ...string) (dir string, urls []string) {
	t.Helper()
	parent, err := os.MkdirTemp("", "candor-pgc-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(parent, 0o755) // the nodes may run as user postgres
	dir = filepath.Join(parent, "c")
	t.Cleanup(func() {
		if out, err := exec.Command(sh, "stop", dir).CombinedOutput(); err != nil {
			t.Errorf("pg-cluster.sh stop: %v\n%s", err, out)
		}
		os.RemoveAll(parent)
	})
	urls = strings.Fields(Run(t, sh, append([]string{"start", dir}, args...)...))
	return dir, urls
}

// Run runs the script with args (within 2 minutes), failing the test with
// its stderr when it fails; it returns the script's stdout.
func Run(t testing.TB, sh string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var stderr strings.Builder
	cmd := exec.CommandContext(ctx, sh, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pg-cluster.sh %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}
