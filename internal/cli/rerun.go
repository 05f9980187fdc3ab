package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/candor-bench/candor/internal/engine"
	"github.com/candor-bench/candor/internal/fault"
	"github.com/candor-bench/candor/internal/report"
	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/runflags"
	"github.com/candor-bench/candor/internal/sysbenchline"
	"github.com/candor-bench/candor/internal/target"
)

// PasswordEnvHelp names where rerun's targets take their password from: the
// recorded URL has it removed.
const PasswordEnvHelp = "PGPASSWORD for postgres:// targets, MYSQL_PWD for mysql:// targets"

// newRerunCmd is `candor rerun RESULT.json`.
func newRerunCmd(env *Env) *cobra.Command {
	var targets []string
	var repeat int
	var out string
	cmd := &cobra.Command{
		Use:   "rerun RESULT.json",
		Short: "Re-execute a result's recorded run here and compare: same, faster or slower, with the audit of what differs",
		Long: `Re-execute the configuration a result records — its candor run command line: workload and
options, threads, duration, rate, warm-up, load, with --seed set to the recorded seed —
against the recorded target or --target, then print compare's verdict of the rerun (B)
against the original (A): same, faster or slower, with the 95% confidence interval of the
difference, and the fairness audit of the two, which lists what differs between the two
environments (product and version, settings, client machine, candor version). A target
of another product is allowed; the audit says so.

The recorded URL carries no password: give it in the environment (` + PasswordEnvHelp + `)
or in a --target URL.

--repeat defaults to the original's number of runs. The rerun's result is written to --out
(default reruns/NAME-TIME.json).`,
		Example: `  candor rerun results/ycsb-a-run.json
  PGPASSWORD=secret candor rerun pg.json --target postgres://bench@10.0.0.5:5432/bench --repeat 5`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("rerun needs exactly one result file; got %d", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return rerun(env, args[0], targets, repeat, cmd.Flags().Changed("repeat"), out)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&targets, "target", nil, "database URL to run against (repeatable for a cluster's nodes; default: the recorded target, password from the environment)")
	fl.IntVar(&repeat, "repeat", 1, "measured runs of the rerun (default: as many as the original)")
	fl.StringVarP(&out, "out", "o", "", "the rerun's result file (default reruns/NAME-TIME.json)")
	return cmd
}

func rerun(env *Env, path string, targets []string, repeat int, repeatSet bool, out string) error {
	inputs, err := report.Load(path)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	if len(inputs) != 1 {
		return usagef("rerun takes one result file; %s holds %d (name one of them)", path, len(inputs))
	}
	orig := inputs[0].Result
	// The original must have something to compare with, before anything
	// runs.
	if _, err := report.NewSide("A", inputs); err != nil {
		return withCode(ExitUsage, fmt.Errorf("%w; nothing to compare a rerun with", err))
	}
	spec, err := rerunSpec(env, orig, targets)
	if err != nil {
		return withCode(ExitUsage, fmt.Errorf("%s: %w", path, err))
	}
	if !repeatSet {
		repeat = max(1, len(runPhasesOf(orig)))
	}
	if repeat < 1 {
		return usagef("--repeat must be at least 1 (got %d)", repeat)
	}
	if out == "" {
		base := strings.TrimSuffix(filepath.Base(path), ".json")
		out = filepath.Join("reruns", fmt.Sprintf("%s-%s.json", base, time.Now().UTC().Format("20060102T150405Z")))
	}
	spec.Repeat, spec.Out, spec.Quiet = repeat, out, true
	args := redactArgs(spec.Args(), target.Redact)
	fmt.Fprintf(env.Stderr, "candor rerun: candor %s\n", strings.Join(args, " "))

	// The run's own summary goes to standard error: standard output
	// carries the comparison.
	sub := *env
	sub.Stdout = env.Stderr
	sub.Args = append([]string{"candor"}, args...)
	if err := runSpec(&sub, spec); err != nil {
		return withCode(ExitCode(err), fmt.Errorf("the rerun of %s failed: %w", path, err))
	}
	rerunInputs, err := report.Load(out)
	if err != nil {
		return withCode(ExitResultNotWritten, fmt.Errorf("reading the rerun's result: %w", err))
	}
	return printRerun(env.Stdout, inputs, rerunInputs)
}

// printRerun compares the rerun (B) with the original (A): the verdict
// line first, then compare's full output with the audit.
func printRerun(w io.Writer, orig, again []report.Input) error {
	a, err := report.NewSide("A", orig)
	if err != nil {
		return withCode(ExitUsage, fmt.Errorf("original: %w", err))
	}
	b, err := report.NewSide("B", again)
	if err != nil {
		return withCode(ExitRunFailed, fmt.Errorf("rerun: %w", err))
	}
	c := report.Compare(a, b)
	fmt.Fprintf(w, "A = original %s, B = rerun %s\n", orig[0].Path, again[0].Path)
	fmt.Fprintf(w, "verdict: %s\n\n", report.RerunVerdict(c))
	report.WriteEnvironments(w, orig[0].Result, again[0].Result)
	return c.Write(w, "text")
}

func runPhasesOf(r *result.Result) []result.Phase {
	var out []result.Phase
	for _, p := range r.Phases {
		if p.Name != "load" {
			out = append(out, p)
		}
	}
	return out
}

// rerunSpec is the Spec a rerun of r runs: the one r records, with the
// targets given (else the recorded ones without their password), the
// summary in text, and no plan. A result written before results recorded
// their Spec is read from its command line (RerunArgs). A Spec is refused
// when it would execute a command read from the file, holds a masked
// secret, or reads a property file that is not here.
func rerunSpec(env *Env, r *result.Result, targets []string) (engine.Spec, error) {
	if len(r.Spec) == 0 {
		args, err := RerunArgs(r, targets)
		if err != nil {
			return engine.Spec{}, err
		}
		return runflags.Parse(phaseRun, args[1:])
	}
	spec, err := engine.ReadSpec(r.Spec)
	if err != nil {
		return spec, err
	}
	if spec.Phase != phaseRun {
		return spec, fmt.Errorf("it records candor %s; rerun replays results of candor run, plan cells and candor sysbench ... run: run the same command again instead", spec.Phase)
	}
	for _, text := range spec.Faults {
		// The fault as the engine will read it, not its text searched for
		// a key: what would be executed is what is refused.
		f, err := fault.Parse(text)
		switch {
		case strings.Contains(text, maskedValue):
			return spec, fmt.Errorf("its fault holds a masked secret (--fault %q): run it again by hand with the secret", text)
		case err != nil:
			return spec, fmt.Errorf("its fault --fault %q cannot be read: %w", text, err)
		case f.Has("run"):
			return spec, fmt.Errorf("its run executed a shell command (--fault %q): rerun never executes commands read from a result file; read it and run the command line by hand", text)
		case f.Has("sql"):
			return spec, fmt.Errorf("its run executed an SQL statement of its own (--fault %q): rerun never executes statements read from a result file; read it and run the command line by hand", text)
		}
	}
	for _, list := range [][]string{spec.Options, spec.Properties, spec.PropertyFiles} {
		for _, a := range list {
			if strings.Contains(a, maskedValue) {
				return spec, fmt.Errorf("its command line holds a masked secret (%s): run it again by hand with the secret", a)
			}
		}
	}
	for _, f := range spec.PropertyFiles {
		if _, err := os.Stat(f); err != nil {
			return spec, fmt.Errorf("its command reads property file %s, which is not here (%v): run rerun from the directory the original ran in, or copy the file", f, err)
		}
	}
	if len(r.Command) > 1 && r.Command[1] == "sysbench" && spec.Load == "never" {
		// A rerun loads the tables where they are absent (sysbench would
		// need a prepare first).
		spec.Load = "auto"
	}
	if len(targets) == 0 {
		for _, t := range spec.Targets {
			targets = append(targets, engine.StripPassword(t))
		}
		if len(targets) == 0 && r.Target.URL != "" {
			targets = []string{engine.StripPassword(r.Target.URL)}
		}
	}
	spec.Targets, spec.Format, spec.Plan = targets, "text", nil
	return spec, nil
}

// RerunArgs rebuilds the candor run command line of a result: the recorded
// one without its target, output, repetitions, seed, format and plan
// flags, then the targets (given, else the recorded ones without their
// password) and the recorded seed. Only results of `candor run` (and plan
// cells, which are run commands) can be replayed.
func RerunArgs(r *result.Result, targets []string) ([]string, error) {
	cmd := r.Command
	if len(cmd) > 2 && cmd[1] == "sysbench" {
		var err error
		if cmd, err = sysbenchRunCommand(cmd); err != nil {
			return nil, err
		}
	}
	return engine.LegacyRunArgs(cmd, r.Target.URL, r.Workload.Seed, targets)
}

// sysbenchRunCommand turns a recorded `candor sysbench ... TEST run` line
// into the candor run command line it ran, without --load=never: a rerun
// loads the tables where they are absent (sysbench would need a prepare
// first).
func sysbenchRunCommand(cmd []string) ([]string, error) {
	line, err := sysbenchline.Parse(cmd[2:], os.ReadFile)
	if err != nil {
		return nil, err
	}
	if line.Command != "run" {
		return nil, fmt.Errorf("it records candor sysbench ... %s; rerun replays runs", line.Command)
	}
	out, err := line.Args(flagOf(NewRoot(&Env{Stdout: io.Discard, Stderr: io.Discard, Getenv: func(string) string { return "" }})))
	if err != nil {
		return nil, err
	}
	kept := []string{cmd[0]}
	for _, a := range out {
		if a != "--load=never" {
			kept = append(kept, a)
		}
	}
	return kept, nil
}
