package audit

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/candor-bench/candor/internal/result"
)

// A plan's axes are what its matrix varies: the experiment's variables,
// not unfairness. Results of one plan (the same plan name) are cells of
// it, and a plan parameter (result.PlanRef.Params: options, threads,
// target) whose value differs between its cells is an axis. A difference
// between two sides explained by an axis of their common plan is a note
// naming the axis; what the matrix does not vary must still match and
// keeps its error.

// bookkeepingParams are plan parameters that are no axis: identity names
// the cell's settings, repetition runs a cell again as a cell of its own.
var bookkeepingParams = map[string]bool{result.PlanIdentity: true, "repetition": true}

// planAxes maps each plan name to its axes and, per axis, its values in
// first-seen order ("" for a cell without the parameter).
func planAxes(sides []Side) map[string]map[string][]string {
	values := map[string]map[string][]string{}
	cells := map[string][]map[string]string{}
	for _, s := range sides {
		for _, in := range s.Inputs {
			r := in.Result
			if r.Plan == nil || r.Plan.Name == "" {
				continue
			}
			cells[r.Plan.Name] = append(cells[r.Plan.Name], r.Plan.Params)
		}
	}
	for name, ps := range cells {
		keys := map[string]bool{}
		for _, p := range ps {
			for k := range p {
				if !bookkeepingParams[k] {
					keys[k] = true
				}
			}
		}
		axes := map[string][]string{}
		for k := range keys {
			var vs []string
			for _, p := range ps {
				if v := p[k]; !slices.Contains(vs, v) {
					vs = append(vs, v)
				}
			}
			if len(vs) > 1 {
				axes[k] = vs
			}
		}
		values[name] = axes
	}
	return values
}

// planName is the plan a side's results are cells of ("" when they are
// not all cells of one plan).
func planName(s Side) string {
	name := ""
	for i, in := range s.Inputs {
		n := ""
		if in.Result.Plan != nil {
			n = in.Result.Plan.Name
		}
		if i > 0 && n != name {
			return ""
		}
		name = n
	}
	return name
}

// pairAxes are the axes of the plan two sides are cells of in which the
// two differ, sorted; nil when they are not cells of one plan.
func pairAxes(axes map[string]map[string][]string, a, b Side) []string {
	pa, pb := planName(a), planName(b)
	if pa == "" || pa != pb {
		return nil
	}
	ra, rb := first(a).Plan.Params, first(b).Plan.Params
	var out []string
	for k := range axes[pa] {
		if ra[k] != rb[k] {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// isAxisOption says whether a workload option key is one of the axes (a
// plan writes an option as the workload names it; results may record it
// with underscores).
func isAxisOption(axes []string, key string) bool {
	norm := func(s string) string { return strings.ReplaceAll(strings.ToLower(s), "_", "-") }
	for _, a := range axes {
		if norm(a) == norm(key) {
			return true
		}
	}
	return false
}

// axisText names a plan's axis and its values: "plan e6-failover's axis
// target (pg-async, pg-sync)".
func axisText(axes map[string]map[string][]string, plan string, names ...string) string {
	var parts []string
	for _, n := range names {
		vs := axes[plan][n]
		shown := make([]string, len(vs))
		for i, v := range vs {
			shown[i] = v
			if v == "" {
				shown[i] = "(unset)"
			}
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", n, strings.Join(shown, ", ")))
	}
	what := "axis"
	if len(parts) > 1 {
		what = "axes"
	}
	return fmt.Sprintf("plan %s's %s %s", plan, what, strings.Join(parts, ", "))
}

// setupRules are the rules that judge a target's setup (durability,
// replication, isolation, consistency, server settings): between cells of
// one plan on different targets of its target axis, a difference is what
// the plan compares.
var setupRules = map[string]bool{
	"durability-differs": true, "replication-differs": true, "isolation-differs": true,
	"consistency-differs": true, "settings-differ": true,
}

// byPlanTarget applies a setup rule to sides that are all cells of one
// plan whose target is an axis: the rule runs within each target (where a
// difference stays an error: the matrix does not vary it), and across one
// side per target, where a difference is the axis (a note). ok is false
// when the sides are not such cells (the rule runs as it is).
func byPlanTarget(rule func([]Side) []Finding, sides []Side, axes map[string]map[string][]string) (out []Finding, ok bool) {
	if len(sides) < 2 {
		return nil, false
	}
	plan := planName(sides[0])
	if plan == "" || axes[plan]["target"] == nil {
		return nil, false
	}
	groups := map[string][]Side{}
	var order []string
	for _, s := range sides {
		if planName(s) != plan {
			return nil, false
		}
		t := first(s).Plan.Params["target"]
		if _, seen := groups[t]; !seen {
			order = append(order, t)
		}
		groups[t] = append(groups[t], s)
	}
	var reps []Side
	for _, t := range order {
		out = append(out, rule(groups[t])...)
		reps = append(reps, groups[t][0])
	}
	for _, f := range rule(reps) {
		if f.Severity != Note {
			f.Severity = Note
			f.Text = "the experiment's variable, " + axisText(axes, plan, "target") + ": " + f.Text
			f.Fix = "none: this is what the plan compares"
		}
		out = append(out, f)
	}
	return out, true
}

// planTarget is the identity of a result's target for grouping
// repetitions: a plan's target name for a cell of a plan (a cluster its
// setup started anew has new ports in every cell), else its URL.
func planTarget(r *result.Result) string {
	if r.Plan != nil && r.Plan.Name != "" && r.Plan.Params["target"] != "" {
		return "plan " + r.Plan.Name + " target " + r.Plan.Params["target"]
	}
	return r.Target.URL
}
