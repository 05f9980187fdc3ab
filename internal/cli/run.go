package cli

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/runner"
	"github.com/candor-bench/candor/internal/stats"
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
}

// flexDuration accepts Go durations ("90s", "1m30s") and bare seconds as
// sysbench and YCSB users type them ("90").
type flexDuration struct{ d time.Duration }

func (f *flexDuration) String() string { return f.d.String() }
func (f *flexDuration) Type() string   { return "duration" }
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
		fl.StringVar(&f.load, "load", "auto", "load phase before the run: auto (when the table is absent), always (drop candor's table and reload), never")
		fl.StringVar(&f.sessionIO, "session-io", string(target.IOAuto), "how PostgreSQL- and MySQL-wire sessions wait for replies: blocking (a thread each, as libpq), poller (Go's network poller) or auto (by sessions per core; recorded as client.session_io)")
		fl.Var(&f.maxErrorRate, "max-error-rate", maxErrorRateUsage)
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
	if phase == phaseRun {
		// Set by `candor plan run` to name the plan and cell in the result.
		fl.StringVar(&f.planName, "plan-name", "", "plan this run belongs to")
		fl.StringVar(&f.planFile, "plan-file", "", "plan file")
		fl.StringVar(&f.planCell, "plan-cell", "", "plan cell")
		fl.StringArrayVar(&f.planParams, "plan-param", nil, "plan cell parameter key=value")
		for _, n := range []string{"plan-name", "plan-file", "plan-cell", "plan-param"} {
			fl.MarkHidden(n)
		}
	}
	addWorkloadFlags(fl)
	return cmd
}

// addWorkloadFlags offers every workload's options as flags (--tables,
// --table-size, ...); underscores are accepted for dashes, as sysbench does.
func addWorkloadFlags(fl *pflag.FlagSet) {
	fl.SetNormalizeFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		return pflag.NormalizedName(strings.ReplaceAll(name, "_", "-"))
	})
	type use struct{ workload, usage, def string }
	uses := map[string][]use{}
	var order []string
	for _, e := range workload.Entries() {
		for _, o := range e.Options {
			if _, seen := uses[o.Name]; !seen {
				order = append(order, o.Name)
			}
			uses[o.Name] = append(uses[o.Name], use{e.Name, o.Usage, o.Default})
		}
	}
	for _, name := range order {
		if fl.Lookup(name) != nil {
			continue // a clash with a runner flag, caught by a test
		}
		var parts []string
		boolean := true
		for _, u := range uses[name] {
			part := fmt.Sprintf("(%s) %s", u.workload, u.usage)
			if u.def != "" {
				part += " [" + u.def + "]"
			}
			parts = append(parts, part)
			switch strings.ToLower(u.def) {
			case "true", "false", "on", "off":
			default:
				boolean = false
			}
		}
		fl.String(name, "", strings.Join(parts, "; "))
		if boolean {
			fl.Lookup(name).NoOptDefVal = "true" // --in-server alone means true
		}
	}
}

// workloadFlagProps turns the workload option flags that were set into
// name=value properties, refusing options the chosen workload does not have.
func workloadFlagProps(fs *pflag.FlagSet, name string) ([]string, error) {
	entry, _, err := workload.Lookup(name)
	if err != nil {
		return nil, withCode(ExitUsage, err)
	}
	own := map[string]bool{}
	for _, o := range entry.Options {
		own[o.Name] = true
	}
	all := map[string]string{} // option -> a workload that has it
	for _, e := range workload.Entries() {
		for _, o := range e.Options {
			all[o.Name] = e.Name
		}
	}
	var props []string
	var bad []string
	fs.Visit(func(f *pflag.Flag) {
		owner, isOption := all[f.Name]
		switch {
		case !isOption:
		case own[f.Name]:
			props = append(props, f.Name+"="+f.Value.String())
		default:
			bad = append(bad, fmt.Sprintf("--%s is an option of %s, not of %s", f.Name, owner, entry.Name))
		}
	})
	if len(bad) > 0 {
		return nil, usagef("%s", strings.Join(bad, "; "))
	}
	return props, nil
}

// resolveWorkload builds the workload from its name, files and properties.
func resolveWorkload(name string, files, props []string) (workload.Workload, error) {
	entry, variant, err := workload.Lookup(name)
	if err != nil {
		return nil, withCode(ExitUsage, err)
	}
	w, err := entry.New(variant, files, props)
	if err != nil {
		if strings.HasPrefix(err.Error(), name+":") {
			return nil, withCode(ExitUsage, err) // the workload named itself
		}
		return nil, withCode(ExitUsage, fmt.Errorf("workload %s: %w", name, err))
	}
	return w, nil
}

// runConfig merges flags with the workload's own limits: flags win.
func runConfig(fs *pflag.FlagSet, phase string, f *runFlags, lim workload.Limits) (runner.Config, error) {
	cfg := runner.Config{
		Threads: f.threads, Duration: f.duration.d, Operations: f.operations, Warmup: f.warmup.d,
		Rate: f.rate, Arrival: f.arrival, Retries: f.retries, ReportInterval: f.reportInterval.d,
		Seed: f.seed, LoadBatch: f.batch, LoadRetries: f.retries, RetryInterval: time.Second,
		SessionIO: target.SessionIO(f.sessionIO), Transactions: lim.Transactions, MaxErrorRate: f.maxErrorRate.v,
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
	if err := cfg.Validate(); err != nil {
		return cfg, withCode(ExitUsage, err)
	}
	if phase == phaseRun && cfg.Duration == 0 && cfg.Operations == 0 {
		return cfg, usagef("the run has no end: give --time or --operations (or operationcount / maxexecutiontime properties)")
	}
	return cfg, nil
}

// execute is the whole of `candor run` and `candor load`.
func execute(env *Env, fs *pflag.FlagSet, phase, name string, f *runFlags) error {
	flagProps, err := workloadFlagProps(fs, name)
	if err != nil {
		return err
	}
	props := append(append([]string(nil), flagProps...), f.props...)
	if fs.Changed("operations") || fs.Changed("events") {
		// As YCSB's -p operationcount=N: the workload sizes its key space
		// from it (the zipfian room for new keys).
		props = append(append([]string(nil), props...), "operationcount="+strconv.FormatInt(f.operations, 10))
	}
	wl, err := resolveWorkload(name, f.files, props)
	if err != nil {
		return err
	}
	cfg, err := runConfig(fs, phase, f, wl.Limits())
	if err != nil {
		return err
	}
	ctx, stop := interruptContext(env)
	defer stop()
	tgt, err := openBound(ctx, f.targets, target.Options{ConnectTimeout: f.connectTimeout.d, Isolation: f.isolation}, wl, cfg.Threads)
	if err != nil {
		return err
	}
	defer tgt.Close()
	if phase == phaseRun {
		// Refused before any table is created or loaded.
		if _, err := cfg.ChooseSessionIO(tgt); err != nil {
			return withCode(ExitUnsupported, fmt.Errorf("%s: %w", tgt.Driver(), err))
		}
	}
	fp, err := tgt.Fingerprint(ctx)
	if err != nil {
		return withCode(ExitUnreachable, fmt.Errorf("read the target's fingerprint: %w", err))
	}

	doLoad, reused, err := prepareTables(ctx, tgt, wl, phase, f, env.Stderr)
	if err != nil {
		return err
	}

	res := newResult(env, wl, cfg, fp, tgt.Capabilities())
	if phase == phaseRun {
		res.Run.MaxErrorRate = &cfg.MaxErrorRate
	}
	res.Workload.ReusedTables = reused
	res.Run.Isolation = f.isolation
	if f.planName != "" {
		res.Plan = &result.PlanRef{Name: f.planName, File: f.planFile, Cell: f.planCell, Params: map[string]string{}}
		for _, kv := range f.planParams {
			k, v, _ := strings.Cut(kv, "=")
			if k == "target" {
				v = target.Redact(v)
			}
			res.Plan.Params[k] = v
		}
	}
	outPath := f.out
	var side *result.SideFile
	if outPath == "" {
		base := filepath.Join("results", fmt.Sprintf("%s-%s-%s", strings.ReplaceAll(wl.Name(), "/", "-"), phase, res.Started.Format("20060102-150405")))
		outPath, side, err = newResultFile(base, res)
	} else {
		side, err = result.CreateSideFile(result.IntervalsPath(outPath), res)
	}
	if err != nil {
		return withCode(ExitUsage, fmt.Errorf("cannot write results next to %s: %w (choose another --out)", outPath, err))
	}
	defer side.Close()

	r := &runner.Runner{Target: tgt, Workload: wl, Config: cfg, StatusTTY: env.StderrTTY, Problems: env.Stderr,
		Intervals: func(iv result.Interval) { _ = side.Append(iv) }}
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

	var runErr error
	if _, count := wl.LoadRange(); count == 0 {
		doLoad = false // nothing to insert (commit-loop); the schema exists
	}
	if doLoad {
		var p *result.Phase
		p, runErr = r.Load(ctx)
		if p != nil {
			res.Phases = append(res.Phases, *p)
		}
		if runErr != nil && tgt.Classify(runErr) == target.ClassConstraint {
			runErr = fmt.Errorf("%w\nthe table already holds some of these keys: run 'candor cleanup %s' (same --target) first, or load another insertstart/insertcount slice", runErr, name)
		}
	}
	if runErr == nil && doLoad && ctx.Err() == nil {
		if pl, ok := wl.(workload.PostLoader); ok {
			if err := postLoad(ctx, tgt, pl); err != nil {
				runErr = err
			}
		}
	}
	var runs []result.Phase
	for rep := 1; runErr == nil && phase == phaseRun && ctx.Err() == nil && rep <= f.repeat; rep++ {
		// Each repetition draws from its own seed, recorded in its phase.
		r.Config.Seed = cfg.Seed + int64(rep-1)*1_000_003
		if f.repeat > 1 && !f.quiet && f.format != "sysbench" {
			fmt.Fprintf(env.Stderr, "repetition %d of %d\n", rep, f.repeat)
		}
		var p *result.Phase
		p, runErr = r.Run(ctx)
		if p != nil && runErr == nil && ctx.Err() == nil {
			if pr, ok := wl.(workload.PostRunner); ok {
				if p.Derived, err = postRun(ctx, tgt, pr); err != nil {
					fmt.Fprintf(env.Stderr, "candor: reading the server's figures after the run: %v\n", err)
				}
			}
		}
		if p != nil {
			if f.repeat > 1 {
				p.Repetition = rep
			}
			p.Seed = r.Config.Seed
			res.Phases = append(res.Phases, *p)
			runs = append(runs, *p) // stats.Repetitions pools the complete ones
		}
	}
	if len(runs) > 1 {
		res.Repetitions = stats.Repetitions(runs)
	}
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
		sb.fatal = sysbenchFatal(tgt, runErr)
	case overBudget != "":
		res.Status = result.StatusFailed
		res.Error = overBudget
	default:
		res.Status = result.StatusComplete
	}
	if werr := result.Write(outPath, res); werr != nil {
		return withCode(ExitInternal, werr)
	}
	if err := printSummary(env, f.format, res, sb); err != nil {
		return err
	}
	fmt.Fprintf(env.Stderr, "result: %s\n", outPath)
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
	case overBudget != "":
		return withCode(ExitRunFailed, fmt.Errorf("the run failed: %s (raise --max-error-rate to accept it)", overBudget))
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

// prepareTables checks ownership of the workload's tables, creates them when
// needed, and says whether a load phase must run. reused lists the tables a
// run uses as they are though they hold data loaded with other options
// (workload.TableReuser), each as "table: what it holds".
func prepareTables(ctx context.Context, tgt target.Target, wl workload.Workload, phase string, f *runFlags, status io.Writer) (load bool, reused []string, err error) {
	conn, err := tgt.Connect(ctx)
	if err != nil {
		return false, nil, err
	}
	defer conn.Close()
	d := tgt.Dialect()
	reuser, _ := wl.(workload.TableReuser)
	var missing []string
	for _, t := range wl.Schema() {
		table := t.Name
		exists, owned, err := target.TableState(ctx, conn, d, table)
		if err != nil {
			return false, nil, withCode(ExitUnreachable, fmt.Errorf("inspect table %s: %w", table, err))
		}
		if exists && !owned && !f.allowForeign {
			return false, nil, withCode(ExitUnsupported, fmt.Errorf("%w: %s exists but candor did not create it, so candor will not use or change it; "+
				"pass --allow-foreign-tables to use it anyway (for instance a table loaded by YCSB itself), or choose another table name (-p table=...)", target.ErrForeignTable, table))
		}
		fresh := false
		if fs, ok := wl.(workload.FreshSchemer); ok && fs.FreshSchema() && f.load == "auto" {
			fresh = true // the workload needs empty tables at every run
		}
		stale := false
		if exists && owned {
			recorded, _, err := target.TableOwner(ctx, conn, d, table)
			if err != nil {
				return false, nil, withCode(ExitUnreachable, err)
			}
			mark := parseMark(recorded)
			if _, count := wl.LoadRange(); reuser != nil && phase == phaseLoad && (count > 0 || !mark.sameData(wl)) {
				// As sysbench's prepare, whose CREATE TABLE fails on it. A
				// prepare that loads nothing (bulk_insert's CREATE TABLE IF
				// NOT EXISTS) leaves a table of its own shape as it is.
				return false, nil, withCode(ExitUnsupported, fmt.Errorf("table %s already exists (%s): run the tests on it as it is, or 'candor cleanup %s' first to prepare it again", table, mark.holdsText(), wl.Name()))
			}
			if !mark.sameData(wl) {
				switch {
				case mark.servesRun(wl) && phase == phaseRun && f.load != "always":
					fmt.Fprintf(status, "table %s %s: it serves the run as it is, as in %s\n", table, mark.otherData(wl), wl.Reference())
					reused = append(reused, table+": "+mark.holds)
				case phase == phaseLoad || f.load == "never":
					return false, nil, withCode(ExitUnsupported, fmt.Errorf("table %s %s; run 'candor cleanup %s' with those options first, or use 'run --load always'", table, mark.otherData(wl), wl.Name()))
				case f.load == "auto":
					stale = true
					fmt.Fprintf(status, "table %s %s: dropping and reloading it\n", table, mark.otherData(wl))
				}
			}
		}
		if exists && phase == phaseRun && (f.load == "always" || fresh || stale) {
			if err := target.DropOwned(ctx, conn, d, table, f.allowForeign); err != nil {
				return false, nil, withCode(ExitUnsupported, err)
			}
			exists = false
		}
		if !exists {
			missing = append(missing, table)
		}
	}
	if phase == phaseRun && len(missing) > 0 && f.load == "never" {
		verb := "does"
		if len(missing) > 1 {
			verb = "do"
		}
		return false, nil, withCode(ExitUnsupported, fmt.Errorf("table %s %s not exist and --load=never: run 'candor load %s' first", strings.Join(missing, ", "), verb, wl.Name()))
	}
	if len(missing) > 0 {
		if err := createSchema(ctx, conn, tgt, wl); err != nil {
			return false, nil, err
		}
	}
	return phase == phaseLoad || len(missing) > 0, reused, nil
}

// ownerMark is what candor records for a table it creates: the workload and,
// when the workload has one, a hash of its data signature, so a later run
// with other data options (another table size) reloads instead of reusing;
// for a workload.TableReuser also a hash of its shape signature and, in
// words, what the table holds: "sysbench data=... shape=... rows=1000000
// rand-type=special ...".
func ownerMark(wl workload.Workload) string {
	mark := wl.Name()
	if sig := dataSignature(wl); sig != "" {
		mark += " data=" + sig
	}
	if tr, ok := wl.(workload.TableReuser); ok {
		mark += " shape=" + signatureHash(tr.ShapeSignature()) + " " + tr.Holds()
	}
	return mark
}

func dataSignature(wl workload.Workload) string {
	ds, ok := wl.(interface{ DataSignature() string })
	if !ok {
		return ""
	}
	return signatureHash(ds.DataSignature())
}

func signatureHash(sig string) string {
	h := fnv.New64a()
	h.Write([]byte(sig))
	return fmt.Sprintf("%016x", h.Sum64())
}

// tableMark is an ownership mark (ownerMark) taken apart.
type tableMark struct {
	raw   string
	data  string // hash of the data signature; "" when the mark has none
	shape string // hash of the shape signature (workload.TableReuser); "" when none
	holds string // what the table holds, in words, after the shape; "" when none
}

func parseMark(raw string) tableMark {
	m := tableMark{raw: raw}
	for _, w := range strings.Fields(raw) {
		if v, ok := strings.CutPrefix(w, "data="); ok && m.data == "" {
			m.data = v
		} else if v, ok := strings.CutPrefix(w, "shape="); ok && m.shape == "" {
			m.shape = v
		}
	}
	if m.shape != "" {
		_, m.holds, _ = strings.Cut(raw, " shape="+m.shape+" ")
	}
	return m
}

// holdsText is what the mark says its table holds, or the whole mark when
// it does not say.
func (m tableMark) holdsText() string {
	if m.holds != "" {
		return m.holds
	}
	return m.raw
}

// sameData reports whether the table holds the data wl would load; a mark
// without a signature (or no signature to compare) counts as the same.
func (m tableMark) sameData(wl workload.Workload) bool {
	sig := dataSignature(wl)
	return m.data == "" || sig == "" || m.data == sig
}

// sameShape reports whether wl is a workload.TableReuser whose tables have
// the shape the mark records.
func (m tableMark) sameShape(wl workload.Workload) (workload.TableReuser, bool) {
	tr, ok := wl.(workload.TableReuser)
	return tr, ok && m.shape != "" && m.shape == signatureHash(tr.ShapeSignature())
}

// servesRun reports whether the table serves a run of wl as it is: the same
// shape, and wl's Serves accepts what it holds.
func (m tableMark) servesRun(wl workload.Workload) bool {
	tr, same := m.sameShape(wl)
	return same && tr.Serves(m.holds)
}

// otherData says how the data the mark records differs from what wl would
// load: by what it holds, for a workload.TableReuser of the same shape, else
// by the options the shape depends on, else as "holds data loaded with other
// options (...)".
func (m tableMark) otherData(wl workload.Workload) string {
	tr, same := m.sameShape(wl)
	switch {
	case tr == nil || m.shape == "":
		return fmt.Sprintf("holds data loaded with other options (%s)", m.raw)
	case !same:
		var opts []string
		for _, w := range strings.Fields(tr.ShapeSignature()) {
			if k, _, ok := strings.Cut(w, "="); ok && k != "schema" {
				opts = append(opts, "--"+k)
			}
		}
		return fmt.Sprintf("was created for another test kind or with other values of %s (the options its definition depends on)", strings.Join(opts, ", "))
	}
	was, now := wordDiff(m.holds, tr.Holds())
	if was == "" {
		was = m.holds
	}
	if now == "" {
		return "holds " + was
	}
	return fmt.Sprintf("holds %s where this run says %s", was, now)
}

// wordDiff returns the space-separated words of a that b lacks and those of
// b that a lacks.
func wordDiff(a, b string) (onlyA, onlyB string) {
	wa, wb := strings.Fields(a), strings.Fields(b)
	return strings.Join(without(wa, wb), " "), strings.Join(without(wb, wa), " ")
}

func without(words, drop []string) []string {
	var kept []string
	for _, w := range words {
		if !slices.Contains(drop, w) {
			kept = append(kept, w)
		}
	}
	return kept
}

// createSchema creates the workload's missing tables, each marked as candor's.
func createSchema(ctx context.Context, conn target.Conn, tgt target.Target, wl workload.Workload) error {
	for _, t := range wl.Schema() {
		exists, _, err := target.TableState(ctx, conn, tgt.Dialect(), t.Name)
		if err != nil {
			return withCode(ExitUnreachable, err)
		}
		if exists {
			continue
		}
		if err := target.CreateOwned(ctx, conn, tgt.Dialect(), t.Name, t.Create, ownerMark(wl)); err != nil {
			return withCode(ExitRunFailed, fmt.Errorf("create table %s for %s: %w", t.Name, wl.Name(), err))
		}
	}
	return nil
}

func newResult(env *Env, wl workload.Workload, cfg runner.Config, fp target.Fingerprint, caps target.Capabilities) *result.Result {
	now := time.Now()
	return &result.Result{
		Schema:     result.SchemaVersion,
		ID:         fmt.Sprintf("%s-%04x", now.UTC().Format("20060102T150405Z"), rand.Intn(1<<16)),
		Command:    redactArgs(env.Args, target.Redact),
		Started:    now,
		Provenance: collectProvenance(),
		Target: result.Fingerprint{Driver: fp.Driver, Product: fp.Product, Version: fp.Version, VersionString: fp.VersionString,
			URL: fp.URL, Settings: fp.Settings, Capabilities: &result.Capabilities{Transactions: caps.Transactions,
				CopyFrom: caps.CopyFrom, MultiRowInsert: caps.MultiRowInsert, MaxBindParams: caps.MaxBindParams, Embedded: caps.Embedded,
				TableLoad: caps.TableLoad}},
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
