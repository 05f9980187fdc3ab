package runner

import (
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/candor-bench/candor/internal/measure"
	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/target"
)

// fillOps turns the collector's totals into the phase's operation results,
// its throughput and its count of finished top-level operations (failed ones
// included) over the measured time.
func fillOps(p *result.Phase, total []*measure.OpStats, measured time.Duration) {
	secs := secondsOf(measured)
	p.DurationSec = measured.Seconds()
	var ok, all int64
	for _, s := range total {
		o := result.OpResult{
			Name: s.Name, Count: s.Count(), Attempts: s.Attempts, Done: s.TopLevel, Retries: s.Retries,
			Aborts: s.Aborts, NoSession: s.NoSession, Clamped: s.Clamped, Unfinished: s.Unfinished,
		}
		o.Throughput = float64(o.Count) / secs
		o.Latency = result.Summarize(s.H[measure.Latency])
		o.Service = result.Summarize(s.H[measure.Service])
		o.Lag = result.Summarize(s.H[measure.Lag])
		o.Failed = result.Summarize(s.H[measure.Failed])
		if s.ErrorCount() > 0 {
			o.Errors = classMap(s.Errors)
		}
		for i, n := range s.First {
			if n.Msg != "" && i < len(target.Classes) {
				if o.FirstErrors == nil {
					o.FirstErrors = map[string]string{}
				}
				o.FirstErrors[string(target.Classes[i])] = n.Msg
			}
		}
		for i, h := range s.H {
			if h == nil || h.TotalCount() == 0 {
				continue
			}
			if enc, err := result.EncodeHistogram(h); err == nil {
				if o.Histograms == nil {
					o.Histograms = map[string]string{}
				}
				o.Histograms[measure.SeriesNames[i]] = enc
			}
		}
		if o.Count == 0 && o.Aborts == 0 && o.Attempts == 0 && o.Unfinished == 0 && o.NoSession == 0 {
			continue // an operation the workload never chose
		}
		ok += s.TopLevel
		// Operations that could not be attempted for want of a session
		// failed as surely as those that were: both count against the
		// error budget.
		all += s.TopLevel + o.Aborts + o.NoSession
		p.Ops = append(p.Ops, o)
	}
	p.Throughput = float64(ok) / secs
	p.Operations = all
	if all > 0 {
		p.ErrorRate = float64(all-ok) / float64(all)
	}
}

// noSessionOps sums the phase's operations that could not be attempted for
// want of a session.
func noSessionOps(p *result.Phase) int64 {
	var n int64
	for _, o := range p.Ops {
		n += o.NoSession
	}
	return n
}

// storeMax raises v to x if x is larger.
func storeMax(v *atomic.Int64, x int64) {
	for {
		cur := v.Load()
		if x <= cur || v.CompareAndSwap(cur, x) {
			return
		}
	}
}

// fillWorkers copies the workload counters and per-worker totals.
func fillWorkers(p *result.Phase, coll *measure.Collector, counters []string) {
	if len(counters) > 0 {
		p.Counters = map[string]int64{}
		for i, n := range coll.Counters() {
			p.Counters[counters[i]] = n
		}
	}
	for _, w := range coll.Workers() {
		p.Workers = append(p.Workers, result.WorkerStats{Ops: w.Ops, BusySec: float64(w.BusyNs) / 1e9})
	}
}

// DefaultMaxErrorRate is the error budget of a run phase when none is given
// (--max-error-rate): 1% of its operations. A healthy run's operations do
// not fail (retried serialization errors that end in success are not
// failures); past one in a hundred, the figures describe how fast the
// target fails (errors usually return faster than work) rather than the
// workload, as when a run reads keys its table does not hold.
const DefaultMaxErrorRate = 0.01

// NoErrorBudget as Config.MaxErrorRate turns the error budget off.
const NoErrorBudget = -1

// errorBudget returns why phase p breaks the budget max (a fraction of its
// operations that may fail; negative: no budget), or "" when it does not.
func errorBudget(p *result.Phase, max float64) string {
	if max < 0 || p.Operations == 0 || p.ErrorRate <= max {
		return ""
	}
	var classes []string
	for _, o := range p.Ops {
		if o.Aborts == 0 && o.NoSession == 0 && len(o.Errors) == 0 {
			continue
		}
		var parts []string
		for _, c := range target.Classes {
			if n := o.Errors[string(c)]; n > 0 {
				parts = append(parts, string(c)+" "+result.Thousands(n))
			}
		}
		if len(parts) > 0 {
			classes = append(classes, o.Name+" "+strings.Join(parts, ", "))
		}
	}
	var failed int64
	for _, o := range p.Ops {
		failed += o.Aborts + o.NoSession
	}
	return fmt.Sprintf("error rate %s above --max-error-rate %s: %s",
		FormatRate(failed, p.Operations), FormatFraction(max), strings.Join(classes, "; "))
}

// DefaultMaxUnavailable is the share of a run phase's worker-seconds its
// workers may spend without a session when none is given
// (--max-unavailable): 5%. A healthy run loses no session; a short
// fail-over costs a second or two of a minute's run, while a phase whose
// workers were without a session for more than one part in twenty
// measured an outage, not the workload (retried or not, the operations
// that could not run count in no error rate).
const DefaultMaxUnavailable = 0.05

// unavailability is the Phase.Unavailable of a phase of threads workers
// whose measured time was measured, without a session for without (summed
// over the workers, within the measured time).
func unavailability(without time.Duration, threads int, measured time.Duration) *result.Unavailability {
	u := &result.Unavailability{WithoutSec: without.Seconds(), WorkerSec: float64(threads) * max(measured, 0).Seconds()}
	if u.WorkerSec > 0 {
		u.Share = min(u.WithoutSec/u.WorkerSec, 1)
	}
	return u
}

// unavailableBudget returns why u breaks the limit max (a share of the
// worker-seconds; 0: no limit), or "" when it does not.
func unavailableBudget(u *result.Unavailability, max float64) string {
	if max <= 0 || u == nil || u.Share <= max {
		return ""
	}
	return fmt.Sprintf("workers without a session %s of the phase (%.2f of %.2f worker-seconds) above --max-unavailable %s",
		FormatFraction(u.Share), u.WithoutSec, u.WorkerSec, FormatFraction(max))
}

// FormatFraction prints a fraction as a percentage: 0.01 → "1%".
func FormatFraction(f float64) string {
	return strconv.FormatFloat(100*f, 'g', 4, 64) + "%"
}
