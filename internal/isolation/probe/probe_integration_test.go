package probe

import (
	"context"
	"errors"
	neturl "net/url"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/target"
	_ "github.com/candor-bench/candor/internal/target/mysql"
	_ "github.com/candor-bench/candor/internal/target/postgres"
	_ "github.com/candor-bench/candor/internal/target/sqlite"
	"github.com/candor-bench/candor/internal/target/targettest"
)

// bound tells a hung probe from a finished one; no probe needs it on a busy
// machine (a MariaDB probe of four levels took 13 s on an idle one).
const bound = 10 * time.Minute

// want is what a product documents about one anomaly at one level.
type want struct {
	level, anomaly string
	allowed        bool
	code           string // when prevented: the abort code the product documents ("" for any way)
}

func probe(t *testing.T, url string, levels ...string) (Report, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	table := targettest.TableName("candor_isoprobe")
	rep, err := Run(ctx, url, Options{Levels: levels, Table: table})
	if err != nil {
		t.Fatalf("Run(%s): %v", target.Redact(url), err)
	}
	var text strings.Builder
	WriteText(&text, rep)
	t.Logf("\n%s", text.String())
	return rep, table
}

func checkWants(t *testing.T, rep Report, wants []want) {
	t.Helper()
	for _, w := range wants {
		o, ok := rep.Find(w.level, w.anomaly)
		if !ok {
			t.Errorf("%s at %s: no outcome", w.anomaly, w.level)
			continue
		}
		if o.Allowed != w.allowed {
			t.Errorf("%s at %s: allowed = %v, want %v (outcome %+v)", w.anomaly, w.level, o.Allowed, w.allowed, o)
			continue
		}
		if !w.allowed && w.code != "" {
			found := false
			for _, a := range o.Aborts {
				found = found || a.Code == w.code
			}
			if !found {
				t.Errorf("%s at %s: prevented as %q, want an abort with %s (aborts %+v)", w.anomaly, w.level, o.Cell(), w.code, o.Aborts)
			}
		}
	}
}

// none is the wants that say each of anomalies is prevented at level, in
// whichever way.
func none(level string, anomalies ...string) []want {
	var ws []want
	for _, a := range anomalies {
		ws = append(ws, want{level: level, anomaly: a})
	}
	return ws
}

// TestPostgres checks the probes against what PostgreSQL's documentation
// (chapter "Transaction Isolation") says of its three levels: read committed
// allows lost updates, read skew and write skew; repeatable read is snapshot
// isolation: the second writer of a row fails with 40001 (no lost update),
// no read skew, write skew allowed; serializable prevents write skew and
// predicate cycles, failing a transaction with 40001.
func TestPostgres(t *testing.T) {
	url := targettest.PostgresURL(t)
	t.Parallel()
	rep, table := probe(t, url, "read-committed", "repeatable-read", "serializable")
	wants := []want{
		{level: "read-committed", anomaly: P4, allowed: true},
		{level: "read-committed", anomaly: GSingle, allowed: true},
		{level: "read-committed", anomaly: G2Item, allowed: true},
		{level: "read-committed", anomaly: PMP, allowed: true},
		{level: "repeatable-read", anomaly: P4, code: "40001"},
		{level: "repeatable-read", anomaly: GSingle},
		{level: "repeatable-read", anomaly: GSingleWrite, code: "40001"},
		{level: "repeatable-read", anomaly: PMP},
		{level: "repeatable-read", anomaly: G2Item, allowed: true},
		{level: "repeatable-read", anomaly: G2, allowed: true},
		{level: "serializable", anomaly: G2Item, code: "40001"},
		{level: "serializable", anomaly: G2, code: "40001"},
		{level: "serializable", anomaly: P4, code: "40001"},
	}
	for _, l := range []string{"read-committed", "repeatable-read", "serializable"} {
		wants = append(wants, none(l, G0, G1a, G1b, G1c, OTV)...)
	}
	wants = append(wants, none("serializable", Anomalies...)...)
	checkWants(t, rep, wants)
	// Writers that waited: G0's second writer waits for the first at every
	// level (PostgreSQL locks updated rows).
	if o, _ := rep.Find("read-committed", G0); len(o.Blocked) == 0 {
		t.Errorf("G0 at read-committed: no step waited for a lock: %+v", o)
	}
	tableGone(t, "psql", url, table)
}

// TestMariaDB: MariaDB's REPEATABLE READ allows lost updates and write skew
// (as MySQL's does: Jepsen's MySQL 8.0.34 analysis; Hermitage), and its
// SERIALIZABLE allows none of the anomalies; READ UNCOMMITTED allows dirty
// (aborted and intermediate) reads.
func TestMariaDB(t *testing.T) {
	url := targettest.MySQLURL(t)
	t.Parallel()
	rep, table := probe(t, url, "read-uncommitted", "repeatable-read", "serializable")
	wants := []want{
		{level: "read-uncommitted", anomaly: G1a, allowed: true},
		{level: "read-uncommitted", anomaly: G1b, allowed: true},
		{level: "repeatable-read", anomaly: P4, allowed: true},
		{level: "repeatable-read", anomaly: G2Item, allowed: true},
		{level: "repeatable-read", anomaly: GSingleWrite, allowed: true},
		{level: "read-uncommitted", anomaly: G0},
	}
	wants = append(wants, none("repeatable-read", G0, G1a, G1b, G1c, OTV)...)
	wants = append(wants, none("serializable", Anomalies...)...)
	checkWants(t, rep, wants)
	tableGone(t, "mariadb", url, table)
}

// TestSQLite: SQLite has one writer at a time and snapshot readers in WAL
// mode; every anomaly is prevented, and the other levels are not offered.
func TestSQLite(t *testing.T) {
	t.Parallel()
	url := "sqlite://" + t.TempDir() + "/probe.db"
	rep, _ := probe(t, url)
	checkWants(t, rep, none("serializable", Anomalies...))
	for _, l := range rep.Levels {
		if (l.Level == "serializable") != l.Offered {
			t.Errorf("level %s: offered = %v", l.Level, l.Offered)
		}
	}
}

// tableGone asks the database's own client whether the probe's table is
// gone once the probe has ended.
func tableGone(t *testing.T, client, url, table string) {
	t.Helper()
	out := clientQuery(t, client, url, "SELECT COUNT(*) FROM information_schema.tables WHERE table_name = '"+table+"'")
	if out != "0" {
		t.Errorf("after the probe, %s counts %s tables named %s, want 0", client, out, table)
	}
}

// TestForeignTable: a table of the probe table's name that candor did not
// create is refused (ErrForeignTable), and left as it was.
func TestForeignTable(t *testing.T) {
	url := targettest.PostgresURL(t)
	t.Parallel()
	table := targettest.TableName("candor_isoprobe_foreign")
	clientQuery(t, "psql", url, "CREATE TABLE "+table+" (id int primary key, v int); INSERT INTO "+table+" VALUES (7, 70)")
	defer clientQuery(t, "psql", url, "DROP TABLE "+table)
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	_, err := Run(ctx, url, Options{Levels: []string{"serializable"}, Table: table})
	if !errors.Is(err, target.ErrForeignTable) {
		t.Fatalf("Run on a foreign table: %v, want ErrForeignTable", err)
	}
	if got := clientQuery(t, "psql", url, "SELECT id || ':' || v FROM "+table); got != "7:70" {
		t.Errorf("the foreign table holds %q after the refused probe, want its own row 7:70", got)
	}
}

// clientQuery runs sql with the product's own command-line client.
func clientQuery(t *testing.T, client, url, sql string) string {
	t.Helper()
	var cmd *exec.Cmd
	switch client {
	case "psql":
		cmd = exec.Command("psql", "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", sql, url)
	default:
		u, err := neturl.Parse(url)
		if err != nil {
			t.Fatal(err)
		}
		pw, _ := u.User.Password()
		cmd = exec.Command("mariadb", "-h", u.Hostname(), "-P", u.Port(), "-u", u.User.Username(), "-p"+pw,
			strings.TrimPrefix(u.Path, "/"), "-N", "-B", "-e", sql)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %q: %v: %s", client, sql, err, out)
	}
	return strings.TrimSpace(string(out))
}
