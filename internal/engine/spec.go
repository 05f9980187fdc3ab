package engine

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/candor-bench/candor/internal/runner"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

// SpecVersion is the version of Spec's recorded form (result.Result.Spec).
// A reader refuses a Spec of a later version: it may hold options this
// candor would silently drop.
const SpecVersion = 1

// Phases a Spec runs.
const (
	PhaseRun  = "run"
	PhaseLoad = "load"
)

// DefaultTarget is used when a Spec names no target: an embedded SQLite
// file in the working directory.
const DefaultTarget = "sqlite://candor.db"

// Defaults of a Spec's options, as `candor run` offers them.
const (
	DefaultFormat          = "text"
	DefaultLoad            = "auto"
	DefaultReportInterval  = time.Second
	DefaultRecoveryTimeout = 60 * time.Second
	// DefaultMetricsLinger is how long the endpoint waits after the run for
	// a scrape of the final values: Prometheus' usual scrape interval (15 s).
	DefaultMetricsLinger = 15 * time.Second
)

// Target roles (Spec.TargetRole).
const (
	RoleAny     = "any"
	RolePrimary = "primary"
)

// Spec is one run, fully described: what `candor run` or `candor load` is
// asked to do, whether the request comes from a command line, a plan cell
// or a result read back (rerun). The engine runs it (Run) and records it,
// redacted, in the result. Pointer fields are options whose absence means
// "the workload's own value" (its properties: threadcount, operationcount,
// maxexecutiontime, target, ...); the engine resolves them when it runs.
// Durations are nanoseconds in JSON.
type Spec struct {
	Version int    `json:"version"`
	Phase   string `json:"phase"` // PhaseRun or PhaseLoad

	// The workload: its name, its option flags as name=value (--tables 10
	// is "tables=10"), YCSB property files read in order, then properties.
	Workload      string   `json:"workload"`
	Options       []string `json:"options,omitempty"`
	PropertyFiles []string `json:"property_files,omitempty"`
	Properties    []string `json:"properties,omitempty"`
	// Scripts are the users' scripts the workload runs (workload.Scripted),
	// with their texts: read from their files when the Spec is first run,
	// recorded in the result, and run as recorded by a rerun.
	Scripts []workload.Script `json:"scripts,omitempty"`

	// Where: the targets (the nodes of one cluster; none: DefaultTarget)
	// and how sessions use them.
	Targets            []string      `json:"targets,omitempty"`
	TargetRole         string        `json:"target_role,omitempty"` // RoleAny (""), RolePrimary
	ConnectTimeout     time.Duration `json:"connect_timeout"`
	Isolation          string        `json:"isolation,omitempty"`
	SessionIO          string        `json:"session_io,omitempty"`
	Loops              int           `json:"loops,omitempty"` // event loops for the sessions (target.IOLoop); 0: none asked
	AllowForeignTables bool          `json:"allow_foreign_tables,omitempty"`

	// How long and how hard.
	Threads        *int           `json:"threads,omitempty"`
	Duration       *time.Duration `json:"duration,omitempty"`
	Operations     *int64         `json:"operations,omitempty"`
	Warmup         time.Duration  `json:"warmup,omitempty"`
	Rate           *float64       `json:"rate,omitempty"`
	Arrival        string         `json:"arrival,omitempty"`
	Retries        *int           `json:"retries,omitempty"`
	ReportInterval *time.Duration `json:"report_interval,omitempty"` // nil: DefaultReportInterval
	Seed           *int64         `json:"seed,omitempty"`            // nil: random (the result records the one drawn)
	LoadBatch      *int           `json:"load_batch,omitempty"`
	Load           string         `json:"load,omitempty"`   // auto, always, never (run only)
	Repeat         int            `json:"repeat,omitempty"` // run only
	MaxErrorRate   float64        `json:"max_error_rate"`
	// MaxUnavailable is --max-unavailable (run only; 0: no limit, which
	// is also what a spec recorded before the option decodes to).
	MaxUnavailable float64 `json:"max_unavailable,omitempty"`

	// Faults, fail-over and the durability ledger (run only).
	Faults          []string      `json:"faults,omitempty"`
	OnFaultError    string        `json:"on_fault_error,omitempty"`
	Ledger          bool          `json:"ledger,omitempty"`
	RecoveryTimeout time.Duration `json:"recovery_timeout,omitempty"`
	ViaProxy        bool          `json:"via_proxy,omitempty"`

	// Check runs the workload's checks of its data after the load or
	// the run (--check; docs/CHECKS.md).
	Check bool `json:"check,omitempty"`

	Shard   Shard   `json:"shard,omitzero"`
	Observe Observe `json:"observe"`
	// Plan names the plan cell this run is (nil: none).
	Plan *Plan `json:"plan,omitempty"`

	// Output: the result file ("" a new default name), the summary's
	// format, and no status lines when Quiet.
	Out    string `json:"out,omitempty"`
	Format string `json:"format,omitempty"`
	Quiet  bool   `json:"quiet,omitempty"`
}

// Shard makes the run one of N client processes running one workload
// together (--shard i/N, --start-at, --run-id).
type Shard struct {
	Of      string `json:"of,omitempty"`       // "i/N" as given
	StartAt string `json:"start_at,omitempty"` // RFC 3339 or +DURATION
	RunID   string `json:"run_id,omitempty"`
	// Slot: StartAt is a plan cell's start (plan run), checked when the
	// plan began, which a cell before it or the cell's target setup may
	// have overrun: a time already past starts the run at once, late,
	// instead of being refused.
	Slot bool `json:"-"`
}

// Observe is the live metrics endpoint and the server-counter sampler.
type Observe struct {
	MetricsAddr    string        `json:"metrics_addr,omitempty"`
	MetricsLinger  time.Duration `json:"metrics_linger"`
	ServerCounters bool          `json:"server_counters"`
}

// Plan is a plan cell's provenance, recorded in its result.
type Plan struct {
	Name   string            `json:"name"`
	File   string            `json:"file"`
	Cell   string            `json:"cell"`
	Params map[string]string `json:"params,omitempty"`
	// TargetSetup: the plan's setup commands started the target.
	TargetSetup bool `json:"target_setup,omitempty"`
}

// NewSpec is a Spec of phase for workload with every default of `candor
// run` (or `candor load`).
func NewSpec(phase, workload string) Spec {
	s := Spec{Version: SpecVersion, Phase: phase, Workload: workload, ConnectTimeout: target.DefaultConnectTimeout,
		MaxErrorRate: runner.DefaultMaxErrorRate, Format: DefaultFormat,
		Observe: Observe{MetricsLinger: DefaultMetricsLinger, ServerCounters: true}}
	if phase == PhaseRun {
		s.Arrival = runner.ArrivalConstant
		s.Repeat = 1
		s.Load = DefaultLoad
		s.SessionIO = string(target.IOAuto)
		s.OnFaultError = "stop"
		s.TargetRole = RoleAny
		s.RecoveryTimeout = DefaultRecoveryTimeout
		s.MaxUnavailable = runner.DefaultMaxUnavailable
	}
	return s
}

// Validate checks what a Spec says on its own, before any workload is
// built: every message names the option as the command line spells it,
// and carries ExitUsage. The checks that need the workload's own limits
// (threads, an end to the run, the fault schedule against its length) come
// when the engine resolves it.
func (s *Spec) Validate() error {
	switch {
	case s.Version > SpecVersion:
		return usagef("the run spec is of version %d; this candor reads up to version %d: use a later candor", s.Version, SpecVersion)
	case s.Phase != PhaseRun && s.Phase != PhaseLoad:
		return usagef("the run spec's phase %q is neither run nor load", s.Phase)
	case s.LoadBatch != nil && *s.LoadBatch <= 0:
		return usagef("--batch-size must be at least 1 (got %d)", *s.LoadBatch)
	case s.Format != "text" && s.Format != "ycsb" && s.Format != "json" && s.Format != "sysbench" && s.Format != "pgbench":
		return usagef("--format %q is not valid; use text, ycsb, sysbench, pgbench or json", s.Format)
	case s.Phase == PhaseRun && s.Repeat < 1:
		return usagef("--repeat must be at least 1 (got %d)", s.Repeat)
	case s.Phase == PhaseRun && s.Load != "auto" && s.Load != "always" && s.Load != "never":
		return usagef("--load %q is not valid; use auto, always or never", s.Load)
	}
	if err := target.ValidIsolation(s.Isolation); err != nil {
		return withCode(ExitUsage, fmt.Errorf("--isolation: %w", err))
	}
	return nil
}

// JSON is the Spec as results record it.
func (s Spec) JSON() (json.RawMessage, error) { return json.Marshal(s) }

// ReadSpec reads a recorded Spec, refusing one of a later version.
func ReadSpec(raw json.RawMessage) (Spec, error) {
	var s Spec
	if err := json.Unmarshal(raw, &s); err != nil {
		return s, fmt.Errorf("its run spec cannot be read: %w", err)
	}
	if s.Version > SpecVersion || s.Version < 1 {
		return s, fmt.Errorf("its run spec is of version %d; this candor reads versions 1 to %d", s.Version, SpecVersion)
	}
	return s, nil
}

// Args is the candor command line that parses back to s (without "candor"
// itself): options at their defaults are left out. A plan's provenance has
// no option: a plan sets it.
func (s Spec) Args() []string {
	def := NewSpec(s.Phase, s.Workload)
	out := []string{s.Phase, s.Workload}
	add := func(name, value string) { out = append(out, "--"+name, value) }
	for _, t := range s.Targets {
		add("target", t)
	}
	for _, f := range s.PropertyFiles {
		out = append(out, "-P", f)
	}
	for _, p := range s.Properties {
		out = append(out, "-p", p)
	}
	for _, o := range s.Options {
		out = append(out, "--"+o)
	}
	if s.Threads != nil {
		add("threads", strconv.Itoa(*s.Threads))
	}
	if s.Duration != nil {
		add("time", s.Duration.String())
	}
	if s.Operations != nil {
		add("operations", strconv.FormatInt(*s.Operations, 10))
	}
	if s.Warmup != 0 {
		add("warmup", s.Warmup.String())
	}
	if s.Rate != nil {
		add("rate", strconv.FormatFloat(*s.Rate, 'g', -1, 64))
	}
	if s.Arrival != def.Arrival {
		add("arrival", s.Arrival)
	}
	if s.Repeat != def.Repeat {
		add("repeat", strconv.Itoa(s.Repeat))
	}
	if s.Load != def.Load {
		add("load", s.Load)
	}
	if s.SessionIO != def.SessionIO {
		add("session-io", s.SessionIO)
	}
	if s.Loops != def.Loops {
		add("loops", strconv.Itoa(s.Loops))
	}
	if s.MaxErrorRate != def.MaxErrorRate {
		add("max-error-rate", strconv.FormatFloat(s.MaxErrorRate, 'g', -1, 64))
	}
	if s.MaxUnavailable != def.MaxUnavailable {
		add("max-unavailable", strconv.FormatFloat(s.MaxUnavailable, 'g', -1, 64))
	}
	for _, f := range s.Faults {
		add("fault", f)
	}
	if s.OnFaultError != def.OnFaultError {
		add("on-fault-error", s.OnFaultError)
	}
	if s.TargetRole != def.TargetRole {
		add("target-role", s.TargetRole)
	}
	if s.Ledger {
		out = append(out, "--ledger")
	}
	if s.RecoveryTimeout != def.RecoveryTimeout {
		add("recovery-timeout", s.RecoveryTimeout.String())
	}
	if s.ViaProxy {
		out = append(out, "--via-proxy")
	}
	if s.Check {
		out = append(out, "--check")
	}
	if s.Retries != nil {
		add("retries", strconv.Itoa(*s.Retries))
	}
	if s.ReportInterval != nil {
		add("report-interval", s.ReportInterval.String())
	}
	if s.Seed != nil {
		add("seed", strconv.FormatInt(*s.Seed, 10))
	}
	if s.Out != "" {
		add("out", s.Out)
	}
	if s.Format != def.Format {
		add("format", s.Format)
	}
	if s.ConnectTimeout != def.ConnectTimeout {
		add("connect-timeout", s.ConnectTimeout.String())
	}
	if s.Isolation != "" {
		add("isolation", s.Isolation)
	}
	if s.AllowForeignTables {
		out = append(out, "--allow-foreign-tables")
	}
	if s.LoadBatch != nil {
		add("batch-size", strconv.Itoa(*s.LoadBatch))
	}
	if s.Quiet {
		out = append(out, "--quiet")
	}
	if s.Shard.Of != "" {
		add("shard", s.Shard.Of)
	}
	if s.Shard.StartAt != "" {
		add("start-at", s.Shard.StartAt)
	}
	if s.Shard.RunID != "" {
		add("run-id", s.Shard.RunID)
	}
	if s.Observe.MetricsAddr != "" {
		add("metrics-addr", s.Observe.MetricsAddr)
	}
	if s.Observe.MetricsLinger != def.Observe.MetricsLinger {
		add("metrics-linger", s.Observe.MetricsLinger.String())
	}
	if !s.Observe.ServerCounters {
		out = append(out, "--server-counters=false")
	}
	return out
}

// Redacted is s as a result records it: no password of a target, no value
// of a secret property, option, fault command word or plan parameter.
func (s Spec) Redacted() Spec {
	r := s
	secrets := TargetPasswords(s.Targets)
	red := func(in []string) []string {
		if in == nil {
			return nil
		}
		out := RedactArgs(in, target.Redact)
		for i := range out {
			out[i] = MaskSecrets(out[i], secrets)
		}
		return out
	}
	r.Targets = red(s.Targets)
	r.Options = red(s.Options)
	r.PropertyFiles = red(s.PropertyFiles)
	r.Properties = red(s.Properties)
	r.Faults = nil
	for _, f := range s.Faults {
		r.Faults = append(r.Faults, RedactText(f, secrets))
	}
	if s.Plan != nil {
		p := *s.Plan
		p.Params = map[string]string{}
		for k, v := range s.Plan.Params {
			p.Params[k] = RedactParam(k, v)
		}
		r.Plan = &p
	}
	return r
}

// Clone is a deep copy of s: its slices and pointers are its own.
func (s Spec) Clone() Spec {
	c := s
	c.Options = slices.Clone(s.Options)
	c.PropertyFiles = slices.Clone(s.PropertyFiles)
	c.Properties = slices.Clone(s.Properties)
	c.Targets = slices.Clone(s.Targets)
	c.Faults = slices.Clone(s.Faults)
	c.Scripts = slices.Clone(s.Scripts)
	c.Threads = clonePtr(s.Threads)
	c.Duration = clonePtr(s.Duration)
	c.Operations = clonePtr(s.Operations)
	c.Rate = clonePtr(s.Rate)
	c.Retries = clonePtr(s.Retries)
	c.ReportInterval = clonePtr(s.ReportInterval)
	c.Seed = clonePtr(s.Seed)
	c.LoadBatch = clonePtr(s.LoadBatch)
	if s.Plan != nil {
		p := *s.Plan
		p.Params = map[string]string{}
		for k, v := range s.Plan.Params {
			p.Params[k] = v
		}
		c.Plan = &p
	}
	return c
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
