package cli

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/target/targettest"
)

// freeAddr is a 127.0.0.1 address with a port nothing listens on now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// metricValue is the value of the first sample of name in an exposition
// whose labels contain every one of labels.
func metricValue(body, name string, labels ...string) (float64, bool) {
	for _, line := range strings.Split(body, "\n") {
		if !strings.HasPrefix(line, name+"{") {
			continue
		}
		ok := true
		for _, l := range labels {
			ok = ok && strings.Contains(line, l)
		}
		if !ok {
			continue
		}
		f := strings.Fields(line)
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		return v, err == nil
	}
	return 0, false
}

// --metrics-addr serves the run's operations while it runs, labelled with
// its run id, workload and shard, in the OpenMetrics format.
func TestMetricsScrapedDuringRun(t *testing.T) {
	t.Parallel()
	body, res := scrapeDuringRun(t)
	for _, want := range []string{`run_id="` + res.ID + `"`, `workload="ycsb/c"`, `shard="0/1"`, "candor_operation_latency_seconds_bucket{", "candor_in_flight_operations{", "candor_target_rate_ops{", "candor_achieved_rate_ops{", "# EOF"} {
		if !strings.Contains(body, want) {
			t.Errorf("scrape lacks %s:\n%s", want, body)
		}
	}
	// null:// has nothing to load: no load metrics (they showed "load
	// progress 0%")
	if len(res.Phases) != 1 || strings.Contains(body, "candor_load_") {
		t.Errorf("a run without a load (%d phases) serves load metrics:\n%s", len(res.Phases), body)
	}
}

// A shard's metrics carry its index and the run id every shard shares.
func TestMetricsOfAShard(t *testing.T) {
	t.Parallel()
	body, _ := scrapeDuringRun(t, "--shard", "1/2", "--threads", "4", "--run-id", "run42")
	for _, want := range []string{`run_id="run42"`, `shard="1/2"`} {
		if !strings.Contains(body, want) {
			t.Errorf("scrape lacks %s:\n%s", want, body)
		}
	}
}

// scrapeDuringRun runs ycsb/c on null:// with --metrics-addr (and args) and
// returns a scrape taken while READ operations were counted, and the result.
func scrapeDuringRun(t *testing.T, args ...string) (string, *result.Result) {
	t.Helper()
	dir := t.TempDir()
	addr := freeAddr(t)
	type exit struct {
		code   int
		stderr string
	}
	done := make(chan exit, 1)
	go func() {
		cmd := append([]string{"run", "ycsb/c", "--target", "null://?latency=100us", "--threads", "2", "--time", "3s",
			"--report-interval", "200ms", "--metrics-addr", addr, "--metrics-linger", "0", "-q", "-o", filepath.Join(dir, "r.json")}, args...)
		code, _, stderr := runAbs(t, dir, cmd...)
		done <- exit{code, stderr}
	}()
	var body string
	var e exit
	ended := false
	// Scrape until a scrape sees READ operations or the run ends: a fixed
	// 10 s deadline ran out before a loaded machine (two CPU hogs beside
	// -race) had started the run. Minutes only tell a hang from an end.
	deadline := time.Now().Add(5 * time.Minute)
	for !ended && time.Now().Before(deadline) {
		select {
		case e = <-done:
			ended = true
			continue
		default:
		}
		req, _ := http.NewRequest("GET", "http://"+addr+"/metrics", nil)
		req.Header.Set("Accept", "application/openmetrics-text; version=1.0.0")
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if v, ok := metricValue(string(b), "candor_operations_total", `operation="READ"`, `phase="run"`); ok && v > 0 {
				body = string(b)
				break
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !ended {
		e = <-done
	}
	if e.code != 0 {
		t.Fatalf("exit %d\n%s", e.code, e.stderr)
	}
	if body == "" {
		t.Fatal("no scrape during the run saw READ operations")
	}
	res, err := result.Read(filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	// The endpoint is gone with the run.
	if _, err := http.Get("http://" + addr + "/metrics"); err == nil {
		t.Error("the endpoint still answers after the run")
	}
	return body, res
}

// A load's progress reaches the endpoint: rows done and the rows in all.
func TestMetricsLoadProgress(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	addr := freeAddr(t)
	done := make(chan int, 1)
	go func() {
		code, _, _ := runAbs(t, dir, "load", "ycsb/a", "--target", "sqlite://"+filepath.Join(dir, "l.db"), "-p", "recordcount=30000",
			"--batch-size", "100", "--report-interval", "100ms", "--metrics-addr", addr, "--metrics-linger", "0", "-q", "-o", filepath.Join(dir, "l.json"))
		done <- code
	}()
	var seen float64
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline) && seen == 0; time.Sleep(50 * time.Millisecond) {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		total, _ := metricValue(string(b), "candor_load_rows_planned")
		v, _ := metricValue(string(b), "candor_load_rows_done")
		if total == 0 {
			continue // not yet started
		}
		if total != 30000 {
			t.Fatalf("candor_load_rows_planned %v, want 30000", total)
		}
		if v > 0 && v <= 30000 && int64(v)%100 == 0 {
			seen = v
		}
	}
	if code := <-done; code != 0 {
		t.Fatalf("exit %d", code)
	}
	if seen == 0 {
		t.Error("no scrape saw load progress")
	}
}

// A metrics address that cannot be bound fails before the run, exit 2,
// naming the address; no result is written.
func TestMetricsAddrTaken(t *testing.T) {
	dir := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	code, _, stderr := runCLI(t, dir, nil, "run", "ycsb/c", "--target", "null://", "--time", "1s", "--metrics-addr", ln.Addr().String(), "-o", "r.json")
	if code != ExitUsage || !strings.Contains(stderr, "--metrics-addr \""+ln.Addr().String()+"\"") || !strings.Contains(stderr, "address already in use") {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "r.json")); err == nil {
		t.Error("a result was written though the run never started")
	}
}

// counterNames are the names recorded in a phase's server counters.
func counterNames(p result.Phase) map[string]bool {
	out := map[string]bool{}
	if p.Server != nil {
		for _, c := range p.Server.Counters {
			out[c.Name] = true
		}
	}
	return out
}

// The server's own counters are sampled into the result's run phase on
// every target with counters: SQLite always, PostgreSQL and MariaDB when
// scripts/test.sh started them. --server-counters=false leaves them out.
func TestServerCountersInResult(t *testing.T) {
	t.Parallel()
	want := map[string][]string{
		"sqlite":   {"database_bytes", "freelist_bytes", "wal_bytes"},
		"postgres": {"xact_commit", "blks_hit", "tup_returned", "checkpoints_timed", "buffers_checkpoint", "wal_bytes"},
		"mysql":    {"Handler_read_key", "Innodb_data_written", "Innodb_buffer_pool_read_requests", "Innodb_log_waits"},
		"cql":      {"compactions_pending", "compactions_active", "sstable_tasks"},
	}
	targets := targettest.RealTargets(t, false)
	if os.Getenv("CANDOR_TEST_CASSANDRA_URL") != "" {
		targets["cql"] = cassandraURL(t, targettest.TableName("obs_ks"))
	}
	for kind, u := range targets {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			table := targettest.TableName("obs")
			args := []string{"run", "ycsb/a", "--target", u, "-p", "table=" + table, "--threads", "2", "--operations", "3000", "--report-interval", "100ms", "-q", "-o", filepath.Join(dir, "r.json")}
			t.Cleanup(func() { runAbs(t, dir, "cleanup", "ycsb", "--target", u, "-p", "table="+table) })
			code, _, stderr := runAbs(t, dir, args...)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			res, err := result.Read(filepath.Join(dir, "r.json"))
			if err != nil {
				t.Fatal(err)
			}
			run := res.Phases[len(res.Phases)-1]
			names := counterNames(run)
			for _, n := range want[kind] {
				if !names[n] {
					t.Errorf("run phase lacks counter %s; has %v (unavailable %v)", n, names, run.Server)
				}
			}
			if kind == "postgres" && (!names["table_bytes:"+table] || !names["index_bytes:"+table]) {
				t.Errorf("no size of %s: %v", table, names)
			}
			if n := len(run.Server.Samples); n < 2 || run.Server.Samples[0].ElapsedSec > 0 {
				t.Errorf("%d samples, first at %v s; want a baseline before the phase and one per interval", n, run.Server.Samples[0].ElapsedSec)
			}
			if kind == "sqlite" {
				code, _, stderr := runAbs(t, dir, append(args[:len(args)-1], filepath.Join(dir, "r2.json"), "--server-counters=false")...)
				if code != 0 {
					t.Fatalf("exit %d\n%s", code, stderr)
				}
				res, err := result.Read(filepath.Join(dir, "r2.json"))
				if err != nil {
					t.Fatal(err)
				}
				if s := res.Phases[len(res.Phases)-1].Server; s != nil {
					t.Errorf("--server-counters=false recorded %+v", s)
				}
			}
		})
	}
}

// A counter the role may not read is recorded as unavailable, with the
// server's reason, and the run goes on to complete. The test takes
// pg_stat_wal away from PUBLIC on the test server for its duration and
// runs as a role of its own. Not parallel: the privilege is the whole
// server's.
func TestServerCounterWithoutPrivilege(t *testing.T) {
	raw := os.Getenv("CANDOR_TEST_POSTGRES_URL")
	if raw == "" {
		t.Skip("CANDOR_TEST_POSTGRES_URL unset: no PostgreSQL on this machine (scripts/test.sh sets it)")
	}
	role := targettest.TableName("candor_nostats")
	withConn(t, raw, func(ctx context.Context, tgt target.Target, c target.Conn) {
		for _, s := range []string{
			"CREATE ROLE " + role + " LOGIN PASSWORD 'nostats'",
			"CREATE SCHEMA " + role + " AUTHORIZATION " + role, // its tables and ownership marks
			"REVOKE SELECT ON pg_catalog.pg_stat_wal FROM PUBLIC",
		} {
			if _, err := c.Exec(ctx, s); err != nil {
				t.Skipf("cannot set up a role without privileges (%s): %v", s, err)
			}
		}
	})
	t.Cleanup(func() {
		withConn(t, raw, func(ctx context.Context, tgt target.Target, c target.Conn) {
			for _, s := range []string{
				"GRANT SELECT ON pg_catalog.pg_stat_wal TO PUBLIC",
				"DROP OWNED BY " + role,
				"DROP ROLE " + role,
			} {
				if _, err := c.Exec(ctx, s); err != nil {
					t.Errorf("%s: %v", s, err)
				}
			}
		})
	})
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(role, "nostats")
	dir := t.TempDir()
	code, _, stderr := runCLI(t, dir, nil, "run", "ycsb/c", "--target", u.String(), "--operations", "500", "--report-interval", "100ms", "-q", "-o", "r.json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	res, err := result.Read(filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != result.StatusComplete {
		t.Fatalf("status %s: %s", res.Status, res.Error)
	}
	run := res.Phases[len(res.Phases)-1]
	if run.Server == nil || !strings.Contains(run.Server.Unavailable["wal: pg_stat_wal"], "permission denied") {
		t.Fatalf("pg_stat_wal not recorded as unavailable: %+v", run.Server)
	}
	if names := counterNames(run); !names["xact_commit"] || names["wal_bytes"] {
		t.Errorf("counters %v: want the readable ones and not wal_bytes", names)
	}
}
