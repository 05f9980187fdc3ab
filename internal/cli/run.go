package cli

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/candor-bench/candor/internal/engine"
	"github.com/candor-bench/candor/internal/report"
	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/runner"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

const (
	phaseRun  = engine.PhaseRun
	phaseLoad = engine.PhaseLoad
)

// DefaultTarget is used when --target is not given: an embedded SQLite file in
// the working directory.
const DefaultTarget = engine.DefaultTarget

// runFlags are the flags of run and load.
type runFlags struct {
	targets        []string
	files          []string
	props          []string
	threads        int
	duration       flexDuration
	operations     int64
	warmup         flexDuration
	rate           float64
	arrival        string
	retries        int
	reportInterval flexDuration
	seed           int64
	out            string
	format         string
	connectTimeout flexDuration
	allowForeign   bool
	isolation      string
	repeat         int
	load           string
	sessionIO      string
	batch          int
	quiet          bool
	maxErrorRate   fractionFlag
	// Faults, fail-over and the durability ledger (faults.go).
	faults          []string
	onFaultError    string
	targetRole      string
	ledger          bool
	recoveryTimeout flexDuration
	viaProxy        bool
	shard           engine.Shard   // --shard, --start-at, --run-id
	observe         engine.Observe // --metrics-addr, --metrics-linger, --server-counters
	cql             cqlFlags
}

// flexDuration accepts Go durations ("90s", "1m30s") and bare seconds as
// sysbench and YCSB users type them ("90").
type flexDuration struct{ d time.Duration }

// String is "0" for no duration, so help shows no default for it (the
// usage text says what an unset value means).
func (f *flexDuration) String() string {
	if f.d == 0 {
		return "0"
	}
	return f.d.String()
}
func (f *flexDuration) Type() string { return "duration" }
func (f *flexDuration) Set(s string) error {
	if secs, err := strconv.ParseFloat(s, 64); err == nil {
		f.d = time.Duration(secs * float64(time.Second))
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q is not a duration: use seconds (60) or a Go duration (60s, 5m)", s)
	}
	f.d = d
	return nil
}

// oneWorkload accepts exactly one argument, the workload. A second one is
// usually the value of an on/off option written with a space (--auto-inc
// off): such options take their value after '=', as in sysbench.
func oneWorkload(cmd *cobra.Command, args []string) error {
	switch {
	case len(args) == 0:
		return usagef("name a workload, e.g. candor %s ycsb/a (candor list workloads shows them all)", cmd.Name())
	case len(args) > 1:
		return usagef("unexpected argument %q after the workload %s; on/off options take their value after '=', as in sysbench (--auto-inc=off)", args[1], args[0])
	}
	return nil
}

func newRunCmd(env *Env, phase string) *cobra.Command {
	cmd, _ := runCmd(env, phase)
	return cmd
}

// runCmd is the run (or load) command and the flags it parses into.
func runCmd(env *Env, phase string) (*cobra.Command, *runFlags) {
	f := &runFlags{}
	f.reportInterval.d = time.Second
	f.connectTimeout.d = target.DefaultConnectTimeout
	f.maxErrorRate.v = runner.DefaultMaxErrorRate
	cmd := &cobra.Command{
		Use:  phase + " WORKLOAD",
		Args: oneWorkload,
		RunE: func(cmd *cobra.Command, args []string) error {
			spec, err := specOf(cmd.Flags(), phase, args[0], f)
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
	fl := cmd.Flags()
	fl.SortFlags = false
	fl.StringArrayVar(&f.targets, "target", nil, "database URL: postgres://user[:password]@host:port/db?sslmode=..., mysql://..., sqlite://PATH, null:// (default "+DefaultTarget+"); repeat it for the nodes of a cluster: worker w uses node w mod n")
	fl.StringArrayVarP(&f.files, "property-file", "P", nil, "YCSB property file (repeatable; read in order)")
	fl.StringArrayVarP(&f.props, "property", "p", nil, "workload property key=value, applied after -P files (repeatable)")
	fl.IntVar(&f.threads, "threads", 0, "workers, one connection each (default: threadcount property, else 1)")
	if phase == phaseRun {
		fl.Var(&f.duration, "time", "measured duration after warm-up, e.g. 60s or 60 (default: maxexecutiontime property)")
		fl.Int64Var(&f.operations, "operations", 0, "total operations (default: operationcount property unless --time is given)")
		fl.Int64Var(&f.operations, "events", 0, "sysbench's name for --operations (events = transactions)")
		fl.Var(&f.warmup, "warmup", "run this long before measuring; excluded from histograms, kept in the time series")
		fl.Float64Var(&f.rate, "rate", 0, "open loop: total operations per second on an absolute schedule; latency counts from the intended start (default: target property, else closed loop)")
		fl.StringVar(&f.arrival, "arrival", runner.ArrivalConstant, "open-loop arrivals: constant or poisson")
		fl.IntVar(&f.repeat, "repeat", 1, "run the measured phase N times (loading once) and report mean, standard deviation and 95% confidence intervals")
		fl.StringVar(&f.load, "load", "auto", "load phase before the run: auto (load when the table is absent, unfinished or holds other data), always (drop candor's table and reload), never (refuse instead of loading)")
		fl.StringVar(&f.sessionIO, "session-io", string(target.IOAuto), "how PostgreSQL- and MySQL-wire sessions wait for replies: blocking (a thread each, as libpq), poller (Go's network poller) or auto (by sessions per core; recorded as client.session_io)")
		fl.Var(&f.maxErrorRate, "max-error-rate", maxErrorRateUsage)
		addFaultFlags(fl, f)
	}
	fl.IntVar(&f.retries, "retries", 0, "extra attempts for serialization/deadlock and connection errors, per operation")
	fl.Var(&f.reportInterval, "report-interval", "length of one interval record and status line")
	fl.Int64Var(&f.seed, "seed", 0, "base random seed (default: random, recorded in the result)")
	fl.StringVarP(&f.out, "out", "o", "", "result file (default results/<workload>-<phase>-<time>.json, -2, -3, ... when taken)")
	fl.StringVar(&f.format, "format", "text", "final summary on stdout: text, ycsb (YCSB's [OVERALL]/[READ] lines), sysbench (sysbench 1.0.20's report and interval lines), pgbench (pgbench 15's report and -P lines) or json (the result)")
	fl.Var(&f.connectTimeout, "connect-timeout", "give up connecting after this long")
	fl.StringVar(&f.isolation, "isolation", "", "transaction isolation of every session: read-uncommitted, read-committed, repeatable-read or serializable (default: the server's)")
	fl.BoolVar(&f.allowForeign, "allow-foreign-tables", false, "use (and with --load=always drop) tables candor did not create")
	fl.IntVar(&f.batch, "batch-size", runner.DefaultLoadBatch, "rows per load batch (COPY on PostgreSQL, multi-row INSERT elsewhere; sysbench on MariaDB: a whole table unless given)")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "no status lines or progress bar")
	addCQLFlags(fl, &f.cql)
	addShardFlags(fl, &f.shard)
	addObserveFlags(fl, &f.observe)
	addWorkloadFlags(fl)
	return cmd, f
}

// specOf is the Spec of a parsed run or load command line: every option
// as given, those not given left to their defaults or to the workload.
func specOf(fs *pflag.FlagSet, phase, name string, f *runFlags) (engine.Spec, error) {
	s := engine.NewSpec(phase, name)
	opts, err := workloadFlagProps(fs, name)
	var ee *ExitError
	if err != nil && !(errors.As(err, &ee) && errors.Is(err, workload.ErrUnknown)) {
		return s, err // an unknown workload is said by the engine, after --shard
	}
	s.Options = opts
	s.PropertyFiles, s.Properties = f.files, f.props
	if s.Targets, err = f.cql.apply(fs, f.targets); err != nil {
		return s, err
	}
	set := func(name string) bool { return fs.Changed(name) }
	if set("threads") {
		s.Threads = &f.threads
	}
	if set("time") {
		s.Duration = &f.duration.d
	}
	if set("operations") || set("events") {
		s.Operations = &f.operations
	}
	if set("rate") {
		s.Rate = &f.rate
	}
	if set("retries") {
		s.Retries = &f.retries
	}
	if set("report-interval") {
		s.ReportInterval = &f.reportInterval.d
	}
	if set("seed") {
		s.Seed = &f.seed
	}
	if set("batch-size") {
		s.LoadBatch = &f.batch
	}
	s.Warmup, s.Arrival, s.ConnectTimeout = f.warmup.d, f.arrival, f.connectTimeout.d
	s.Isolation, s.AllowForeignTables, s.SessionIO = f.isolation, f.allowForeign, f.sessionIO
	s.Repeat, s.Load, s.MaxErrorRate = f.repeat, f.load, f.maxErrorRate.v
	s.Faults, s.OnFaultError, s.TargetRole, s.Ledger = f.faults, f.onFaultError, f.targetRole, f.ledger
	s.RecoveryTimeout, s.ViaProxy = f.recoveryTimeout.d, f.viaProxy
	s.Shard, s.Observe = f.shard, f.observe
	s.Out, s.Format, s.Quiet = f.out, f.format, f.quiet
	return s.Clone(), nil
}

// parseSpec parses the arguments of `candor run` (or load, after the verb)
// into a Spec, as the command would, without running anything.
func parseSpec(env *Env, phase string, args []string) (engine.Spec, error) {
	cmd, f := runCmd(env, phase)
	if err := cmd.ParseFlags(args); err != nil {
		return engine.Spec{}, usagef("%v (see 'candor %s --help')", err, phase)
	}
	pos := cmd.Flags().Args()
	if err := oneWorkload(cmd, pos); err != nil {
		return engine.Spec{}, err
	}
	return specOf(cmd.Flags(), phase, pos[0], f)
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
		fmt.Fprintf(env.Stderr, "candor %s %s → %s (%s %s), %d threads, latency: %s, seed %d\n",
			f.Phase, wl.Name(), fp.URL, fp.Product, fp.Version, cfg.Threads, runner.LatencyMeasure(cfg.Rate), cfg.Seed)
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
