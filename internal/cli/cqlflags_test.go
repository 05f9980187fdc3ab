package cli

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/target"
)

// The CQL flags are refused, before anything is created, on targets that
// are not CQL, and bad values are usage errors naming the flag.
func TestCQLFlagsRefused(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "c.db")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "ycsb/a", "--target", "sqlite://" + db, "--operations", "10", "--write-consistency", "QUORUM"}, "--write-consistency applies to CQL targets"},
		{[]string{"load", "ycsb", "--target", "sqlite://" + db, "--replication", "2"}, "--replication applies to CQL targets (cql://HOST/KEYSPACE), not to sqlite:// targets"},
		{[]string{"run", "ycsb/a", "--operations", "10", "--read-consistency", "ONE"}, "--read-consistency applies to CQL targets"},
		{[]string{"cleanup", "ycsb", "--target", "postgres://u:secret@127.0.0.1:1/db", "--serial-consistency", "SERIAL"}, "not to postgres:// targets"},
		{[]string{"run", "ycsb/a", "--target", "cql://127.0.0.1:1/ks", "--operations", "10", "--read-consistency", "MOST"}, "--read-consistency MOST: not a consistency level"},
		{[]string{"load", "ycsb", "--target", "cql://127.0.0.1:1/ks?consistency=ONE", "--write-consistency", "ALL"}, "--write-consistency ALL contradicts the URL's consistency=ONE"},
		{[]string{"cleanup", "ycsb", "--target", "cql://127.0.0.1:1/ks", "--replication-strategy", "Ring"}, "valid strategies"},
	} {
		code, _, stderr := runCLI(t, dir, nil, append(c.args, "-q")...)
		if code != ExitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", c.args, code, stderr, ExitUsage, c.want)
		}
		if strings.Contains(stderr, "secret") {
			t.Errorf("%v: the message shows the password: %s", c.args, stderr)
		}
	}
	if _, err := os.Stat(db); err == nil {
		t.Errorf("a refused command created %s", db)
	}
	if entries, _ := filepath.Glob(filepath.Join(dir, "*.db")); len(entries) > 0 {
		t.Errorf("refused commands created %v", entries)
	}
}

// --read-consistency, --write-consistency and --replication reach the
// target: the keyspace is created with the replication, and the result's
// fingerprint records the levels and the replication.
func TestCassandraConsistencyFlags(t *testing.T) {
	ks := fmt.Sprintf("candor_flags_%08x", rand.Uint32())
	url := cassandraURL(t, ks)
	t.Parallel()
	base := cassandraURL(t, "system")
	defer cqlDo(t, base, func(ctx context.Context, c target.Conn) {
		if _, err := c.Exec(ctx, "DROP KEYSPACE IF EXISTS "+ks); err != nil {
			t.Errorf("dropping keyspace %s: %v", ks, err)
		}
	})
	dir := t.TempDir()
	code, _, stderr := runAt(t, dir, "run", "ycsb/c", "--target", url, "-p", "recordcount=100", "--operations", "100", "-q", "-o", "r.json",
		"--read-consistency", "all", "--write-consistency", "QUORUM", "--serial-consistency", "LOCAL_SERIAL", "--replication", "1", "--replication-strategy", "SimpleStrategy")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	res, err := result.Read(filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{"read_consistency": "ALL", "write_consistency": "QUORUM", "load_consistency": "QUORUM", "serial_consistency": "LOCAL_SERIAL",
		"replication": "{'class': 'SimpleStrategy', 'replication_factor': '1'}"} {
		if got := res.Target.Settings[k]; got != want {
			t.Errorf("result setting %s = %q, want %q", k, got, want)
		}
	}
	// A keyspace that exists with another replication is refused.
	code, _, stderr = runAt(t, dir, "run", "ycsb/c", "--target", url, "-p", "recordcount=100", "--operations", "100", "-q", "-o", "r2.json", "--replication", "2")
	if code != ExitUnsupported || !strings.Contains(stderr, "replication") {
		t.Errorf("--replication 2 on a keyspace with 1 copy: exit %d, %q; want %d", code, stderr, ExitUnsupported)
	}
	code, _, stderr = runAt(t, dir, "cleanup", "ycsb", "--target", url, "--replication", "1", "-q")
	if code != 0 {
		t.Errorf("cleanup with --replication: exit %d\n%s", code, stderr)
	}
}
