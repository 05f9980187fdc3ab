package cli

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/candor-bench/candor/internal/engine"
	"github.com/candor-bench/candor/internal/plan"
	"github.com/candor-bench/candor/internal/planrun"
	"github.com/candor-bench/candor/internal/runflags"
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
	var metricsLinger, cellEvery time.Duration
	run := &cobra.Command{
		Use:   "run PLAN.yaml",
		Short: "Run every cell of a plan, skipping cells whose complete result exists (safe to Ctrl-C and run again)",
		Example: `  candor plan run experiments/sysbench-threads.yaml
  PGPASSWORD=... candor plan run my-plan.yaml`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opt := planrun.Options{Quiet: quiet, Shard: sh, MetricsAddr: metricsAddr, CellEvery: cellEvery}
			if c.Flags().Changed("metrics-linger") {
				opt.MetricsLinger = &metricsLinger
			}
			return runPlan(env, args[0], opt)
		},
	}
	run.Flags().BoolVarP(&quiet, "quiet", "q", false, "pass -q to every cell: only the plan's own progress lines")
	runflags.AddShard(run.Flags(), &sh)
	run.Flags().DurationVar(&cellEvery, "cell-every", 0, "with --start-at: start the plan's cell i at --start-at + i×DURATION, in every shard, so that each cell's shards measure the same time (a cell whose start has passed starts at once, late); without it only the first cell run waits for --start-at")
	run.Flags().StringVar(&metricsAddr, "metrics-addr", "", "pass --metrics-addr to every cell: live metrics of the cell running, at http://ADDR/metrics (:9464 listens on every interface, 127.0.0.1:9464 on this machine only)")
	run.Flags().DurationVar(&metricsLinger, "metrics-linger", engine.DefaultMetricsLinger, "pass --metrics-linger to every cell: how long each cell serves its final metrics until scraped")
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
				fmt.Fprintf(env.Stdout, "%3d %-6s %s\n    candor run %s\n", i+1, planrun.CellState(cell), cell.ID, shellLine(redactArgs(cell.Args, target.Redact), p.Unset))
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

// runPlan runs the plan's cells through the engine (planrun), with the
// terminal as each cell's display, interruptible.
func runPlan(env *Env, file string, opt planrun.Options) error {
	p, err := readPlan(env, file)
	if err != nil {
		return err
	}
	ctx, stop := interruptContext(env)
	defer stop()
	return planrun.Run(ctx, engineEnv(env), p, opt)
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
