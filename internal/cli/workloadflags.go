package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/candor-bench/candor/internal/runflags"
	"github.com/candor-bench/candor/internal/workload"
)

// workloadOptionsHelp describes the options of the workload named by the
// first of args that is one ("candor run kv-basic --help"), or says how to
// see them when none is.
func workloadOptionsHelp(cmd *cobra.Command, args []string) string {
	for _, a := range args {
		e, _, err := workload.Lookup(a)
		if err != nil {
			continue
		}
		if len(e.Options) == 0 {
			return propertiesHelp(e, a)
		}
		return fmt.Sprintf("\nOptions of %s (as flags, or -p name=value):\n%s", e.Name, runflags.OptionFlags(e).FlagUsages())
	}
	return fmt.Sprintf("\nWorkload options: each workload has its own, given as flags or -p name=value (YCSB's as properties).\n"+
		"'%s WORKLOAD --help' shows them (e.g. %s kv-basic --help); 'candor list workloads -v' lists every workload's.\n", cmd.CommandPath(), cmd.CommandPath())
}

// workloadHelp makes cmd's help end with the options of the workload it
// names (workloadOptionsHelp).
func workloadHelp(cmd *cobra.Command) {
	base := cmd.HelpFunc()
	cmd.SetHelpFunc(func(c *cobra.Command, args []string) {
		base(c, args)
		fmt.Fprint(c.OutOrStdout(), workloadOptionsHelp(c, append(c.Flags().Args(), args...)))
	})
}
