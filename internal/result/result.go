// Package result defines candor's result file: one self-describing,
// versioned JSON document per run (schema in docs/RESULT_SCHEMA.md), written
// atomically, plus a JSON-lines side file that receives every interval while
// the run goes so that a killed client loses nothing but the interval in
// progress. Reports, audits and comparisons read only these files.
package result

import (
	"encoding/json"
	"time"

	"github.com/candor-bench/candor/internal/ledger"
)

// SchemaVersion names the layout of this package's types. Readers refuse
// other major versions (SchemaMajor). v1.1 added what the conservation laws
// need (laws.go): each operation's done and no_session, an open loop's
// scheduled operations, an interval's tail mark; v1.2 the checks of the
// data after a run (checks.go) and the status check_failed.
const SchemaVersion = "candor.result/v1.2"

// SchemaMajor is the major version every readable result's schema starts
// with.
const SchemaMajor = "candor.result/v1"

// Status values of a result.
const (
	StatusComplete    = "complete"
	StatusInterrupted = "interrupted"
	StatusFailed      = "failed"
	// StatusInconsistent marks a result (and its phases) that breaks a law
	// of its own arithmetic (laws.go): its figures cannot all be true.
	StatusInconsistent = "inconsistent"
	// StatusCheckFailed marks a run that ran to its end and whose data
	// failed a check (--check; Result.Checks): its phases are complete,
	// its figures true, and the data it left wrong.
	StatusCheckFailed = "check_failed"
)

// Result is one run: one workload against one target.
type Result struct {
	Schema string `json:"schema"`
	ID     string `json:"id"`
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
	// BrokenLaws lists the laws of its own arithmetic the result breaks
	// (status inconsistent; laws.go), each with its figures.
	BrokenLaws []string    `json:"broken_laws,omitempty"`
	Command    []string    `json:"command"`
	Started    time.Time   `json:"started"`
	Ended      time.Time   `json:"ended"`
	Provenance Provenance  `json:"provenance"`
	Target     Fingerprint `json:"target"`
	Workload   Workload    `json:"workload"`
	Run        RunConfig   `json:"run"`
	// Spec is the run as it was asked and run (the engine's Spec, its seed
	// drawn and its secrets redacted), which candor rerun runs again. Kept
	// as raw JSON: results are plain data below the engine, and the Spec has
	// a version of its own that the engine checks when it reads one back.
	Spec json.RawMessage `json:"spec,omitempty"`
	// SpecCommand is the candor command line Spec renders as (the engine's
	// Spec.Args, secrets masked): how a reader runs it again by hand.
	SpecCommand []string `json:"spec_command,omitempty"`
	// Plan names the plan and cell this run belongs to (candor plan run).
	Plan   *PlanRef `json:"plan,omitempty"`
	Phases []Phase  `json:"phases"`
	// Repetitions summarises the run phases when --repeat ran several.
	Repetitions *Repetitions `json:"repetitions,omitempty"`
	// Shard is set on the result of one shard of a sharded run (--shard);
	// Merged on the result candor merge made of them (shard.go).
	Shard  *ShardInfo `json:"shard,omitempty"`
	Merged *Merged    `json:"merged,omitempty"`
	// Checks are the checks of the data the run left (--check), in the
	// order they were made (checks.go).
	Checks []DataCheck `json:"checks,omitempty"`
	// IsolationObserved is what the run's --isolation allowed on its
	// target, by candor's probes (isolation.go); nil without --isolation.
	IsolationObserved *ObservedIsolation `json:"isolation_observed,omitempty"`
}

// PlanIdentity is the plan parameter in which a cell's result records the
// cell's identity: a hash of everything that makes the cell (plan.Cell's
// Identity). A plan resumes, and its claims count a result, only when it is
// the cell's as the plan now makes it.
const PlanIdentity = "identity"

// PlanRef ties a result to its plan cell.
type PlanRef struct {
	Name   string            `json:"name"`
	File   string            `json:"file"`
	Cell   string            `json:"cell"`
	Params map[string]string `json:"params"`
	// TargetSetup says the cell's target was started for it by the plan's
	// setup commands (its URL changes from cell to cell): reports group
	// such results by the plan's target name.
	TargetSetup bool `json:"target_setup,omitempty"`
}

// Stat is a figure over repeated runs: mean, sample standard deviation and
// the 95% confidence interval of the mean (Student's t).
type Stat struct {
	N        int     `json:"n"`
	Mean     float64 `json:"mean"`
	StdDev   float64 `json:"stddev"`
	CI95Low  float64 `json:"ci95_low"`
	CI95High float64 `json:"ci95_high"`
}

// Repetitions summarises N measured runs of the same workload: the complete
// ones only.
type Repetitions struct {
	N int `json:"n"`
	// Excluded counts the run phases left out of the figures because they
	// did not complete (failed, e.g. above --max-error-rate, or
	// interrupted); ExcludedReps lists their repetition numbers.
	Excluded     int             `json:"excluded,omitempty"`
	ExcludedReps []int           `json:"excluded_repetitions,omitempty"`
	Throughput   Stat            `json:"throughput"`
	Ops          []OpRepetitions `json:"operations"`
}

// OpRepetitions are one operation's figures over the repetitions;
// latencies in ns.
type OpRepetitions struct {
	Name       string `json:"name"`
	Throughput Stat   `json:"throughput"`
	Mean       Stat   `json:"mean"`
	P50        Stat   `json:"p50"`
	P90        Stat   `json:"p90"`
	P95        Stat   `json:"p95"`
	P99        Stat   `json:"p99"`
	P999       Stat   `json:"p99_9"`
}

// Provenance says what produced the result and on what machine.
type Provenance struct {
	CandorVersion string `json:"candor_version"`
	Commit        string `json:"commit"`
	GoVersion     string `json:"go_version"`
	OS            string `json:"os"`
	Arch          string `json:"arch"`
	Hostname      string `json:"hostname"`
	CPUModel      string `json:"cpu_model"`
	Cores         int    `json:"cores"`
	MemoryBytes   int64  `json:"memory_bytes"`
	Kernel        string `json:"kernel"`
	// SchedAutogroup is the kernel's autogroup setting when candor ran:
	// "on" (processes of different sessions are scheduled as separate
	// groups, so a server started in a session of its own competes with the
	// client as one group against another), "off", or empty when the kernel
	// has none or in older results. On two shared cores it changed how a
	// MariaDB server's threads were placed and woken (docs/BENCHMARKS.md §7).
	SchedAutogroup string `json:"sched_autogroup,omitempty"`
	// Load is how busy the client's machine was during each measured phase
	// (load and run phases, in the order of Phases): a figure measured on
	// a machine other work was loading is one the machine cannot decide.
	// Absent in older results and where /proc has no load averages.
	Load []MachineLoad `json:"load,omitempty"`
}

// MachineLoad is the client machine's load during one phase: the kernel's
// load averages (/proc/loadavg) at the phase's start and end, and the CPU
// time the hypervisor stole from this machine over the phase (/proc/stat's
// steal column).
type MachineLoad struct {
	// PhaseIndex is the phase's index in the result's phases, Phase its
	// name (LawLoad ties them).
	PhaseIndex int    `json:"phase_index"`
	Phase      string `json:"phase"`
	// Start and End are the 1-, 5- and 15-minute load averages: runnable
	// (and uninterruptible) threads, candor's own and its server's
	// included.
	Start [3]float64 `json:"load_start"`
	End   [3]float64 `json:"load_end"`
	// Steal is the share (0..1) of the host's CPU time over the phase that
	// was stolen by the hypervisor: time this VM's threads were ready to
	// run and another guest ran; nil where /proc/stat has no steal column.
	Steal *float64 `json:"steal,omitempty"`
}

// MachineLoadOf is the load recorded for the phase at index i, nil when
// the result has none.
func (p Provenance) MachineLoadOf(i int) *MachineLoad {
	for j := range p.Load {
		if p.Load[j].PhaseIndex == i {
			return &p.Load[j]
		}
	}
	return nil
}

// Fingerprint identifies the target: product, version and the settings that
// decide comparability. The URL has its password redacted.
type Fingerprint struct {
	Driver        string            `json:"driver"`
	Product       string            `json:"product"`
	Version       string            `json:"version"`
	VersionString string            `json:"version_string,omitempty"`
	URL           string            `json:"url"`
	Settings      map[string]string `json:"settings"`
	Capabilities  *Capabilities     `json:"capabilities,omitempty"`
}

// Capabilities is what the driver declared about the target (a copy of
// target.Capabilities, which this package does not import).
type Capabilities struct {
	Transactions   bool `json:"transactions"`
	CopyFrom       bool `json:"copy_from"`
	MultiRowInsert bool `json:"multi_row_insert"`
	MaxBindParams  int  `json:"max_bind_params"`
	Embedded       bool `json:"embedded"`
	TableLoad      bool `json:"table_load,omitempty"` // whole empty tables loaded in one transaction
	// QueryLanguage is the language of the target's statements: "sql" or
	// "cql"; empty in results written before CQL targets existed (SQL).
	QueryLanguage string `json:"query_language,omitempty"`
}

// Workload records what ran, with every option resolved.
type Workload struct {
	Name      string   `json:"name"`
	Reference string   `json:"reference"`
	Seed      int64    `json:"seed"`
	Options   any      `json:"options"`
	Ignored   []string `json:"ignored_properties,omitempty"`
	Ops       []string `json:"operations"`
	// ReusedTables lists the tables the run used as they were though they
	// hold data loaded with other options than the run's (a sysbench table
	// of more rows than --table-size), each as "table: what it holds"
	// ("sbtest1: rows=1000000 rand-type=special ...").
	ReusedTables []string `json:"reused_tables,omitempty"`
}

// RunConfig is how the runner drove the workload.
type RunConfig struct {
	Threads        int     `json:"threads"`
	DurationSec    float64 `json:"duration_s,omitempty"`
	Operations     int64   `json:"operations,omitempty"`
	WarmupSec      float64 `json:"warmup_s,omitempty"`
	Rate           float64 `json:"rate,omitempty"`
	Arrival        string  `json:"arrival,omitempty"`
	Retries        int     `json:"retries"`
	ReportInterval float64 `json:"report_interval_s"`
	LoadBatch      int     `json:"load_batch,omitempty"`
	// Isolation is the level candor set on every session ("" = the
	// server's default, which the target's settings record).
	Isolation string `json:"isolation,omitempty"`
	// LatencyMeasure says what the primary latency is: "service time (closed
	// loop)" or "from intended start (open loop)".
	LatencyMeasure string `json:"latency_measure"`
	// MaxErrorRate is the error budget of a run phase (--max-error-rate), a
	// fraction of its operations; nil in older results.
	MaxErrorRate *float64 `json:"max_error_rate,omitempty"`
	// MaxUnavailable is the share of a run phase's worker-seconds its
	// workers may spend without a session (--max-unavailable; 0: no
	// limit); nil in older results.
	MaxUnavailable *float64 `json:"max_unavailable,omitempty"`
}

// Phase is one measured phase: "load" or "run".
type Phase struct {
	Name string `json:"name"`
	// Repetition numbers the run phases of a --repeat run from 1.
	Repetition int    `json:"repetition,omitempty"`
	Seed       int64  `json:"seed,omitempty"`
	Status     string `json:"status"`
	// Failure says why a phase's status is failed: the error that ended it,
	// or its error rate above the budget ("error rate 79.1% of 123,456
	// operations above --max-error-rate 1%: not_found 97,649").
	Failure     string    `json:"failure,omitempty"`
	Started     time.Time `json:"started"`
	Ended       time.Time `json:"ended"`
	DurationSec float64   `json:"duration_s"`
	WarmupSec   float64   `json:"warmup_s,omitempty"`
	OpenLoop    bool      `json:"open_loop"`
	// FinishInFlight: the operations in flight at the duration's end ran
	// to their end and count (pgbench's and sysbench's rule); otherwise
	// they were cut short, counted unfinished.
	FinishInFlight bool       `json:"finish_in_flight,omitempty"`
	Ops            []OpResult `json:"operations"`
	// Throughput is successful operations per second over the measured time
	// (for a load: rows per second).
	Throughput float64 `json:"throughput"`
	// Operations counts the top-level operations that finished in the
	// measured time, failed ones included (sub-operation spans excluded).
	Operations int64 `json:"operations_done"`
	// ErrorRate is the fraction of Operations that ended in an error (after
	// their retries); absent when none did.
	ErrorRate float64 `json:"error_rate,omitempty"`
	// Dropped counts, in an open loop, the operations due by the schedule
	// before the phase ended that never began (k6's dropped iterations);
	// they are in no histogram.
	Dropped int64 `json:"dropped,omitempty"`
	// Scheduled counts, in an open loop, the operations its schedule made
	// due before the phase ended, counted from the schedule alone: every one
	// of them finished, failed, was cut short or was dropped (LawSchedule).
	Scheduled *int64 `json:"scheduled,omitempty"`
	Rows      int64  `json:"rows,omitempty"`
	// LoadBytes is a load's approximate size so far: rows × the workload's
	// declared row size (absent when it declares none).
	LoadBytes  int64       `json:"load_bytes,omitempty"`
	Rate       *RateResult `json:"rate,omitempty"`
	Reconnects int64       `json:"reconnects"`
	// Unavailable is the share of the measured phase its workers spent
	// without a session (a run phase; nil in a load and in older results).
	Unavailable *Unavailability `json:"unavailable,omitempty"`
	// Counters are the workload's own counts over the measured time
	// (sysbench: reads, writes, other queries).
	Counters map[string]int64 `json:"counters,omitempty"`
	// Derived are figures the workload read from the server after the
	// phase (commit-loop: the server-side commit rate).
	Derived map[string]float64 `json:"derived,omitempty"`
	// Workers holds each worker's finished operations and busy time, for
	// fairness (sysbench's "threads fairness").
	Workers   []WorkerStats `json:"workers,omitempty"`
	Client    ClientUsage   `json:"client"`
	Intervals []Interval    `json:"intervals"`
	// MachineLoad is the machine's load the runner measured over the
	// phase, on its way to the result's provenance (Provenance.Load, where
	// it is written): never written with the phase.
	MachineLoad *MachineLoad `json:"-"`
	// Faults are the phase's scheduled faults (--fault, a plan's faults:),
	// one event each, in schedule order.
	Faults []FaultEvent `json:"faults,omitempty"`
	// IntervalChecks are the checks a workload makes while the phase runs
	// (bank's total balance, once per report interval; checks.go).
	IntervalChecks []IntervalCheck `json:"interval_checks,omitempty"`
	// Ledger is the durability ledger's verdict (the ledger workload,
	// commit-loop --ledger): what was acknowledged, lost, resolved.
	Ledger *LedgerResult `json:"ledger,omitempty"`
	// Isolation is the list-append checker's verdict on the phase's
	// history (isolation/list-append).
	Isolation *Isolation `json:"isolation,omitempty"`
	// Server holds the target server's own counters sampled every
	// interval (absent with --server-counters=false, for targets without
	// any, and in older results).
	Server *ServerCounters `json:"server_counters,omitempty"`
}

// FaultEvent is one scheduled fault as it happened. Times are wall-clock;
// the _s fields are seconds from the phase's start. Its fields are those of
// internal/fault's Event.
type FaultEvent struct {
	Index      int       `json:"index"`
	Spec       string    `json:"spec"`
	Kind       string    `json:"kind"`           // run, sql, net-pause, net-latency, net-bandwidth, net-reset
	Node       *int      `json:"node,omitempty"` // network faults: the node (-1: all)
	Status     string    `json:"status"`         // done, failed, not-run, cut-short
	Scheduled  float64   `json:"scheduled_s"`
	Start      time.Time `json:"start,omitzero"`
	End        time.Time `json:"end,omitzero"`
	StartS     float64   `json:"start_s"`
	EndS       float64   `json:"end_s"`
	ExitStatus *int      `json:"exit_status,omitempty"`
	Output     string    `json:"output,omitempty"`
	OutputLen  int64     `json:"output_bytes,omitempty"`
	Truncated  bool      `json:"output_truncated,omitempty"`
	Error      string    `json:"error,omitempty"`
	Leftover   string    `json:"leftover,omitempty"` // run=: what became of processes its shell left behind
}

// LedgerResult is where a phase's ledger is and what it says.
type LedgerResult struct {
	// Dir holds the ledger files (ledger-wNNNNN.cdl), relative to the
	// result file's directory.
	Dir string `json:"dir"`
	// Table is the table whose ids were read back.
	Table string `json:"table"`
	// FaultIndex is the fault RPO and RTO are measured from: of the
	// faults that started by the first write that failed or went
	// unanswered after the first fault, the last to start (the first fault
	// when no write failed); absent without one.
	FaultIndex *int `json:"fault_index,omitempty"`
	// RecoveredAfterS is how long after the phase candor waited for the
	// target to answer before reading back (--recovery-timeout).
	RecoveredAfterS float64 `json:"recovered_after_s"`
	// TruncatedBytes are partial records ignored at the end of ledger
	// files (a crash of candor while writing).
	TruncatedBytes int64 `json:"truncated_bytes,omitempty"`
	// Verified is when the accounting was made (a run's end, or a later
	// candor ledger verify).
	Verified time.Time `json:"verified"`
	// Error says why the run made no accounting (the target never came
	// back); a later verify may have supplied one since (Source).
	Error      string             `json:"error,omitempty"`
	Accounting *ledger.Accounting `json:"accounting,omitempty"`
	// Source is "verify" in results of older versions, whose verify stored
	// its figures as Accounting when the run made none; verify now keeps
	// them in Verifications only, and writes no Source.
	Source string `json:"source,omitempty"`
	// Owner is the ledger's identity (ledger.Owner: the run and the
	// repetition), which its table carries too: verify reads only a table
	// of this owner. Absent in results of older versions.
	Owner string `json:"owner,omitempty"`
	// TableIdentity is the ledger table's identity as the database knows
	// it (its oid and creating transaction, its table id or token: see
	// docs/TABLES.md), read when the run read the ids back: verify refuses
	// a table of the name whose identity differs (dropped and created again
	// since). It covers the ledgers that record no owner in their table
	// (commit-loop --ledger). Absent when the target gives none, and in
	// results of older versions.
	TableIdentity string `json:"table_identity,omitempty"`
	// Writers is the range of writer numbers whose ids this ledger holds
	// (a shard's workers); absent: every id in the table is this ledger's.
	Writers *ledger.Writers `json:"writers,omitempty"`
	// Dirs, in a merged result (candor merge), are the shards' ledger
	// directories, relative to the merged result's directory; Dir is
	// then empty.
	Dirs []string `json:"dirs,omitempty"`
	// Verifications are the later candor ledger verify runs, each beside
	// the run's own accounting, which they never replace.
	Verifications []LedgerVerification `json:"verifications,omitempty"`

	files *ledgerFiles // read by ReadLedgerFiles, checked by LawLedgerFiles
}

// LedgerVerification is one candor ledger verify of a phase's ledger.
type LedgerVerification struct {
	Time time.Time `json:"time"`
	// Targets are the URLs verify was given (passwords redacted); Node
	// the one it read back from.
	Targets []string `json:"targets"`
	Node    string   `json:"node,omitempty"`
	// Outcome is "verified", "refused" (the table is not this ledger's,
	// or several nodes accept writes) or "failed" (the ids could not be
	// read back); Reason says why it was not verified.
	Outcome    string             `json:"outcome"`
	Reason     string             `json:"reason,omitempty"`
	Warnings   []string           `json:"warnings,omitempty"`
	Accounting *ledger.Accounting `json:"accounting,omitempty"`
	// FaultIndex is the fault verify's RPO and RTO are measured from (as
	// LedgerResult.FaultIndex).
	FaultIndex *int `json:"fault_index,omitempty"`
}

// LatestVerified is the last verification that accounted for the ledger
// (Outcome "verified"), nil when none did. Its figures are verify's, never
// the run's own (Accounting).
func (l *LedgerResult) LatestVerified() *LedgerVerification {
	if l == nil {
		return nil
	}
	for i := len(l.Verifications) - 1; i >= 0; i-- {
		if v := &l.Verifications[i]; v.Outcome == "verified" && v.Accounting != nil {
			return v
		}
	}
	return nil
}

// Unavailability is how much of a run phase its workers spent without a
// usable session: from the failure that lost one to the moment a new one
// connected (its back-off included), summed over the workers and counted
// in the measured time only. Share = WithoutSec / WorkerSec (LawUnavailable).
type Unavailability struct {
	Share float64 `json:"share"`
	// WithoutSec is the worker-seconds without a session; WorkerSec the
	// phase's worker-seconds (workers × measured seconds).
	WithoutSec float64 `json:"without_session_s"`
	WorkerSec  float64 `json:"worker_s"`
}

// WorkerStats is one worker's share of a phase.
type WorkerStats struct {
	Ops     int64   `json:"ops"`
	BusySec float64 `json:"busy_s"` // summed latency of its operations, and of one the end cut short up to the end
	// Reconnects and NoSessionSec: the worker's new sessions after a lost
	// one, and the time it spent without a session (reconnecting).
	Reconnects   int64   `json:"reconnects,omitempty"`
	NoSessionSec float64 `json:"no_session_s,omitempty"`
}

// OpResult is one operation type over a phase. Latencies are nanoseconds.
type OpResult struct {
	Name       string           `json:"name"`
	Count      int64            `json:"count"`
	Throughput float64          `json:"throughput"`
	Latency    *Summary         `json:"latency,omitempty"`
	Service    *Summary         `json:"service,omitempty"`
	Lag        *Summary         `json:"lag,omitempty"`
	Failed     *Summary         `json:"failed_latency,omitempty"`
	Errors     map[string]int64 `json:"errors,omitempty"`
	Attempts   int64            `json:"attempts"`
	// Done counts the operations the runner issued that succeeded: Count
	// less the sub-operation spans a workload recorded under this name
	// (YCSB F's read-modify-write records a READ and an UPDATE).
	Done    int64 `json:"done"`
	Retries int64 `json:"retries"`
	Aborts  int64 `json:"aborts"`
	// NoSession counts, in a closed loop, the operations that could not
	// be attempted because their worker had no session: one per failed
	// connect while it reconnected. Each is a failed operation (class
	// connection, in Errors) and counts against the error budget.
	NoSession int64 `json:"no_session,omitempty"`
	Clamped   int64 `json:"clamped,omitempty"`
	// Unfinished counts operations still running when the phase ended
	// (at --time or an interrupt): each is in the latency series with its
	// time so far, a lower bound, and not in Count or Throughput.
	Unfinished int64 `json:"unfinished,omitempty"`
	// FirstErrors holds, per error class, the first error message seen
	// (secrets redacted, at most 500 bytes).
	FirstErrors map[string]string `json:"first_errors,omitempty"`
	// Histograms holds the HdrHistogram V2 compressed encoding (base64,
	// "HISTF...") of each series that has values: latency, service, lag, failed.
	Histograms map[string]string `json:"histograms,omitempty"`
}

// Summary is a latency distribution reduced to the usual figures, in ns.
type Summary struct {
	Count int64   `json:"count"`
	Min   int64   `json:"min"`
	Mean  float64 `json:"mean"`
	P50   int64   `json:"p50"`
	P90   int64   `json:"p90"`
	P95   int64   `json:"p95"`
	P99   int64   `json:"p99"`
	P999  int64   `json:"p99_9"`
	Max   int64   `json:"max"`
}

// RateResult describes an open-loop run's schedule.
type RateResult struct {
	Target         float64 `json:"target"`
	Achieved       float64 `json:"achieved"`
	BehindSchedule bool    `json:"behind_schedule"`
	// MaxLagNs is the largest delay between an operation's intended and
	// actual start.
	MaxLagNs int64 `json:"max_lag_ns"`
}

// ClientUsage is the client's CPU and memory during a phase.
type ClientUsage struct {
	Samples        []UsageSample `json:"samples"`
	AvgCores       float64       `json:"avg_cores"`
	MaxRSS         int64         `json:"max_rss_bytes"`
	CPUNsPerOp     float64       `json:"cpu_ns_per_op"`
	HostBusy       float64       `json:"host_busy"`
	Saturated      bool          `json:"saturated"`
	SaturatedCause string        `json:"saturated_cause,omitempty"`
	// GoMaxProcs is the Go scheduler's GOMAXPROCS during a run phase (raised
	// to threads+1 for drivers with blocking sessions; 0 in older results).
	GoMaxProcs int `json:"gomaxprocs,omitempty"`
	// SessionIO is how a run phase's sessions waited for their server:
	// "blocking" (a blocking system call per session) or "poller" (Go's
	// network poller); empty for targets without sessions over a socket
	// and in older results.
	SessionIO string `json:"session_io,omitempty"`
	// GCCycles counts the Go garbage collections during a run phase (nil
	// for load phases and in older results), and GCHeadroom is how far past
	// the live heap the collector let the heap grow (runner/gcpace.go; 0
	// when the environment set GOGC).
	GCCycles   *uint64 `json:"gc_cycles,omitempty"`
	GCHeadroom int64   `json:"gc_headroom_bytes,omitempty"`
}

// UsageSample is one client resource sample at the end of an interval.
type UsageSample struct {
	ElapsedSec float64 `json:"t"`
	Cores      float64 `json:"cores"`
	RSS        int64   `json:"rss"`
	HostBusy   float64 `json:"host_busy"`
}

// Interval is one --report-interval of a phase. It is also the record type of
// the JSON-lines side file.
type Interval struct {
	Phase      string    `json:"phase"`
	Index      int       `json:"i"`
	Start      time.Time `json:"start"`
	ElapsedSec float64   `json:"t"` // seconds from the phase start to the interval's end
	LengthSec  float64   `json:"len"`
	Warmup     bool      `json:"warmup,omitempty"`
	// Tail marks the last record of a phase when it is shorter than half
	// a report interval: the moments between the phase's end and its
	// workers' return (operations cut short, their errors). Its counts
	// belong to the phase; it is not a measured interval of its own.
	Tail       bool             `json:"tail,omitempty"`
	Ops        []IntervalOp     `json:"ops"`
	Counters   map[string]int64 `json:"counters,omitempty"`
	Reconnects int64            `json:"reconnects,omitempty"`
	// NoSession is, at the interval's end, how many workers were without
	// a session (reconnecting); absent when none.
	NoSession int          `json:"no_session,omitempty"`
	Client    *UsageSample `json:"client,omitempty"`
	// Open-loop run phases, sampled at the interval's end: operations due
	// by their schedule and not yet begun, and workers running one.
	Queue       *int64 `json:"queue,omitempty"`
	Concurrency *int64 `json:"concurrency,omitempty"`
	// Dropped is set on the last interval of an open-loop run phase: the
	// phase's operations due and never begun (Phase.Dropped).
	Dropped *int64 `json:"dropped,omitempty"`
	// RowsDone is, in a load, the rows inserted by the interval's end
	// (absent in run phases and older results).
	RowsDone int64 `json:"rows_done,omitempty"`
}

// IntervalOp is one operation type within an interval (latencies in ns).
type IntervalOp struct {
	Name    string           `json:"name"`
	Count   int64            `json:"count"`
	Rate    float64          `json:"rate"`
	P50     int64            `json:"p50"`
	P99     int64            `json:"p99"`
	Max     int64            `json:"max"`
	Mean    float64          `json:"mean"`
	Errors  int64            `json:"errors,omitempty"`
	ByClass map[string]int64 `json:"errors_by_class,omitempty"`
	// Unfinished: operations running when the phase ended, in the
	// interval's latency figures as lower bounds (last interval only).
	Unfinished int64  `json:"unfinished,omitempty"`
	Histogram  string `json:"histogram,omitempty"`
}
