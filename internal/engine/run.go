package engine

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

	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/runner"
	"github.com/candor-bench/candor/internal/stats"
	"github.com/candor-bench/candor/internal/tables"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

// Env is what a run needs of the process that asks for it: where status
// lines go (Stderr; the sysbench format's lines go to Stdout through the
// Display), whether Stderr redraws in place, the command line as typed
// (recorded, redacted, in the result; the shards' derived run id), and the
// Display that prints headers and the summary.
type Env struct {
	Stdout, Stderr io.Writer
	StderrTTY      bool
	Args           []string
	Display        Display
}

// Display is the terminal side of a run, implemented by the CLI.
type Display interface {
	// Start is called once the runner is set up, before any phase: it
	// prints a header and sets r's status output (r.Status, r.StatusLine).
	Start(r *runner.Runner, s Started)
	// Summary prints the finished run's summary, also when its result
	// could not be written.
	Summary(f Finished) error
}

// Started is what a Display learns when a run starts.
type Started struct {
	Spec        *Spec
	Workload    workload.Workload
	Config      runner.Config
	Fingerprint target.Fingerprint
}

// Finished is a run's end: its result, its target and the error that
// ended it (nil: it ran to its end).
type Finished struct {
	Spec     *Spec
	Result   *result.Result
	Workload workload.Workload
	Target   target.Target
	Err      error
}

// Report is how a run ended: its outcome, its result and the result's file
// (nil and "" when it was refused before it began).
type Report struct {
	Outcome Outcome
	Result  *result.Result
	Path    string
}

// Run runs spec step by step: the workload, the checks, the targets, the
// tables, the load, the measured repetitions with their faults and ledger,
// and the result file. The error carries the run's exit code (Code, from
// the outcome: outcomeCodes); a result is written for every run that
// opened its target.
func Run(ctx context.Context, env *Env, spec Spec) (Report, error) {
	rep := Report{Outcome: Refused}
	err := run(ctx, env, spec, &rep)
	return rep, err
}

func run(ctx context.Context, env *Env, spec Spec, rep *Report) error {
	spec = spec.Clone()
	phase := spec.Phase
	rs, err := resolve(env, &spec)
	if err != nil {
		return err
	}
	sh, wl, cfg := rs.shard, rs.workload, rs.cfg
	if err := checkOut(spec.Out); err != nil {
		return err
	}
	obs, err := listenMetrics(env, &spec.Observe, spec.Quiet)
	if err != nil {
		return err
	}
	defer obs.close(env)
	fr, urls, err := prepareFaults(phase, &spec, sh, wl, cfg)
	if err != nil {
		return err
	}
	defer fr.Close()
	if len(fr.schedule) > 0 || spec.TargetRole == RolePrimary {
		cfg.MaxReconnectBackoff = faultReconnectBackoff // the RTO includes the back-off
	}
	tgt, fp, err := openTarget(ctx, phase, urls, &spec, wl, cfg)
	if err != nil {
		return err
	}
	defer tgt.Close()
	if phase == PhaseLoad {
		if err := sh.wait(ctx, env, spec.Quiet); err != nil {
			return err
		}
	}
	tbl, err := prepareTables(ctx, tgt, wl, phase, &spec, sh, loadWith(fp, cfg, wl), env.Stderr)
	if err != nil {
		return err
	}
	defer tbl.Close()
	res, err := newRunResult(env, phase, wl, cfg, fp, tgt, &spec, tbl.Reused)
	if err != nil {
		return err
	}
	recordLoadedWith(res, tbl.LoadedWith)
	sh.record(ctx, res, tgt)
	if phase == PhaseRun && spec.Isolation != "" {
		probeURL := DefaultTarget
		if len(urls) > 0 {
			probeURL = urls[0]
		}
		res.IsolationObserved = observeIsolation(ctx, env.Stderr, spec.Quiet, probeURL, spec.Isolation, fp, tgt.Capabilities(), spec.ConnectTimeout)
	}
	out, err := openResultFile(spec.Out, wl, phase, res)
	if err != nil {
		return err
	}
	defer out.side.Close()
	r := &runner.Runner{Target: tgt, Workload: wl, Config: cfg, StatusTTY: env.StderrTTY, Problems: env.Stderr,
		Intervals: func(iv result.Interval) { out.appendInterval(env, iv) }}
	env.Display.Start(r, Started{Spec: &spec, Workload: wl, Config: cfg, Fingerprint: fp})
	obs.start(ctx, &spec.Observe, r, tgt, wl, res, tbl.Load)

	runErr := loadTables(ctx, r, tgt, wl, tbl, res, spec.Workload)
	if runErr == nil && phase == PhaseLoad && spec.Check && ctx.Err() == nil {
		res.Checks = append(res.Checks, RunChecks(ctx, tgt, wl, "after load", 0, true)...)
	}
	if runErr == nil && phase == PhaseRun {
		obs.beginRun(wl)
		runErr = runRepetitions(ctx, env, r, tgt, wl, tbl, res, &spec, sh, fr, out.path)
	}
	obs.finish(res)
	setStatus(ctx, res, runErr)
	markChecks(res)
	rep.Result, rep.Path = res, out.path
	rep.Outcome, err = finish(ctx, env, Finished{Spec: &spec, Result: res, Workload: wl, Target: tgt, Err: runErr}, out.path)
	obs.linger(ctx, env, &spec.Observe, spec.Quiet)
	return err
}

// resolved is a Spec made concrete: its shard, its workload and the
// runner's configuration.
type resolved struct {
	shard    *ShardRun
	workload workload.Workload
	cfg      runner.Config
}

// resolve checks spec and makes it concrete, without connecting to
// anything: the shard, the workload from its options, the Spec's own checks,
// the seed (drawn when none is given, and set in spec), the configuration
// from the Spec and the workload's limits.
func resolve(env *Env, spec *Spec) (resolved, error) {
	var rs resolved
	sh, err := ParseShard(spec.Shard, env.Args)
	if err != nil {
		return rs, err
	}
	wl, err := workloadOf(env, spec)
	if err == nil && spec.Phase == PhaseLoad {
		wl, err = shardLoadWorkload(env, spec, sh, wl)
	}
	if err != nil {
		return rs, err
	}
	if err := spec.Validate(); err != nil {
		return rs, err
	}
	if err := checkable(spec, wl); err != nil {
		return rs, err
	}
	if spec.Seed == nil {
		seed := time.Now().UnixNano() & 0x7fffffffffff
		spec.Seed = &seed
	}
	cfg, err := runConfig(spec, sh, wl.Limits())
	if err != nil {
		return rs, err
	}
	return resolved{sh, wl, cfg}, nil
}

// Check is every check Run makes of spec before it connects to a target
// (the plans' dry run): nil when the engine would go on to open it.
func Check(env *Env, spec Spec) error {
	spec = spec.Clone()
	_, err := resolve(env, &spec)
	return err
}

// runConfig merges the Spec with the workload's own limits: the Spec's
// values win.
func runConfig(s *Spec, sh *ShardRun, lim workload.Limits) (runner.Config, error) {
	cfg := runner.Config{
		Threads: deref(s.Threads), Duration: deref(s.Duration), Operations: deref(s.Operations), Warmup: s.Warmup,
		Rate: deref(s.Rate), Arrival: s.Arrival, Retries: deref(s.Retries), ReportInterval: DefaultReportInterval,
		Seed: deref(s.Seed), LoadBatch: deref(s.LoadBatch), LoadRetries: deref(s.Retries), RetryInterval: time.Second,
		SessionIO: target.SessionIO(s.SessionIO), Loops: s.Loops, MaxErrorRate: s.MaxErrorRate,
		MaxUnavailable: s.MaxUnavailable,
	}
	if s.ReportInterval != nil {
		cfg.ReportInterval = *s.ReportInterval
	}
	if s.Retries == nil && lim.LoadRetries > 0 {
		cfg.LoadRetries, cfg.RetryInterval = lim.LoadRetries, lim.LoadRetryInterval
	}
	if s.Threads == nil {
		cfg.Threads = max(lim.Threads, 1)
	}
	if lim.FixedOperations && lim.Threads > 0 && s.Threads != nil && *s.Threads != lim.Threads {
		return cfg, usagef("this workload runs one worker per job (%d): set --jobs instead of --threads", lim.Threads)
	}
	if s.Retries == nil && lim.Retries != 0 {
		cfg.Retries = lim.Retries
	}
	cfg.RetryClasses = lim.RetryClasses
	cfg.StopOnError = lim.StopOnError
	cfg.AbortClient = lim.AbortClient
	cfg.SharedOperations = lim.SharedOperations
	cfg.FinishInFlight = lim.FinishInFlight
	if s.Phase == PhaseRun {
		if s.Duration == nil && lim.Duration > 0 {
			cfg.Duration = lim.Duration
		}
		// A --time given alone means "run this long": a property file's
		// operationcount (1000 in YCSB's files) would end it early.
		if s.Operations == nil && (s.Duration == nil || lim.FixedOperations) {
			cfg.Operations = lim.Operations
		}
		if s.Rate == nil && lim.Rate > 0 {
			cfg.Rate = lim.Rate
		}
	}
	if err := sh.apply(&cfg, s.Phase); err != nil {
		return cfg, err
	}
	if err := cfg.Validate(); err != nil {
		return cfg, withCode(ExitUsage, err)
	}
	if s.Phase == PhaseRun && cfg.Duration == 0 && cfg.Operations == 0 {
		return cfg, usagef("the run has no end: give --time or --operations (or operationcount / maxexecutiontime properties)")
	}
	return cfg, nil
}

func deref[T any](p *T) T {
	var v T
	if p != nil {
		v = *p
	}
	return v
}

// workloadOf builds the workload from its name, its options, files and
// properties.
func workloadOf(env *Env, s *Spec) (workload.Workload, error) {
	props := append(append([]string(nil), s.Options...), s.Properties...)
	if s.Operations != nil {
		// As YCSB's -p operationcount=N: the workload sizes its key space
		// from it (the zipfian room for new keys).
		props = append(props, "operationcount="+strconv.FormatInt(*s.Operations, 10))
	}
	w, err := ResolveWorkload(env.Stderr, s.Workload, s.PropertyFiles, props)
	if err != nil {
		return nil, err
	}
	if sw, ok := w.(workload.Scripted); ok {
		if s.Scripts, err = LoadScripts(sw, s.Scripts); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// LoadScripts reads the scripts sw names (recorded ones from recorded)
// and hands them to SetScripts, again while its names grow (the files a
// script requires), and returns what it read.
func LoadScripts(sw workload.Scripted, recorded []workload.Script) ([]workload.Script, error) {
	for {
		names := sw.ScriptNames()
		scripts, err := readScripts(names, recorded)
		if err != nil {
			return nil, err
		}
		if err := sw.SetScripts(scripts); err != nil {
			return nil, withCode(ExitUsage, err)
		}
		if len(sw.ScriptNames()) <= len(names) {
			return scripts, nil
		}
	}
}

// ResolveWorkload builds the workload from its name, files and properties,
// and says on warnings what the workload has to say about its input
// (workload.Warner: unknown property keys, ...).
func ResolveWorkload(warnings io.Writer, name string, files, props []string) (workload.Workload, error) {
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
	if lw, ok := w.(interface{ SetLog(io.Writer) }); ok {
		lw.SetLog(warnings) // what a script logs as it runs (sysbench-lua's Lua errors)
	}
	if wn, ok := w.(workload.Warner); ok {
		for _, msg := range wn.Warnings() {
			fmt.Fprintf(warnings, "candor: %s\n", msg)
		}
	}
	return w, nil
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
func openTarget(ctx context.Context, phase string, urls []string, f *Spec, wl workload.Workload, cfg runner.Config) (target.Target, target.Fingerprint, error) {
	tgt, err := OpenBound(ctx, urls, target.Options{ConnectTimeout: f.ConnectTimeout, Isolation: f.Isolation}, wl, cfg.Threads)
	if err != nil {
		return nil, target.Fingerprint{}, err
	}
	if phase == PhaseRun {
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
func prepareTables(ctx context.Context, tgt target.Target, wl workload.Workload, phase string, f *Spec, sh *ShardRun, with map[string]string, status io.Writer) (*tables.Session, error) {
	s, err := tables.Prepare(ctx, tgt, wl, tables.Request{LoadPhase: phase == PhaseLoad, Mode: f.Load,
		Shard: phase == PhaseLoad && sh.Count > 1, AllowForeign: f.AllowForeignTables, Status: status, LoadWith: with})
	if err != nil {
		return nil, TablesError(ctx, err)
	}
	return s, nil
}

// TablesError gives an error of internal/tables its exit code.
//
// A statement that failed once ctx had ended (Ctrl-C while a table was
// being created) failed because of the interrupt: it is interrupted, not
// failed or unreachable; a refusal stays one.
func TablesError(ctx context.Context, err error) error {
	switch kind := tables.KindOf(err); {
	case kind == tables.Refused:
		return withCode(ExitUnsupported, err)
	case kind == tables.Interrupted:
		return &Error{Code: ExitInterrupted, Err: err}
	case ctx.Err() != nil:
		return &Error{Code: ExitInterrupted, Err: ErrInterrupted}
	case kind == tables.Unreachable:
		return withCode(ExitUnreachable, err)
	case kind == tables.Failed:
		return withCode(ExitRunFailed, err)
	}
	return err
}

// newRunResult is the result skeleton of this command: what it runs, where,
// with which options, and which tables it reuses.
func newRunResult(env *Env, phase string, wl workload.Workload, cfg runner.Config, fp target.Fingerprint, tgt target.Target, f *Spec, reused []string) (*result.Result, error) {
	res := newResult(env, wl, cfg, fp, tgt.Capabilities())
	if phase == PhaseRun {
		res.Run.MaxErrorRate = &cfg.MaxErrorRate
		res.Run.MaxUnavailable = &cfg.MaxUnavailable
	}
	res.Workload.ReusedTables = reused
	res.Run.Isolation = f.Isolation
	if p := f.Plan; p != nil {
		res.Plan = &result.PlanRef{Name: p.Name, File: p.File, Cell: p.Cell, Params: map[string]string{}, TargetSetup: p.TargetSetup}
		for k, v := range p.Params {
			res.Plan.Params[k] = RedactParam(k, v)
		}
	}
	// The Spec as it ran (its seed drawn), secrets redacted.
	red := f.Redacted()
	raw, err := red.JSON()
	if err != nil {
		return nil, fmt.Errorf("recording the run spec: %w", err)
	}
	res.Spec, res.SpecCommand = raw, append([]string{"candor"}, red.Args()...)
	return res, nil
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
		addPhase(res, p)
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
		sayPostLoad(r, wl)
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
func runRepetitions(ctx context.Context, env *Env, r *runner.Runner, tgt target.Target, wl workload.Workload, tbl *tables.Session, res *result.Result, f *Spec, sh *ShardRun, fr *faultRun, outPath string) error {
	if err := claimLedger(ctx, fr, tgt, wl, ledgerOwnerOf(res, sh, 1)); err != nil {
		return err // before Hold: the shards that join the table find its owner
	}
	if err := tbl.Hold(ctx); err != nil {
		return TablesError(ctx, err)
	}
	if pr, ok := wl.(workload.PreRunner); ok {
		if err := preRun(ctx, tgt, pr); err != nil {
			if errors.Is(err, target.ErrUnsupported) {
				return withCode(ExitUnsupported, err) // a refusal; else the phase's codes
			}
			return err
		}
	}
	// The first repetition starts at --start-at, its sessions connected.
	r.Ready = func(ctx context.Context) error { return sh.wait(ctx, env, f.Quiet) }
	var ledgerDir string
	fr.sql = sqlFault(tgt)
	r.PhaseHook = fr.hook(env, f.Quiet, func() string { return ledgerDir })
	var iv *intervalChecks
	if ic, ok := wl.(workload.IntervalChecker); ok {
		iv = &intervalChecks{tgt: tgt, ic: ic, every: r.Config.ReportInterval}
		r.PhaseHook = iv.hook(r.PhaseHook)
	}
	seed := r.Config.Seed
	var runs []result.Phase
	var runErr error
	for rep := 1; runErr == nil && ctx.Err() == nil && rep <= f.Repeat; rep++ {
		if rep > 1 {
			if err := tbl.Reset(ctx); err != nil {
				runErr = TablesError(ctx, err)
				break
			}
			if runErr = loadTables(ctx, r, tgt, wl, tbl, res, wl.Name()); runErr != nil || ctx.Err() != nil {
				break
			}
			if runErr = claimLedger(ctx, fr, tgt, wl, ledgerOwnerOf(res, sh, rep)); runErr != nil {
				break
			}
		}
		r.Config.Seed = seed + int64(rep-1)*1_000_003
		if f.Repeat > 1 && !f.Quiet && f.Format != "sysbench" {
			fmt.Fprintf(env.Stderr, "repetition %d of %d\n", rep, f.Repeat)
		}
		if fr.ledger {
			ledgerDir = ledgerDirOf(outPath, rep, f.Repeat)
			r.Config.LedgerDir = ledgerDir
			if runErr = startLedger(ctx, tgt, wl, ledgerDir, ledgerOwnerOf(res, sh, rep)); runErr != nil {
				break
			}
		}
		if runErr = checkBaseline(ctx, tgt, wl, f); runErr != nil {
			break
		}
		var p *result.Phase
		p, runErr = r.Run(ctx)
		r.Ready = nil
		if p == nil {
			continue
		}
		p.Faults = fr.takeEvents()
		p.IntervalChecks = iv.take()
		p.Isolation = isolationOf(wl, outPath, rep, f.Repeat)
		if fr.ledger && ctx.Err() == nil {
			p.Ledger = accountLedger(ctx, tgt, wl, runLedgerPhase(outPath, ledgerDir, ledgerOwnerOf(res, sh, rep), r.Config, p, fr),
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
		if checking(f, wl) && ctx.Err() == nil && (runErr == nil || p.Status == result.StatusComplete) {
			res.Checks = append(res.Checks, intervalVerdicts(p.IntervalChecks, "during run")...)
			res.Checks = append(res.Checks, RunChecks(ctx, tgt, wl, whenRun(rep, f.Repeat), checkWait(f), f.Check)...)
		}
		derive(wl, p)
		if f.Repeat > 1 {
			p.Repetition = rep
		}
		p.Seed = r.Config.Seed
		addPhase(res, p)
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
	overBudget := FailedRunPhase(res.Phases)
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

// Outcome is how a run ended.
type Outcome string

// A run's outcomes.
const (
	Refused      Outcome = "refused"            // before it began: bad input, an unreachable or unsuitable target (the error's code)
	Completed    Outcome = "complete"           // it ran to its end
	Failed       Outcome = "failed"             // an error ended it (the error's own code when it carries one)
	OutOfSpace   Outcome = "out-of-space"       // the target's disk filled up
	Interrupted  Outcome = "interrupted"        // a signal (or a closed output) ended it; a partial result is written
	Inconsistent Outcome = "inconsistent"       // its result breaks the laws of its own arithmetic
	OverBudget   Outcome = "over-budget"        // a run phase failed more operations than --max-error-rate allows, or was without sessions longer than --max-unavailable
	Unaccounted  Outcome = "ledger-unaccounted" // its ledger's ids could not be read back
	CheckFailed  Outcome = "check-failed"       // it ran to its end and a check of its data failed (--check)
	NotWritten   Outcome = "not-written"        // its result file could not be written
)

// outcomeCodes is the exit code of each outcome: the one table.
var outcomeCodes = map[Outcome]int{
	Refused: ExitUsage, Completed: ExitOK, Failed: ExitRunFailed, OutOfSpace: ExitUnsupported, Interrupted: ExitInterrupted,
	Inconsistent: ExitRunFailed, OverBudget: ExitRunFailed, Unaccounted: ExitUnreachable, NotWritten: ExitResultNotWritten,
	CheckFailed: ExitRunFailed,
}

// ended is the error of outcome o: err with o's code. An interrupt and an
// unwritten result override any code err carries; otherwise a code err
// already carries (a refusal's, a lost target's) stays.
func ended(o Outcome, err error) (Outcome, error) {
	if o == Interrupted || o == NotWritten {
		return o, &Error{Code: outcomeCodes[o], Err: err}
	}
	return o, withCode(outcomeCodes[o], err)
}

// finish writes the result, has the summary printed (also when the result
// could not be written) and returns the run's outcome and error.
func finish(ctx context.Context, env *Env, fin Finished, outPath string) (Outcome, error) {
	res, runErr := fin.Result, fin.Err
	werr := result.Write(outPath, res)
	if err := env.Display.Summary(fin); err != nil && werr == nil {
		return Failed, err
	}
	if werr != nil {
		return ended(NotWritten, fmt.Errorf("the result could not be written to %s: %w; the interval records written so far are in %s (JSON lines, one per interval)", outPath, werr, result.IntervalsPath(outPath)))
	}
	fmt.Fprintf(env.Stderr, "result: %s\n", outPath)
	overBudget := FailedRunPhase(res.Phases)
	switch {
	case runErr != nil:
		if ctx.Err() != nil {
			return ended(Interrupted, ErrInterrupted)
		}
		if errors.Is(runErr, runner.ErrDiskSpace) {
			return ended(OutOfSpace, runErr)
		}
		return ended(Failed, runErr)
	case ctx.Err() != nil:
		return ended(Interrupted, fmt.Errorf("interrupted; partial result written to %s", outPath))
	case res.Status == result.StatusInconsistent:
		return ended(Inconsistent, fmt.Errorf("the result breaks the laws of its own arithmetic, so its figures cannot all be true "+
			"(a bug in candor: please report it with %s): %s", outPath, strings.Join(res.BrokenLaws, "; ")))
	case overBudget != "":
		fix := "raise --max-error-rate to accept it"
		switch {
		case strings.Contains(overBudget, runner.ClientsAborted):
			fix = "the first error names what to fix"
		case strings.Contains(overBudget, "--max-unavailable"):
			fix = "raise --max-unavailable, or set it to 0, to accept it"
		}
		return ended(OverBudget, fmt.Errorf("the run failed: %s (%s)", overBudget, fix))
	case res.Status == result.StatusCheckFailed:
		return ended(CheckFailed, errors.New(res.Error))
	}
	if why := unaccountedLedger(res); why != "" {
		return ended(Unaccounted, fmt.Errorf("ledger: no accounting: %s; the run's figures are in %s, and 'candor ledger verify %s' accounts for the writes once the target answers", why, outPath, outPath))
	}
	return Completed, nil
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
		Command:    RedactArgs(env.Args, target.Redact),
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
