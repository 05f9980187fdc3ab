package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/candor-bench/candor/internal/engine"
	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/runner"
	"github.com/candor-bench/candor/internal/stats"
	"github.com/candor-bench/candor/internal/tables"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

const (
	phaseRun  = "run"
	phaseLoad = "load"
)

// DefaultTarget is used when --target is not given: an embedded SQLite file in
// the working directory.
const DefaultTarget = "sqlite://candor.db"

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
	planName       string
	planFile       string
	planCell       string
	planParams     []string
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
	planSetup       bool
	shard           shardFlags   // --shard, --start-at, --run-id (shard.go)
	observe         observeFlags // observe.go
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
	f := &runFlags{}
	f.reportInterval.d = time.Second
	f.connectTimeout.d = target.DefaultConnectTimeout
	f.maxErrorRate.v = runner.DefaultMaxErrorRate
	cmd := &cobra.Command{
		Use:  phase + " WORKLOAD",
		Args: oneWorkload,
		RunE: func(cmd *cobra.Command, args []string) error {
			return execute(env, cmd.Flags(), phase, args[0], f)
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
	fl.StringVar(&f.format, "format", "text", "final summary on stdout: text, ycsb (YCSB's [OVERALL]/[READ] lines), sysbench (sysbench 1.0.20's report and interval lines) or json (the result)")
	fl.Var(&f.connectTimeout, "connect-timeout", "give up connecting after this long")
	fl.StringVar(&f.isolation, "isolation", "", "transaction isolation of every session: read-uncommitted, read-committed, repeatable-read or serializable (default: the server's)")
	fl.BoolVar(&f.allowForeign, "allow-foreign-tables", false, "use (and with --load=always drop) tables candor did not create")
	fl.IntVar(&f.batch, "batch-size", runner.DefaultLoadBatch, "rows per load batch (COPY on PostgreSQL, multi-row INSERT elsewhere; sysbench on MariaDB: a whole table unless given)")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "no status lines or progress bar")
	addCQLFlags(fl, &f.cql)
	if phase == phaseRun {
		// Set by `candor plan run` to name the plan and cell in the result.
		fl.StringVar(&f.planName, "plan-name", "", "plan this run belongs to")
		fl.StringVar(&f.planFile, "plan-file", "", "plan file")
		fl.StringVar(&f.planCell, "plan-cell", "", "plan cell")
		fl.StringArrayVar(&f.planParams, "plan-param", nil, "plan cell parameter key=value")
		fl.BoolVar(&f.planSetup, "plan-target-setup", false, "the plan's setup commands started the target for this cell")
		for _, n := range []string{"plan-name", "plan-file", "plan-cell", "plan-param", "plan-target-setup"} {
			fl.MarkHidden(n)
		}
	}
	addShardFlags(fl, &f.shard)
	addObserveFlags(fl, &f.observe)
	addWorkloadFlags(fl)
	return cmd
}

// runConfig merges flags with the workload's own limits: flags win.
func runConfig(fs *pflag.FlagSet, phase string, f *runFlags, lim workload.Limits) (runner.Config, error) {
	cfg := runner.Config{
		Threads: f.threads, Duration: f.duration.d, Operations: f.operations, Warmup: f.warmup.d,
		Rate: f.rate, Arrival: f.arrival, Retries: f.retries, ReportInterval: f.reportInterval.d,
		Seed: f.seed, LoadBatch: f.batch, LoadRetries: f.retries, RetryInterval: time.Second,
		SessionIO: target.SessionIO(f.sessionIO), MaxErrorRate: f.maxErrorRate.v,
	}
	if !fs.Changed("retries") && lim.LoadRetries > 0 {
		cfg.LoadRetries, cfg.RetryInterval = lim.LoadRetries, lim.LoadRetryInterval
	}
	if !fs.Changed("threads") {
		cfg.Threads = max(lim.Threads, 1)
	}
	if lim.FixedOperations && lim.Threads > 0 && fs.Changed("threads") && f.threads != lim.Threads {
		return cfg, usagef("this workload runs one worker per job (%d): set --jobs instead of --threads", lim.Threads)
	}
	if !fs.Changed("retries") && lim.Retries != 0 {
		cfg.Retries = lim.Retries
	}
	cfg.RetryClasses = lim.RetryClasses
	cfg.StopOnError = lim.StopOnError
	cfg.SharedOperations = lim.SharedOperations
	if phase == phaseRun {
		if !fs.Changed("time") && lim.Duration > 0 {
			cfg.Duration = lim.Duration
		}
		// A --time given alone means "run this long": a property file's
		// operationcount (1000 in YCSB's files) would end it early.
		if !fs.Changed("operations") && !fs.Changed("events") && (!fs.Changed("time") || lim.FixedOperations) {
			cfg.Operations = lim.Operations
		}
		if !fs.Changed("rate") && lim.Rate > 0 {
			cfg.Rate = lim.Rate
		}
	}
	if !fs.Changed("seed") {
		cfg.Seed = time.Now().UnixNano() & 0x7fffffffffff
	}
	if fs.Changed("batch-size") && f.batch <= 0 {
		return cfg, usagef("--batch-size must be at least 1 (got %d)", f.batch)
	}
	if !fs.Changed("batch-size") {
		cfg.LoadBatch = 0 // the runner's default or the workload's preference
	}
	if f.format != "text" && f.format != "ycsb" && f.format != "json" && f.format != "sysbench" {
		return cfg, usagef("--format %q is not valid; use text, ycsb, sysbench or json", f.format)
	}
	if phase == phaseRun && f.repeat < 1 {
		return cfg, usagef("--repeat must be at least 1 (got %d)", f.repeat)
	}
	if phase == phaseRun && f.load != "auto" && f.load != "always" && f.load != "never" {
		return cfg, usagef("--load %q is not valid; use auto, always or never", f.load)
	}
	if err := target.ValidIsolation(f.isolation); err != nil {
		return cfg, withCode(ExitUsage, fmt.Errorf("--isolation: %w", err))
	}
	if err := f.shard.apply(&cfg, phase); err != nil {
		return cfg, err
	}
	if err := cfg.Validate(); err != nil {
		return cfg, withCode(ExitUsage, err)
	}
	if phase == phaseRun && cfg.Duration == 0 && cfg.Operations == 0 {
		return cfg, usagef("the run has no end: give --time or --operations (or operationcount / maxexecutiontime properties)")
	}
	return cfg, nil
}

// execute is the whole of `candor run` and `candor load`, step by step.
func execute(env *Env, fs *pflag.FlagSet, phase, name string, f *runFlags) error {
	if err := f.shard.parse(env.Args); err != nil {
		return err
	}
	wl, err := workloadOf(env, fs, name, f)
	if err == nil && phase == phaseLoad {
		wl, err = shardLoadWorkload(env, fs, name, f, wl)
	}
	if err != nil {
		return err
	}
	cfg, err := runConfig(fs, phase, f, wl.Limits())
	if err != nil {
		return err
	}
	if err := checkOut(f.out); err != nil {
		return err
	}
	if f.targets, err = f.cql.apply(fs, f.targets); err != nil {
		return err
	}
	obs, err := listenMetrics(env, &f.observe, f.quiet)
	if err != nil {
		return err
	}
	defer obs.close(env)
	fr, urls, err := prepareFaults(fs, phase, f, wl, cfg)
	if err != nil {
		return err
	}
	defer fr.Close()
	if len(fr.schedule) > 0 || f.targetRole == rolePrimary {
		cfg.MaxReconnectBackoff = faultReconnectBackoff // the RTO includes the back-off
	}
	ctx, stop := interruptContext(env)
	defer stop()
	tgt, fp, err := openTarget(ctx, phase, urls, f, wl, cfg)
	if err != nil {
		return err
	}
	defer tgt.Close()
	if phase == phaseLoad {
		if err := f.shard.wait(ctx, env, f.quiet); err != nil {
			return err
		}
	}
	tbl, err := prepareTables(ctx, tgt, wl, phase, f, loadWith(fp, cfg, wl), env.Stderr)
	if err != nil {
		return err
	}
	defer tbl.Close()
	res := newRunResult(env, phase, wl, cfg, fp, tgt, f, tbl.Reused)
	recordLoadedWith(res, tbl.LoadedWith)
	f.shard.record(ctx, res, tgt)
	out, err := openResultFile(f.out, wl, phase, res)
	if err != nil {
		return err
	}
	defer out.side.Close()
	r, sb := newRunner(env, fs, phase, f, tgt, wl, cfg, fp, out)
	obs.start(ctx, &f.observe, r, tgt, wl, res, tbl.Load)

	runErr := loadTables(ctx, r, tgt, wl, tbl, res, name)
	if runErr == nil && phase == phaseRun {
		obs.beginRun(wl)
		runErr = runRepetitions(ctx, env, r, tgt, wl, tbl, res, f, fr, out.path)
	}
	obs.finish(res)
	setStatus(ctx, res, runErr)
	if runErr != nil {
		sb.fatal = sysbenchFatal(tgt, runErr)
	}
	err = finish(ctx, env, f.format, res, sb, out.path, runErr)
	obs.linger(ctx, env, &f.observe, f.quiet)
	return err
}

// workloadOf builds the workload from its name, its option flags, files and
// properties.
func workloadOf(env *Env, fs *pflag.FlagSet, name string, f *runFlags) (workload.Workload, error) {
	flagProps, err := workloadFlagProps(fs, name)
	if err != nil {
		return nil, err
	}
	props := append(append([]string(nil), flagProps...), f.props...)
	if fs.Changed("operations") || fs.Changed("events") {
		// As YCSB's -p operationcount=N: the workload sizes its key space
		// from it (the zipfian room for new keys).
		props = append(props, "operationcount="+strconv.FormatInt(f.operations, 10))
	}
	return resolveWorkload(env, name, f.files, props)
}

// checkOut refuses, before anything runs, an --out that cannot receive the
// result: a directory, a path under a file, or a directory candor cannot
// create or write in. A missing directory is created, as the result's
// writer always did (plans name files in directories they have yet to
// make). "" is the default path, checked when it is made.
func checkOut(out string) error {
	if out == "" {
		return nil
	}
	if st, err := os.Stat(out); err == nil && st.IsDir() {
		return usagef("--out %s is a directory: name a file, for instance --out %s", out, filepath.Join(out, "result.json"))
	}
	dir := filepath.Dir(out)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return usagef("--out %s: cannot create directory %s: %v; choose another path", out, dir, err)
	}
	// The result is written to a temporary file in the same directory and
	// renamed: the directory must take a new file.
	probe, err := os.CreateTemp(dir, ".candor-probe-*")
	if err != nil {
		return usagef("--out %s: cannot write in %s: %v; choose another path", out, dir, err)
	}
	probe.Close()
	os.Remove(probe.Name())
	return nil
}

// openTarget opens the target bound to wl and reads its fingerprint. A run
// refuses a --session-io the target cannot honour before any table is
// created or loaded.
func openTarget(ctx context.Context, phase string, urls []string, f *runFlags, wl workload.Workload, cfg runner.Config) (target.Target, target.Fingerprint, error) {
	tgt, err := openBound(ctx, urls, target.Options{ConnectTimeout: f.connectTimeout.d, Isolation: f.isolation}, wl, cfg.Threads)
	if err != nil {
		return nil, target.Fingerprint{}, err
	}
	if phase == phaseRun {
		if _, err := cfg.ChooseSessionIO(tgt); err != nil {
			tgt.Close()
			return nil, target.Fingerprint{}, withCode(ExitUnsupported, fmt.Errorf("%s: %w", tgt.Driver(), err))
		}
	}
	fp, err := tgt.Fingerprint(ctx)
	if err != nil {
		tgt.Close()
		code := ExitUnreachable
		if errors.Is(err, target.ErrUnsupported) || errors.Is(err, target.ErrForeignTable) {
			// A keyspace with another replication than asked, or one
			// candor did not create: a safety refusal.
			code = ExitUnsupported
		}
		return nil, target.Fingerprint{}, withCode(code, fmt.Errorf("read the target's fingerprint: %w", err))
	}
	return tgt, fp, nil
}

// prepareTables readies the workload's tables (internal/tables): ownership,
// reuse, reload, locks. The caller closes the session at the end of the
// command, which releases the tables' locks.
func prepareTables(ctx context.Context, tgt target.Target, wl workload.Workload, phase string, f *runFlags, with map[string]string, status io.Writer) (*tables.Session, error) {
	s, err := tables.Prepare(ctx, tgt, wl, tables.Request{LoadPhase: phase == phaseLoad, Mode: f.load,
		Shard: phase == phaseLoad && f.shard.count > 1, AllowForeign: f.allowForeign, Status: status, LoadWith: with})
	if err != nil {
		return nil, tablesError(ctx, err)
	}
	return s, nil
}

// tablesError gives an error of internal/tables its exit code.
func tablesError(ctx context.Context, err error) error {
	switch tables.KindOf(err) {
	case tables.Refused:
		return withCode(ExitUnsupported, err)
	case tables.Unreachable:
		return withCode(ExitUnreachable, err)
	case tables.Interrupted:
		return &ExitError{Code: ExitInterrupted, Err: err}
	case tables.Failed:
		return withCode(ExitRunFailed, err)
	}
	if ctx.Err() != nil {
		return &ExitError{Code: ExitInterrupted, Err: errInterrupted}
	}
	return err
}

// newRunResult is the result skeleton of this command: what it runs, where,
// with which options, and which tables it reuses.
func newRunResult(env *Env, phase string, wl workload.Workload, cfg runner.Config, fp target.Fingerprint, tgt target.Target, f *runFlags, reused []string) *result.Result {
	res := newResult(env, wl, cfg, fp, tgt.Capabilities())
	if phase == phaseRun {
		res.Run.MaxErrorRate = &cfg.MaxErrorRate
	}
	res.Workload.ReusedTables = reused
	res.Run.Isolation = f.isolation
	if f.planName != "" {
		res.Plan = &result.PlanRef{Name: f.planName, File: f.planFile, Cell: f.planCell, Params: map[string]string{}, TargetSetup: f.planSetup}
		for _, kv := range f.planParams {
			k, v, _ := strings.Cut(kv, "=")
			res.Plan.Params[k] = engine.RedactParam(k, v)
		}
	}
	return res
}

// resultFile is where a command's result goes, and its interval side file.
type resultFile struct {
	path string
	side *result.SideFile
	// sideErr is the first error appending to the side file; reported
	// once on stderr, when it happens.
	sideErr  error
	sideOnce sync.Once
}

// openResultFile names the result file (--out, or a new default name) and
// creates its side file.
func openResultFile(out string, wl workload.Workload, phase string, res *result.Result) (*resultFile, error) {
	rf := &resultFile{path: out}
	var err error
	if out == "" {
		base := filepath.Join("results", fmt.Sprintf("%s-%s-%s", strings.ReplaceAll(wl.Name(), "/", "-"), phase, res.Started.Format("20060102-150405")))
		rf.path, rf.side, err = newResultFile(base, res)
	} else {
		rf.side, err = result.CreateSideFile(result.IntervalsPath(out), res)
	}
	if err != nil {
		return nil, withCode(ExitUsage, fmt.Errorf("cannot write results next to %s: %w (choose another --out)", rf.path, err))
	}
	return rf, nil
}

// appendInterval adds iv to the side file. The first failure is said once
// on stderr; the run goes on, and the result file holds every interval.
func (rf *resultFile) appendInterval(env *Env, iv result.Interval) {
	if err := rf.side.Append(iv); err != nil {
		rf.sideOnce.Do(func() {
			rf.sideErr = err
			fmt.Fprintf(env.Stderr, "candor: writing interval records to %s failed: %v; the run goes on, and the result file will hold every interval\n", result.IntervalsPath(rf.path), err)
		})
	}
}

// newRunner sets up the runner with its status output: candor's status
// lines on stderr, or sysbench's header and interval lines on stdout.
func newRunner(env *Env, fs *pflag.FlagSet, phase string, f *runFlags, tgt target.Target, wl workload.Workload, cfg runner.Config, fp target.Fingerprint, out *resultFile) (*runner.Runner, *sysbenchReport) {
	r := &runner.Runner{Target: tgt, Workload: wl, Config: cfg, StatusTTY: env.StderrTTY, Problems: env.Stderr,
		Intervals: func(iv result.Interval) { out.appendInterval(env, iv) }}
	sb := sysbenchReportOf(wl, cfg.Seed)
	if pl, ok := wl.(interface{ PrepareLines() []string }); ok && f.format == "sysbench" && phase == phaseLoad {
		// sysbench's prepare prints its banner first, and its lines per
		// table (printSummary) when the load is done; candor's progress
		// stays on stderr.
		sysbenchFormatBanner(env.Stdout)
		sb.prepare = pl.PrepareLines()
	}
	switch {
	case f.format == "sysbench" && phase == phaseRun:
		// sysbench prints its header and interval lines on stdout, and the
		// interval lines only when --report-interval is given (its default
		// is 0); candor still records intervals every second.
		every := 0.0
		if fs.Changed("report-interval") {
			every = cfg.ReportInterval.Seconds()
		}
		sysbenchHeader(env.Stdout, cfg.Threads, cfg.Rate, every, sb.seed)
		r.StatusLine = func(iv result.Interval, threads int) string {
			// sysbench prints a line at each tick of its report timer only:
			// none for the part of an interval left when the phase ends.
			if iv.LengthSec < 0.99*cfg.ReportInterval.Seconds() {
				return ""
			}
			return sysbenchIntervalLine(iv, threads, sb.pct)
		}
		if every > 0 && !f.quiet {
			r.Status = env.Stdout
		}
	case !f.quiet:
		r.Status = env.Stderr
		fmt.Fprintf(env.Stderr, "candor %s %s → %s (%s %s), %d threads, latency: %s, seed %d\n",
			phase, wl.Name(), fp.URL, fp.Product, fp.Version, cfg.Threads, runner.LatencyMeasure(cfg.Rate), cfg.Seed)
	}
	return r, &sb
}

// loadTables runs the load phase when the tables need one, then the
// workload's post-load step, and records in the tables' marks that their
// load finished. A load that fails or is interrupted leaves them marked
// unfinished: a later run reloads them, never measures them.
func loadTables(ctx context.Context, r *runner.Runner, tgt target.Target, wl workload.Workload, tbl *tables.Session, res *result.Result, name string) error {
	if !tbl.Load {
		return nil
	}
	p, err := r.Load(ctx)
	if p != nil {
		res.Phases = append(res.Phases, *p)
	}
	if err != nil && tgt.Classify(err) == target.ClassConstraint {
		err = fmt.Errorf("%w\nthe table already holds some of these keys: run 'candor cleanup %s' (same --target) first, or load another insertstart/insertcount slice", err, name)
	}
	if err != nil || p == nil || p.Status != result.StatusComplete || ctx.Err() != nil {
		return err
	}
	if pl, ok := wl.(workload.PostLoader); ok {
		if err := postLoad(ctx, tgt, pl); err != nil {
			return err
		}
	}
	if err := tbl.MarkLoaded(ctx); err != nil {
		return fmt.Errorf("recording that the load finished: %w", err)
	}
	return nil
}

// runRepetitions runs the measured phase --repeat times, each from its own
// seed, with fresh tables before each repetition after the first for
// workloads that need them (commit-loop), and the statistics over the
// repetitions that completed.
func runRepetitions(ctx context.Context, env *Env, r *runner.Runner, tgt target.Target, wl workload.Workload, tbl *tables.Session, res *result.Result, f *runFlags, fr *faultRun, outPath string) error {
	if err := claimLedger(ctx, fr, tgt, wl, ledgerOwnerOf(res, f, 1)); err != nil {
		return err // before Hold: the shards that join the table find its owner
	}
	if err := tbl.Hold(ctx); err != nil {
		return tablesError(ctx, err)
	}
	if pr, ok := wl.(workload.PreRunner); ok {
		if err := preRun(ctx, tgt, pr); err != nil {
			if errors.Is(err, target.ErrUnsupported) {
				return withCode(ExitUnsupported, err) // a refusal; else the phase's codes
			}
			return err
		}
	}
	if err := f.shard.wait(ctx, env, f.quiet); err != nil {
		return err
	}
	var ledgerDir string
	r.PhaseHook = fr.hook(env, f.quiet, func() string { return ledgerDir })
	seed := r.Config.Seed
	var runs []result.Phase
	var runErr error
	for rep := 1; runErr == nil && ctx.Err() == nil && rep <= f.repeat; rep++ {
		if rep > 1 {
			if err := tbl.Reset(ctx); err != nil {
				runErr = tablesError(ctx, err)
				break
			}
			if runErr = loadTables(ctx, r, tgt, wl, tbl, res, wl.Name()); runErr != nil || ctx.Err() != nil {
				break
			}
			if runErr = claimLedger(ctx, fr, tgt, wl, ledgerOwnerOf(res, f, rep)); runErr != nil {
				break
			}
		}
		r.Config.Seed = seed + int64(rep-1)*1_000_003
		if f.repeat > 1 && !f.quiet && f.format != "sysbench" {
			fmt.Fprintf(env.Stderr, "repetition %d of %d\n", rep, f.repeat)
		}
		if fr.ledger {
			ledgerDir = ledgerDirOf(outPath, rep, f.repeat)
			r.Config.LedgerDir = ledgerDir
			if runErr = startLedger(ledgerDir, ledgerOwnerOf(res, f, rep)); runErr != nil {
				break
			}
		}
		var p *result.Phase
		p, runErr = r.Run(ctx)
		if p == nil {
			continue
		}
		p.Faults = fr.takeEvents()
		if fr.ledger && ctx.Err() == nil {
			p.Ledger = accountLedger(ctx, tgt, wl, runLedgerPhase(outPath, ledgerDir, ledgerOwnerOf(res, f, rep), r.Config, p, fr),
				fr.recovery, func(s string) { fmt.Fprintln(env.Stderr, "candor: "+s) })
		}
		if runErr == nil && ctx.Err() == nil {
			if pr, ok := wl.(workload.PostRunner); ok {
				var err error
				if p.Derived, err = postRun(ctx, tgt, pr); err != nil {
					fmt.Fprintf(env.Stderr, "candor: reading the server's figures after the run: %v\n", err)
				}
			}
		}
		if f.repeat > 1 {
			p.Repetition = rep
		}
		p.Seed = r.Config.Seed
		res.Phases = append(res.Phases, *p)
		runs = append(runs, *p) // stats.Repetitions pools the complete ones
	}
	if len(runs) > 1 {
		res.Repetitions = stats.Repetitions(runs)
	}
	return runErr
}

// setStatus ends the result: failed, interrupted or complete.
func setStatus(ctx context.Context, res *result.Result, runErr error) {
	res.Ended = time.Now()
	// A run phase above the error budget fails the run, without ending the
	// other repetitions.
	overBudget := failedRunPhase(res.Phases)
	switch {
	case ctx.Err() != nil:
		// Before runErr: what fails after an interrupt (the index built
		// after a load, a connection) fails because of it.
		res.Status = result.StatusInterrupted
		res.Error = "interrupted by a signal"
	case runErr != nil:
		res.Status = result.StatusFailed
		res.Error = runErr.Error()
	case overBudget != "":
		res.Status = result.StatusFailed
		res.Error = overBudget
	default:
		res.Status = result.StatusComplete
	}
}

// finish writes the result, prints the summary (also when the result could
// not be written) and returns the command's error with its exit code.
func finish(ctx context.Context, env *Env, format string, res *result.Result, sb *sysbenchReport, outPath string, runErr error) error {
	werr := result.Write(outPath, res)
	if err := printSummary(env, format, res, *sb); err != nil && werr == nil {
		return err
	}
	if werr != nil {
		return &ExitError{Code: ExitResultNotWritten, Err: fmt.Errorf("the result could not be written to %s: %w; the interval records written so far are in %s (JSON lines, one per interval)", outPath, werr, result.IntervalsPath(outPath))}
	}
	fmt.Fprintf(env.Stderr, "result: %s\n", outPath)
	overBudget := failedRunPhase(res.Phases)
	switch {
	case runErr != nil:
		if ctx.Err() != nil {
			return &ExitError{Code: ExitInterrupted, Err: errInterrupted}
		}
		if errors.Is(runErr, runner.ErrDiskSpace) {
			return withCode(ExitUnsupported, runErr)
		}
		return withCode(ExitRunFailed, runErr)
	case ctx.Err() != nil:
		return &ExitError{Code: ExitInterrupted, Err: fmt.Errorf("interrupted; partial result written to %s", outPath)}
	case res.Status == result.StatusInconsistent:
		return withCode(ExitRunFailed, fmt.Errorf("the result breaks the laws of its own arithmetic, so its figures cannot all be true "+
			"(a bug in candor: please report it with %s): %s", outPath, strings.Join(res.BrokenLaws, "; ")))
	case overBudget != "":
		return withCode(ExitRunFailed, fmt.Errorf("the run failed: %s (raise --max-error-rate to accept it)", overBudget))
	}
	if why := unaccountedLedger(res); why != "" {
		return withCode(ExitUnreachable, fmt.Errorf("ledger: no accounting: %s; the run's figures are in %s, and 'candor ledger verify %s' accounts for the writes once the target answers", why, outPath, outPath))
	}
	return nil
}

// newResultFile picks the default result file base.json, or base-2.json,
// base-3.json, ... when an earlier run (of the same second) holds it, and
// creates its side file: results are never overwritten.
func newResultFile(base string, res *result.Result) (string, *result.SideFile, error) {
	for n := 1; ; n++ {
		path := base + ".json"
		if n > 1 {
			path = fmt.Sprintf("%s-%d.json", base, n)
		}
		if _, err := os.Stat(path); err == nil {
			continue
		}
		side, err := result.CreateNewSideFile(result.IntervalsPath(path), res)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return path, side, err
	}
}

func newResult(env *Env, wl workload.Workload, cfg runner.Config, fp target.Fingerprint, caps target.Capabilities) *result.Result {
	now := time.Now()
	return &result.Result{
		Schema:     result.SchemaVersion,
		ID:         result.NewID(now),
		Command:    redactArgs(env.Args, target.Redact),
		Started:    now,
		Provenance: collectProvenance(),
		Target: result.Fingerprint{Driver: fp.Driver, Product: fp.Product, Version: fp.Version, VersionString: fp.VersionString,
			URL: fp.URL, Settings: fp.Settings, Capabilities: &result.Capabilities{Transactions: caps.Transactions,
				CopyFrom: caps.CopyFrom, MultiRowInsert: caps.MultiRowInsert, MaxBindParams: caps.MaxBindParams, Embedded: caps.Embedded,
				TableLoad: caps.TableLoad, QueryLanguage: caps.QueryLanguage}},
		Workload: result.Workload{Name: wl.Name(), Reference: wl.Reference(), Seed: cfg.Seed, Options: wl.Options(),
			Ignored: wl.Ignored(), Ops: wl.Ops()},
		Run: result.RunConfig{Threads: cfg.Threads, DurationSec: cfg.Duration.Seconds(), Operations: cfg.Operations,
			WarmupSec: cfg.Warmup.Seconds(), Rate: cfg.Rate, Arrival: arrivalIf(cfg), Retries: cfg.Retries,
			ReportInterval: cfg.ReportInterval.Seconds(), LoadBatch: int(runner.LoadBatch(cfg, wl)), LatencyMeasure: runner.LatencyMeasure(cfg.Rate)},
	}
}

func arrivalIf(cfg runner.Config) string {
	if cfg.Rate > 0 {
		return cfg.Arrival
	}
	return ""
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

// preRun checks, before the measured phase, that the rows the workload
// addresses are there (workload.PreRunner).
func preRun(ctx context.Context, tgt target.Target, pr workload.PreRunner) error {
	conn, err := tgt.Connect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return pr.PreRun(ctx, conn)
}

// postRun reads a workload's server-side figures after a run.
func postRun(ctx context.Context, tgt target.Target, pr workload.PostRunner) (map[string]float64, error) {
	conn, err := tgt.Connect(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	return pr.PostRun(ctx, conn)
}

// postLoad runs a workload's after-load step (secondary indexes).
func postLoad(ctx context.Context, tgt target.Target, pl workload.PostLoader) error {
	conn, err := tgt.Connect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := pl.PostLoad(ctx, conn); err != nil {
		return fmt.Errorf("after the load: %w", err)
	}
	return nil
}
