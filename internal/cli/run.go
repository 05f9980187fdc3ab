package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/candor-bench/candor/internal/engine"
	"github.com/candor-bench/candor/internal/report"
	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/runflags"
	"github.com/candor-bench/candor/internal/runner"
	"github.com/candor-bench/candor/internal/workload"
)

const (
	phaseRun  = engine.PhaseRun
	phaseLoad = engine.PhaseLoad
)

// DefaultTarget is used when --target is not given: an embedded SQLite file in
// the working directory.
const DefaultTarget = engine.DefaultTarget

func newRunCmd(env *Env, phase string) *cobra.Command {
	cmd, _ := runCmd(env, phase)
	return cmd
}

// runCmd is the run (or load) command and the flags it parses into.
func runCmd(env *Env, phase string) (*cobra.Command, *runflags.Flags) {
	var f *runflags.Flags
	cmd := &cobra.Command{
		Use:  phase + " WORKLOAD",
		Args: func(cmd *cobra.Command, args []string) error { return runflags.OneWorkload(cmd.Name(), args) },
		RunE: func(cmd *cobra.Command, args []string) error {
			spec, err := f.Spec(cmd.Flags(), phase, args[0])
			if err != nil {
				return err
			}
			return runSpec(env, spec)
		},
	}
	if phase == phaseLoad {
		cmd.Aliases = []string{"prepare"} // as sysbench users type it
	}
	if phase == phaseRun {
		cmd.Short = "Run a workload's measured phase (loading its data first when its table is absent)"
		cmd.Example = `  candor run ycsb/a
  candor run ycsb -P workloads/workloada --target postgres://user@127.0.0.1:5432/db --threads 16 --time 60s
  candor run ycsb/c --rate 2000 --arrival poisson --time 2m --warmup 10s --format ycsb`
	} else {
		cmd.Short = "Create a workload's tables and load its initial data"
		cmd.Example = `  candor load ycsb/a --target postgres://user@127.0.0.1:5432/db --threads 8
  candor load ycsb -P workloads/workloada -p recordcount=1000000 -p insertstart=0 -p insertcount=500000`
	}
	f = runflags.Add(cmd.Flags(), phase)
	return cmd, f
}

// runSpec runs spec with the terminal as its display, interruptible.
func runSpec(env *Env, spec engine.Spec) error {
	ctx, stop := interruptContext(env)
	defer stop()
	_, err := engine.Run(ctx, engineEnv(env), spec)
	return err
}

// engineEnv is the engine's view of the process: its streams, the command
// line and the terminal display.
func engineEnv(env *Env) *engine.Env {
	return &engine.Env{Stdout: env.Stdout, Stderr: env.Stderr, StderrTTY: env.StderrTTY, Args: env.Args, Display: &display{env: env}}
}

// display is the terminal side of a run (engine.Display): candor's status
// lines on stderr, or sysbench's header and interval lines on stdout, and
// the summary in the chosen format.
type display struct {
	env *Env
	sb  sysbenchReport
}

func (d *display) Start(r *runner.Runner, s engine.Started) {
	env, f, cfg, wl := d.env, s.Spec, s.Config, s.Workload
	d.sb = sysbenchReportOf(wl, cfg.Seed)
	if pl, ok := wl.(interface{ PrepareLines() []string }); ok && f.Format == "sysbench" && f.Phase == phaseLoad {
		// sysbench's prepare prints its banner first, and its lines per
		// table (printSummary) when the load is done; candor's progress
		// stays on stderr.
		report.SysbenchBanner(env.Stdout)
		d.sb.prepare = pl.PrepareLines()
	}
	switch {
	case f.Format == "sysbench" && f.Phase == phaseRun:
		// sysbench prints its header and interval lines on stdout, and the
		// interval lines only when --report-interval is given (its default
		// is 0); candor still records intervals every second.
		every := 0.0
		if f.ReportInterval != nil {
			every = cfg.ReportInterval.Seconds()
		}
		report.SysbenchHeader(env.Stdout, cfg.Threads, cfg.Rate, every, d.sb.seed)
		pct := d.sb.pct
		r.StatusLine = func(iv result.Interval, threads int) string {
			// sysbench prints a line at each tick of its report timer only:
			// none for the part of an interval left when the phase ends.
			if iv.LengthSec < 0.99*cfg.ReportInterval.Seconds() {
				return ""
			}
			return report.SysbenchIntervalLine(iv, threads, pct)
		}
		if every > 0 && !f.Quiet {
			r.Status = env.Stdout
		}
	case f.Format == "pgbench" && f.Phase == phaseRun:
		// pgbench prints its -P lines on stderr, only when -P is given.
		r.StatusLine = func(iv result.Interval, threads int) string {
			if iv.LengthSec < 0.99*cfg.ReportInterval.Seconds() {
				return ""
			}
			return report.PgbenchProgressLine(iv)
		}
		if f.ReportInterval != nil && !f.Quiet {
			r.Status = env.Stderr
		}
	case !f.Quiet:
		r.Status = env.Stderr
		fp := s.Fingerprint
		threads := fmt.Sprintf("%d threads", cfg.Threads)
		if cfg.Threads == 1 {
			threads = "1 thread" // sysbench's own header ("Number of threads: 1") is kept in sysbench mode
		}
		fmt.Fprintf(env.Stderr, "candor %s %s → %s (%s %s), %s, latency: %s, seed %d\n",
			f.Phase, wl.Name(), fp.URL, fp.Product, fp.Version, threads, runner.LatencyMeasure(cfg.Rate), cfg.Seed)
	}
}

func (d *display) Summary(f engine.Finished) error {
	if f.Err != nil {
		d.sb.fatal = sysbenchFatal(f.Target, f.Err)
	}
	return printSummary(d.env, f.Spec.Format, f.Result, d.sb)
}

// sysbenchReportOf is what a workload asks of sysbench-format reports:
// sysbench's --percentile (95 for workloads without one; 0 = none),
// --histogram, and the seed its header names (--rand-seed when the workload
// has one, else the run seed).
func sysbenchReportOf(wl workload.Workload, runSeed int64) sysbenchReport {
	sb := sysbenchReport{pct: 95, seed: runSeed}
	if p, ok := wl.(interface{ ReportPercentile() float64 }); ok {
		sb.pct = p.ReportPercentile()
	}
	if h, ok := wl.(interface{ ReportHistogram() bool }); ok {
		sb.histogram = h.ReportHistogram()
	}
	if s, ok := wl.(interface{ ReportSeed() int64 }); ok && s.ReportSeed() != 0 {
		sb.seed = s.ReportSeed()
	}
	return sb
}
