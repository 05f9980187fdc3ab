package runner

import (
	"sync/atomic"
	"time"

	"github.com/candor-bench/candor/internal/measure"
	"github.com/candor-bench/candor/internal/result"
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
			Name: s.Name, Count: s.Count(), Attempts: s.Attempts, Retries: s.Retries,
			Aborts: s.Aborts, Clamped: s.Clamped,
		}
		o.Throughput = float64(o.Count) / secs
		o.Latency = result.Summarize(s.H[measure.Latency])
		o.Service = result.Summarize(s.H[measure.Service])
		o.Lag = result.Summarize(s.H[measure.Lag])
		o.Failed = result.Summarize(s.H[measure.Failed])
		if s.ErrorCount() > 0 {
			o.Errors = classMap(s.Errors)
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
		if o.Count == 0 && o.Aborts == 0 && o.Attempts == 0 {
			continue // an operation the workload never chose
		}
		ok += s.TopLevel
		all += s.TopLevel + o.Aborts
		p.Ops = append(p.Ops, o)
	}
	p.Throughput = float64(ok) / secs
	p.Operations = all
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
