package engine

import (
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/result"
	_ "github.com/candor-bench/candor/internal/workload/tpcc"
)

// A merged TPC-C result's tpmC is the shards' New-Orders together, not the
// first shard's figure that the merge kept: Rederive computes it again
// from the merged counts (tpmC = committed New-Orders per minute).
func TestRederiveMergedCounts(t *testing.T) {
	res := &result.Result{
		Workload: result.Workload{Name: "tpcc", Options: map[string]any{"warehouses": 2.0, "spec-waits": false}},
		Phases: []result.Phase{{Name: PhaseRun, DurationSec: 120,
			Ops:      []result.OpResult{{Name: "NEW_ORDER", Done: 900}, {Name: "PAYMENT", Done: 860}},
			Counters: map[string]int64{"new_order_rollbacks": 10},
			// one shard's share, as result.Merge keeps it
			Derived: map[string]float64{"tpmC": 222, "warehouses": 2}}},
	}
	if err := Rederive(res); err != nil {
		t.Fatal(err)
	}
	d := res.Phases[0].Derived
	if d["tpmC"] != 445 || d["tpmC_incl_rollbacks"] != 450 || d["tpm_total"] != 880 {
		t.Errorf("derived %v: want tpmC 445 ((900-10)/2 min), 450 with rollbacks, 880 in all", d)
	}
	// Options that cannot be read back: the figures go, not stay wrong.
	res.Workload.Options = map[string]any{"warehouses": "many"}
	res.Phases[0].Derived = map[string]float64{"tpmC": 222}
	if err := Rederive(res); err == nil || !strings.Contains(err.Error(), "removed") || res.Phases[0].Derived != nil {
		t.Errorf("unreadable options: %v, derived %v", err, res.Phases[0].Derived)
	}
}
