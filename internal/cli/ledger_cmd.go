package cli

import (
	"github.com/spf13/cobra"

	"github.com/candor-bench/candor/internal/engine"
	"github.com/candor-bench/candor/internal/runflags"
)

// newLedgerCmd is `candor ledger verify RESULT`: the durability ledger's
// accounting made again, later, against the target as it is now (after a
// crash of candor, or a recovery slower than --recovery-timeout).
func newLedgerCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{Use: "ledger", Short: "Work with a run's durability ledger"}
	var targets []string
	var role string
	var repetition int
	timeout := runflags.Duration{D: engine.DefaultRecoveryTimeout}
	verify := &cobra.Command{
		Use:   "verify RESULT",
		Short: "Read back a ledger run's ids from the target now and account for every recorded write again",
		Long: `Read back a ledger run's ids from the target now and account for every recorded write again.

RESULT is the run's result file; after a crash of candor, which left no result file, name it all
the same: candor rebuilds what it can from the interval file beside it (RESULT with .intervals.jsonl)
and reads the ledger files in RESULT's .ledger directory. The targets are those of the run's command
line unless --target is given (needed when a URL held a password, which the result does not keep).

verify reads only the table the ledger wrote: one that records the ledger's owner (the run and the
repetition). A table of another run or repetition, one candor did not create, or a missing one is
refused (exit 4), as are several --target nodes that all accept writes with --target-role primary.
Each verification is added to the result beside the run's own accounting, which it never replaces
(a run that made none, after a crash, gets the verification's).`,
		Example: `  candor ledger verify results/e6/async.json
  candor ledger verify results/run.json --target postgres://u:pw@db1:5432/app --target postgres://u:pw@db2:5432/app --target-role primary`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			ctx, stop := interruptContext(env)
			defer stop()
			return engine.VerifyLedger(ctx, engineEnv(env), args[0], engine.VerifyRequest{Targets: targets, Role: role, RoleSet: c.Flags().Changed("target-role"),
				Timeout: timeout.D, Repetition: repetition})
		},
	}
	fl := verify.Flags()
	fl.StringArrayVar(&targets, "target", nil, "the target's URL(s), as given to the run (default: the run's own)")
	fl.StringVar(&role, "target-role", engine.RoleAny, "primary: read back from the one --target that accepts writes (default: as the run did)")
	fl.Var(&timeout, "recovery-timeout", "wait this long for the target to answer")
	fl.IntVar(&repetition, "repetition", 0, "verify this repetition's ledger only (default: the one the table holds)")
	cmd.AddCommand(verify)
	return cmd
}
