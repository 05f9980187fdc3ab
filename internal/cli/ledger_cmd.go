package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/candor-bench/candor/internal/report"
	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

// newLedgerCmd is `candor ledger verify RESULT`: the durability ledger's
// accounting made again, later, against the target as it is now (after a
// crash of candor, or a recovery slower than --recovery-timeout).
func newLedgerCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{Use: "ledger", Short: "Work with a run's durability ledger"}
	var targets []string
	var role string
	timeout := flexDuration{d: DefaultRecoveryTimeout}
	verify := &cobra.Command{
		Use:   "verify RESULT",
		Short: "Read back a ledger run's ids from the target now and account for every recorded write again",
		Long: `Read back a ledger run's ids from the target now and account for every recorded write again.

RESULT is the run's result file; after a crash of candor, which left no result file, name it all
the same: candor rebuilds what it can from the interval file beside it (RESULT with .intervals.jsonl)
and reads the ledger files in RESULT's .ledger directory. The targets are those of the run's command
line unless --target is given (needed when a URL held a password, which the result does not keep).
The accounting is printed and stored in the result file.`,
		Example: `  candor ledger verify results/e6/async.json
  candor ledger verify results/run.json --target postgres://u:pw@db1:5432/app --target postgres://u:pw@db2:5432/app --target-role primary`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return verifyLedger(env, args[0], targets, role, c.Flags().Changed("target-role"), timeout.d)
		},
	}
	fl := verify.Flags()
	fl.StringArrayVar(&targets, "target", nil, "the target's URL(s), as given to the run (default: the run's own)")
	fl.StringVar(&role, "target-role", roleAny, "primary: read back from whichever --target accepts writes (default: as the run did)")
	fl.Var(&timeout, "recovery-timeout", "wait this long for the target to answer")
	cmd.AddCommand(verify)
	return cmd
}

func verifyLedger(env *Env, path string, targets []string, role string, roleSet bool, timeout time.Duration) error {
	res, recovered, err := readOrRecover(path)
	if err != nil {
		return err
	}
	base := strings.TrimSuffix(path, ".json") + ".ledger"
	if _, err := os.Stat(base); err != nil {
		return withCode(ExitUsage, fmt.Errorf("%s has no ledger: %s does not exist (only runs of the ledger workload, or with --ledger, keep one)", path, base))
	}
	cmdTargets, cmdRole := commandTargets(res.Command)
	if len(targets) == 0 {
		targets = cmdTargets
		for _, t := range targets {
			if strings.Contains(t, "xxxxx") {
				return usagef("the run's --target %s held a password, which the result does not keep: give the URLs again with --target", t)
			}
		}
	}
	if !roleSet {
		role = cmdRole
	}
	if len(targets) == 0 {
		return usagef("the result names no --target: give the run's targets with --target")
	}
	if role == rolePrimary {
		u, err := primaryURL(targets)
		if err != nil {
			return withCode(ExitUsage, err)
		}
		targets = []string{u}
	}
	wl, err := ledgerWorkloadOf(env, res)
	if err != nil {
		return err
	}
	ctx, stop := interruptContext(env)
	defer stop()
	tgt, err := openBound(ctx, targets, target.Options{ConnectTimeout: target.DefaultConnectTimeout}, wl, 1)
	if err != nil {
		return withCode(ExitUnreachable, err)
	}
	defer tgt.Close()
	dirs := ledgerDirs(base)
	k := 0
	var any bool
	for i := range res.Phases {
		p := &res.Phases[i]
		if p.Name != phaseRun || k >= len(dirs) {
			continue
		}
		dir := dirs[k]
		k++
		evs := p.Faults
		if len(evs) == 0 {
			evs = readFaultLines(dir)
			p.Faults = evs
		}
		width := secondsDur(res.Run.ReportInterval)
		rel, _ := filepath.Rel(filepath.Dir(path), dir)
		p.Ledger = accountLedger(ctx, tgt, wl, dir, rel, evs, p.Started, width, timeout,
			func(s string) { fmt.Fprintln(env.Stderr, "candor: "+s) })
		fmt.Fprintf(env.Stdout, "%s (%s):\n", path, rel)
		for _, l := range report.LedgerLines(p.Ledger) {
			fmt.Fprintln(env.Stdout, l)
		}
		any = true
	}
	if !any {
		return withCode(ExitUsage, fmt.Errorf("%s has no run phase with a ledger to verify", path))
	}
	if recovered {
		fmt.Fprintf(env.Stderr, "candor: %s was rebuilt from its interval file (the run did not finish)\n", path)
	}
	if err := result.Write(path, res); err != nil {
		return &ExitError{Code: ExitResultNotWritten, Err: fmt.Errorf("the accounting could not be stored in %s: %w", path, err)}
	}
	fmt.Fprintf(env.Stderr, "result: %s\n", path)
	return nil
}

// readOrRecover reads a result file, or rebuilds it from its interval file
// when the run left none.
func readOrRecover(path string) (*result.Result, bool, error) {
	res, err := result.Read(path)
	if err == nil {
		return res, false, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, false, withCode(ExitUsage, err)
	}
	res, rerr := result.Recover(result.IntervalsPath(path))
	if rerr != nil {
		return nil, false, withCode(ExitUsage, fmt.Errorf("%s: no result file, and its interval file cannot be read either: %w", path, rerr))
	}
	return res, true, nil
}

// ledgerDirs lists a result's ledger directories, one per run phase: the
// directory itself, or its rep-N directories for a repeated run.
func ledgerDirs(base string) []string {
	reps, _ := filepath.Glob(filepath.Join(base, "rep-*"))
	if len(reps) == 0 {
		return []string{base}
	}
	sort.Slice(reps, func(i, j int) bool {
		var a, b int
		fmt.Sscanf(filepath.Base(reps[i]), "rep-%d", &a)
		fmt.Sscanf(filepath.Base(reps[j]), "rep-%d", &b)
		return a < b
	})
	return reps
}

// commandTargets finds the --target values and --target-role of a recorded
// (redacted) command line.
func commandTargets(args []string) (targets []string, role string) {
	role = roleAny
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--target" && i+1 < len(args):
			targets = append(targets, args[i+1])
			i++
		case strings.HasPrefix(a, "--target="):
			targets = append(targets, strings.TrimPrefix(a, "--target="))
		case a == "--target-role" && i+1 < len(args):
			role = args[i+1]
			i++
		case strings.HasPrefix(a, "--target-role="):
			role = strings.TrimPrefix(a, "--target-role=")
		}
	}
	return targets, role
}

// ledgerWorkloadOf rebuilds the run's workload from the options its result
// records, with its ledger on.
func ledgerWorkloadOf(env *Env, res *result.Result) (workload.Workload, error) {
	opts, _ := res.Workload.Options.(map[string]any)
	var props []string
	for _, k := range []string{"table", "jobs", "rows", "pad"} {
		if v, ok := opts[k]; ok {
			props = append(props, fmt.Sprintf("%s=%v", k, v))
		}
	}
	wl, err := resolveWorkload(env, res.Workload.Name, nil, props)
	if err != nil {
		return nil, err
	}
	lw, ok := wl.(workload.Ledgered)
	if !ok {
		return nil, usagef("the run's workload %s keeps no ledger", res.Workload.Name)
	}
	if err := lw.EnableLedger(); err != nil {
		return nil, withCode(ExitUsage, err)
	}
	return wl, nil
}

func secondsDur(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
