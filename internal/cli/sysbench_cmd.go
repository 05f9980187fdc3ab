package cli

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/candor-bench/candor/internal/runflags"
	"github.com/candor-bench/candor/internal/sysbenchline"
	"github.com/candor-bench/candor/internal/workload/sysbench"
)

// `candor sysbench` takes a sysbench 1.0.20 command line as it is, with
// `candor` put in front; package sysbenchline translates it.

const sysbenchCmdLong = `Takes a sysbench 1.0.20 command line as it is: put 'candor' in front of
'sysbench [options]... TESTNAME COMMAND'. TESTNAME is one of sysbench's OLTP tests, run by
candor's Go implementation; COMMAND is prepare, run, cleanup, prewarm (MySQL wire) or help (the
test script's options, as sysbench lists them). A Lua script instead of TESTNAME (a path ending
in .lua, such as my_test.lua or /usr/share/sysbench/oltp_read_write.lua) runs in candor's
embedded Lua interpreter, with the script's commands and options (docs/SYSBENCH-LUA.md). As in
sysbench, options take their value after '=' (--threads=16) and on/off options alone mean on.

  --db-driver=mysql|pgsql          sysbench's default is mysql
  --mysql-host=LIST --mysql-port=LIST --mysql-user --mysql-password --mysql-db --mysql-ssl
  --pgsql-host --pgsql-port --pgsql-user --pgsql-password --pgsql-db
                                   become --target URLs with sysbench's defaults (host localhost,
                                   port 3306 or 5432, user and database sbtest). Several MySQL hosts
                                   or ports give one node per host and port, taken by connections
                                   in turn as sysbench does. candor connects over TCP even to
                                   localhost (libmysqlclient would use the Unix socket there).
  --mysql-ssl=on                   TLS without verifying the server's certificate
  --mysql-compression=on           the protocol's zlib compression (the URL's compress=true)
  --mysql-ignore-errors=LIST       accepted when every code in it is one candor restarts an
                                   event on (1213, 1205, 1020, 1062, TiDB's 8002, 8022, 8028,
                                   9007, ...); candor's set does not change
  --num-threads, --max-time, --max-requests, --tx-rate, --warmup-time
                                   --threads, --time, --events, --rate, --warmup
  --config-file=FILE               one NAME=VALUE option per line, read before the command line
  --test=TESTNAME                  the deprecated form of TESTNAME
  --histogram, --percentile=N      sysbench's latency histogram and percentile (0: none) in the report
  --db-ps-mode=auto|disable        disable sends statements as text with their values written in
  --thread-stack-size, --verbosity accepted and ignored

A run gets sysbench's defaults: --time=10 (stopping at --events first when given), no
interval lines unless --report-interval is given, sysbench's report on stdout
(--format=sysbench) and no load (--load=never: prepare first, as with sysbench). Every
other option is passed on to 'candor prepare|run|cleanup|prewarm sysbench/TESTNAME': the tests'
options (--tables, --table-size, --rand-type, ...) and candor's own (--target=URL instead of
the connection options, --out=FILE, --isolation=..., --seed=N, --max-error-rate=F,
--max-unavailable=F: default 5%, 0 off, the share of the run its threads may spend without a
session); options a command does not
have (--time for cleanup) are dropped, as sysbench ignores them. candor writes its result
file as always.`

func newSysbenchCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sysbench [options]... TESTNAME prepare|run|cleanup|prewarm|help",
		Short: "Run a sysbench 1.0.20 command line as it is (its options, --db-driver and connection options)",
		Long:  sysbenchCmdLong,
		Example: `  candor sysbench --db-driver=mysql --mysql-host=127.0.0.1 --mysql-password=pw --tables=10 --table-size=1000000 oltp_read_write prepare
  candor sysbench --db-driver=mysql --mysql-host=127.0.0.1 --mysql-password=pw --tables=10 --table-size=1000000 --threads=64 --time=300 --report-interval=10 oltp_read_write run
  candor sysbench --db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-user=postgres --tables=10 oltp_read_write cleanup`,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return rewordError(runSysbenchLine(dropinEnv(env, sysbenchWords), cmd, args), sysbenchWords)
		},
	}
	return cmd
}

// runSysbenchLine runs the drop-in's command line; its caller rewords what it says.
func runSysbenchLine(env *Env, cmd *cobra.Command, args []string) error {
	line, err := sysbenchline.Parse(args, os.ReadFile)
	if err != nil {
		return err
	}
	switch {
	case line.Help:
		return cmd.Help()
	case line.Version:
		fmt.Fprintln(env.Stdout, sysbenchline.Banner())
		return nil
	}
	if line.Script != "" && line.Command != "run" {
		return runLuaCommand(env, line, flagOf(NewRoot(env)))
	}
	if line.Command == "help" {
		// sysbench's help for a test: its script's options.
		fmt.Fprintf(env.Stdout, "%s\n\n", sysbenchline.Banner())
		text, err := sysbench.Help(line.Test)
		if err != nil {
			return usagef("%v.", err)
		}
		fmt.Fprintf(env.Stdout, "%s\nsysbench's general options (--threads, --time, --rand-type, ...) and candor's: candor run sysbench/%s --help\n", text, line.Test)
		return nil
	}
	root := NewRoot(env)
	out, err := line.Args(flagOf(root))
	if err != nil {
		return err
	}
	for _, w := range line.Warnings() {
		fmt.Fprintln(env.Stdout, w)
	}
	for _, name := range line.Ignored {
		fmt.Fprintf(env.Stderr, "candor: %s is an option of sysbench's %s driver, and --db-driver is %s: ignored, as sysbench ignores it\n",
			name, sysbenchline.DriverOf(name), line.Driver)
	}
	return runSysbenchVerb(env, root, out[0], out[1:])
}

// runSysbenchVerb runs the candor command a sysbench line translates to:
// prepare and run parse into a Spec the engine runs; cleanup and prewarm
// call their commands' functions with their flags parsed.
func runSysbenchVerb(env *Env, root *cobra.Command, verb string, args []string) error {
	if verb == phaseLoad || verb == phaseRun {
		spec, err := runflags.Parse(verb, args)
		if err != nil {
			return err
		}
		return runSpec(env, spec)
	}
	sub, _, err := root.Find([]string{verb})
	if err != nil || sub == root {
		return fmt.Errorf("candor has no %s command", verb)
	}
	if err := sub.ParseFlags(args); err != nil {
		return usagef("%v (see '%s --help')", err, sub.CommandPath())
	}
	return sub.RunE(sub, sub.Flags().Args())
}

// flagOf tells whether one of root's commands has a flag.
func flagOf(root *cobra.Command) func(verb, name string) bool {
	return func(verb, name string) bool {
		sub, _, err := root.Find([]string{verb})
		return err == nil && sub != root && sub.Flags().Lookup(name) != nil
	}
}
