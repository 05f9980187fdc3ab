package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/candor-bench/candor/internal/engine"
	"github.com/candor-bench/candor/internal/report"
	"github.com/candor-bench/candor/internal/runflags"
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
		fmt.Fprintf(env.Stdout, "\nOPTIONS OF %s (as flags, or -p name=value)\n%s", name, runflags.OptionFlags(e).FlagUsages())
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
	var cql runflags.CQL
	var timeout runflags.Duration
	timeout.D = target.DefaultConnectTimeout
	cmd := &cobra.Command{
		Use:   "cleanup WORKLOAD",
		Short: "Drop the tables a workload created (only tables candor created, unless --allow-foreign-tables)",
		Example: `  candor cleanup ycsb
  candor cleanup ycsb -p table=usertable2 --target postgres://user@127.0.0.1:5432/db`,
		Args: func(cmd *cobra.Command, args []string) error { return runflags.OneWorkload(cmd.Name(), args) },
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "sysbench" {
				return usagef("--format %q is not valid; use text or sysbench", format)
			}
			ctx, stop := interruptContext(env)
			defer stop()
			wl, tgt, err := openForTables(ctx, env, cmd, args[0], files, props, targetURL, &cql, timeout.D, threads)
			if err != nil {
				return err
			}
			defer tgt.Close()
			req := engine.CleanupRequest{AllowForeign: allowForeign, Quiet: quiet, Sysbench: format == "sysbench"}
			if req.Sysbench {
				req.Connected = func() { report.SysbenchBanner(env.Stdout) }
			}
			return engine.Cleanup(ctx, env.Stdout, env.Stderr, tgt, wl, req)
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
	runflags.AddCQL(fl, &cql)
	runflags.AddWorkloadOptions(fl)
	return cmd
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
