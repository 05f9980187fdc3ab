package cli

import (
	"github.com/spf13/cobra"

	"github.com/candor-bench/candor/internal/engine"
	"github.com/candor-bench/candor/internal/target"
)

// newCheckCmd is candor check: a workload's checks of its data alone, on
// the tables a load or a run of candor left (docs/CHECKS.md).
func newCheckCmd(env *Env) *cobra.Command {
	var targetURL string
	var files, props []string
	var cql cqlFlags
	var timeout flexDuration
	timeout.d = target.DefaultConnectTimeout
	cmd := &cobra.Command{
		Use:   "check WORKLOAD",
		Short: "Check the data a workload's load or run left on the target (only tables candor created); exit 5 when a check fails",
		Example: `  candor check bank --target postgres://user@127.0.0.1:5432/db --accounts 1000
  candor check sysbench/oltp_read_write --tables 4 --table-size 100000 --target mysql://root@127.0.0.1:3306/sbtest`,
		Args: oneWorkload,
		RunE: func(cmd *cobra.Command, args []string) error {
			flagProps, err := workloadFlagProps(cmd.Flags(), args[0])
			if err != nil {
				return err
			}
			wl, err := engine.ResolveWorkload(env.Stderr, args[0], files, append(flagProps, props...))
			if err != nil {
				return err
			}
			var urls []string
			if targetURL != "" {
				urls = []string{targetURL}
			}
			if urls, err = cql.apply(cmd.Flags(), urls); err != nil {
				return err
			}
			ctx, stop := interruptContext(env)
			defer stop()
			tgt, err := engine.OpenBoundConns(ctx, urls, target.Options{ConnectTimeout: timeout.d}, wl, 1, 1)
			if err != nil {
				return err
			}
			defer tgt.Close()
			_, err = engine.CheckTables(ctx, tgt, wl, engine.CheckRequest{Stdout: env.Stdout, Stderr: env.Stderr})
			return err
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&targetURL, "target", "", "database URL (default "+DefaultTarget+")")
	fl.StringArrayVarP(&files, "property-file", "P", nil, "YCSB property file")
	fl.StringArrayVarP(&props, "property", "p", nil, "workload property key=value")
	fl.Var(&timeout, "connect-timeout", "give up connecting after this long")
	addCQLFlags(fl, &cql)
	addWorkloadFlags(fl)
	workloadHelp(cmd)
	return cmd
}
