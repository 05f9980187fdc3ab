package report

import (
	"testing"

	"github.com/candor-bench/candor/internal/result"
)

// A resumed plan whose PostgreSQL sandbox came back on another port keeps
// one target: the cells run before and after the resume are one series
// (a resumed E2 was split into two targets by port).
func TestResumedPlanTargetIsOneSeries(t *testing.T) {
	var ins []Input
	for i, c := range []struct{ port, threads string }{{"5001", "1"}, {"5001", "2"}, {"6002", "4"}} {
		r := fixtures()["ycsb-a-pg-t4.json"].build(t)
		r.Target.URL = "postgres://postgres@127.0.0.1:" + c.port + "/candor"
		r.Plan = &result.PlanRef{Name: "e2", Cell: "c" + c.threads, Params: map[string]string{"target": "pg", "threads": c.threads}}
		ins = append(ins, Input{Path: "r" + string(rune('a'+i)) + ".json", Result: r})
	}
	m := Build(ins)
	if len(m.Series) != 1 {
		var labels []string
		for _, s := range m.Series {
			labels = append(labels, s.Label)
		}
		t.Errorf("series %q: want one, the plan's target pg", labels)
	}
}
