package cli

import (
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/candor-bench/candor/internal/report"
)

// newReportCmd is `candor report PATH...`.
func newReportCmd(env *Env) *cobra.Command {
	var out, format, bundle, site string
	var sitePlans []string
	cmd := &cobra.Command{
		Use:   "report PATH...",
		Short: "Render result files (or directories of them) as a text, Markdown or HTML report",
		Long: `Render one or many result files as a report: per workload a table of throughput and
latency per operation with 95% confidence intervals over repetitions, throughput and p99
curves against threads, latency percentile spectra, errors and retries, throughput and p99
over time for every run (load phases included), the effect of data size when the same plan
ran at two sizes, and the provenance of every input.

PATH is a result file or a directory searched recursively for result files, recognised
by their content (whatever their name); a .json file there that is not a result is
skipped with a warning.
The format follows -o's extension (.md, .html; anything else is text) unless --format
is given; without -o the text report goes to standard output. A Markdown report links
its charts as SVG files written beside it (NAME-figN.svg); an HTML report is one
self-contained file with inline SVG charts that opens offline.

Every report starts with the fairness audit of its results (docs/AUDIT.md).
--bundle DIR writes a directory to publish: report.html, the result files under results/,
the plan file when the results came from a plan, audit.txt and a README.md with the one
command that reruns them (candor rerun). DIR must be new or empty.

A report of results made by a plan whose file carries a published: block starts with the
published claims: per claim the published figure, the measured one with its 95% confidence
interval, and a verdict by its kind (direct: reproduced or not; analog: mechanism seen
here or not; untestable here, with its reason; not run here, with what it needs; or too
wide to call). --site DIR writes one static site of many plans' results: index.html with one row
per claim, and a folder per experiment with its report, audit, results and plan (the
bundle). --plan FILE (repeatable, with --site) lists a plan's claims on the index even
when it has no results here (docs/REPORTS.md, "The published claims site").`,
		Example: `  candor report results/
  candor report results/ -o report.html
  candor report a.json b.json -o report.md
  candor report --site site/ --plan 'experiments/*.yaml' experiments/results/*`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 && !(cmd.Flags().Changed("site") && len(sitePlans) > 0) {
				return usagef("report needs at least one result file or directory (see 'candor report --help')")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			f := report.FormatOf(out)
			if cmd.Flags().Changed("format") {
				var err error
				if f, err = report.ValidFormat(format); err != nil {
					return usagef("--format: %v", err)
				}
			}
			if site != "" {
				return writeSite(env, site, sitePlans, args)
			}
			if len(sitePlans) > 0 {
				return usagef("--plan goes with --site: it lists a plan's claims on the site's index")
			}
			inputs, err := report.LoadWarn(func(w string) { fmt.Fprintf(env.Stderr, "candor report: %s\n", w) }, args...)
			if err != nil {
				return withCode(ExitUsage, err)
			}
			if bundle != "" {
				return writeBundle(env, bundle, inputs)
			}
			m := report.Build(inputs)
			if out == "" || out == "-" {
				if err := report.Write(env.Stdout, m, f); err != nil {
					return withCode(ExitInternal, fmt.Errorf("render report: %w", err))
				}
				return nil
			}
			files, err := report.WriteFile(out, m, f)
			if err != nil {
				return withCode(ExitUsage, fmt.Errorf("write report: %w", err))
			}
			extra := ""
			if n := len(files) - 1; n > 0 {
				extra = fmt.Sprintf(" and %d chart file(s) beside it", n)
			}
			fmt.Fprintf(env.Stderr, "report: %s (%s, %d result file(s))%s\n", out, f, len(inputs), extra)
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "write the report to this file (.md, .html or text); default: text on standard output")
	cmd.Flags().StringVar(&format, "format", "", "report format: text, md or html (default: from -o's extension, else text)")
	cmd.Flags().StringVar(&site, "site", "", "write a static site to this new directory: an index of every published claim with its verdict, and a page, audit and bundle per experiment")
	cmd.Flags().StringArrayVar(&sitePlans, "plan", nil, "with --site: a plan file (or glob) whose claims the index lists even without results here")
	cmd.Flags().StringVar(&bundle, "bundle", "", "write a directory to publish instead: report.html, the results, the plan, the audit and a README with the command that reruns them")
	return cmd
}

// newCompareCmd is `candor compare A B`.
func newCompareCmd(env *Env) *cobra.Command {
	var force bool
	var out, format string
	cmd := &cobra.Command{
		Use:   "compare A B",
		Short: "Compare two results (or directories of repetitions) operation by operation, with a significance test",
		Long: `Compare B against A. A and B are result files or directories holding repetitions of one
configuration each. For the total throughput and, per operation, throughput and p50, p95
and p99 latency, compare prints A and B (mean over the runs with the 95% confidence
interval), the difference in percent with the 95% confidence interval of the ratio B/A (computed
on its log, so above -100%), and a verdict from Welch's t test on that log ratio over the
per-run values (5% level). With a single run on a side the
uncertainty is unknown: repeat the runs (--repeat N) to get a verdict.

A and B must have run the same workload with the same options, run settings (threads,
isolation, rate, duration, ...) and the settings both targets have (synchronous_commit,
isolation, ...); otherwise compare lists every difference and stops with exit code 2.
--force compares anyway and prints the differences as a warning. A different product,
version or endpoint is what is being compared and is only listed, as is a CQL cluster's
shape (nodes, topology, keyspace, replication; its consistency levels and commit log must match).

Runs that did not complete (failed, e.g. above --max-error-rate, or interrupted) are never
pooled with complete ones: they are left out of the figures, and compare says how many and
why on standard error and in its output.

The output is text on standard output, or -o FILE in the format of its extension (.md,
.html; anything else is text) unless --format is given.`,
		Example: `  candor compare results/pg.json results/mysql.json
  candor compare runs/before/ runs/after/
  candor compare runs/before/ runs/after/ -o cmp.html`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usagef("compare needs exactly two arguments, A and B (result files or directories); got %d", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			f := report.FormatOf(out)
			if cmd.Flags().Changed("format") {
				var err error
				if f, err = report.ValidFormat(format); err != nil {
					return usagef("--format: %v", err)
				}
			}
			var sides [2]*report.Side
			for i, name := range []string{"A", "B"} {
				inputs, err := report.Load(args[i])
				if err != nil {
					return withCode(ExitUsage, fmt.Errorf("%s: %w", name, err))
				}
				s, err := report.NewSide(name, inputs)
				if err != nil {
					return withCode(ExitUsage, err)
				}
				sides[i] = s
			}
			if err := report.Distinct(append(slices.Clip(sides[0].Inputs), sides[1].Inputs...)); err != nil {
				return withCode(ExitUsage, fmt.Errorf("A and B: %w", err))
			}
			c := report.Compare(sides[0], sides[1])
			if c.Blocking() && !force {
				return withCode(ExitUsage, c.RefusalError())
			}
			for _, s := range sides {
				if t := s.ExclusionText(); t != "" {
					fmt.Fprintf(env.Stderr, "candor compare: WARNING %s: %s\n", s.Name, t)
				}
			}
			if out == "" || out == "-" {
				return c.Write(env.Stdout, f)
			}
			if err := c.WriteFile(out, f); err != nil {
				return withCode(ExitUsage, fmt.Errorf("write comparison: %w", err))
			}
			fmt.Fprintf(env.Stderr, "compare: %s (%s)\n", out, f)
			return nil
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "compare even when the workload, options or settings differ")
	cmd.Flags().StringVarP(&out, "out", "o", "", "write the comparison to this file (.md, .html or text); default: text on standard output")
	cmd.Flags().StringVar(&format, "format", "", "output format: text, md or html (default: from -o's extension, else text)")
	return cmd
}
