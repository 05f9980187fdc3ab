package cli

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/candor-bench/candor/internal/engine"
	"github.com/candor-bench/candor/internal/plan"
	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/target"
)

func newPlanCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plan",
		Short: "Run an experiment plan: a matrix of runs from one YAML file, resumable",
	}
	var quiet bool
	var sh engine.Shard
	var metricsAddr string
	var metricsLinger time.Duration
	run := &cobra.Command{
		Use:   "run PLAN.yaml",
		Short: "Run every cell of a plan, skipping cells whose complete result exists (safe to Ctrl-C and run again)",
		Example: `  candor plan run experiments/sysbench-threads.yaml
  PGPASSWORD=... candor plan run my-plan.yaml`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			var linger *time.Duration
			if c.Flags().Changed("metrics-linger") {
				linger = &metricsLinger
			}
			return runPlan(env, args[0], quiet, sh, metricsAddr, linger)
		},
	}
	run.Flags().BoolVarP(&quiet, "quiet", "q", false, "pass -q to every cell: only the plan's own progress lines")
	addShardFlags(run.Flags(), &sh)
	run.Flags().StringVar(&metricsAddr, "metrics-addr", "", "pass --metrics-addr to every cell: live metrics of the cell running, at http://ADDR/metrics (:9464 listens on every interface, 127.0.0.1:9464 on this machine only)")
	run.Flags().DurationVar(&metricsLinger, "metrics-linger", defaultMetricsLinger, "pass --metrics-linger to every cell: how long each cell serves its final metrics until scraped")
	cells := &cobra.Command{
		Use:   "cells PLAN.yaml",
		Short: "List a plan's cells with their state (done, to do) and command lines, without running anything",
		Args:  cobra.ExactArgs(1),
		Long: `List a plan's cells with their state (done, to do) and command lines, without running anything.

The plan's environment variables need not be set: a target URL whose ${VAR} is unset is shown
as written, and a last line names the variables 'candor plan run' will need.`,
		RunE: func(c *cobra.Command, args []string) error {
			p, err := plan.ReadUnexpanded(args[0], env.Getenv)
			if err != nil {
				return withCode(ExitUsage, err)
			}
			for i, cell := range p.Cells() {
				fmt.Fprintf(env.Stdout, "%3d %-6s %s\n    candor run %s\n", i+1, cellState(cell), cell.ID, shellLine(redactArgs(cell.Args, target.Redact), p.Unset))
			}
			if len(p.Unset) > 0 {
				fmt.Fprintf(env.Stdout, "environment variables not set, shown as ${NAME} above; 'candor plan run' needs them: %s\n",
					strings.Join(p.Unset, ", "))
			}
			return nil
		},
	}
	cmd.AddCommand(run, cells)
	return cmd
}

func readPlan(env *Env, file string) (*plan.Plan, error) {
	p, err := plan.Read(file, env.Getenv)
	if err != nil {
		return nil, withCode(ExitUsage, err)
	}
	return p, nil
}

// identityParam is the plan parameter that records a cell's identity (a
// hash of everything that makes it differ, plan.Cell.Identity) in its result.
const identityParam = "identity"

// cellState is "done" when the cell's result exists, is complete and was
// made by this cell: the same workload, every plan parameter (options,
// threads, target) the same, and the same identity (property files and
// plan-wide settings: duration, repetitions, args). A result of another
// cell that once had the same name, or of the cell as the plan was before
// a change, is run again.
func cellState(c plan.Cell) string {
	r, err := result.Read(c.Result)
	if err != nil || r.Status != result.StatusComplete || r.Plan == nil || r.Workload.Name != c.Workload ||
		r.Plan.Cell != c.ID || r.Plan.Params[identityParam] != c.Identity || len(r.Plan.Params) != len(c.Params)+1 {
		return "to do"
	}
	for k, v := range c.Params {
		if got, ok := r.Plan.Params[k]; !ok || got != v {
			return "to do"
		}
	}
	return "done"
}

// runPlan runs the cells in order. Each cell's command line is parsed into
// a Spec, which the engine runs in this process; its result file is written
// as usual, so a killed or interrupted plan resumes at the first cell
// without a complete result. The first cell of each group needing the same
// data reloads it (--load always). quiet, metricsAddr and linger (when
// given) apply to every cell.
func runPlan(env *Env, file string, quiet bool, shard engine.Shard, metricsAddr string, linger *time.Duration) error {
	sh, err := engine.ParseShard(shard, env.Args)
	if err != nil {
		return err
	}
	p, err := readPlan(env, file)
	if err != nil {
		return err
	}
	cells := p.Cells()
	shardCells(cells, sh)
	nominal := planNominal(p, cells)
	var done, todo int
	for _, c := range cells {
		if cellState(c) == "done" {
			done++
		}
	}
	todo = len(cells) - done
	fmt.Fprintf(env.Stderr, "[plan] %s: %d cells, %d done, %d to run; results in %s\n", p.Name, len(cells), done, todo, p.Output)
	start := time.Now()
	ran := 0
	lastData := ""
	for i, c := range cells {
		if cellState(c) == "done" {
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
		load := "auto"
		if c.DataKey != lastData {
			load = "always"
		}
		cellArgs := c.Args
		var teardown func()
		if ts, ok := p.Setups[c.Target]; ok {
			urls, td, err := setupTarget(env, ts, c)
			teardown = td
			if err != nil {
				teardown()
				return withCode(ExitRunFailed, fmt.Errorf("plan cell %s: the setup of target %s failed: %w (finished cells are kept; fix the cause and run again to resume)", c.ID, c.Target, err))
			}
			cellArgs = withTargets(c.Args, urls)
		}
		cellEnv := *env
		cellEnv.Args = append([]string{"candor", "run"}, cellArgs...)
		spec, err := parseSpec(&cellEnv, phaseRun, cellArgs)
		if err == nil {
			spec.Load, spec.Quiet = load, spec.Quiet || quiet
			if metricsAddr != "" {
				spec.Observe.MetricsAddr = metricsAddr
				if linger != nil {
					spec.Observe.MetricsLinger = *linger
				}
			}
			params := map[string]string{identityParam: c.Identity}
			for k, v := range c.Params {
				params[k] = v
			}
			spec.Plan = &engine.Plan{Name: p.Name, File: p.File, Cell: c.ID, Params: params, TargetSetup: teardown != nil}
			shardCell(&spec, sh, c, ran == 0)
			// The cell's result records the command line its Spec is.
			cellEnv.Args = append([]string{"candor"}, spec.Args()...)
			err = runSpec(&cellEnv, spec)
		}
		if teardown != nil {
			teardown()
		}
		ran++
		if err != nil {
			if ExitCode(err) == ExitInterrupted {
				return &ExitError{Code: ExitInterrupted, Err: fmt.Errorf("plan interrupted in cell %s; run the same command again to resume", c.ID)}
			}
			return withCode(ExitCode(err), fmt.Errorf("plan cell %s failed: %w (finished cells are kept; fix the cause and run again to resume)", c.ID, err))
		}
		lastData = c.DataKey
	}
	fmt.Fprintf(env.Stderr, "[plan] %s: all %d cells done in %s; report with: candor report %s\n", p.Name, len(cells), time.Since(start).Round(time.Second), p.Output)
	return nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
