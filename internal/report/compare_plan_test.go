package report

import (
	"testing"

	"github.com/candor-bench/candor/internal/result"
)

// One plan target's repetitions, each on a fresh cluster with new ports,
// are one side: compare takes them together (and refuses cells of two
// plan targets on one side). A setting recorded empty on one side and
// absent on the other is no difference.
func TestComparePlanTargetAcrossPorts(t *testing.T) {
	cell := func(port, target, rep string) Input {
		r := fixtures()["ycsb-a-pg-t4.json"].build(t)
		r.Target.URL = "postgres://postgres@127.0.0.1:" + port + "/candor"
		r.Plan = &result.PlanRef{Name: "e6", Cell: "ledger_" + target + "_repetition-" + rep, TargetSetup: true,
			Params: map[string]string{"target": target, "repetition": rep, "identity": "abc"}}
		return Input{Path: port + ".json", Result: r}
	}
	if _, err := NewSide("A", []Input{cell("5001", "pg-sync", "1"), cell("5002", "pg-sync", "2"), cell("5003", "pg-sync", "3")}); err != nil {
		t.Fatalf("repetitions of one plan target refused: %v", err)
	}
	if _, err := NewSide("A", []Input{cell("5001", "pg-sync", "1"), cell("5002", "pg-async", "2")}); err == nil {
		t.Fatal("two plan targets taken as repetitions of one")
	}
	a := map[string]string{"setting synchronous_standby_names": ""}
	if d := differences(a, map[string]string{}); len(d) != 0 {
		t.Errorf("empty against absent setting: %+v", d)
	}
	if d := differences(a, map[string]string{"setting synchronous_standby_names": "s1"}); len(d) != 1 {
		t.Errorf("differences = %+v, want the setting", d)
	}
}
