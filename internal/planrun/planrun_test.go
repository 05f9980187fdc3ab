package planrun

import (
	"path/filepath"
	"testing"

	"github.com/candor-bench/candor/internal/plan"
	"github.com/candor-bench/candor/internal/result"
)

// A cell is "done" only when its result was made by the same cell: the
// same name, workload and every plan parameter. A complete result left by a
// cell that once had the same name but other options is run again.
func TestCellStateMatchesIdentity(t *testing.T) {
	path := filepath.Join(t.TempDir(), "commit-loop_pg.json")
	write := func(status string, params map[string]string) {
		t.Helper()
		r := &result.Result{Schema: result.SchemaVersion, Status: status, Workload: result.Workload{Name: "commit-loop"},
			Plan: &result.PlanRef{Name: "p", Cell: "commit-loop_pg", Params: params}}
		if err := result.Write(path, r); err != nil {
			t.Fatal(err)
		}
	}
	cell := plan.Cell{ID: "commit-loop_pg", Workload: "commit-loop", Result: path, Identity: "0123abcd",
		Params: map[string]string{"target": "pg", "rows": "10000", "jobs": "3"}}
	cases := []struct {
		name   string
		status string
		params map[string]string
		want   string
	}{
		{"same cell, complete", result.StatusComplete, map[string]string{"target": "pg", "rows": "10000", "jobs": "3", "identity": "0123abcd"}, "done"},
		{"same cell, interrupted", result.StatusInterrupted, map[string]string{"target": "pg", "rows": "10000", "jobs": "3", "identity": "0123abcd"}, "to do"},
		{"an option missing (the one-job cell)", result.StatusComplete, map[string]string{"target": "pg", "rows": "10000", "identity": "0123abcd"}, "to do"},
		{"an option with another value", result.StatusComplete, map[string]string{"target": "pg", "rows": "10000", "jobs": "2", "identity": "0123abcd"}, "to do"},
		// the same options, but the plan's duration (or files, args) changed
		{"another identity", result.StatusComplete, map[string]string{"target": "pg", "rows": "10000", "jobs": "3", "identity": "ffff0000"}, "to do"},
		// a result of a plan run before cells had an identity
		{"no identity", result.StatusComplete, map[string]string{"target": "pg", "rows": "10000", "jobs": "3"}, "to do"},
	}
	for _, c := range cases {
		write(c.status, c.params)
		if got := CellState(cell); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}
