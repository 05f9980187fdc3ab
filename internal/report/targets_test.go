package report

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/stats"
)

// E5's shape: PostgreSQL and Cassandra on one node, three nodes RF=1 and
// three nodes RF=2; KV-3 atomic on PostgreSQL only. The report labels each
// Cassandra by its shape, and one table gives each target's throughput with
// its interval and the ratios to the first target, KV-3 on one row.
func TestThroughputByTarget(t *testing.T) {
	cass := func(seed uint64, wl, url, nodes, rf string, thr float64, opts map[string]any) synth {
		return synth{seed: seed, workload: wl, options: opts, product: "Apache Cassandra", version: "5.0.9", url: url,
			settings: map[string]string{"nodes": nodes, "replication": "{'class': 'SimpleStrategy', 'replication_factor': '" + rf + "'}",
				"read_consistency": "ONE", "write_consistency": "ONE", "commitlog_sync": "periodic"},
			threads: 8, reps: 3, ops: []string{"READ", "WRITE"}, thr: thr, latUs: 900}
	}
	pg := func(seed uint64, wl string, thr float64, opts map[string]any) synth {
		return synth{seed: seed, workload: wl, options: opts, product: "PostgreSQL", version: "15.18", url: "postgres://bench@db1:5432/bench",
			settings: pgSettings, threads: 8, reps: 3, ops: []string{"READ", "WRITE"}, thr: thr, latUs: 400}
	}
	one, three := "cql://127.0.0.1:9042/e5_kv", "cql://127.0.0.1,127.0.0.2,127.0.0.3:9042/"
	var inputs []Input
	for i, s := range []synth{
		pg(1, "kv-basic", 17000, nil),
		cass(2, "kv-basic", one, "1", "1", 7940, nil),
		cass(3, "kv-basic", three+"e5_kv_rf1", "3", "1", 9000, nil),
		cass(4, "kv-basic", three+"e5_kv_rf2", "3", "2", 4450, nil),
		pg(5, "kv-ints-batch", 10200, map[string]any{"atomicity": "transaction"}),
		cass(6, "kv-ints-batch", one, "1", "1", 1330, map[string]any{"atomicity": "none"}),
	} {
		inputs = append(inputs, Input{Path: string(rune('a'+i)) + ".json", Result: s.build(t)})
	}
	m := Build(inputs)
	var buf bytes.Buffer
	if err := Markdown(&buf, m, nil); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	_, sec, ok := strings.Cut(md, "## Throughput by target")
	if !ok {
		t.Fatalf("no throughput-by-target section:\n%s", md)
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	for _, want := range []string{
		"| workload | Apache Cassandra 5.0.9 \\[1 node, RF=1\\] | Apache Cassandra 5.0.9 \\[3 nodes, RF=1\\] | Apache Cassandra 5.0.9 \\[3 nodes, RF=2\\] | PostgreSQL 15.18 |",
		"PostgreSQL ×",
		"| kv-basic, 8 threads |",
		"kv-ints-batch, 8 threads (atomicity=none: Apache Cassandra \\[1 node, RF=1\\]; atomicity=transaction: PostgreSQL) |",
	} {
		if !strings.Contains(sec, want) {
			t.Errorf("section lacks %q:\n%s", want, sec)
		}
	}
	if n := strings.Count(sec, "\n| kv-"); n != 2 {
		t.Errorf("%d workload rows, want 2 (KV-3's variants on one row):\n%s", n, sec)
	}
}

func TestRatio(t *testing.T) {
	a := stats.Summarize([]float64{100, 110, 90})
	b := stats.Summarize([]float64{200, 220, 180})
	r := ratio(a, b)
	// the interval of the log ratio: 2·exp(∓t(0.975, 4)·√(2/300)), symmetric
	// around ln 2 (stats.TestRatioByHand), so Low·High = 2²
	if r.R != 2 || math.Abs(r.Low-1.594326) > 1e-5 || math.Abs(r.High-2.508896) > 1e-5 || math.Abs(r.Low*r.High-4) > 1e-9 {
		t.Errorf("ratio %+v, want 2 (1.594326–2.508896)", r)
	}
	// a noisy B: bounds above 0 (the linear delta method's went below)
	if r := ratio(stats.Summarize([]float64{1000, 1000, 1000}), stats.Summarize([]float64{59, 237.5, 416})); !(r.Low > 0) {
		t.Errorf("noisy B: %+v, want a lower bound above 0", r)
	}
	if r := ratio(stats.Summarize([]float64{100}), b); r.Low != r.R || r.High != r.R {
		t.Errorf("single run: %+v, want no interval", r)
	}
	if got := ratioText(ratio(stats.Summarize([]float64{100}), stats.Summarize([]float64{250}))); got != "2.50×" {
		t.Errorf("ratioText %q", got)
	}
	if got := clusterShape(map[string]string{"nodes": "3", "replication": "{'class': 'NetworkTopologyStrategy', 'dc1': '3', 'dc2': '2'}"}); got != "3 nodes, dc1:3, dc2:2" {
		t.Errorf("clusterShape %q", got)
	}
}
