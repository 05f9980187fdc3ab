// Package runflags is the command line of a run: the flags of `candor run`
// and `candor load` on a pflag.FlagSet, and their reading into an
// engine.Spec. The CLI adds them to its commands; a plan reads its cells'
// command lines with Parse and hands the Specs to the engine. It knows no
// cobra and runs nothing.
package runflags

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/spf13/pflag"

	"github.com/candor-bench/candor/internal/engine"
	"github.com/candor-bench/candor/internal/runner"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

// Flags are the values the flags of run and load parse into.
type Flags struct {
	targets        []string
	files          []string
	props          []string
	threads        int
	duration       Duration
	operations     int64
	warmup         Duration
	rate           float64
	arrival        string
	retries        int
	reportInterval Duration
	seed           int64
	out            string
	format         string
	connectTimeout Duration
	allowForeign   bool
	isolation      string
	repeat         int
	load           string
	sessionIO      string
	loops          int
	batch          int
	quiet          bool
	check          bool
	maxErrorRate   Fraction
	maxUnavailable Fraction
	// Faults, fail-over and the durability ledger.
	faults          []string
	onFaultError    string
	targetRole      string
	ledger          bool
	recoveryTimeout Duration
	viaProxy        bool
	shard           engine.Shard   // --shard, --start-at, --run-id
	observe         engine.Observe // --metrics-addr, --metrics-linger, --server-counters
	cql             CQL
}

// Add defines the flags of phase (engine.PhaseRun or PhaseLoad) on fl,
// every workload's options among them (hidden: a command's help shows the
// options of the workload it names), and returns where they parse into.
func Add(fl *pflag.FlagSet, phase string) *Flags {
	f := &Flags{}
	f.reportInterval.D = time.Second
	f.connectTimeout.D = target.DefaultConnectTimeout
	f.maxErrorRate.V = runner.DefaultMaxErrorRate
	f.maxUnavailable.V = runner.DefaultMaxUnavailable
	fl.SortFlags = false
	fl.StringArrayVar(&f.targets, "target", nil, "database URL: postgres://user[:password]@host:port/db?sslmode=..., mysql://..., sqlite://PATH, null:// (default "+engine.DefaultTarget+"); repeat it for the nodes of a cluster: worker w uses node w mod n")
	fl.StringArrayVarP(&f.files, "property-file", "P", nil, "YCSB property file (repeatable; read in order)")
	fl.StringArrayVarP(&f.props, "property", "p", nil, "workload property key=value, applied after -P files (repeatable)")
	fl.IntVar(&f.threads, "threads", 0, "workers, one connection each (default: threadcount property, else 1)")
	if phase == engine.PhaseRun {
		fl.Var(&f.duration, "time", "measured duration after warm-up, e.g. 60s or 60 (default: maxexecutiontime property)")
		fl.Int64Var(&f.operations, "operations", 0, "total operations (default: operationcount property unless --time is given)")
		fl.Int64Var(&f.operations, "events", 0, "sysbench's name for --operations (events = transactions)")
		fl.Var(&f.warmup, "warmup", "run this long before measuring; excluded from histograms, kept in the time series")
		fl.Float64Var(&f.rate, "rate", 0, "open loop: total operations per second on an absolute schedule; latency counts from the intended start (default: target property, else closed loop)")
		fl.StringVar(&f.arrival, "arrival", runner.ArrivalConstant, "open-loop arrivals: constant or poisson")
		fl.IntVar(&f.repeat, "repeat", 1, "run the measured phase N times (loading once) and report mean, standard deviation and 95% confidence intervals")
		fl.StringVar(&f.load, "load", "auto", "load phase before the run: auto (load when the table is absent, unfinished or holds other data), always (drop candor's table and reload), never (refuse instead of loading)")
		fl.StringVar(&f.sessionIO, "session-io", string(target.IOAuto), "how PostgreSQL- and MySQL-wire sessions wait for replies: blocking (a thread each, as libpq), poller (Go's network poller), loop (--loops event loops of candor's own, as pgbench's threads) or auto (by sessions per core, or loop with --loops; recorded as client.session_io)")
		fl.IntVar(&f.loops, "loops", 0, "serve the sessions from N event loops (threads), each running its share of --threads as pgbench's -j threads do (PostgreSQL wire on Linux; with N below --threads; candor pgbench sets it from -j)")
		fl.Var(&f.maxErrorRate, "max-error-rate", MaxErrorRateUsage)
		fl.Var(&f.maxUnavailable, "max-unavailable", MaxUnavailableUsage)
		addFaultFlags(fl, f)
	}
	fl.IntVar(&f.retries, "retries", 0, "extra attempts for serialization/deadlock and connection errors, per operation")
	fl.Var(&f.reportInterval, "report-interval", "length of one interval record and status line")
	fl.Int64Var(&f.seed, "seed", 0, "base random seed (default: random, recorded in the result)")
	fl.StringVarP(&f.out, "out", "o", "", "result file (default results/<workload>-<phase>-<time>.json, -2, -3, ... when taken)")
	fl.StringVar(&f.format, "format", "text", "final summary on stdout: text, ycsb (YCSB's [OVERALL]/[READ] lines), sysbench (sysbench 1.0.20's report and interval lines), pgbench (pgbench 15's report and -P lines) or json (the result)")
	fl.Var(&f.connectTimeout, "connect-timeout", "give up connecting after this long")
	fl.StringVar(&f.isolation, "isolation", "", "transaction isolation of every session: read-uncommitted, read-committed, repeatable-read or serializable (default: the server's); a run probes what it allows (docs/ISOLATION.md)")
	fl.BoolVar(&f.allowForeign, "allow-foreign-tables", false, "use (and with --load=always drop) tables candor did not create")
	fl.IntVar(&f.batch, "batch-size", runner.DefaultLoadBatch, "rows per load batch (COPY on PostgreSQL, multi-row INSERT elsewhere; sysbench on MariaDB: a whole table unless given)")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "no status lines or progress bar")
	fl.BoolVar(&f.check, "check", false, "check the data the "+phase+" left (ids, row counts, invariants; docs/CHECKS.md); a failed check exits 5")
	AddCQL(fl, &f.cql)
	AddShard(fl, &f.shard)
	AddObserve(fl, &f.observe)
	AddWorkloadOptions(fl)
	return f
}

// Spec is the Spec of a parsed run or load command line for the workload
// name: every option as given, those not given left to their defaults or
// to the workload.
func (f *Flags) Spec(fs *pflag.FlagSet, phase, name string) (engine.Spec, error) {
	s := engine.NewSpec(phase, name)
	opts, err := WorkloadOptions(fs, name)
	if err != nil && !errors.Is(err, workload.ErrUnknown) {
		return s, err // an unknown workload is said by the engine, after --shard
	}
	s.Options = opts
	s.PropertyFiles, s.Properties = f.files, f.props
	if s.Targets, err = f.cql.Apply(fs, f.targets); err != nil {
		return s, err
	}
	set := func(name string) bool { return fs.Changed(name) }
	if set("threads") {
		s.Threads = &f.threads
	}
	if set("time") {
		s.Duration = &f.duration.D
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
		s.ReportInterval = &f.reportInterval.D
	}
	if set("seed") {
		s.Seed = &f.seed
	}
	if set("batch-size") {
		s.LoadBatch = &f.batch
	}
	s.Warmup, s.Arrival, s.ConnectTimeout = f.warmup.D, f.arrival, f.connectTimeout.D
	s.Isolation, s.AllowForeignTables, s.SessionIO, s.Loops = f.isolation, f.allowForeign, f.sessionIO, f.loops
	s.Repeat, s.Load, s.MaxErrorRate = f.repeat, f.load, f.maxErrorRate.V
	if phase == engine.PhaseRun {
		s.MaxUnavailable = f.maxUnavailable.V
	}
	s.Faults, s.OnFaultError, s.TargetRole, s.Ledger = f.faults, f.onFaultError, f.targetRole, f.ledger
	s.RecoveryTimeout, s.ViaProxy = f.recoveryTimeout.D, f.viaProxy
	s.Shard, s.Observe = f.shard, f.observe
	s.Out, s.Format, s.Quiet = f.out, f.format, f.quiet
	s.Check = f.check
	return s.Clone(), nil
}

// Parse reads the arguments of `candor run` (or load) after the verb into
// a Spec, as the command would, without running anything.
func Parse(phase string, args []string) (engine.Spec, error) {
	fs := pflag.NewFlagSet(phase, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f := Add(fs, phase)
	if err := fs.Parse(args); err != nil {
		return engine.Spec{}, engine.Usagef("%v%s (see 'candor %s --help')", err, FlagHint(fs, err), phase)
	}
	pos := fs.Args()
	if err := OneWorkload(phase, pos); err != nil {
		return engine.Spec{}, err
	}
	return f.Spec(fs, phase, pos[0])
}

// OneWorkload accepts exactly one argument, the workload. A second one is
// usually the value of an on/off option written with a space (--auto-inc
// off): such options take their value after '=', as in sysbench.
func OneWorkload(verb string, args []string) error {
	switch {
	case len(args) == 0:
		return engine.Usagef("name a workload, e.g. candor %s ycsb/a (candor list workloads shows them all)", verb)
	case len(args) > 1 && PhaseWord(args[1]) != "":
		return engine.Usagef("unexpected argument %q after the workload %s: the phase is candor's command, before the workload: %s", args[1], args[0], PhaseWord(args[1])+" "+args[0])
	case len(args) > 1:
		return engine.Usagef("unexpected argument %q after the workload %s; on/off options take their value after '=', as in sysbench (--auto-inc=off)", args[1], args[0])
	}
	return nil
}

// PhaseWord is the candor command for a phase named as go-tpc, sysbench
// or YCSB name it after the workload ("tpcc prepare": "candor load"), or
// "" when word is none.
func PhaseWord(word string) string {
	switch word {
	case "prepare", "load":
		return "candor load"
	case "run":
		return "candor run"
	case "cleanup":
		return "candor cleanup"
	case "check":
		return "candor check"
	}
	return ""
}

// Duration is a duration flag that accepts Go durations ("90s", "1m30s")
// and bare seconds as sysbench and YCSB users type them ("90").
type Duration struct{ D time.Duration }

// String is "0" for no duration, so help shows no default for it (the
// usage text says what an unset value means).
func (f *Duration) String() string {
	if f.D == 0 {
		return "0"
	}
	return f.D.String()
}

// Type names the value in help.
func (f *Duration) Type() string { return "duration" }

// Set reads seconds or a Go duration.
func (f *Duration) Set(s string) error {
	if secs, err := strconv.ParseFloat(s, 64); err == nil {
		f.D = time.Duration(secs * float64(time.Second))
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q is not a duration: use seconds (60) or a Go duration (60s, 5m)", s)
	}
	f.D = d
	return nil
}
