package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/candor-bench/candor/internal/engine"
	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/stats"
	"github.com/candor-bench/candor/internal/target"
)

func newMergeCmd(env *Env) *cobra.Command {
	var out, dir string
	var force, quiet bool
	cmd := &cobra.Command{
		Use:   "merge SHARD.json... -o RUN.json",
		Short: "Merge the results of the shards of one run (--shard i/N) into one result",
		Long: `Merge the results of the N shards of one run (candor run/load --shard i/N) into one result.

The latency histograms are added (percentiles are read from the sum, never averaged), operation
counts, errors and counters summed, interval records lined up on wall-clock boundaries. Each shard's
client figures, fingerprint and clock offset are kept under "merged". Shards of different runs,
options or candor versions are refused with the list of differences, as are a result given twice
and a missing shard. report, compare and audit read the merged result like any other.`,
		Example: `  candor merge results/shard-*.json -o results/run.json
  candor merge --shards-dir /results/run-1 -o /results/run-1/run.json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 && dir == "" {
				return usagef("name the shard results to merge, e.g. candor merge results/shard-*.json -o run.json")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if dir != "" {
				found, _ := filepath.Glob(filepath.Join(dir, "shard-*.json"))
				if len(found) == 0 {
					return usagef("--shards-dir %s holds no shard-*.json files", dir)
				}
				args = append(args, found...)
			}
			return runMerge(env, args, out, force, quiet)
		},
	}
	cmd.Flags().StringVar(&dir, "shards-dir", "", "merge every shard-*.json in this directory (as the Kubernetes Job and scripts/multi-client.sh name them)")
	cmd.Flags().StringVarP(&out, "out", "o", "", "merged result file (default results/<run id>.json)")
	cmd.Flags().BoolVar(&force, "force", false, "replace an existing --out file")
	cmd.Flags().BoolVarP(&quiet, "quiet", "q", false, "no summary")
	return cmd
}

func runMerge(env *Env, files []string, out string, force, quiet bool) error {
	var in []result.MergeInput
	seen := map[string]string{}
	for _, f := range files {
		abs, _ := filepath.Abs(f)
		if prev, ok := seen[abs]; ok {
			return usagef("%s is given twice (as %s and %s): a result cannot be merged with itself", abs, prev, f)
		}
		seen[abs] = f
	}
	rs, err := result.ReadAll(files)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	for i, r := range rs {
		in = append(in, result.MergeInput{File: files[i], Result: r})
	}
	merged, err := result.Merge(in)
	if err != nil {
		if errors.Is(err, result.ErrMerge) {
			return withCode(ExitUsage, fmt.Errorf("%w\nmerge the N results of one run, each once (candor run --shard i/N with the same options and --run-id or --start-at)", err))
		}
		return withCode(ExitUsage, err)
	}
	var runs []result.Phase
	for _, p := range merged.Phases {
		if p.Name == phaseRun {
			runs = append(runs, p)
		}
	}
	if len(runs) > 1 {
		merged.Repetitions = stats.Repetitions(runs)
	}
	merged.Command = redactArgs(env.Args, target.Redact)
	// A merged result is no one run: rerun refuses it, as it refuses every
	// result of candor merge (its shards' Specs are in their own results).
	merged.Spec = nil
	if out == "" {
		out = filepath.Join("results", merged.Merged.RunID+".json")
	}
	engine.MergeLedgers(merged, in, out)
	if err := engine.Rederive(merged); err != nil {
		fmt.Fprintf(env.Stderr, "candor merge: %v\n", err)
	}
	if abs, _ := filepath.Abs(out); seen[abs] != "" {
		return usagef("--out %s is one of the shard results: name another file", out)
	}
	if _, err := os.Stat(out); err == nil && !force {
		return usagef("--out %s exists: name another file, or pass --force to replace it", out)
	}
	if err := result.WriteCompact(out, merged); err != nil {
		return &ExitError{Code: ExitResultNotWritten, Err: fmt.Errorf("the merged result could not be written to %s: %w", out, err)}
	}
	if !quiet {
		if err := printSummary(env, "text", merged, sysbenchReport{pct: 95}); err != nil {
			return err
		}
	}
	fmt.Fprintf(env.Stderr, "merged %d shards of run %s: %s\n", len(in), merged.Merged.RunID, out)
	if merged.Status == result.StatusInconsistent {
		return withCode(ExitRunFailed, fmt.Errorf("the merged result breaks the laws of its own arithmetic (a bug in candor: please report it with the shard results): %s",
			strings.Join(merged.BrokenLaws, "; ")))
	}
	return nil
}
