package cli

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/candor-bench/candor/internal/engine"
	"github.com/candor-bench/candor/internal/runflags"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

// newCheckCmd is candor check: a workload's checks of its data alone, on
// the tables a load or a run of candor left (docs/CHECKS.md).
func newCheckCmd(env *Env) *cobra.Command {
	var targetURL string
	var files, props []string
	var cql runflags.CQL
	var timeout runflags.Duration
	timeout.D = target.DefaultConnectTimeout
	cmd := &cobra.Command{
		Use:   "check WORKLOAD",
		Short: "Check the data a workload's load or run left on the target (only tables candor created); exit 5 when a check fails",
		Example: `  candor check bank --target postgres://user@127.0.0.1:5432/db --accounts 1000
  candor check sysbench/oltp_read_write --tables 4 --table-size 100000 --target mysql://root@127.0.0.1:3306/sbtest`,
		Args: func(cmd *cobra.Command, args []string) error { return runflags.OneWorkload(cmd.Name(), args) },
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := interruptContext(env)
			defer stop()
			wl, tgt, err := openForTables(ctx, env, cmd, args[0], files, props, targetURL, &cql, timeout.D, 1)
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
	runflags.AddCQL(fl, &cql)
	runflags.AddWorkloadOptions(fl)
	workloadHelp(cmd)
	return cmd
}

// openForTables resolves the workload a command on its tables names (its
// option flags, property files and properties) and opens its target bound
// to it, with one connection: candor cleanup and candor check.
func openForTables(ctx context.Context, env *Env, cmd *cobra.Command, name string, files, props []string, targetURL string, cql *runflags.CQL, timeout time.Duration, threads int) (workload.Workload, target.Target, error) {
	flagProps, err := runflags.WorkloadOptions(cmd.Flags(), name)
	if err != nil {
		return nil, nil, err
	}
	wl, err := engine.ResolveWorkload(env.Stderr, name, files, append(flagProps, props...))
	if err != nil {
		return nil, nil, err
	}
	var urls []string
	if targetURL != "" {
		urls = []string{targetURL}
	}
	if urls, err = cql.Apply(cmd.Flags(), urls); err != nil {
		return nil, nil, err
	}
	tgt, err := engine.OpenBoundConns(ctx, urls, target.Options{ConnectTimeout: timeout}, wl, threads, 1)
	if err != nil {
		return nil, nil, err
	}
	return wl, tgt, nil
}
