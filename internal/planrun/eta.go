package planrun

import (
	"time"

	"github.com/candor-bench/candor/internal/plan"
	"github.com/candor-bench/candor/internal/workload"
)

// planNominal is how long a plan's cells run by their settings, each
// (repetitions × (duration + warm-up)), or 0 when that says nothing of
// their length: cells that end after a number of operations (operations:
// in the plan), or whose workload runs a fixed amount of work
// (commit-loop's rows per job) with the duration only as a cap. `plan run`
// then says the ETA is unknown until a cell has run, rather than taking
// E4's 10-minute cap for the length of cells that take seconds.
func planNominal(p *plan.Plan, cells []plan.Cell) time.Duration {
	if p.Operations > 0 || p.Duration == 0 {
		return 0
	}
	for _, c := range cells {
		entry, variant, err := workload.Lookup(c.Workload)
		if err != nil {
			return 0
		}
		var props []string
		for k, v := range c.Params {
			if k != "threads" && k != "target" && k != plan.RepetitionAxis {
				props = append(props, k+"="+v)
			}
		}
		w, err := entry.New(variant, nil, props)
		if err != nil || w.Limits().FixedOperations {
			return 0
		}
	}
	return time.Duration(p.Repetitions) * (p.Duration + p.Warmup)
}
