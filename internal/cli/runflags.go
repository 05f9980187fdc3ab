package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/candor-bench/candor/internal/engine"
	"github.com/candor-bench/candor/internal/plan"
)

// addFaultFlags adds the run flags of faults, fail-over and the ledger.
func addFaultFlags(fl *pflag.FlagSet, f *runFlags) {
	f.onFaultError = "stop"
	f.targetRole = engine.RoleAny
	f.recoveryTimeout.d = engine.DefaultRecoveryTimeout
	fl.StringArrayVar(&f.faults, "fault", nil, "schedule a fault (repeatable): 'at=20s run=CMD' (a shell command; run= comes last), or 'at=20s for=5s net=pause|latency|bandwidth|reset node=K|all' through candor's proxy in front of the K-th --target (docs/FAULTS.md)")
	fl.StringVar(&f.onFaultError, "on-fault-error", "stop", "a fault that fails (its command exits non-zero): stop ends the run (exit 5), continue records it and goes on")
	fl.StringVar(&f.targetRole, "target-role", engine.RoleAny, "any: worker w uses --target w mod n; primary: every session goes to whichever --target accepts writes (PostgreSQL target_session_attrs=read-write), reconnecting there after a fail-over")
	fl.BoolVar(&f.ledger, "ledger", false, "keep every write's outcome in a durability ledger beside the result and account for lost, unknown and duplicated writes after the run (ledger workload: always; commit-loop)")
	fl.Var(&f.recoveryTimeout, "recovery-timeout", "after a run with a ledger, wait this long for the target to answer before reading the ids back")
	// For measuring the proxy's own cost (bench/proxy-overhead.sh): the
	// proxy in front of every target without any fault.
	fl.BoolVar(&f.viaProxy, "via-proxy", false, "put candor's network-fault proxy in front of every --target, with no fault (to measure its cost)")
	fl.MarkHidden("via-proxy")
}

func addShardFlags(fl *pflag.FlagSet, s *engine.Shard) {
	fl.StringVar(&s.Of, "shard", "", "run as shard i of N client processes (0 ≤ i < N): this process takes its share of the workers, rate, operations and, for a load, of the key space; merge the results with candor merge")
	fl.StringVar(&s.StartAt, "start-at", "", "start the measured phase at this wall-clock instant, the same for every shard: RFC 3339 (2026-11-26T12:00:00Z) or +DURATION from now (+30s); the load, if any, comes first")
	fl.StringVar(&s.RunID, "run-id", "", "run id shared by every shard (default: derived from --start-at and the command)")
}

// defaultMetricsLinger is how long the endpoint waits after the run for a
// scrape of the final values.
const defaultMetricsLinger = engine.DefaultMetricsLinger

func addObserveFlags(fl *pflag.FlagSet, f *engine.Observe) {
	fl.StringVar(&f.MetricsAddr, "metrics-addr", "", "serve live metrics (OpenMetrics, Prometheus) at http://ADDR/metrics during the run: :9464 listens on every interface, 127.0.0.1:9464 on this machine only, port 0 on a free port; candor prints where (default: none)")
	fl.DurationVar(&f.MetricsLinger, "metrics-linger", defaultMetricsLinger, "with --metrics-addr: after the run, serve the final metrics until one more scrape or this long (0: close at once)")
	fl.BoolVar(&f.ServerCounters, "server-counters", true, "sample the server's own counters (commits, blocks, checkpoints, WAL, sizes, InnoDB status) every report interval on one extra session, into the result")
}

// shardResultPath is a plan cell's result file for one shard.
func shardResultPath(path string, s *engine.ShardRun) string {
	if s.Count == 0 {
		return path
	}
	base := strings.TrimSuffix(path, ".json")
	return fmt.Sprintf("%s.shard-%d-of-%d.json", base, s.Index, s.Count)
}

// shardCells points a sharded plan's cells at this shard's result files.
func shardCells(cells []plan.Cell, s *engine.ShardRun) {
	for i := range cells {
		cells[i].Result = shardResultPath(cells[i].Result, s)
	}
}

// shardCell sets what a sharded plan adds to a cell's run: its shard,
// a run id of its own (the plan's with the cell's id), its result file,
// --load auto (a shard never drops what another shard loaded), and for the
// first cell run, the start time.
func shardCell(spec *engine.Spec, s *engine.ShardRun, c plan.Cell, first bool) {
	if first && !s.Start.IsZero() {
		spec.Shard.StartAt = s.Start.UTC().Format(time.RFC3339Nano)
	}
	if s.Count == 0 {
		return
	}
	spec.Load, spec.Shard.Of, spec.Shard.RunID, spec.Out = "auto", s.Of, s.RunID+"-"+c.ID, c.Result
}
