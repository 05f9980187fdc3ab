package engine

import (
	"fmt"
	"maps"
	"strings"

	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/runner"
	"github.com/candor-bench/candor/internal/workload"
)

// derive adds a workload's figures computed from the phase's counts
// (workload.Deriver: TPC-C's tpmC) to the phase's derived values.
func derive(wl workload.Workload, p *result.Phase) {
	d, ok := wl.(workload.Deriver)
	if !ok {
		return
	}
	f := workload.PhaseFigures{DurationSec: p.DurationSec, Done: map[string]int64{}, Counters: maps.Clone(p.Counters)}
	for _, o := range p.Ops {
		f.Done[o.Name] = o.Done
	}
	figs := d.Derive(f)
	if len(figs) == 0 {
		return
	}
	if p.Derived == nil {
		p.Derived = map[string]float64{}
	}
	maps.Copy(p.Derived, figs)
}

// sayPostLoad tells the user, on the status output, what a workload did
// after its load to bring the tables to a measurable state (TPC-C's
// statistics and checkpoint): its PostLoadSteps, when it has any.
func sayPostLoad(r *runner.Runner, wl workload.Workload) {
	ps, ok := wl.(interface{ PostLoadSteps() []string })
	if !ok || r.Status == nil || len(ps.PostLoadSteps()) == 0 {
		return
	}
	fmt.Fprintf(r.Status, "after the load, for a measurable state: %s\n", strings.Join(ps.PostLoadSteps(), "; "))
}

// Rederive computes again, on a merged result, the figures its workload
// derives from a phase's counts (workload.Deriver: TPC-C's tpmC). A merge
// adds the shards' counts, but each shard's derived figures describe its
// own share: the merged phase would keep the first shard's. The workload
// is rebuilt from the options its result records. When it derives figures
// and cannot be rebuilt, its derived figures are removed rather than left
// wrong, and the error says why.
func Rederive(res *result.Result) error {
	entry, variant, err := workload.Lookup(res.Workload.Name)
	if err != nil {
		return nil // a workload this candor does not know derives nothing here
	}
	opts, _ := res.Workload.Options.(map[string]any)
	var props []string
	for _, o := range entry.Options {
		if v, ok := opts[o.Name]; ok {
			props = append(props, fmt.Sprintf("%s=%v", o.Name, v))
		}
	}
	wl, err := entry.New(variant, nil, props)
	if err == nil {
		if _, ok := wl.(workload.Deriver); !ok {
			return nil
		}
	}
	for i := range res.Phases {
		p := &res.Phases[i]
		if p.Name != PhaseRun {
			continue
		}
		if err != nil {
			p.Derived = nil
			continue
		}
		derive(wl, p)
	}
	if err != nil {
		return fmt.Errorf("the figures %s derives from its counts (removed from the merged result): its options cannot be read back: %w", res.Workload.Name, err)
	}
	return nil
}
