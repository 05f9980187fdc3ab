package cli

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/spf13/cobra"

	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload/sysbench"
)

// prewarmer is a workload with sysbench's prewarm command.
type prewarmer interface {
	Prewarm(ctx context.Context, c target.Conn, thread, threads int, say func(table string)) error
}

func newPrewarmCmd(env *Env) *cobra.Command {
	var targetURLs []string
	var threads int
	var timeout flexDuration
	timeout.d = target.DefaultConnectTimeout
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
		Args:    oneWorkload,
		RunE: func(cmd *cobra.Command, args []string) error {
			flagProps, err := workloadFlagProps(cmd.Flags(), args[0])
			if err != nil {
				return err
			}
			wl, err := resolveWorkload(env, args[0], nil, flagProps)
			if err != nil {
				return err
			}
			pw, ok := wl.(prewarmer)
			if !ok {
				return usagef("prewarm is sysbench's command; %s has none", args[0])
			}
			if threads < 1 {
				return usagef("--threads %d: give at least 1", threads)
			}
			ctx, stop := interruptContext(env)
			defer stop()
			tgt, err := openBound(ctx, targetURLs, target.Options{ConnectTimeout: timeout.d}, wl, threads)
			if err != nil {
				return err
			}
			defer tgt.Close()
			return prewarm(ctx, env, tgt, pw, threads)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&targetURLs, "target", nil, "database URL (default "+DefaultTarget+"); repeat it for the nodes of a cluster: connection c uses node c mod n")
	fl.IntVar(&threads, "threads", 1, "connections sharing the tables")
	fl.Var(&timeout, "connect-timeout", "give up connecting after this long")
	addWorkloadFlags(fl)
	return cmd
}

// prewarm runs the command on threads connections and prints sysbench's
// "Prewarming table sbtestN" line for each table.
func prewarm(ctx context.Context, env *Env, tgt target.Target, pw prewarmer, threads int) error {
	var mu sync.Mutex
	say := func(table string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(env.Stdout, "Prewarming table %s\n", table)
	}
	connErrs := make([]error, threads)
	errs := make([]error, threads)
	var wg sync.WaitGroup
	for i := 0; i < threads; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := target.ConnectWorker(ctx, tgt, i) // node i mod n, as the run's workers
			if err != nil {
				connErrs[i] = err
				return
			}
			defer c.Close()
			errs[i] = pw.Prewarm(ctx, c, i, threads, say)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if errors.Is(err, sysbench.ErrNoPrewarm) {
			return withCode(ExitUnsupported, err) // the same on every connection
		}
	}
	if err := errors.Join(connErrs...); err != nil {
		return err
	}
	if err := errors.Join(errs...); err != nil {
		return withCode(ExitRunFailed, err)
	}
	return nil
}

var _ prewarmer = (*sysbench.Workload)(nil)
