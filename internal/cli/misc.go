package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/tables"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/version"
	"github.com/candor-bench/candor/internal/workload"
)

// distributions lists the key distributions workloads accept, for `candor list`.
var distributions = []struct{ name, desc string }{
	{"uniform", "YCSB: every key equally likely"},
	{"zipfian", "YCSB: scrambled Zipfian (theta 0.99), popular keys spread over the key space"},
	{"latest", "YCSB: Zipfian over insertion order, the newest keys most popular (workload D)"},
	{"hotspot", "YCSB: hotspotopnfraction of operations on hotspotdatafraction of the keys"},
	{"sequential", "YCSB: keys in order, wrapping around"},
	{"exponential", "YCSB: exponential over recency (exponential.percentile within exponential.frac of the keys)"},
}

func newListCmd(env *Env) *cobra.Command {
	var verbose bool
	cmd := &cobra.Command{
		Use:       "list [workloads|drivers|distributions]",
		Short:     "List workloads, drivers and key distributions with one-line descriptions",
		Args:      cobra.MaximumNArgs(1),
		ValidArgs: []string{"workloads", "drivers", "distributions"},
		RunE: func(cmd *cobra.Command, args []string) error {
			what := ""
			if len(args) == 1 {
				what = args[0]
				if what != "workloads" && what != "drivers" && what != "distributions" {
					return usagef("cannot list %q; use workloads, drivers or distributions", what)
				}
			}
			tw := tabwriter.NewWriter(env.Stdout, 2, 8, 2, ' ', 0)
			defer tw.Flush()
			if what == "" || what == "workloads" {
				fmt.Fprintln(tw, "WORKLOADS\t")
				for _, e := range workloadEntries() {
					fmt.Fprintf(tw, "  %s\t%s (reference: %s)\n", e.name, e.desc, e.ref)
				}
			}
			if verbose && (what == "" || what == "workloads") {
				tw.Flush()
				listOptions(env)
			}
			if what == "" || what == "drivers" {
				fmt.Fprintln(tw, "DRIVERS\t")
				for _, d := range target.Drivers() {
					fmt.Fprintf(tw, "  %s\t%s\n", strings.Join(d.Schemes, "://, ")+"://", d.Description)
				}
			}
			if what == "" || what == "distributions" {
				fmt.Fprintln(tw, "DISTRIBUTIONS\t")
				for _, d := range distributions {
					fmt.Fprintf(tw, "  %s\t%s\n", d.name, d.desc)
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "with workloads: every workload's options, their types and defaults")
	return cmd
}

// listOptions prints each workload's options, as 'candor run WORKLOAD
// --help' shows them.
func listOptions(env *Env) {
	for _, e := range workload.Entries() {
		name := e.Name
		if len(e.Variants) > 0 {
			name += ", " + e.Name + "/*"
		}
		if len(e.Options) == 0 {
			fmt.Fprintf(env.Stdout, "\nOPTIONS OF %s: YCSB properties, -p name=value and -P FILE (YCSB 0.17.0's CoreWorkload properties)\n", name)
			continue
		}
		fmt.Fprintf(env.Stdout, "\nOPTIONS OF %s (as flags, or -p name=value)\n%s", name, optionFlags(e).FlagUsages())
	}
}

func newVersionCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print candor's version, commit and Go version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v, c, g := version.Info()
			fmt.Fprintf(env.Stdout, "candor %s\ncommit %s\n%s\n", v, c, g)
			return nil
		},
	}
}

func newCleanupCmd(env *Env) *cobra.Command {
	var targetURL string
	var files, props []string
	var allowForeign, quiet bool
	var threads int
	var format string
	var cql cqlFlags
	var timeout flexDuration
	timeout.d = target.DefaultConnectTimeout
	cmd := &cobra.Command{
		Use:   "cleanup WORKLOAD",
		Short: "Drop the tables a workload created (only tables candor created, unless --allow-foreign-tables)",
		Example: `  candor cleanup ycsb
  candor cleanup ycsb -p table=usertable2 --target postgres://user@127.0.0.1:5432/db`,
		Args: oneWorkload,
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "sysbench" {
				return usagef("--format %q is not valid; use text or sysbench", format)
			}
			flagProps, err := workloadFlagProps(cmd.Flags(), args[0])
			if err != nil {
				return err
			}
			wl, err := resolveWorkload(env, args[0], files, append(flagProps, props...))
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
			tgt, err := openBoundConns(ctx, urls, target.Options{ConnectTimeout: timeout.d}, wl, threads, 1)
			if err != nil {
				return err
			}
			defer tgt.Close()
			conn, err := tgt.Connect(ctx)
			if err != nil {
				return err
			}
			defer conn.Close()
			if format == "sysbench" {
				sysbenchFormatBanner(env.Stdout)
			}
			// Not under a load or a run of another candor process.
			locks, err := tables.Lock(ctx, tgt, schemaNames(wl), env.Stderr)
			if err != nil {
				return tablesError(ctx, err)
			}
			defer locks.Close()
			if !allowForeign {
				// A table under candor's mark may be another's, dropped and
				// created again under its name: all are checked before
				// any is dropped.
				for _, t := range wl.Schema() {
					if err := tables.Verify(ctx, conn, tgt.Dialect(), t.Name, "drop"); err != nil {
						return tablesError(ctx, err)
					}
				}
			}
			for _, t := range wl.Schema() {
				exists, owned, err := target.TableState(ctx, conn, tgt.Dialect(), t.Name)
				if err != nil {
					return withCode(ExitUnreachable, err)
				}
				if format == "sysbench" && (!exists || owned || allowForeign) {
					// sysbench's cleanup says so before each DROP TABLE IF
					// EXISTS; candor only before a drop it will do.
					fmt.Fprintf(env.Stdout, "Dropping table '%s'...\n", t.Name)
				}
				if err := target.DropOwned(ctx, conn, tgt.Dialect(), t.Name, allowForeign); err != nil {
					if errors.Is(err, target.ErrForeignTable) {
						return withCode(ExitUnsupported, err)
					}
					return withCode(ExitRunFailed, err)
				}
				switch {
				case quiet, format == "sysbench":
				case exists:
					fmt.Fprintf(env.Stderr, "dropped table %s\n", t.Name)
				default:
					fmt.Fprintf(env.Stderr, "table %s does not exist; nothing to drop\n", t.Name)
				}
			}
			if !quiet {
				if left := leftBehind(ctx, conn, tgt.Dialect(), wl); len(left) > 0 {
					fmt.Fprintf(env.Stderr, "candor's %s tables %s are still there: this cleanup dropped only the tables its options name "+
						"(as sysbench's cleanup does); repeat it with the options they were created with (sysbench: --tables N, or --threads N for bulk_insert's; YCSB: -p table=NAME)\n", family(wl.Name()), strings.Join(left, ", "))
				}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&targetURL, "target", "", "database URL (default "+DefaultTarget+")")
	fl.StringArrayVarP(&files, "property-file", "P", nil, "YCSB property file (the table name may come from it)")
	fl.StringArrayVarP(&props, "property", "p", nil, "workload property key=value")
	fl.BoolVar(&allowForeign, "allow-foreign-tables", false, "also drop tables candor did not create")
	fl.Var(&timeout, "connect-timeout", "give up connecting after this long")
	fl.BoolVarP(&quiet, "quiet", "q", false, "say nothing on success")
	fl.StringVar(&format, "format", "text", "what it prints: text (a line per table on stderr) or sysbench (sysbench 1.0.20's \"Dropping table\" lines on stdout)")
	fl.IntVar(&threads, "threads", 1, "(sysbench/bulk_insert) the threads it ran with: it has one table per thread, as sysbench's bulk_insert cleanup drops")
	addCQLFlags(fl, &cql)
	addWorkloadFlags(fl)
	return cmd
}

// schemaNames lists the names of wl's tables.
func schemaNames(wl workload.Workload) []string {
	var names []string
	for _, t := range wl.Schema() {
		names = append(names, t.Name)
	}
	return names
}

// leftBehind lists the tables candor created for wl's workload family
// (sysbench, ycsb, ...) that exist and that wl's options do not name; nil
// when they cannot be read.
func leftBehind(ctx context.Context, conn target.Conn, d dialect.Dialect, wl workload.Workload) []string {
	owned, err := target.OwnedTables(ctx, conn, d)
	if err != nil {
		return nil
	}
	named := map[string]bool{}
	for _, t := range wl.Schema() {
		named[strings.ToLower(t.Name)] = true
	}
	var left []string
	for _, t := range owned {
		workloadName, _, _ := strings.Cut(t.Mark, " ")
		if !named[t.Name] && family(workloadName) == family(wl.Name()) {
			left = append(left, t.Name)
		}
	}
	return left
}

// family is a workload's name without its variant: "sysbench" for
// "sysbench/oltp_read_write".
func family(name string) string {
	f, _, _ := strings.Cut(name, "/")
	return f
}

type workloadLine struct{ name, desc, ref string }

func workloadEntries() []workloadLine {
	var out []workloadLine
	for _, e := range workload.Entries() {
		out = append(out, workloadLine{e.Name, e.Description, e.Reference})
		for _, v := range e.Variants {
			out = append(out, workloadLine{e.Name + "/" + v, e.VariantDescriptions[v], e.Reference})
		}
	}
	return out
}

// openBound opens the target at urls (DefaultTarget when none; several are
// the nodes of one cluster) and binds wl to it for threads workers, each
// with its own connection. A workload that cannot run there is
// ExitUnsupported; more connections than the process may open files is
// ExitUsage; an open cut short by an interrupt is ExitInterrupted. The
// caller closes the target.
func openBound(ctx context.Context, urls []string, opts target.Options, wl workload.Workload, threads int) (target.Target, error) {
	return openBoundConns(ctx, urls, opts, wl, threads, threads)
}

// openBoundConns is openBound for a command that opens conns connections
// whatever the workload's threads (cleanup: one).
func openBoundConns(ctx context.Context, urls []string, opts target.Options, wl workload.Workload, threads, conns int) (target.Target, error) {
	if len(urls) == 0 {
		urls = []string{DefaultTarget}
	}
	tgt, err := target.OpenMulti(ctx, urls, opts)
	if err != nil {
		if ctx.Err() != nil {
			return nil, &ExitError{Code: ExitInterrupted, Err: errInterrupted}
		}
		return nil, err
	}
	if err := checkFileLimit(conns, tgt); err != nil {
		tgt.Close()
		return nil, err
	}
	if err := wl.Bind(workload.Env{Dialect: tgt.Dialect(), Capabilities: tgt.Capabilities(), Threads: threads}); err != nil {
		tgt.Close()
		return nil, withCode(ExitUnsupported, fmt.Errorf("%s on %s: %w", wl.Name(), tgt.Driver(), err))
	}
	return tgt, nil
}

// fileLimit returns how many files the process may open (RLIMIT_NOFILE's
// soft limit, which Go raises to the hard one at start); ok is false where
// there is no such limit. A variable for tests.
var fileLimit = openFileLimit

// filesSpare are the files candor needs besides its connections: the
// result and interval files, the binary, the runtime's own.
const filesSpare = 64

// checkFileLimit refuses conns connections to tgt up front when they need
// more files than the process may open: each connection holds a socket (an
// embedded SQLite one its database, journal and shared-memory files), and
// hitting the limit half-way would fail the run after opening thousands of
// sessions. The null target opens no files.
func checkFileLimit(conns int, tgt target.Target) error {
	limit, ok := fileLimit()
	if !ok || tgt.Driver() == "null" {
		return nil
	}
	per := 1
	if tgt.Capabilities().Embedded {
		per = 3
	}
	need := uint64(conns)*uint64(per) + filesSpare
	if need <= limit {
		return nil
	}
	return usagef("--threads %d needs about %d open files (%d per connection, one connection per thread) but this process may open %d (ulimit -n); "+
		"lower --threads to at most %d or raise the limit (ulimit -n %d)", conns, need, per, limit, max(int64(limit)-filesSpare, 0)/int64(per), need)
}
