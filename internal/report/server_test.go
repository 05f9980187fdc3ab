package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/result"
)

// serverResult is a run whose throughput falls from 1000 to 200 ops/s
// while the server's requested checkpoints rise, with a table's size as a
// gauge and one view the role could not read.
func serverResult() *result.Result {
	start := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	ph := result.Phase{Name: "run", Started: start, Ended: start.Add(10 * time.Second), Status: result.StatusComplete,
		Server: &result.ServerCounters{
			Counters: []result.ServerCounter{
				{Name: "checkpoints_req", Group: "checkpoints", Kind: "counter", Source: "pg_stat_bgwriter"},
				{Name: "table_bytes:usertable", Group: "size", Kind: "gauge", Unit: "bytes"},
			},
			Unavailable: map[string]string{"wal: pg_stat_wal": "ERROR: permission denied for view pg_stat_wal (SQLSTATE 42501)"},
		}}
	ckpt := 0.0
	for i := 0; i <= 10; i++ {
		if i > 0 {
			rate := 1000.0
			if i > 5 {
				rate = 200
				ckpt += 3
			}
			ph.Intervals = append(ph.Intervals, result.Interval{Phase: "run", Index: i - 1, ElapsedSec: float64(i), LengthSec: 1,
				Ops: []result.IntervalOp{{Name: "READ", Count: int64(rate), Rate: rate}}})
		}
		ph.Server.Samples = append(ph.Server.Samples, result.ServerSample{ElapsedSec: float64(i) - 0.001,
			Values: map[string]float64{"checkpoints_req": ckpt, "table_bytes:usertable": 8192 * float64(i+1)}})
	}
	return &result.Result{Schema: result.SchemaVersion, ID: "r", Status: result.StatusComplete, Started: start, Ended: start.Add(10 * time.Second),
		Workload: result.Workload{Name: "ycsb/c"}, Run: result.RunConfig{Threads: 1}, Phases: []result.Phase{ph}}
}

// The counters chart has a panel per counter group, each with the
// throughput: the throughput's fall and the checkpoints' rise on one chart.
func TestServerCountersChart(t *testing.T) {
	r := serverResult()
	svg, err := drawServerCounters(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{">checkpoints<", ">size<", ">throughput per s (peak 1k)<", ">checkpoints_req/s (peak 3)<", ">table_bytes:usertable (peak 90112 B)<"} {
		if !bytes.Contains(svg, []byte(want)) {
			t.Errorf("chart lacks %s", want)
		}
	}
	if n := bytes.Count(svg, []byte(">throughput per s")); n != 2 {
		t.Errorf("throughput drawn in %d panels, want one per group (2)", n)
	}
	// In the report, beside the run's time series, with what was not
	// available in its caption.
	var b bytes.Buffer
	if err := HTML(&b, Build([]Input{{Path: "r.json", Result: r}})); err != nil {
		t.Fatal(err)
	}
	h := b.String()
	if !strings.Contains(h, "the server&#39;s counters beside throughput") && !strings.Contains(h, "the server's counters beside throughput") {
		t.Error("report has no server counters figure")
	}
	if !strings.Contains(h, "wal: pg_stat_wal (ERROR: permission denied for view pg_stat_wal") {
		t.Error("report does not say what was not available")
	}
	// A result without counters has no such figure.
	r.Phases[0].Server = nil
	b.Reset()
	if err := HTML(&b, Build([]Input{{Path: "r.json", Result: r}})); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "counters beside throughput") {
		t.Error("a counters figure for a result without counters")
	}
}
