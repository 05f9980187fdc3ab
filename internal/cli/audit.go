package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/candor-bench/candor/internal/report"
)

// newAuditCmd is `candor audit RESULT_OR_DIR...`.
func newAuditCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "audit RESULT_OR_DIR...",
		Short: "Check results meant to be compared against the fairness rules (exit 1 on an error-level finding)",
		Long: `Check result files (or directories of them) against candor's fairness rules
(docs/AUDIT.md): durability classes across products, isolation, consistency levels,
data size against each server's memory, run length, warm-up, throughput still trending,
error and retry rates, a saturated client, an open loop behind schedule, single runs,
different candor builds, workload options or run settings, reused tables.

Results of the same workload, options, run settings and target are one configuration
(their runs are repetitions); the rules compare the configurations. Each finding has a
severity (error, warning, note), a one-line finding and the fix; a rule whose fields a
result lacks says "not recorded".

Exit code: 1 when an error-level finding exists (a verdict, as a linter's: a CI job can
gate on it), 0 otherwise, 2 on bad input (a missing file, a file that is not a candor
result or of a schema this candor cannot read, two files holding the same result).`,
		Example: `  candor audit results/pg.json results/mysql.json
  candor audit runs/`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("audit needs at least one result file or directory (see 'candor audit --help')")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			inputs, err := report.LoadWarn(func(w string) { fmt.Fprintf(env.Stderr, "candor audit: %s\n", w) }, args...)
			if err != nil {
				return withCode(ExitUsage, err)
			}
			rep := report.Audit(inputs)
			if err := rep.WriteText(env.Stdout); err != nil {
				return withCode(ExitInternal, err)
			}
			if rep.HasErrors() {
				return &ExitError{Code: ExitAuditFindings, Err: fmt.Errorf("audit: %d error-level finding(s): the comparison is unfair as it stands", rep.Count("error"))}
			}
			return nil
		},
	}
}

// writeBundle is `candor report --bundle DIR`.
func writeBundle(env *Env, dir string, inputs []report.Input) error {
	files, err := report.WriteBundle(dir, inputs)
	if err != nil {
		return withCode(ExitUsage, fmt.Errorf("--bundle: %w", err))
	}
	fmt.Fprintf(env.Stderr, "bundle: %s (%d files: report.html, audit.txt, README.md and %d result file(s))\n", dir, len(files), len(inputs))
	return nil
}
