package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/report"
	"github.com/candor-bench/candor/internal/result"
)

// commit-loop's summary leads with rows per second, client and server: with
// --in-server the phase's ops/s counts whole loops (0.166 ops/s) and the
// server's rate was only in the JSON.
func TestSummaryShowsCommitRates(t *testing.T) {
	res := &result.Result{Workload: result.Workload{Name: "commit-loop"}, Run: result.RunConfig{LatencyMeasure: "service time (closed loop)"}}
	inServer := &result.Phase{Name: "run", Status: result.StatusComplete, DurationSec: 6.02, Throughput: 0.166,
		Ops:     []result.OpResult{{Name: "LOOP", Count: 1, Throughput: 0.166}},
		Derived: map[string]float64{"rows": 10000, "server_span_s": 6.017, "server_rows_per_s": 1662}}
	var b bytes.Buffer
	report.WriteText(&b, res, inServer, errorClasses())
	if !strings.Contains(b.String(), "commit rate: client 1661.1 rows/s, server 1662.0 rows/s (10000 rows)") {
		t.Errorf("in-server summary:\n%s", b.String())
	}
	jobs := &result.Phase{Name: "run", Status: result.StatusComplete, DurationSec: 10, Throughput: 600,
		Ops: []result.OpResult{{Name: "INSERT", Count: 6000, Throughput: 600}},
		Derived: map[string]float64{"rows": 6000, "server_rows_per_s": 610.5,
			"rows_job_1": 2000, "server_rows_per_s_job_1": 203.5, "rows_job_2": 2000, "server_rows_per_s_job_2": 204,
			"rows_job_3": 2000, "server_rows_per_s_job_3": 203}}
	b.Reset()
	report.WriteText(&b, res, jobs, errorClasses())
	for _, w := range []string{"commit rate: client 600.0 rows/s, server 610.5 rows/s (6000 rows)", "server rows/s per job: job 1 203.5, job 2 204.0, job 3 203.0"} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("3-job summary lacks %q:\n%s", w, b.String())
		}
	}
	b.Reset()
	report.WriteText(&b, res, &result.Phase{Name: "run", Status: result.StatusComplete, DurationSec: 1, Throughput: 5}, errorClasses())
	if strings.Contains(b.String(), "commit rate") {
		t.Errorf("a commit rate for a phase without server figures:\n%s", b.String())
	}
}
