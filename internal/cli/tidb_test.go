package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/target"
)

// tidbURL returns the TiDB the opt-in tests run on, or skips the test. TiDB
// takes ten minutes to build, so no test run starts one by itself.
func tidbURL(t *testing.T) string {
	t.Helper()
	u := os.Getenv("CANDOR_TEST_TIDB_URL")
	if u == "" {
		t.Skip("CANDOR_TEST_TIDB_URL unset: build TiDB once with `scripts/tidb-sandbox.sh build`, then run " +
			"`U=$(scripts/tidb-sandbox.sh start /tmp/tidb) CANDOR_TEST_TIDB_URL=$U go test ./internal/cli -run TiDB` " +
			"and `scripts/tidb-sandbox.sh stop /tmp/tidb`")
	}
	return u
}

// TestTiDBYCSB loads and runs ycsb/a..f through the CLI on a real TiDB,
// checks row counts against the acknowledged inserts, and checks that the
// result's fingerprint names TiDB and records its transaction mode.
func TestTiDBYCSB(t *testing.T) {
	url := tidbURL(t)
	dir := t.TempDir()
	const table = "ycsb_it_tidb"
	props := []string{"-p", "table=" + table, "-p", "recordcount=2000"}
	runCLI(t, dir, nil, append([]string{"cleanup", "ycsb", "--target", url}, props...)...)
	code, _, stderr := runCLI(t, dir, nil, append([]string{"load", "ycsb", "--target", url, "--threads", "4", "--batch-size", "300", "-o", "load.json", "-q"}, props...)...)
	if code != 0 {
		t.Fatalf("load: exit %d\n%s", code, stderr)
	}
	defer runCLI(t, dir, nil, append([]string{"cleanup", "ycsb", "--target", url}, props...)...)
	if n := countRows(t, url, table); n != 2000 {
		t.Fatalf("after load: %d rows, want 2000", n)
	}
	rows := int64(2000)
	for _, v := range []string{"a", "b", "c", "d", "e", "f"} {
		out := fmt.Sprintf("run-%s.json", v)
		// As in TestYCSBAllWorkloadsOnRealTargets: run-phase inserts start
		// at recordcount, which grows with d's and e's inserts.
		runProps := []string{"-p", "table=" + table, "-p", fmt.Sprintf("recordcount=%d", rows), "-p", "insertcount=2000"}
		code, _, stderr := runCLI(t, dir, nil, append([]string{"run", "ycsb/" + v, "--target", url, "--threads", "4", "--operations", "1500", "-o", out, "-q", "--load", "never"}, runProps...)...)
		if code != 0 {
			t.Fatalf("ycsb/%s: exit %d\n%s", v, code, stderr)
		}
		res, err := result.Read(filepath.Join(dir, out))
		if err != nil {
			t.Fatal(err)
		}
		p := res.Phases[len(res.Phases)-1]
		var errs int64
		for _, o := range p.Ops {
			for _, n := range o.Errors {
				errs += n
			}
			if o.Name == "INSERT" {
				rows += o.Count
			}
		}
		if p.Operations != 1500 {
			t.Errorf("ycsb/%s: %d top-level operations, want 1500 (%+v)", v, p.Operations, p.Ops)
		}
		if errs != 0 {
			t.Errorf("ycsb/%s: %d errors on a healthy server: %+v", v, errs, p.Ops)
		}
		if n := countRows(t, url, table); n != rows {
			t.Errorf("after ycsb/%s: %d rows, want %d (load + acknowledged inserts)", v, n, rows)
		}
		t.Logf("ycsb/%s on TiDB: %.0f ops/s", v, p.Throughput)
		if v == "a" {
			fp := res.Target
			if fp.Product != "TiDB" || fp.Version == "" {
				t.Errorf("fingerprint: product %q version %q, want TiDB and its version", fp.Product, fp.Version)
			}
			if _, ok := fp.Settings["tidb_txn_mode"]; !ok {
				t.Errorf("fingerprint settings lack tidb_txn_mode: %v", fp.Settings)
			}
			t.Logf("fingerprint: %s %s (%s), tidb_txn_mode=%q", fp.Product, fp.Version, fp.VersionString, fp.Settings["tidb_txn_mode"])
		}
	}
}

// TestTiDBSysbench prepares two sysbench tables, runs oltp_read_write for a
// few seconds and cleans up, all through the CLI on a real TiDB, and checks
// sysbench's per-event query mix: 14 reads, 4 writes, 2 other (BEGIN,
// COMMIT).
func TestTiDBSysbench(t *testing.T) {
	url := tidbURL(t)
	dir := t.TempDir()
	if _, out, _ := runCLI(t, dir, nil, "list", "workloads"); !strings.Contains(out, "sysbench/oltp_read_write") {
		t.Skip("no sysbench/oltp_read_write workload registered yet")
	}
	const tables, size, threads = 2, 10000, 4
	opts := []string{"--tables", strconv.Itoa(tables), "--target", url, "-q"}
	runCLI(t, dir, nil, append([]string{"cleanup", "sysbench"}, opts...)...)
	code, _, stderr := runCLI(t, dir, nil, append([]string{"prepare", "sysbench", "--table-size", strconv.Itoa(size), "--threads", "2"}, opts...)...)
	if code != 0 {
		t.Fatalf("prepare: exit %d\n%s", code, stderr)
	}
	cleaned := false
	defer func() {
		if !cleaned {
			runCLI(t, dir, nil, append([]string{"cleanup", "sysbench"}, opts...)...)
		}
	}()
	for i := 1; i <= tables; i++ {
		if n := countRows(t, url, fmt.Sprintf("sbtest%d", i)); n != size {
			t.Fatalf("after prepare: sbtest%d has %d rows, want %d", i, n, size)
		}
	}

	code, stdout, stderr := runCLI(t, dir, nil, append([]string{"run", "sysbench/oltp_read_write", "--table-size", strconv.Itoa(size),
		"--threads", strconv.Itoa(threads), "--time", "5", "--format", "sysbench", "-o", "rw.json"}, opts...)...)
	if code != 0 {
		t.Fatalf("oltp_read_write: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "transactions:") || !strings.Contains(stdout, "queries performed:") {
		t.Errorf("--format sysbench output lacks sysbench's report:\n%s", stdout)
	}
	res, err := result.Read(filepath.Join(dir, "rw.json"))
	if err != nil {
		t.Fatal(err)
	}
	p := res.Phases[len(res.Phases)-1]
	var events, errs int64
	for _, o := range p.Ops {
		for _, n := range o.Errors {
			errs += n
		}
	}
	events = p.Operations
	if events == 0 {
		t.Fatalf("no transactions in 5 s: %+v", p.Ops)
	}
	t.Logf("oltp_read_write on TiDB, %d threads: %d transactions (%.0f/s), counters %v, %d errors", threads, events, p.Throughput, p.Counters, errs)
	want := map[string]int64{"reads": 14, "writes": 4, "other": 2}
	for name, per := range want {
		got, ok := p.Counters[name]
		if !ok {
			t.Errorf("result phase has no %q counter: %v", name, p.Counters)
			continue
		}
		// The workload counts each statement as it completes, so the
		// transactions cut short by the end of the run (at most one per
		// thread) may add some; a failed and retried transaction executes
		// some statements twice (sysbench counts those too). Without
		// errors the mix is exact to within those few.
		lo, hi := per*(events-errs), per*(events+errs+threads)
		if got < lo || got > hi {
			t.Errorf("%s: %d for %d transactions (%d errors), want %d per transaction: %d..%d", name, got, events, errs, per, lo, hi)
		}
	}

	code, _, stderr = runCLI(t, dir, nil, append([]string{"cleanup", "sysbench"}, opts...)...)
	if code != 0 {
		t.Fatalf("cleanup: exit %d\n%s", code, stderr)
	}
	cleaned = true
	for i := 1; i <= tables; i++ {
		if table := fmt.Sprintf("sbtest%d", i); exists(t, url, table) {
			t.Errorf("after cleanup: %s is left", table)
		}
	}
}

// TestTiDBSysbenchSharding prepares sysbench tables with each table
// distribution option on a real TiDB, checks that TiDB's SHOW CREATE TABLE
// holds the clause, that every row arrived with the ids 1..table-size
// sysbench's statements address, and that oltp_point_select runs on the
// table.
func TestTiDBSysbenchSharding(t *testing.T) {
	url := tidbURL(t)
	const size = 4000
	for _, c := range []struct {
		opts    []string
		want    []string // in SHOW CREATE TABLE
		regions int      // at least this many regions (SHOW TABLE ... REGIONS)
	}{
		{nil, []string{"AUTO_INCREMENT", "PRIMARY KEY (`id`) /*T![clustered_index] CLUSTERED */"}, 1},
		{[]string{"--sharding", "hash"}, []string{"AUTO_INCREMENT", "NONCLUSTERED", "SHARD_ROW_ID_BITS=4", "AUTO_ID_CACHE=1"}, 1},
		{[]string{"--sharding", "hash", "--presplit", "8"}, []string{"AUTO_INCREMENT", "NONCLUSTERED", "SHARD_ROW_ID_BITS=4", "PRE_SPLIT_REGIONS=3", "AUTO_ID_CACHE=1"}, 8},
		{[]string{"--sharding", "range", "--presplit", "4"}, []string{"AUTO_INCREMENT", "PRIMARY KEY (`id`) /*T![clustered_index] CLUSTERED */"}, 4},
		{[]string{"--sharding", "hash", "--auto-inc=off", "--presplit", "4"}, []string{"SHARD_ROW_ID_BITS=4", "PRE_SPLIT_REGIONS=2"}, 4},
		{[]string{"--sharding", "range", "--auto-inc=off", "--split-at", "1000,2000,3000"}, []string{"PRIMARY KEY (`id`) /*T![clustered_index] CLUSTERED */"}, 4},
	} {
		name := strings.Join(c.opts, " ")
		if name == "" {
			name = "default"
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			opts := append([]string{"--tables", "1", "--table-size", strconv.Itoa(size), "--target", url, "-q"}, c.opts...)
			runCLI(t, dir, nil, "cleanup", "sysbench", "--tables", "1", "--target", url, "-q")
			defer runCLI(t, dir, nil, "cleanup", "sysbench", "--tables", "1", "--target", url, "-q")
			if code, _, stderr := runCLI(t, dir, nil, append([]string{"prepare", "sysbench"}, opts...)...); code != 0 {
				t.Fatalf("prepare: exit %d\n%s", code, stderr)
			}
			if n := countRows(t, url, "sbtest1"); n != size {
				t.Fatalf("sbtest1 has %d rows, want %d", n, size)
			}
			create := tidbShow(t, url, "SHOW CREATE TABLE sbtest1", 1)
			for _, w := range c.want {
				if !strings.Contains(create, w) {
					t.Errorf("SHOW CREATE TABLE lacks %q:\n%s", w, create)
				}
			}
			// The ids are the 1..table-size sysbench's statements address.
			if ids := tidbShow(t, url, "SELECT MIN(id), MAX(id), COUNT(DISTINCT id) FROM sbtest1", -1); ids != fmt.Sprintf("1\t%d\t%d\n", size, size) {
				t.Errorf("sbtest1's ids: min, max, distinct = %q, want 1..%d", ids, size)
			}
			regions := strings.Count(tidbShow(t, url, "SHOW TABLE sbtest1 REGIONS", 0), "\n")
			if regions < c.regions {
				t.Errorf("sbtest1 has %d regions, want at least %d", regions, c.regions)
			}
			t.Logf("%v: %d regions; %s", c.opts, regions, create)
			code, _, stderr := runCLI(t, dir, nil, append([]string{"run", "sysbench/oltp_point_select", "--threads", "2", "--time", "2", "--load", "never", "-o", "ps.json"}, opts...)...)
			if code != 0 {
				t.Fatalf("oltp_point_select: exit %d\n%s", code, stderr)
			}
		})
	}
}

// TestTiDBSysbenchHashTouchesRows: with --sharding hash, oltp_point_select
// and oltp_read_write address rows that exist, counted by TiDB itself
// (information_schema.statements_summary: the rows each statement returned
// or affected), not by candor. With AUTO_RANDOM ids (before) the point
// SELECTs returned no row and oltp_read_write's INSERT failed (error 8216).
func TestTiDBSysbenchHashTouchesRows(t *testing.T) {
	url := tidbURL(t)
	const size = 4000
	dir := t.TempDir()
	opts := []string{"--tables", "1", "--table-size", strconv.Itoa(size), "--target", url, "-q", "--sharding", "hash"}
	runCLI(t, dir, nil, "cleanup", "sysbench", "--tables", "1", "--target", url, "-q")
	defer runCLI(t, dir, nil, "cleanup", "sysbench", "--tables", "1", "--target", url, "-q")
	if code, _, stderr := runCLI(t, dir, nil, append([]string{"prepare", "sysbench"}, opts...)...); code != 0 {
		t.Fatalf("prepare: exit %d\n%s", code, stderr)
	}
	// TiDB's statement summary, per normalised statement, over every
	// execution since the summary was last cleared.
	type stmt struct {
		execs            int64
		minRows, maxRows int64 // rows returned by one execution
		affected, errs   float64
	}
	summary := func() map[string]stmt {
		out := map[string]stmt{}
		q := "SELECT DIGEST_TEXT, SUM(EXEC_COUNT), MIN(MIN_RESULT_ROWS), MAX(MAX_RESULT_ROWS), SUM(AVG_AFFECTED_ROWS*EXEC_COUNT), SUM(SUM_ERRORS) " +
			"FROM information_schema.statements_summary WHERE SCHEMA_NAME = 'candor' AND DIGEST_TEXT LIKE '%sbtest1%' GROUP BY DIGEST_TEXT"
		for _, line := range strings.Split(strings.TrimSpace(tidbShow(t, url, q, -1)), "\n") {
			f := strings.Split(line, "\t")
			if len(f) != 6 {
				continue
			}
			var s stmt
			s.execs, _ = strconv.ParseInt(f[1], 10, 64)
			s.minRows, _ = strconv.ParseInt(f[2], 10, 64)
			s.maxRows, _ = strconv.ParseInt(f[3], 10, 64)
			s.affected, _ = strconv.ParseFloat(f[4], 64)
			s.errs, _ = strconv.ParseFloat(f[5], 64)
			out[f[0]] = s
		}
		return out
	}
	clear := func() {
		execSQL(t, url, "SET GLOBAL tidb_enable_stmt_summary = OFF")
		execSQL(t, url, "SET GLOBAL tidb_enable_stmt_summary = ON")
	}
	for _, test := range []string{"oltp_point_select", "oltp_read_write"} {
		clear()
		code, _, stderr := runCLI(t, dir, nil, append([]string{"run", "sysbench/" + test, "--threads", "2", "--time", "3", "--load", "never", "-o", test + ".json"}, opts...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", test, code, stderr)
		}
		res, err := result.Read(filepath.Join(dir, test+".json"))
		if err != nil {
			t.Fatal(err)
		}
		p := res.Phases[len(res.Phases)-1]
		sum := summary()
		t.Logf("%s: %d events, counters %v; TiDB's statement summary: %+v", test, p.Operations, p.Counters, sum)
		checks := map[string]string{"select `c` from `sbtest1` where `id` = ?": "rows"}
		if test == "oltp_read_write" {
			checks["update `sbtest1` set `k`"] = "affected"
			checks["update `sbtest1` set `c`"] = "affected"
			checks["delete from `sbtest1` where `id` = ?"] = "affected"
			checks["insert into `sbtest1`"] = "affected"
		}
		for prefix, what := range checks {
			var s stmt
			found := false
			for text, v := range sum {
				if strings.HasPrefix(text, prefix) {
					s, found = v, true
				}
			}
			switch {
			case !found || s.execs == 0:
				t.Errorf("%s: TiDB's statement summary has no execution of %q", test, prefix)
			case s.errs != 0:
				t.Errorf("%s: %q failed %v times of %d", test, prefix, s.errs, s.execs)
			case what == "rows" && (s.minRows != 1 || s.maxRows != 1):
				t.Errorf("%s: %q returned %d to %d rows in %d executions, want one each", test, prefix, s.minRows, s.maxRows, s.execs)
			case what == "affected" && int64(s.affected+0.5) != s.execs:
				t.Errorf("%s: %q affected %.0f rows in %d executions, want one each", test, prefix, s.affected, s.execs)
			}
		}
	}
}

// TestTiDBDurabilityNotFromNoOps: TiDB accepts innodb_flush_log_at_trx_commit
// and ignores it (information_schema.variables_info IS_NOOP), so setting it
// to 0 must not make the audit call TiDB's commits periodic: the
// fingerprint records the no-ops as such and the durability is not
// recorded.
func TestTiDBDurabilityNotFromNoOps(t *testing.T) {
	url := tidbURL(t)
	dir := t.TempDir()
	if noop := tidbShow(t, url, "SELECT LOWER(VARIABLE_NAME) FROM information_schema.variables_info WHERE IS_NOOP = 'YES' AND VARIABLE_NAME IN ('innodb_flush_log_at_trx_commit', 'sync_binlog', 'innodb_buffer_pool_size') ORDER BY 1", 0); noop != "innodb_buffer_pool_size\ninnodb_flush_log_at_trx_commit\nsync_binlog\n" {
		t.Fatalf("TiDB's no-op variables among those the audit reads: %q", noop)
	}
	execSQL(t, url, "SET GLOBAL innodb_flush_log_at_trx_commit = 0")
	defer execSQL(t, url, "SET GLOBAL innodb_flush_log_at_trx_commit = 1")
	if v := tidbShow(t, url, "SELECT @@global.innodb_flush_log_at_trx_commit", 0); v != "0\n" {
		t.Fatalf("innodb_flush_log_at_trx_commit reads %q after SET GLOBAL, want 0", v)
	}
	const table = "ycsb_noop_tidb"
	props := []string{"-p", "table=" + table, "-p", "recordcount=100"}
	defer runCLI(t, dir, nil, append([]string{"cleanup", "ycsb", "--target", url}, props...)...)
	code, _, stderr := runCLI(t, dir, nil, append([]string{"run", "ycsb/c", "--target", url, "--operations", "200", "-q", "-o", "r.json"}, props...)...)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	res, err := result.Read(filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"innodb_flush_log_at_trx_commit", "sync_binlog", "innodb_buffer_pool_size"} {
		if v := res.Target.Settings[k]; v != "no-op" {
			t.Errorf("fingerprint: %s = %q, want no-op", k, v)
		}
	}
	if v := res.Target.Settings["tidb_txn_mode"]; v == "" || v == "no-op" || v == "unavailable" {
		t.Errorf("fingerprint: tidb_txn_mode = %q, want TiDB's value", v)
	}
	_, stdout, stderr := runCLI(t, dir, nil, "audit", filepath.Join(dir, "r.json"))
	if out := stdout + stderr; strings.Contains(out, "periodic") {
		t.Errorf("audit of a TiDB with innodb_flush_log_at_trx_commit=0 set calls it periodic:\n%s", out)
	}
	// Beside a side whose durability is recorded (SQLite, synchronous=FULL),
	// the audit says TiDB's is not, and why.
	sqlite := "sqlite://" + filepath.Join(dir, "s.db") + "?synchronous=FULL"
	if code, _, stderr := runCLI(t, dir, nil, "run", "ycsb/c", "--target", sqlite, "--operations", "200", "-q", "-o", "s.json", "-p", "recordcount=100"); code != 0 {
		t.Fatalf("sqlite run: exit %d\n%s", code, stderr)
	}
	_, stdout, stderr = runCLI(t, dir, nil, "audit", filepath.Join(dir, "r.json"), filepath.Join(dir, "s.json"))
	out := stdout + stderr
	if strings.Contains(out, "periodic") || !strings.Contains(out, "durability not recorded on some side") ||
		!strings.Contains(out, "not recorded (innodb_flush_log_at_trx_commit, sync_binlog accepted and ignored by the server)") {
		t.Errorf("audit of TiDB beside SQLite: want TiDB's durability not recorded, not periodic:\n%s", out)
	}
}

// tidbShow runs a SHOW statement and returns its rows, one line each, with
// column col only (col < 0: all columns, tab-separated).
func tidbShow(t *testing.T, url, q string, col int) string {
	t.Helper()
	var b strings.Builder
	withConn(t, url, func(ctx context.Context, _ target.Target, c target.Conn) {
		if _, err := c.Query(ctx, q, nil, func(cols [][]byte) error {
			if col >= 0 && col < len(cols) {
				b.Write(cols[col])
			} else {
				for i, v := range cols {
					if i > 0 {
						b.WriteByte('\t')
					}
					b.Write(v)
				}
			}
			b.WriteByte('\n')
			return nil
		}); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	})
	return b.String()
}
