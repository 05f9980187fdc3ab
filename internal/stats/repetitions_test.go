package stats

import (
	"slices"
	"testing"

	"github.com/candor-bench/candor/internal/result"
)

// Only complete repetitions are pooled; the others are counted and named
// (issue 26, item 3: a repetition above the error budget is failed).
func TestRepetitionsPoolOnlyCompletePhases(t *testing.T) {
	ph := func(rep int, status string, thr float64) result.Phase {
		return result.Phase{Name: "run", Repetition: rep, Status: status, Throughput: thr,
			Ops: []result.OpResult{{Name: "OP", Throughput: thr, Latency: &result.Summary{P99: 1000}}}}
	}
	r := Repetitions([]result.Phase{ph(1, result.StatusComplete, 1000), ph(2, result.StatusFailed, 7),
		ph(3, result.StatusComplete, 1100), ph(4, result.StatusInterrupted, 3)})
	if r.N != 2 || r.Throughput.Mean != 1050 || r.Ops[0].Throughput.N != 2 {
		t.Errorf("pooled %d repetitions, mean %.1f: want the 2 complete ones, 1050", r.N, r.Throughput.Mean)
	}
	if r.Excluded != 2 || !slices.Equal(r.ExcludedReps, []int{2, 4}) {
		t.Errorf("excluded %d %v, want 2: repetitions 2 and 4", r.Excluded, r.ExcludedReps)
	}
}
