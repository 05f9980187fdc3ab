package cli

import (
	"github.com/spf13/cobra"

	"github.com/candor-bench/candor/internal/engine"
	"github.com/candor-bench/candor/internal/runflags"
	"github.com/candor-bench/candor/internal/target"
)

func newPrewarmCmd(env *Env) *cobra.Command {
	var targetURLs []string
	var threads int
	var timeout runflags.Duration
	timeout.D = target.DefaultConnectTimeout
	cmd := &cobra.Command{
		Use:   "prewarm WORKLOAD",
		Short: "sysbench's prewarm: read a sysbench workload's tables into the server's cache (MySQL wire)",
		Long: `Runs oltp_common.lua's prewarm command of sysbench 1.0.20 on the tables of a sysbench workload:
per table ANALYZE TABLE, a scan of the primary key and one of the rows, each limited to --table-size,
after raising the session's in-memory temporary table sizes. --threads connections share the tables
(table i goes to connection (i-1) mod threads); with several --target nodes connection c opens node
c mod n, as sysbench's connections go round its hosts. As in sysbench, only on MySQL-wire targets.
Nothing is measured or written.`,
		Example: `  candor prewarm sysbench --tables 10 --table-size 1000000 --threads 4 --target mysql://user:pw@127.0.0.1:3306/db`,
		Args:    func(cmd *cobra.Command, args []string) error { return runflags.OneWorkload(cmd.Name(), args) },
		RunE: func(cmd *cobra.Command, args []string) error {
			flagProps, err := runflags.WorkloadOptions(cmd.Flags(), args[0])
			if err != nil {
				return err
			}
			wl, err := engine.ResolveWorkload(env.Stderr, args[0], nil, flagProps)
			if err != nil {
				return err
			}
			pw, ok := wl.(engine.Prewarmer)
			if !ok {
				return usagef("prewarm is sysbench's command; %s has none", args[0])
			}
			if threads < 1 {
				return usagef("--threads %d: give at least 1", threads)
			}
			ctx, stop := interruptContext(env)
			defer stop()
			tgt, err := engine.OpenBound(ctx, targetURLs, target.Options{ConnectTimeout: timeout.D}, wl, threads)
			if err != nil {
				return err
			}
			defer tgt.Close()
			return engine.Prewarm(ctx, env.Stdout, tgt, pw, threads)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&targetURLs, "target", nil, "database URL (default "+DefaultTarget+"); repeat it for the nodes of a cluster: connection c uses node c mod n")
	fl.IntVar(&threads, "threads", 1, "connections sharing the tables")
	fl.Var(&timeout, "connect-timeout", "give up connecting after this long")
	runflags.AddWorkloadOptions(fl)
	return cmd
}
