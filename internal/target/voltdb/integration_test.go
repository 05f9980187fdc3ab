package voltdb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/target/targettest"
)

// envURL names the VoltDB database the integration tests use, as
// scripts/voltdb-sandbox.sh prints it (voltdb://127.0.0.1:PORT); each test
// works in tables of its own, which it drops at the end. envDir, when set,
// is that sandbox's directory: the tests then count rows with VoltDB's own
// sqlcmd (scripts/voltdb-sandbox.sh sqlcmd DIR), an oracle that shares no
// code with this driver.
const (
	envURL = "CANDOR_TEST_VOLTDB_URL"
	envDir = "CANDOR_TEST_VOLTDB_DIR"
)

func testURL(t *testing.T) string {
	t.Helper()
	u := os.Getenv(envURL)
	if u == "" {
		t.Skipf("%s is not set: skipping VoltDB integration tests (start one with `U=$(scripts/voltdb-sandbox.sh start /tmp/volttest)`, about 15 s, and set %s=$U and %s=/tmp/volttest)", envURL, envURL, envDir)
	}
	return u
}

func openTest(t *testing.T, u string) *Target {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tg, err := target.Open(ctx, u, target.Options{ConnectTimeout: 20 * time.Second})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { tg.Close() })
	return tg.(*Target)
}

func TestConformance(t *testing.T) {
	targettest.Run(t, openTest(t, testURL(t)))
}

func TestDialsThroughHook(t *testing.T) {
	// The hook stands for one node: the first of the URL's.
	u := testURL(t)
	if i := strings.Index(u, ","); i >= 0 {
		u = u[:i]
	}
	targettest.DialsThroughHook(t, u, "EXEC @Statistics PARTITIONCOUNT 0", func(t *testing.T, u string) target.Target { return openTest(t, u) })
}

func TestSessionIOSocket(t *testing.T) {
	tg := openTest(t, testURL(t))
	for mode, want := range map[target.SessionIO]bool{target.IOPoller: false, target.IOBlocking: true} {
		c, err := tg.Connect(target.WithSessionIO(context.Background(), mode))
		if err != nil {
			t.Fatal(err)
		}
		_, blocking := c.(*Conn).nc.(interface{ SendLater() bool })
		if blocking != want {
			t.Errorf("session I/O %q: blocking socket %v, want %v", mode, blocking, want)
		}
		c.Close()
	}
}

// sqlcmdCount counts the rows of table with VoltDB's own sqlcmd, or skips
// the check when the sandbox's directory or script is not at hand.
func sqlcmdCount(t *testing.T, table string) int {
	t.Helper()
	dir := os.Getenv(envDir)
	script, _ := filepath.Abs("../../../scripts/voltdb-sandbox.sh")
	if dir == "" {
		t.Skipf("%s is not set: no sqlcmd oracle (set it to the sandbox's directory)", envDir)
	}
	if _, err := os.Stat(script); err != nil {
		t.Skipf("no %s: no sqlcmd oracle", script)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, script, "sqlcmd", dir)
	cmd.Stdin = strings.NewReader("SELECT COUNT(*) AS n FROM " + table + ";\n")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("sqlcmd: %v\n%s", err, out)
	}
	// sqlcmd prints the column name, a rule of dashes, then the value.
	m := regexp.MustCompile(`(?m)^N\s*\n-+\s*\n\s*(\d+)\s*$`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("sqlcmd printed no count:\n%s", out)
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

// TestKVIntsCountedBySqlcmd creates kv-ints' table (partitioned on its
// key), writes rows through the driver, and counts them with sqlcmd.
func TestKVIntsCountedBySqlcmd(t *testing.T) {
	tg := openTest(t, testURL(t))
	ctx := context.Background()
	c := targettest.Connect(t, tg)
	table := targettest.TableName("candor_kvi")
	s := dialect.KVInts(tg.Dialect(), table, 20, 3)
	targettest.DropAtEnd(t, tg, table)
	if err := target.CreateOwned(ctx, c, tg.Dialect(), table, s.CreateTable, "kv-ints"); err != nil {
		t.Fatalf("CreateOwned: %v", err)
	}
	// Partitioned: @SystemCatalog's remarks name the partition column.
	var remarks string
	if _, err := c.Query(ctx, "EXEC @SystemCatalog TABLES WHERE TABLE_NAME = ?", []any{table}, func(cols [][]byte) error {
		remarks = string(cols[4])
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.ToUpper(remarks), `"PARTITIONCOLUMN":"KV_KEY"`) {
		t.Errorf("table %s is not partitioned on kv_key: remarks %q", table, remarks)
	}
	const rows = 25
	args := []any{}
	for i := 0; i < rows; i++ {
		args = append(args, fmt.Sprintf("key%03d", i), i, i*2, nil)
	}
	// One Exec of five INSERTs at a time (pipelined @AdHoc calls).
	for i := 0; i < rows; i += 5 {
		n, err := c.Exec(ctx, s.InsertRows(5), args[i*4:(i+5)*4]...)
		if err != nil || n != 5 {
			t.Fatalf("InsertRows(5): %d, %v", n, err)
		}
	}
	if n, err := c.Exec(ctx, s.Write[2], 7, "key003"); err != nil || n != 1 {
		t.Errorf("Write: %d, %v", n, err)
	}
	if got := targettest.Rows(t, c, s.Read[2], "key003"); len(got) != 1 || got[0][0] != "7" {
		t.Errorf("Read c2 of key003 = %v, want 7", got)
	}
	if got := targettest.Rows(t, c, s.Read[2], "key004"); len(got) != 1 || got[0][0] != "NULL" {
		t.Errorf("Read c2 of key004 = %v, want NULL", got)
	}
	if got := sqlcmdCount(t, table); got != rows {
		t.Errorf("sqlcmd counts %d rows in %s, the driver wrote %d", got, table, rows)
	}
}

// TestErrorsClassified provokes each kind of failure on a real server.
func TestErrorsClassified(t *testing.T) {
	tg := openTest(t, testURL(t))
	ctx := context.Background()
	c := targettest.Connect(t, tg)
	check := func(what string, err error, want target.ErrorClass, wantMsg string) {
		t.Helper()
		if err == nil {
			t.Errorf("%s: no error", what)
			return
		}
		if got := tg.Classify(err); got != want {
			t.Errorf("%s: %v classifies as %q, want %q", what, err, got, want)
		}
		if !strings.Contains(strings.ToUpper(err.Error()), strings.ToUpper(wantMsg)) {
			t.Errorf("%s: %v does not carry the server's message %q", what, err, wantMsg)
		}
		if _, ok := tg.ServerError(err); !ok {
			t.Errorf("%s: %v is not a server error (its outcome would count as unknown)", what, err)
		}
	}
	_, err := c.Exec(ctx, "SELEKT 1")
	check("syntax", err, target.ClassOther, "SELEKT")
	_, err = c.Exec(ctx, "SELECT * FROM candor_no_such_table WHERE x = ?", 1)
	check("missing table", err, target.ClassOther, "object not found")
	_, err = c.Query(ctx, "EXEC @SystemCatalog", nil, nil)
	check("wrong arity", err, target.ClassOther, "")
	// The session survives each of them.
	if got := targettest.Rows(t, c, "EXEC @SystemInformation OVERVIEW WHERE KEY = ?", "VERSION"); len(got) < 1 {
		t.Errorf("after the failures: %v", got)
	}
	// One row per host: the filter kept only VERSION rows.
	for _, r := range targettest.Rows(t, c, "EXEC @SystemInformation OVERVIEW WHERE KEY = ?", "version") {
		if r[1] != "VERSION" {
			t.Errorf("the WHERE filter let %v through", r)
		}
	}
	// Connection lost: the server's side closed under the session.
	c.(*Conn).nc.Close()
	_, err = c.Exec(ctx, "SELECT COUNT(*) FROM candor_owned_tables")
	if got := tg.Classify(err); got != target.ClassConnection || tg.NotSent(err) {
		t.Errorf("a call on a closed socket: %v classifies %q (not sent %v), want connection, sent", err, got, tg.NotSent(err))
	}
	// The next call connects again.
	if got := targettest.Rows(t, c, "EXEC @SystemInformation OVERVIEW WHERE KEY = ?", "VERSION"); len(got) < 1 {
		t.Errorf("after the loss, the session did not come back: %v", got)
	}
}

// TestRefusals: what VoltDB cannot do is refused with the reason.
func TestRefusals(t *testing.T) {
	u := testURL(t)
	ctx := context.Background()
	_, err := Open(ctx, u, target.Options{Isolation: "read-committed"})
	if !errors.Is(err, target.ErrUnsupported) || !strings.Contains(err.Error(), "serializable") {
		t.Errorf("Open with read-committed: %v, want ErrUnsupported naming serializable", err)
	}
	tg, err := Open(ctx, u, target.Options{Isolation: "serializable"})
	if err != nil {
		t.Fatalf("Open with serializable: %v", err)
	}
	tg.Close()
	if _, err := tg.Connect(ctx); !errors.Is(err, ErrClosed) {
		t.Errorf("Connect after Close: %v", err)
	}
}

func TestFingerprintSettings(t *testing.T) {
	tg := openTest(t, testURL(t))
	fp, err := tg.Fingerprint(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^\d+\.\d+`).MatchString(fp.Version) || fp.Product != "VoltDB" {
		t.Errorf("product %q version %q", fp.Product, fp.Version)
	}
	for _, k := range []string{"hostcount", "sitesperhost", "kfactor", "commandlogenabled", "durability", "partitions"} {
		if fp.Settings[k] == "" {
			t.Errorf("setting %s missing: %v", k, fp.Settings)
		}
	}
	// Partitions = hosts × sites per host (k-safety copies are not
	// partitions of their own).
	h, _ := strconv.Atoi(fp.Settings["hostcount"])
	s, _ := strconv.Atoi(fp.Settings["sitesperhost"])
	k, _ := strconv.Atoi(fp.Settings["kfactor"])
	if p, _ := strconv.Atoi(fp.Settings["partitions"]); p != h*s/(k+1) {
		t.Errorf("partitions %d, want hosts %d × sites %d / copies %d", p, h, s, k+1)
	}
	if fp.Settings["commandlogenabled"] == "false" && fp.Settings["durability"] != "none" {
		t.Errorf("command log off, durability %q", fp.Settings["durability"])
	}
}

// TestLedgerCountedBySqlcmd writes the ledger workload's rows and reads
// their ids back through the driver, and counts them with sqlcmd.
func TestLedgerCountedBySqlcmd(t *testing.T) {
	tg := openTest(t, testURL(t))
	ctx := context.Background()
	c := targettest.Connect(t, tg)
	table := targettest.TableName("candor_ledger")
	l := dialect.Ledger(tg.Dialect(), table, 16)
	targettest.DropAtEnd(t, tg, table)
	if err := target.CreateOwned(ctx, c, tg.Dialect(), table, l.CreateTable, "ledger"); err != nil {
		t.Fatalf("CreateOwned: %v", err)
	}
	const writes = 40
	for i := 0; i < writes; i++ {
		if n, err := c.Exec(ctx, l.Insert, int64(i), 1, "pad"); err != nil || n != 1 {
			t.Fatalf("Insert %d: %d, %v", i, n, err)
		}
	}
	if _, err := c.Exec(ctx, l.Insert, int64(-1), 0, "owner"); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	if _, err := c.Query(ctx, l.ReadBack, nil, func(cols [][]byte) error {
		seen[string(cols[0])] = true
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(seen) != writes || !seen["0"] || !seen[strconv.Itoa(writes-1)] {
		t.Errorf("read back %d ids (%v), want 0..%d", len(seen), seen, writes-1)
	}
	if got := targettest.Rows(t, c, l.Owners); len(got) != 1 || got[0][0] != "owner" {
		t.Errorf("owners = %v", got)
	}
	if got := sqlcmdCount(t, table); got != writes+1 {
		t.Errorf("sqlcmd counts %d rows in %s, the driver wrote %d", got, table, writes+1)
	}
}

// TestCopyFromPaths loads rows by CopyFrom through VoltDB's generated
// UPSERT procedure (all columns in order), through @AdHoc (columns in
// another order; a table without a key), twice over (a retried batch), and
// counts them with sqlcmd.
func TestCopyFromPaths(t *testing.T) {
	tg := openTest(t, testURL(t))
	ctx := context.Background()
	c := targettest.Connect(t, tg).(*Conn)
	table := targettest.TableName("candor_copy")
	s := dialect.KVInts(tg.Dialect(), table, 20, 2)
	targettest.DropAtEnd(t, tg, table)
	if err := target.CreateOwned(ctx, c, tg.Dialect(), table, s.CreateTable, "kv-ints"); err != nil {
		t.Fatal(err)
	}
	var rows [][]any
	for i := 0; i < 300; i++ {
		rows = append(rows, []any{fmt.Sprintf("k%04d", i), i, -i})
	}
	if p, keyed, err := c.upsertProc(ctx, table, s.Columns); err != nil || p != strings.ToUpper(table)+".upsert" || !keyed {
		t.Errorf("upsertProc(all columns) = %q, %v, %v", p, keyed, err)
	}
	for range 2 { // the second time is a retry of the same batch
		if n, err := c.CopyFrom(ctx, table, s.Columns, rows); err != nil || n != 300 {
			t.Fatalf("CopyFrom by procedure: %d, %v", n, err)
		}
	}
	// Columns in another order: @AdHoc, values where their names say.
	swapped := []string{s.Columns[0], s.Columns[2], s.Columns[1]}
	if p, _, _ := c.upsertProc(ctx, table, swapped); p != "" {
		t.Errorf("upsertProc(columns out of order) = %q, want none", p)
	}
	if n, err := c.CopyFrom(ctx, table, swapped, [][]any{{"x", 2, 1}}); err != nil || n != 1 {
		t.Fatalf("CopyFrom by @AdHoc: %d, %v", n, err)
	}
	if got := targettest.Rows(t, c, s.Read[0], "x"); len(got) != 1 || got[0][0] != "1" {
		t.Errorf("c0 of x = %v, want 1", got)
	}
	if got := targettest.Rows(t, c, s.Read[1], "k0007"); len(got) != 1 || got[0][0] != "-7" {
		t.Errorf("c1 of k0007 = %v, want -7", got)
	}
	// A table without a primary key has no UPSERT procedure.
	ledger := targettest.TableName("candor_copyl")
	l := dialect.Ledger(tg.Dialect(), ledger, 16)
	targettest.DropAtEnd(t, tg, ledger)
	if err := target.CreateOwned(ctx, c, tg.Dialect(), ledger, l.CreateTable, "ledger"); err != nil {
		t.Fatal(err)
	}
	cols := []string{"id", "w", "pad"}
	if p, keyed, err := c.upsertProc(ctx, ledger, cols); err != nil || p != "" || keyed {
		t.Errorf("upsertProc(no primary key) = %q, %v, %v", p, keyed, err)
	}
	// INSERTs instead of UPSERTs, which need a key.
	if n, err := c.CopyFrom(ctx, ledger, cols, [][]any{{int64(1), 1, "a"}, {int64(2), 1, "b"}}); err != nil || n != 2 {
		t.Errorf("CopyFrom into a table without a key: %d, %v", n, err)
	}
	if got := sqlcmdCount(t, table); got != 301 {
		t.Errorf("sqlcmd counts %d rows in %s, want 301", got, table)
	}
}
