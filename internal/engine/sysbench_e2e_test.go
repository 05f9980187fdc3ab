package engine

import (
	"github.com/candor-bench/candor/internal/result/resulttest"
	"github.com/candor-bench/candor/internal/target/targettest"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// perEvent is the expected reads/writes/other per event of each test with
// the defaults (docs/SYSBENCH.md, "Reference facts"); -1 = not checked exactly. The order
// matters: an UPDATE of a row oltp_delete removed counts as "other", as in
// sysbench, so the tests that delete rows run last.
var perEvent = []struct {
	test string
	want [3]float64
}{
	{"oltp_point_select", [3]float64{1, 0, 0}},
	{"oltp_read_only", [3]float64{14, 0, 2}},
	{"oltp_read_write", [3]float64{14, 4, 2}},
	{"oltp_write_only", [3]float64{0, 4, 2}},
	{"oltp_update_index", [3]float64{0, 1, 0}},
	{"oltp_update_non_index", [3]float64{0, 1, 0}},
	{"select_random_points", [3]float64{1, 0, 0}},
	{"select_random_ranges", [3]float64{1, 0, 0}},
	{"oltp_insert", [3]float64{0, 1, 0}},
	{"oltp_delete", [3]float64{0, -1, -1}}, // a write when a row was deleted, else other
	{"bulk_insert", [3]float64{0, -1, -1}},
}

// TestSysbenchSuiteOnRealTargets: prepare 2 tables × 10,000 rows, run every
// test for 5 s (oltp_point_select for sysbench's --events instead), check the
// per-event query mix, clean up, and refuse a foreign sbtest1. Each server
// in a database of the test's own (sysbench's tables have fixed names), at
// once.
func TestSysbenchSuiteOnRealTargets(t *testing.T) {
	t.Parallel()
	for name, url := range targettest.RealTargets(t, true) {
		if name == "sqlite" {
			continue // sysbench itself runs on MySQL and PostgreSQL
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			common := []string{"tables=2", "table-size=10000"}
			cleanupE2E(t, url, "sysbench", common...)
			prep := specFor(PhaseLoad, "sysbench", url, filepath.Join(dir, "prep.json"))
			prep.Options, prep.Threads = common, ptr(2)
			if r := runE2E(t, prep); r.code != 0 {
				t.Fatalf("prepare: exit %d\n%s", r.code, r.stderr)
			}
			for _, table := range []string{"sbtest1", "sbtest2"} {
				if n := countRows(t, url, table); n != 10000 {
					t.Fatalf("%s has %d rows after prepare, want 10000", table, n)
				}
			}
			for _, pe := range perEvent {
				test, want := pe.test, pe.want
				out := filepath.Join(dir, test+".json")
				s := specFor(PhaseRun, "sysbench/"+test, url, out)
				s.Options, s.Threads, s.Duration, s.Load = common, ptr(2), ptr(5*time.Second), "never"
				if strings.HasPrefix(test, "select_random") {
					s.Options = []string{"tables=1", "table-size=10000"} // they query sbtest1 only
				}
				if test == "bulk_insert" {
					s.Load = DefaultLoad // its own schema
				}
				if test == "oltp_point_select" {
					// sysbench's --events in place of --time: exactly that many.
					s.Duration, s.Operations = nil, ptr(int64(300))
				}
				r := runE2E(t, s)
				if r.code != 0 {
					t.Fatalf("%s: exit %d\n%s", test, r.code, r.stderr)
				}
				res := resulttest.Read(t, out)
				p := res.Phases[len(res.Phases)-1]
				ev := float64(p.Ops[0].Count)
				if ev == 0 {
					t.Fatalf("%s: no events", test)
				}
				if test == "oltp_point_select" && ev != 300 {
					t.Errorf("%s --events 300: %v events", test, ev)
				}
				got := [3]float64{float64(p.Counters["reads"]) / ev, float64(p.Counters["writes"]) / ev, float64(p.Counters["other"]) / ev}
				if test == "oltp_read_only" || test == "oltp_point_select" {
					// Nothing to restart or race on: exact, including
					// the events in flight when the run ended (not counted,
					// nor their queries).
					if got != want {
						t.Errorf("%s: r/w/o per event %v, want exactly %v (over %.0f events)", test, got, want, ev)
					}
				}
				for i, w := range want {
					// Restarted events add statements of their failed tries, and
					// two threads racing on one id can turn a write into "other".
					if w >= 0 && (got[i] < w*0.95-0.01 || got[i] > w*1.05+0.01) {
						t.Errorf("%s: %s per event %.3f, want %.0f (r/w/o %v over %.0f events)", test, []string{"reads", "writes", "other"}[i], got[i], w, got, ev)
					}
				}
				if test == "oltp_delete" && got[1]+got[2] < 1 {
					t.Errorf("oltp_delete: writes+other per event %.3f, want ≥ 1", got[1]+got[2])
				}
				if res.Workload.Reference != "sysbench 1.0.20" {
					t.Errorf("%s: reference %q", test, res.Workload.Reference)
				}
			}
			if code, stderr := cleanupE2E(t, url, "sysbench", common...); code != 0 {
				t.Fatalf("cleanup: %d %s", code, stderr)
			}
			for _, table := range []string{"sbtest1", "sbtest2"} {
				if exists(t, url, table) {
					t.Errorf("%s survived cleanup", table)
				}
			}
			// A foreign sbtest1 is refused and survives.
			execSQL(t, url, "CREATE TABLE sbtest1 (id INTEGER PRIMARY KEY)")
			defer execSQL(t, url, "DROP TABLE sbtest1")
			prep.Out = filepath.Join(dir, "foreign.json")
			if r := runE2E(t, prep); r.code != ExitUnsupported || !strings.Contains(r.stderr, "sbtest1") {
				t.Errorf("prepare on a foreign sbtest1: exit %d, want %d\n%s", r.code, ExitUnsupported, r.stderr)
			}
			if code, stderr := cleanupE2E(t, url, "sysbench", common...); code != ExitUnsupported || !strings.Contains(stderr, "sbtest1") {
				t.Errorf("cleanup on a foreign sbtest1: exit %d, want %d\n%s", code, ExitUnsupported, stderr)
			}
			if !exists(t, url, "sbtest1") {
				t.Error("the foreign sbtest1 was dropped")
			}
		})
	}
}
