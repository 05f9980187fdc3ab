package engine

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/ledger"
	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/runner"
)

// TestNewResultFile: a default result file never overwrites an earlier
// run's, of the same second: base.json, then base-2.json, base-3.json, ...
func TestNewResultFile(t *testing.T) {
	base := filepath.Join(t.TempDir(), "results", "ycsb-a-run-20261126-010203")
	res := &result.Result{ID: "r"}
	paths := map[string]bool{}
	for i := 0; i < 3; i++ {
		p, side, err := newResultFile(base, res)
		if err != nil {
			t.Fatal(err)
		}
		side.Close()
		paths[p] = true
		if i == 1 {
			// A result written without its side file still holds its name.
			if err := os.WriteFile(base+"-3.json", []byte("{}"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, want := range []string{base + ".json", base + "-2.json", base + "-4.json"} {
		if !paths[want] {
			t.Errorf("paths %v lack %s", paths, want)
		}
	}
}

func TestShareSplitsExactly(t *testing.T) {
	for _, c := range []struct {
		total int64
		n     int
	}{{10, 3}, {7, 7}, {1_000_000, 64}, {5, 2}} {
		var sum int64
		for i := range c.n {
			sum += share(c.total, i, c.n)
		}
		if sum != c.total {
			t.Errorf("shares of %d over %d sum to %d", c.total, c.n, sum)
		}
	}
	// Shard 1 of 2 of 5 threads: 2 workers, numbered 3 and 4 in one process.
	s := ShardRun{Shard: Shard{Of: "1/2"}, Index: 1, Count: 2}
	cfg := runner.Config{Threads: 5, Operations: 1001, Rate: 100, Seed: 10}
	if err := s.apply(&cfg, PhaseRun); err != nil {
		t.Fatal(err)
	}
	if cfg.Threads != 2 || cfg.Operations != 500 || cfg.Rate != 50 || cfg.Seed != 13 {
		t.Errorf("shard 1/2: %+v", cfg)
	}
}

func TestDerivedRunIDIgnoresPerShardOptions(t *testing.T) {
	at := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	a := derivedRunID(at, []string{"candor", "run", "ycsb/a", "--shard", "0/2", "-o", "a.json", "--threads=8"})
	b := derivedRunID(at, []string{"candor", "run", "ycsb/a", "--shard=1/2", "--out", "b.json", "--threads=8"})
	c := derivedRunID(at, []string{"candor", "run", "ycsb/a", "--shard=1/2", "--out", "b.json", "--threads=9"})
	if a != b || a == c || !strings.HasPrefix(a, "20300101T120000Z-") {
		t.Errorf("run ids %s %s %s: want the first two equal, the third different", a, b, c)
	}
}

// TestOutageFault: RPO and RTO are measured from the last fault to start
// by the first write that failed after the first fault (a detach, then the
// kill the writes failed after: the kill), the first fault when none
// failed (a network pause stalls writes without failing them).
func TestOutageFault(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	ns := func(s float64) int64 { return at(s).UnixNano() }
	evs := []result.FaultEvent{
		{Index: 0, Start: at(1), End: at(1.2)}, // detach
		{Index: 1, Start: at(3), End: at(3.1)}, // kill and promote
		{Index: 2, Start: at(8), End: at(8.1)}, // later, after the recovery
	}
	acked := ledger.Record{ID: 1, Start: ns(0.5), End: ns(0.6), Outcome: ledger.Acknowledged}
	cases := []struct {
		name    string
		records []ledger.Record
		want    int
	}{
		{"no write failed", []ledger.Record{acked}, 0},
		{"writes failed after the kill", []ledger.Record{acked,
			{ID: 2, Start: ns(2.9), End: ns(3.05), Outcome: ledger.Unknown},
			{ID: 3, Start: ns(3.5), End: ns(3.6), Outcome: ledger.Failed},
			{ID: 4, Start: ns(8.5), End: ns(8.6), Outcome: ledger.Failed}}, 1},
		{"a failure before the first fault does not count", []ledger.Record{
			{ID: 5, Start: ns(0.1), End: ns(0.2), Outcome: ledger.Failed},
			{ID: 6, Start: ns(1.5), End: ns(1.6), Outcome: ledger.Failed}}, 0},
	}
	for _, c := range cases {
		if got, ok := outageFault(evs, c.records); !ok || got != c.want {
			t.Errorf("%s: fault %d (%v), want %d", c.name, got, ok, c.want)
		}
	}
	if _, ok := outageFault(nil, []ledger.Record{acked}); ok {
		t.Error("a run without faults has a fault to measure from")
	}
}

// Item 10: a failed append to the side file is said once, and the run
// goes on.
func TestSideFileErrorSaidOnce(t *testing.T) {
	dir := t.TempDir()
	side, err := result.CreateSideFile(filepath.Join(dir, "r.intervals.jsonl"), &result.Result{Schema: result.SchemaVersion})
	if err != nil {
		t.Fatal(err)
	}
	side.Close()
	var stderr bytes.Buffer
	rf := &resultFile{path: filepath.Join(dir, "r.json"), side: side}
	env := &Env{Stderr: &stderr}
	rf.appendInterval(env, result.Interval{})
	rf.appendInterval(env, result.Interval{})
	if n := strings.Count(stderr.String(), "writing interval records"); n != 1 || rf.sideErr == nil {
		t.Errorf("said %d times:\n%s", n, stderr.String())
	}
}
