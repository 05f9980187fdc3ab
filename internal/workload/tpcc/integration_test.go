package tpcc_test

import (
	"context"
	"database/sql"
	"io"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/candor-bench/candor/internal/engine"
	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/result/resulttest"
	"github.com/candor-bench/candor/internal/runner"
	"github.com/candor-bench/candor/internal/target"
	_ "github.com/candor-bench/candor/internal/target/fake"
	_ "github.com/candor-bench/candor/internal/target/mysql"
	_ "github.com/candor-bench/candor/internal/target/postgres"
	_ "github.com/candor-bench/candor/internal/target/sqlite"
	"github.com/candor-bench/candor/internal/target/targettest"
	"github.com/candor-bench/candor/internal/testutil/oracle"
	"github.com/candor-bench/candor/internal/testutil/pgcluster"
	"github.com/candor-bench/candor/internal/workload"
	"github.com/candor-bench/candor/internal/workload/tpcc"
)

// TPC-C on real databases through the engine, as `candor load/run tpcc`
// runs it: SQLite always, PostgreSQL and MariaDB when
// CANDOR_TEST_POSTGRES_URL and CANDOR_TEST_MYSQL_URL are set, each in a
// database of the test's own.
//
//	U=$(scripts/pg-sandbox.sh start /tmp/tpg); M=$(scripts/mariadb-sandbox.sh start /tmp/tmy)
//	CANDOR_TEST_POSTGRES_URL=$U CANDOR_TEST_MYSQL_URL=$M go test -race ./internal/workload/tpcc/

// quiet is a Display that prints nothing.
type quiet struct{}

func (quiet) Start(*runner.Runner, engine.Started) {}
func (quiet) Summary(engine.Finished) error        { return nil }

// runSpec runs a spec through the engine and returns its exit code, what it
// said and its result (nil when none was written).
func runSpec(t *testing.T, s engine.Spec) (int, string, *result.Result) {
	t.Helper()
	var errb strings.Builder
	env := &engine.Env{Stdout: io.Discard, Stderr: &errb, Args: append([]string{"candor"}, s.Args()...), Display: quiet{}}
	rep, err := engine.Run(context.Background(), env, s)
	msg := errb.String()
	if err != nil {
		msg += "candor: " + err.Error()
	}
	var res *result.Result
	if rep.Path != "" {
		res = resulttest.Read(t, rep.Path)
	}
	return engine.Code(err), msg, res
}

func spec(phase, url, out string, threads int, opts ...string) engine.Spec {
	s := engine.NewSpec(phase, "tpcc")
	s.Targets, s.Out, s.Quiet, s.Options = []string{url}, out, true, opts
	s.Threads = &threads
	return s
}

// counter is the database's own count of rows, through a client that
// shares no code with candor's drivers.
type counter func(t *testing.T, q string) int64

func oracleOf(t *testing.T, url string) (counter, func(string)) {
	if path, ok := strings.CutPrefix(url, "sqlite://"); ok {
		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return func(t *testing.T, q string) int64 {
				t.Helper()
				var n int64
				if err := db.QueryRow(q).Scan(&n); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
				return n
			}, func(q string) {
				if _, err := db.Exec(q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
	}
	o := oracle.Open(t, url)
	return func(t *testing.T, q string) int64 {
		t.Helper()
		v := o.Ints(t, q)
		if len(v) != 1 {
			t.Fatalf("%s: %d rows", q, len(v))
		}
		return v[0]
	}, func(q string) { o.Exec(t, q) }
}

// checks runs the workload's consistency checks on url.
func checks(t *testing.T, url string) []workload.CheckResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	tgt, err := target.Open(ctx, url, target.Options{ConnectTimeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer tgt.Close()
	w, err := tpcc.New(nil, []string{"warehouses=1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Bind(workload.Env{Dialect: tgt.Dialect(), Capabilities: tgt.Capabilities()}); err != nil {
		t.Fatal(err)
	}
	c, err := tgt.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := w.Check(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 11 {
		t.Errorf("%d checks, want 11 (3.3.2.1-10 and 12)", len(res))
	}
	return res
}

func TestRealTargets(t *testing.T) {
	if testing.Short() {
		t.Skip("loads 600,000 rows per database")
	}
	t.Parallel()
	for name, url := range targettest.RealTargets(t, true) {
		t.Run(name, func(t *testing.T) {
			if name == "sqlite" && raceDetector {
				// The race detector instruments the embedded SQLite (Go
				// translated from C) too: its 600,000 rows load ten times
				// slower. scripts/test.sh runs this subtest without -race.
				t.Skip("under -race the embedded SQLite loads ten times slower; scripts/test.sh runs this subtest without -race")
			}
			t.Parallel()
			exercise(t, url)
		})
	}
}

func exercise(t *testing.T, url string) {
	dir := t.TempDir()
	count, exec := oracleOf(t, url)

	// The load: the spec's cardinalities, counted by the database itself.
	// On MariaDB each of the nine tables is sent whole by LOAD DATA (the
	// server's count of them), its secondary index defined first.
	mysql := strings.HasPrefix(url, "mysql:")
	var loads int64
	if mysql {
		loads = count(t, "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'COM_LOAD'")
	}
	code, msg, res := runSpec(t, spec("load", url, filepath.Join(dir, "load.json"), 2, "warehouses=1"))
	if code != 0 || res == nil {
		t.Fatalf("load: exit %d: %s", code, msg)
	}
	if n := res.Phases[0].Rows; n != 599011 {
		t.Errorf("load phase: %d rows, want 599,011 (order lines counted at 10 per order)", n)
	}
	if mysql {
		if n := count(t, "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'COM_LOAD'") - loads; n < 9 {
			t.Errorf("%d LOAD DATA statements during the load, want at least 9 (one per table)", n)
		}
	}
	want := map[string]int64{"warehouse": 1, "district": 10, "customer": 30000, "history": 30000,
		"new_order": 9000, "orders": 30000, "item": 100000, "stock": 100000}
	for table, n := range want {
		if got := count(t, "SELECT COUNT(*) FROM "+table); got != n {
			t.Errorf("%s: %d rows, want %d", table, got, n)
		}
	}
	lines := count(t, "SELECT COUNT(*) FROM order_line")
	if sum := count(t, "SELECT SUM(o_ol_cnt) FROM orders"); lines != sum {
		t.Errorf("order_line: %d rows, sum(o_ol_cnt) %d", lines, sum)
	}
	if lines < 297000 || lines > 303000 {
		t.Errorf("order_line: %d rows, want about 300,000 (5..15 per order)", lines)
	}
	if n := count(t, "SELECT COUNT(*) FROM orders WHERE o_carrier_id IS NULL"); n != 9000 {
		t.Errorf("%d undelivered orders, want 9,000", n)
	}
	for _, r := range checks(t, url) {
		if !r.Passed {
			t.Errorf("after the load: %s failed: %s", r.Name, r.Detail)
		}
	}

	// Another scale on these tables: refused, never run against.
	code, msg, _ = runSpec(t, spec("load", url, filepath.Join(dir, "load2.json"), 2, "warehouses=2"))
	if code != engine.ExitUnsupported || !strings.Contains(msg, "warehouses=1") {
		t.Errorf("load of 2 warehouses into tables of 1: exit %d, want %d naming warehouses=1: %s", code, engine.ExitUnsupported, msg)
	}
	s := spec("run", url, filepath.Join(dir, "run2.json"), 2, "warehouses=2")
	s.Load = "never"
	if code, msg, _ = runSpec(t, s); code != engine.ExitUnsupported || !strings.Contains(msg, "holds warehouses=1 where this run says warehouses=2") {
		t.Errorf("run of 2 warehouses on tables of 1 with --load never: exit %d, want %d naming both counts: %s", code, engine.ExitUnsupported, msg)
	}

	// A run: every transaction, tpmC derived, and the data consistent
	// after it.
	s = spec("run", url, filepath.Join(dir, "run.json"), 4, "warehouses=1")
	d := 6 * time.Second
	s.Duration = &d
	code, msg, res = runSpec(t, s)
	if code != 0 || res == nil {
		t.Fatalf("run: exit %d: %s", code, msg)
	}
	p := res.Phases[len(res.Phases)-1]
	var newOrders int64
	for _, o := range p.Ops {
		if o.Done == 0 {
			t.Errorf("%s: no transaction done", o.Name)
		}
		if o.Name == "NEW_ORDER" {
			newOrders = o.Done
		}
	}
	if p.ErrorRate > 0.01 {
		t.Errorf("error rate %.3f: %+v", p.ErrorRate, p.Ops)
	}
	committed := newOrders - p.Counters["new_order_rollbacks"]
	if tpm := p.Derived["tpmC"]; tpm <= 0 || abs(tpm-float64(committed)*60/p.DurationSec) > 1e-6*tpm {
		t.Errorf("tpmC %.1f, want %d committed New-Orders over %.1f s", tpm, committed, p.DurationSec)
	}
	if e := p.Derived["efficiency_pct"]; abs(e-100*p.Derived["tpmC"]/12.86) > 1e-6*e {
		t.Errorf("efficiency %.1f%%, want tpmC / 12.86", e)
	}
	// The server's own count: every committed New-Order took an order id.
	if got := count(t, "SELECT SUM(d_next_o_id) - 10 * 3001 FROM district"); got < committed {
		t.Errorf("the districts gave %d order ids, fewer than the %d New-Orders committed", got, committed)
	}
	for _, r := range checks(t, url) {
		if !r.Passed {
			t.Errorf("after the run: %s failed: %s", r.Name, r.Detail)
		}
	}

	// Sessions cut in the middle of transactions (a fault through candor's
	// proxy): the runner reconnects and retries them, and the data stays
	// consistent.
	if !strings.HasPrefix(url, "sqlite:") {
		s = spec("run", url, filepath.Join(dir, "fault.json"), 4, "warehouses=1")
		d := 5 * time.Second
		s.Duration, s.Faults = &d, []string{"at=1s net=reset node=0", "at=3s net=reset node=0"}
		code, msg, res := runSpec(t, s)
		if code != 0 || res == nil {
			t.Fatalf("run with resets: exit %d: %s", code, msg)
		}
		p := res.Phases[len(res.Phases)-1]
		if len(p.Faults) != 2 || p.Faults[0].Status != "done" || p.Reconnects == 0 {
			t.Errorf("faults %+v, %d reconnects: want 2 resets done and reconnects", p.Faults, p.Reconnects)
		}
		for _, r := range checks(t, url) {
			if !r.Passed {
				t.Errorf("after the resets: %s failed: %s", r.Name, r.Detail)
			}
		}
	}

	// One district's YTD changed by hand: the checks name it.
	exec("UPDATE district SET d_ytd = d_ytd + 1 WHERE d_w_id = 1 AND d_id = 3")
	failed := map[string]workload.CheckResult{}
	for _, r := range checks(t, url) {
		if !r.Passed {
			failed[r.Name[:strings.IndexByte(r.Name, ' ')]] = r
		}
	}
	if r, ok := failed["3.3.2.9"]; !ok || r.Offending != 1 || !strings.Contains(r.Detail, "warehouse 1 district 3") {
		t.Errorf("3.3.2.9 after corrupting district 3: %+v, want 1 offender naming warehouse 1 district 3", r)
	}
	if r, ok := failed["3.3.2.1"]; !ok || r.Offending != 1 || !strings.Contains(r.Detail, "warehouse 1") {
		t.Errorf("3.3.2.1 after corrupting district 3: %+v, want warehouse 1", r)
	}
	if len(failed) != 2 {
		t.Errorf("failed checks %v, want 3.3.2.1 and 3.3.2.9 only", failed)
	}
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}

// The mix through the runner on candor's no-op target (null://): over
// 10,000 transactions each type's share of the attempts is within 1 point
// of 45/43/4/4/4. (null:// holds no data, so most transactions fail on
// what they read; what the workload chose is what is counted.)
func TestMixOnNullTarget(t *testing.T) {
	s := spec("run", "null://", filepath.Join(t.TempDir(), "null.json"), 2, "warehouses=1")
	ops := int64(10000)
	s.Operations, s.MaxErrorRate = &ops, 1
	_, msg, res := runSpec(t, s)
	if res == nil {
		t.Fatalf("no result: %s", msg)
	}
	p := res.Phases[len(res.Phases)-1]
	var total int64
	for _, o := range p.Ops {
		total += o.Attempts - o.Retries
	}
	if total != ops {
		t.Fatalf("%d transactions, want %d", total, ops)
	}
	// Each transaction's type is drawn at random: its count is binomial.
	// Within 4.5 standard deviations of the mix a correct draw fails one
	// run in 100,000 (±2.2 points for NEW_ORDER, ±0.9 for a 4% type), while
	// a mix off by 3 points or more still fails.
	for i, o := range p.Ops {
		share := 100 * float64(o.Attempts-o.Retries) / float64(total)
		want := float64(tpcc.Mix[i]) / 100
		tol := 4.5 * 100 * math.Sqrt(want*(1-want)/float64(total))
		if abs(share-100*want) > tol {
			t.Errorf("%s: %.2f%%, want %d%% ± %.2f", o.Name, share, tpcc.Mix[i], tol)
		}
	}
}

// --warehouses 0 or negative: refused before anything is created, exit 2,
// one message naming the fix.
func TestBadWarehousesExit(t *testing.T) {
	for _, w := range []string{"0", "-1"} {
		db := filepath.Join(t.TempDir(), "t.db")
		code, msg, res := runSpec(t, spec("load", "sqlite://"+db, filepath.Join(t.TempDir(), "r.json"), 1, "warehouses="+w))
		if code != engine.ExitUsage || !strings.Contains(msg, "--warehouses "+w+": TPC-C needs at least 1 warehouse; give --warehouses 1 or more") || res != nil {
			t.Errorf("--warehouses %s: exit %d, result %v: %s", w, code, res != nil, msg)
		}
	}
}

// A fail-over during a run: the primary of a replicated PostgreSQL
// (synchronous standby) SIGKILLed at 2 s, the standby promoted at 3 s; the
// workers follow the promoted node (--target-role primary), the run
// completes, and the consistency checks pass on the surviving node.
func TestFailoverChecksOnSurvivor(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a replicated PostgreSQL")
	}
	sh := pgcluster.Script(t)
	t.Parallel()
	dir, urls := pgcluster.Start(t, sh, "--standbys", "1", "--sync", "one")
	work := t.TempDir()
	if code, msg, _ := runSpec(t, spec("load", urls[0], filepath.Join(work, "load.json"), 2, "warehouses=1")); code != 0 {
		t.Fatalf("load: exit %d: %s", code, msg)
	}
	s := spec("run", urls[0], filepath.Join(work, "run.json"), 4, "warehouses=1")
	s.Targets, s.TargetRole, s.Load = urls[:2], engine.RolePrimary, "never"
	d := 8 * time.Second
	s.Duration, s.Faults = &d, []string{"at=2s run=" + sh + " kill " + dir + " 0", "at=3s run=" + sh + " promote " + dir + " 1"}
	s.MaxUnavailable = 0 // a fail-over killed on purpose, long for an 8 s run
	code, msg, res := runSpec(t, s)
	if code != 0 || res == nil {
		t.Fatalf("run: exit %d: %s", code, msg)
	}
	p := res.Phases[len(res.Phases)-1]
	var recon int64
	for _, w := range p.Workers {
		recon += w.Reconnects
	}
	if len(p.Faults) != 2 || p.Faults[1].Status != "done" || recon == 0 || p.Derived["tpmC"] <= 0 {
		t.Errorf("faults %+v, %d reconnects, tpmC %v: want the run to go on on the promoted node", p.Faults, recon, p.Derived["tpmC"])
	}
	for _, r := range checks(t, urls[1]) {
		if !r.Passed {
			t.Errorf("on the promoted node: %s failed: %s", r.Name, r.Detail)
		}
	}
}
