package runflags

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/candor-bench/candor/internal/engine"
	"github.com/candor-bench/candor/internal/runner"
)

// addFaultFlags adds the run flags of faults, fail-over and the ledger.
func addFaultFlags(fl *pflag.FlagSet, f *Flags) {
	f.onFaultError = "stop"
	f.targetRole = engine.RoleAny
	f.recoveryTimeout.D = engine.DefaultRecoveryTimeout
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

// AddShard adds --shard, --start-at and --run-id.
func AddShard(fl *pflag.FlagSet, s *engine.Shard) {
	fl.StringVar(&s.Of, "shard", "", "run as shard i of N client processes (0 ≤ i < N): this process takes its share of the workers, rate, operations and, for a load, of the key space; merge the results with candor merge")
	fl.StringVar(&s.StartAt, "start-at", "", "start the measured phase at this wall-clock instant, the same for every shard: RFC 3339 (2026-11-26T12:00:00Z) or +DURATION from now (+30s); the load, if any, comes first")
	fl.StringVar(&s.RunID, "run-id", "", "run id shared by every shard (default: derived from --start-at and the command)")
}

// AddObserve adds the live metrics endpoint's and the server-counter
// sampler's flags.
func AddObserve(fl *pflag.FlagSet, f *engine.Observe) {
	fl.StringVar(&f.MetricsAddr, "metrics-addr", "", "serve live metrics (OpenMetrics, Prometheus) at http://ADDR/metrics during the run: :9464 listens on every interface, 127.0.0.1:9464 on this machine only, port 0 on a free port; candor prints where (default: none)")
	fl.DurationVar(&f.MetricsLinger, "metrics-linger", engine.DefaultMetricsLinger, "with --metrics-addr: after the run, serve the final metrics until one more scrape or this long (0: close at once)")
	fl.BoolVar(&f.ServerCounters, "server-counters", true, "sample the server's own counters (commits, blocks, checkpoints, WAL, sizes, InnoDB status) every report interval on one extra session, into the result")
}

// Fraction is --max-error-rate: a fraction (0.01) or a percentage (1%),
// from 0 to 1 (100%).
type Fraction struct{ V float64 }

func (f *Fraction) String() string { return runner.FormatFraction(f.V) }

// Type names the value in help.
func (f *Fraction) Type() string { return "fraction" }

// Set reads a fraction or a percentage.
func (f *Fraction) Set(s string) error {
	t := strings.TrimSpace(s)
	pct := strings.HasSuffix(t, "%")
	v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(t, "%")), 64)
	switch {
	case err != nil:
		return fmt.Errorf("%q is not a fraction: write 1%% or 0.01", s)
	case pct:
		v /= 100
	case v > 1:
		return fmt.Errorf("%q is above 1: write a percentage with %% (%s%%) or a fraction (%s)", s, t, strconv.FormatFloat(v/100, 'g', -1, 64))
	}
	if v < 0 || v > 1 || v != v {
		return fmt.Errorf("%q is not between 0 and 100%%", s)
	}
	f.V = v
	return nil
}

// MaxUnavailableUsage is --max-unavailable's help.
const MaxUnavailableUsage = "a run phase whose workers spent more than this share of its worker-seconds without a session (lost, reconnecting) is failed (exit 5), " +
	"whatever --retries says, e.g. 5% or 0.05; 0 turns it off. A fault that kills the only target for long needs it raised"

// MaxErrorRateUsage is --max-error-rate's help.
const MaxErrorRateUsage = "error budget: a run phase whose failed operations (after retries) exceed this share of its operations is failed (exit 5), " +
	"e.g. 1% or 0.01; 100% turns it off. Above 1% the figures describe how fast the target fails rather than the workload"
