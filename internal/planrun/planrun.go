// Package planrun runs an experiment plan: each cell of the plan
// (internal/plan) becomes a Spec (internal/runflags reads the cell's
// command line) that the engine runs in this process, after the cell's
// target setup when the plan starts its targets. Results are written as
// every run writes them, so a plan resumes at the first cell without a
// complete result of its own.
package planrun

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/candor-bench/candor/internal/engine"
	"github.com/candor-bench/candor/internal/plan"
	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/runflags"
)

// Options are what `candor plan run` adds to every cell.
type Options struct {
	Quiet bool         // -q for every cell: only the plan's own lines
	Shard engine.Shard // this process is one shard of the plan
	// MetricsAddr and MetricsLinger (when not nil) are every cell's
	// --metrics-addr and --metrics-linger.
	MetricsAddr   string
	MetricsLinger *time.Duration
	// CellEvery (with Shard.StartAt) starts the plan's cell i at StartAt +
	// i×CellEvery, in every shard: the shards of each cell measure the same
	// time, whatever the cells before took. Zero: only the first cell run
	// waits for StartAt.
	CellEvery time.Duration
}

// CellState is "done" when the cell's result exists, is complete and was
// made by this cell: the same workload, every plan parameter (options,
// threads, target) the same, and the same identity (property files and
// plan-wide settings: duration, repetitions, args). A result of another
// cell that once had the same name, or of the cell as the plan was before
// a change, is run again ("to do").
func CellState(c plan.Cell) string {
	r, err := result.Read(c.Result)
	if err != nil || r.Status != result.StatusComplete || r.Plan == nil || r.Workload.Name != c.Workload ||
		r.Plan.Cell != c.ID || r.Plan.Params[result.PlanIdentity] != c.Identity || len(r.Plan.Params) != len(c.Params)+1 {
		return "to do"
	}
	for k, v := range c.Params {
		if got, ok := r.Plan.Params[k]; !ok || got != v {
			return "to do"
		}
	}
	return "done"
}

// Run runs p's cells in order, each through the engine with env (its
// Display prints each cell's header and summary; the plan's own progress
// lines go to env.Stderr). The first cell of each group needing the same
// data reloads it (--load always). Cells whose complete result exists are
// skipped. A failed cell ends the plan with the cell's exit code; the
// cells done are kept.
func Run(ctx context.Context, env *engine.Env, p *plan.Plan, opt Options) error {
	sh, err := engine.ParseShard(opt.Shard, env.Args)
	if err != nil {
		return err
	}
	switch {
	case opt.CellEvery < 0:
		return engine.Usagef("--cell-every %s is negative: give the time from one cell's start to the next's, e.g. 5m", opt.CellEvery)
	case opt.CellEvery > 0 && sh.Start.IsZero():
		return engine.Usagef("--cell-every spaces the cells' starts from --start-at: give --start-at too")
	}
	cells := p.Cells()
	shardCells(cells, sh)
	nominal := planNominal(p, cells)
	var done, todo int
	for _, c := range cells {
		if CellState(c) == "done" {
			done++
		}
	}
	todo = len(cells) - done
	fmt.Fprintf(env.Stderr, "[plan] %s: %d cells, %d done, %d to run; results in %s\n", p.Name, len(cells), done, todo, p.Output)
	start := time.Now()
	ran := 0
	lastData := ""
	for i, c := range cells {
		if CellState(c) == "done" {
			fmt.Fprintf(env.Stderr, "[plan] cell %d/%d %s: done already, skipped\n", i+1, len(cells), c.ID)
			lastData = c.DataKey
			continue
		}
		eta := "unknown until a cell has run (cells of a fixed size)"
		switch {
		case ran > 0:
			eta = (time.Since(start) / time.Duration(ran) * time.Duration(todo-ran)).Round(time.Second).String()
		case nominal > 0:
			eta = (nominal * time.Duration(todo)).Round(time.Second).String() + " plus loading"
		}
		fmt.Fprintf(env.Stderr, "[plan] cell %d/%d %s (%.0f%% of the plan done, ETA %s)\n", i+1, len(cells), c.ID, 100*float64(i)/float64(len(cells)), eta)
		var slot time.Time // the cell's start, by its place in the plan
		if opt.CellEvery > 0 {
			slot = sh.Start.Add(time.Duration(i) * opt.CellEvery)
		} else if ran == 0 {
			slot = sh.Start
		}
		err := runCell(ctx, env, p, c, sh, opt, c.DataKey != lastData, slot)
		ran++
		if err != nil {
			if engine.Code(err) == engine.ExitInterrupted {
				return &engine.Error{Code: engine.ExitInterrupted, Err: fmt.Errorf("plan interrupted in cell %s; run the same command again to resume", c.ID)}
			}
			return engine.WithCode(engine.Code(err), fmt.Errorf("plan cell %s failed: %w (finished cells are kept; fix the cause and run again to resume)", c.ID, err))
		}
		lastData = c.DataKey
	}
	fmt.Fprintf(env.Stderr, "[plan] %s: all %d cells done in %s; report with: candor report %s\n", p.Name, len(cells), time.Since(start).Round(time.Second), p.Output)
	return nil
}

// runCell sets up the cell's target when the plan starts it, runs the
// cell's Spec and tears the target down. reload: the cell needs other data
// than the cell before it (--load always).
func runCell(ctx context.Context, env *engine.Env, p *plan.Plan, c plan.Cell, sh *engine.ShardRun, opt Options, reload bool, slot time.Time) error {
	args := c.Args
	targetSetup := false
	if ts, ok := p.Setups[c.Target]; ok {
		urls, teardown, err := setupTarget(env, ts, c)
		defer teardown()
		if err != nil {
			return engine.WithCode(engine.ExitRunFailed, fmt.Errorf("the setup of target %s failed: %w", c.Target, err))
		}
		args, targetSetup = withTargets(c.Args, urls), true
	}
	spec, err := CellSpec(p, c, args)
	if err != nil {
		return err
	}
	if reload {
		spec.Load = "always"
	}
	spec.Quiet = spec.Quiet || opt.Quiet
	if opt.MetricsAddr != "" {
		spec.Observe.MetricsAddr = opt.MetricsAddr
		if opt.MetricsLinger != nil {
			spec.Observe.MetricsLinger = *opt.MetricsLinger
		}
	}
	spec.Plan.TargetSetup = targetSetup
	shardCell(&spec, sh, c, slot)
	cellEnv := *env
	// The cell's result records the command line its Spec is.
	cellEnv.Args = append([]string{"candor"}, spec.Args()...)
	_, err = engine.Run(ctx, &cellEnv, spec)
	return err
}

// CellSpec is the Spec of cell c of p, whose command line is args (c.Args,
// or with the URLs its target's setup printed): the run it is, with the
// plan's provenance and --load auto.
func CellSpec(p *plan.Plan, c plan.Cell, args []string) (engine.Spec, error) {
	spec, err := runflags.Parse(engine.PhaseRun, args)
	if err != nil {
		return spec, err
	}
	spec.Load = "auto"
	params := map[string]string{result.PlanIdentity: c.Identity}
	for k, v := range c.Params {
		params[k] = v
	}
	spec.Plan = &engine.Plan{Name: p.Name, File: p.File, Cell: c.ID, Params: params}
	return spec, nil
}

// shardResultPath is a plan cell's result file for one shard.
func shardResultPath(path string, s *engine.ShardRun) string {
	if s.Count == 0 {
		return path
	}
	base := strings.TrimSuffix(path, ".json")
	return fmt.Sprintf("%s.shard-%d-of-%d.json", base, s.Index, s.Count)
}

// shardCells points a sharded plan's cells at this shard's result files.
func shardCells(cells []plan.Cell, s *engine.ShardRun) {
	for i := range cells {
		cells[i].Result = shardResultPath(cells[i].Result, s)
	}
}

// shardCell sets what a sharded plan adds to a cell's run: its shard,
// a run id of its own (the plan's with the cell's id), its result file,
// --load auto (a shard never drops what another shard loaded), and its
// start time, slot, when it has one (the first cell run, or every cell
// with --cell-every). --start-at was checked to be ahead when the plan
// began; a slot that a cell before, or the cell's target setup, overran
// starts the cell at once, late, rather than failing it.
func shardCell(spec *engine.Spec, s *engine.ShardRun, c plan.Cell, slot time.Time) {
	if !slot.IsZero() {
		spec.Shard.StartAt, spec.Shard.Slot = slot.UTC().Format(time.RFC3339Nano), true
	}
	if s.Count == 0 {
		return
	}
	spec.Load, spec.Shard.Of, spec.Shard.RunID, spec.Out = "auto", s.Of, s.RunID+"-"+c.ID, c.Result
}
