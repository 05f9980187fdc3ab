package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/candor-bench/candor/internal/pgbenchline"
	"github.com/candor-bench/candor/internal/runflags"
	"github.com/candor-bench/candor/internal/version"
)

// `candor pgbench` takes a pgbench 15 command line as it is, with `candor`
// put in front; package pgbenchline translates it.

const pgbenchCmdLong = `Takes a pgbench 15 command line as it is: put 'candor' in front of
'pgbench [options]... [dbname]'. It runs script/pgbench (docs/SCRIPTS.md) and prints pgbench's
report; candor writes its result file as always.

  -i, --initialize -s N            create pgbench's four tables (candor's, with their primary keys)
                                   and load scale N (100,000 accounts, 1 branch, 10 tellers each);
                                   -I steps, -F 100, -n and -q are accepted; tables of the same
                                   names that candor did not create are refused, never dropped;
                                   VACUUM ANALYZE after the load unless -n (or -I without v)
  -n, -v                           before a run candor vacuums as pgbench: VACUUM pgbench_branches
                                   and pgbench_tellers, TRUNCATE (its own) pgbench_history; -v also
                                   VACUUM ANALYZE pgbench_accounts; -n none of it
  -f FILE[@W], -b NAME[@W], -S, -N the scripts and their weights (default: -b tpcb-like)
  -c N -T SEC | -t N -R TPS -L MS  clients (one session each), duration or transactions per
                                   client (default -t 10), rate (open loop: latency from the
                                   intended start), latency limit (counted; nothing is skipped)
  -M simple|extended|prepared -D NAME=VALUE -s N -r -P SEC --max-tries N --random-seed N
  -j N                             N threads for the clients, as pgbench: N event loops (--loops)
  -h HOST -p PORT -U USER [dbname] and PGHOST, PGPORT, PGUSER, PGDATABASE, PGPASSWORD
                                   become --target postgres://USER@HOST:PORT/DB (TCP); or give
                                   --target URL (any SQL target: PostgreSQL, MySQL, SQLite)
  -C, -l, --partitions, --foreign-keys, --tablespace, --unlogged-tables, -d
                                   refused, with the reason

Other --options are candor run's (--out FILE, --repeat N, --warmup D, --seed N,
--max-error-rate F, --max-unavailable F (default 5%, 0 off: the share of the run its clients may
spend without a session, whatever --max-tries says), --allow-shell via -p allow-shell=true,
--format text|json ...).`

func newPgbenchCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "pgbench [options]... [dbname]",
		Short: "Run a pgbench 15 command line as it is (its options, scripts and report)",
		Long:  pgbenchCmdLong,
		Example: `  candor pgbench -i -s 10 --target postgres://postgres@127.0.0.1:5432/bench
  candor pgbench -c 16 -T 60 -M prepared -r --target postgres://postgres@127.0.0.1:5432/bench
  candor pgbench -h 127.0.0.1 -U postgres -c 4 -T 30 -f my.sql@3 -b select-only@1 bench`,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return rewordError(runPgbenchLine(dropinEnv(env, pgbenchWords), cmd, args), pgbenchWords)
		},
	}
	return cmd
}

// runPgbenchLine runs the drop-in's command line; its caller rewords what it says.
func runPgbenchLine(env *Env, cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		// pgbench would connect to its defaults; candor asks for
		// the server to measure.
		return usagef("give a pgbench command line: at least the database (-h HOST -U USER DBNAME, or --target URL); see 'candor pgbench --help'")
	}
	line, err := pgbenchline.Parse(args)
	if err != nil {
		return err
	}
	switch {
	case line.Help:
		return cmd.Help()
	case line.Version:
		v, _, _ := version.Info()
		fmt.Fprintf(env.Stdout, "candor %s (pgbench 15 command line)\n", v)
		return nil
	}
	out, err := line.Args(env.Getenv)
	if err != nil {
		return err
	}
	for _, n := range line.Notes {
		fmt.Fprintln(env.Stderr, "candor: "+n)
	}
	if line.Init {
		// pgbench -i drops its tables first (step d): candor drops
		// them when it created them, and refuses others.
		clean, err := line.CleanupArgs(env.Getenv)
		if err != nil {
			return err
		}
		if err := runSysbenchVerb(env, NewRoot(env), clean[0], clean[1:]); err != nil {
			return err
		}
	}
	spec, err := runflags.Parse(out[0], out[1:])
	if err != nil {
		return err
	}
	return runSpec(env, spec)
}
