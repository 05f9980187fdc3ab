package audit

import (
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/result"
)

// cell makes a fixture result a cell of plan "e" with the given params.
func cell(r *result.Result, params map[string]string) *result.Result {
	p := map[string]string{"identity": "x"}
	for k, v := range params {
		p[k] = v
	}
	r.Plan = &result.PlanRef{Name: "e", File: "e.yaml", Cell: "c", Params: p, TargetSetup: true}
	return r
}

func inputs(rs ...*result.Result) []Input {
	var out []Input
	for i, r := range rs {
		out = append(out, Input{Name: string(rune('a'+i)) + ".json", Result: r})
	}
	return out
}

// An option the plan varies is its variable (a note naming the axis); an
// option it does not vary that differs still is an error.
func TestPlanOptionAxisIsANote(t *testing.T) {
	a := cell(fixture(), map[string]string{"target": "pg", "requestdistribution": "zipfian"})
	b := cell(fixture(), map[string]string{"target": "pg", "requestdistribution": "uniform"})
	b.Workload.Options.(map[string]any)["requestdistribution"] = "uniform"
	rep := Results(inputs(a, b))
	got := findings(rep, "options-differ")
	if len(got) != 1 || got[0].Severity != Note || !strings.Contains(got[0].Text, "plan e's axis requestdistribution (zipfian, uniform)") {
		t.Fatalf("options-differ = %+v, want one note naming the axis", got)
	}
	if rep.HasErrors() {
		t.Errorf("errors in a plan's own axis: %+v", rep.Findings)
	}

	// fieldcount differs but is no axis: still an error.
	b.Workload.Options.(map[string]any)["fieldcount"] = 20.0
	got = findings(Results(inputs(a, b)), "options-differ")
	if len(got) != 2 || got[0].Severity != Error || got[1].Severity != Note || !strings.Contains(got[0].Text, "fieldcount 10 vs 20") {
		t.Fatalf("options-differ = %+v, want the axis note and an error for fieldcount", got)
	}

	// Outside a plan, the same difference is an error.
	c, d := fixture(), fixture()
	d.Workload.Options.(map[string]any)["requestdistribution"] = "uniform"
	if got := findings(Results(inputs(c, d)), "options-differ"); len(got) != 1 || got[0].Severity != Error {
		t.Fatalf("outside a plan: %+v, want an error", got)
	}
}

// Targets a plan compares are its variable: durability and replication
// differing between them are notes; durability differing between cells of
// one plan target is an error.
func TestPlanTargetAxisIsANote(t *testing.T) {
	async := func(port string, rep string) *result.Result {
		r := cell(fixture(), map[string]string{"target": "pg-async", "repetition": rep})
		r.Target.URL = "postgres://u@127.0.0.1:" + port + "/b"
		r.Target.Settings["streaming_replicas"] = "1"
		return r
	}
	sync := func(port string, rep string) *result.Result {
		r := cell(fixture(), map[string]string{"target": "pg-sync", "repetition": rep})
		r.Target.URL = "postgres://u@127.0.0.1:" + port + "/b"
		r.Target.Settings["streaming_replicas"] = "1"
		r.Target.Settings["synchronous_standby_names"] = "FIRST 1 (s1)"
		return r
	}
	// one run each, a fresh cluster (new port) per repetition
	one := func(r *result.Result) *result.Result { r.Phases = r.Phases[:1]; return r }
	rs := []*result.Result{one(async("5001", "1")), one(async("5002", "2")), one(async("5003", "3")),
		one(sync("5004", "1")), one(sync("5005", "2")), one(sync("5006", "3"))}
	rep := Results(inputs(rs...))
	if len(rep.Sides) != 2 {
		t.Fatalf("%d sides, want 2 (one per plan target, whatever the ports)", len(rep.Sides))
	}
	if rep.HasErrors() {
		t.Errorf("errors for the plan's target axis: %+v", rep.Findings)
	}
	if got := findings(rep, "single-run"); len(got) > 0 {
		t.Errorf("single-run beside 3 repetitions per target: %+v", got)
	}
	got := findings(rep, "durability-differs")
	if len(got) != 1 || got[0].Severity != Note || !strings.Contains(got[0].Text, "axis target (pg-async, pg-sync)") {
		t.Fatalf("durability-differs = %+v, want a note naming the target axis", got)
	}

	// A cell of pg-sync whose standby was not synchronous: not the axis.
	rs[5].Target.Settings["synchronous_standby_names"] = ""
	rep = Results(inputs(rs...))
	var errs []Finding
	for _, f := range rep.Findings {
		if f.Severity == Error {
			errs = append(errs, f)
		}
	}
	if len(errs) != 1 || errs[0].Rule != "durability-differs" || strings.Contains(errs[0].Text, "axis") {
		t.Fatalf("errors = %+v, want durability-differs within pg-sync", errs)
	}
}

// An open loop behind schedule only around a scheduled fault, the rate
// sustained, is a note; without the fault it is an error.
func TestBehindScheduleAroundFault(t *testing.T) {
	mk := func(faults bool) []Side {
		return pair(func(b *result.Result) {
			for i := range b.Phases {
				b.Phases[i].Rate = &result.RateResult{Target: 500, Achieved: 499.9, BehindSchedule: true, MaxLagNs: 5e9}
				if faults {
					b.Phases[i].Faults = []result.FaultEvent{{Index: 0, Kind: "run", Status: "done"}}
				}
			}
		})
	}
	if got := findings(Sides(mk(true)), "behind-schedule"); len(got) != 1 || got[0].Severity != Note {
		t.Fatalf("with a scheduled fault: %+v, want a note", got)
	}
	if got := findings(Sides(mk(false)), "behind-schedule"); len(got) != 1 || got[0].Severity != Error || !strings.Contains(got[0].Text, "499.9 of 500") {
		t.Fatalf("without faults: %+v, want an error", got)
	}
}

// Run settings a workload derives from an option the plan varies
// (commit-loop's operations from its jobs) are the axis too; run flags that
// differ as given are not.
func TestPlanRunSettingsFromAxis(t *testing.T) {
	spec := []byte(`{"workload":"commit-loop","duration":600000000000}`)
	a := cell(fixture(), map[string]string{"target": "pg", "jobs": ""})
	b := cell(fixture(), map[string]string{"target": "pg", "jobs": "3"})
	a.Run.Operations, b.Run.Operations = 10000, 30000
	a.Spec, b.Spec = spec, spec
	got := findings(Results(inputs(a, b)), "run-settings-differ")
	if len(got) != 1 || got[0].Severity != Note || !strings.Contains(got[0].Text, "axis jobs ((unset), 3)") {
		t.Fatalf("run-settings-differ = %+v, want a note naming the jobs axis", got)
	}
	b.Spec = []byte(`{"workload":"commit-loop","duration":300000000000}`)
	got = findings(Results(inputs(a, b)), "run-settings-differ")
	if len(got) != 1 || got[0].Severity != Warning {
		t.Fatalf("run flags given differently: %+v, want a warning", got)
	}
}

// A cell that sets an axis option by hand (E2's index-updates: 0, E3's
// sequence-cache) beside one that leaves it to its default differs in the
// list of options set by hand ("set") only by that axis: a note, not an
// error. The full run of E2 had 10 such errors across its thread counts, E3
// 2. An option set by hand that the plan does not vary still is an error.
func TestPlanAxisSetByHandIsANote(t *testing.T) {
	sysbench := func(threads string, set []any, extra map[string]any) *result.Result {
		p := map[string]string{"target": "pg", "threads": threads}
		r := fixture()
		r.Workload.Name = "sysbench/oltp_write_only"
		opts := map[string]any{"tables": 1.0, "table-size": 100000.0, "index-updates": 1.0, "non-index-updates": 1.0, "set": set}
		for k, v := range extra {
			opts[k] = v
			if k != "delta" {
				p[k] = "0"
			}
		}
		r.Workload.Options = opts
		return cell(r, p)
	}
	full := []any{"table-size", "tables"}
	pair := []any{"index-updates", "non-index-updates", "table-size", "tables"}
	var rs []*result.Result
	for _, th := range []string{"1", "8", "16"} {
		rs = append(rs, sysbench(th, full, nil), sysbench(th, pair, map[string]any{"index-updates": 0.0, "non-index-updates": 0.0}))
	}
	rep := Results(inputs(rs...))
	for _, f := range findings(rep, "options-differ") {
		if f.Severity != Note {
			t.Errorf("options-differ %s: %s, want a note (the plan's axes)", f.Severity, f.Text)
		}
	}
	if rep.HasErrors() {
		t.Errorf("errors in a plan's own axes: %+v", rep.Findings)
	}

	// delta is set by hand on one side only, and no axis: an error.
	odd := sysbench("1", append(append([]any(nil), full...), "delta"), map[string]any{"delta": 5.0})
	got := findings(Results(inputs(sysbench("1", full, nil), odd)), "options-differ")
	if len(got) == 0 || got[0].Severity != Error || !strings.Contains(got[0].Text, "set") {
		t.Fatalf("options-differ = %+v, want an error for the option set by hand that no axis varies", got)
	}
}
