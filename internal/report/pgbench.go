package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/candor-bench/candor/internal/result"
)

// The pgbench format reproduces pgbench 15's report (printResults) and its
// -P progress line, so scripts that parse pgbench's output read candor's.
// Figures come from candor's measurements: latencies from its HDR
// histograms (the average is the measured mean, where pgbench without -R,
// -P or -L prints duration × clients / transactions), failures are the
// transactions that ended in an error, and there is no "initial connection
// time" line (candor connects before the measured time starts).

// pgbenchOptions are the options of script/pgbench a report reads, as the
// result records them (workload/pgbench.Options).
type pgbenchOptions struct {
	Scripts []struct {
		Name        string   `json:"name"`
		Description string   `json:"description"`
		Weight      int      `json:"weight"`
		Commands    []string `json:"commands"`
	} `json:"scripts"`
	Scale           int64   `json:"scale"`
	Protocol        string  `json:"protocol"`
	MaxTries        int     `json:"max_tries"`
	ReportLatencies bool    `json:"report_latencies"`
	Jobs            int     `json:"jobs"`
	LatencyLimitMs  float64 `json:"latency_limit_ms"`
}

func pgbenchOptionsOf(res *result.Result) (pgbenchOptions, error) {
	var o pgbenchOptions
	b, err := json.Marshal(res.Workload.Options)
	if err == nil {
		err = json.Unmarshal(b, &o)
	}
	return o, err
}

// WritePgbench prints p, a run phase of script/pgbench, as pgbench 15
// prints its results.
func WritePgbench(w io.Writer, res *result.Result, p *result.Phase) {
	o, err := pgbenchOptionsOf(res)
	if err != nil || len(o.Scripts) == 0 {
		fmt.Fprintf(w, "candor: the pgbench report needs a script/pgbench result (%s)\n", res.Workload.Name)
		return
	}
	run := res.Run
	clients := run.Threads
	jobs := max(o.Jobs, 1)
	if len(o.Scripts) == 1 {
		fmt.Fprintf(w, "transaction type: %s\n", o.Scripts[0].Description)
	} else {
		fmt.Fprintln(w, "transaction type: multiple scripts")
	}
	fmt.Fprintf(w, "scaling factor: %d\n", o.Scale)
	fmt.Fprintf(w, "query mode: %s\n", o.Protocol)
	fmt.Fprintf(w, "number of clients: %d\n", clients)
	fmt.Fprintf(w, "number of threads: %d\n", jobs)
	if o.MaxTries != 0 {
		fmt.Fprintf(w, "maximum number of tries: %d\n", o.MaxTries)
	}
	var done, failed, retries int64
	var all *hdr.Histogram
	var lag *result.Summary
	perScript := make([]*hdr.Histogram, len(p.Ops))
	for i, op := range p.Ops {
		done += op.Done
		retries += op.Retries
		if s, ok := op.Histograms["latency"]; ok {
			if h, err := result.DecodeHistogram(s); err == nil {
				perScript[i] = h
				if all == nil {
					all = hdr.New(h.LowestTrackableValue(), h.HighestTrackableValue(), int(h.SignificantFigures()))
				}
				all.Merge(h)
			}
		}
		if op.Lag != nil && (lag == nil || op.Lag.Max > lag.Max) {
			lag = op.Lag
		}
	}
	failed = 0
	for _, op := range p.Ops {
		for _, n := range op.Errors {
			failed += n
		}
	}
	total := done + failed + p.Dropped
	pct := func(n int64) float64 {
		if total == 0 {
			return 0
		}
		return 100 * float64(n) / float64(total)
	}
	if run.DurationSec > 0 {
		fmt.Fprintf(w, "duration: %d s\n", int64(math.Round(run.DurationSec)))
		fmt.Fprintf(w, "number of transactions actually processed: %d\n", done)
	} else {
		per := int64(0)
		if clients > 0 {
			per = run.Operations / int64(clients)
		}
		fmt.Fprintf(w, "number of transactions per client: %d\n", per)
		fmt.Fprintf(w, "number of transactions actually processed: %d/%d\n", done, run.Operations)
	}
	fmt.Fprintf(w, "number of failed transactions: %d (%.3f%%)\n", failed, pct(failed))
	if o.MaxTries != 1 {
		fmt.Fprintf(w, "total number of retries: %d\n", retries)
	}
	if run.Rate > 0 && o.LatencyLimitMs > 0 {
		fmt.Fprintf(w, "number of transactions skipped: %d (%.3f%%)\n", p.Dropped, pct(p.Dropped))
	}
	if o.LatencyLimitMs > 0 && all != nil {
		late := countAbove(all, int64(o.LatencyLimitMs*1e6))
		fmt.Fprintf(w, "number of transactions above the %.1f ms latency limit: %d/%d (%.3f%%)\n", o.LatencyLimitMs, late, total, pct(late))
	}
	stddev := run.Rate > 0 || run.ReportInterval > 0 && progressGiven(res) || o.LatencyLimitMs > 0
	if all != nil {
		fmt.Fprintf(w, "latency average = %.3f ms\n", all.Mean()/1e6)
		if stddev {
			fmt.Fprintf(w, "latency stddev = %.3f ms\n", all.StdDev()/1e6)
		}
	}
	if run.Rate > 0 && lag != nil {
		fmt.Fprintf(w, "rate limit schedule lag: avg %.3f (max %.3f) ms\n", lag.Mean/1e6, float64(lag.Max)/1e6)
	}
	secs := p.DurationSec
	tps := 0.0
	if secs > 0 {
		tps = float64(done) / secs
	}
	fmt.Fprintf(w, "tps = %f (without initial connection time)\n", tps)
	multi := len(o.Scripts) > 1
	for i, s := range o.Scripts {
		var op *result.OpResult
		if i < len(p.Ops) {
			op = &p.Ops[i]
		}
		if multi && op != nil {
			var totalWeight int
			for _, t := range o.Scripts {
				totalWeight += t.Weight
			}
			var fails int64
			for _, n := range op.Errors {
				fails += n
			}
			fmt.Fprintf(w, "SQL script %d: %s\n", i+1, s.Description)
			fmt.Fprintf(w, " - weight: %d (targets %.1f%% of total)\n", s.Weight, 100*float64(s.Weight)/float64(max(totalWeight, 1)))
			share := 0.0
			if done > 0 {
				share = 100 * float64(op.Done) / float64(done)
			}
			stps := 0.0
			if secs > 0 {
				stps = float64(op.Done) / secs
			}
			fmt.Fprintf(w, " - %d transactions (%.1f%% of total, tps = %f)\n", op.Done, share, stps)
			fmt.Fprintf(w, " - number of failed transactions: %d (%.3f%%)\n", fails, pct(fails))
			if h := perScript[i]; h != nil {
				fmt.Fprintf(w, " - latency average = %.3f ms\n", h.Mean()/1e6)
				fmt.Fprintf(w, " - latency stddev = %.3f ms\n", h.StdDev()/1e6)
			}
		}
		if o.ReportLatencies {
			if multi {
				fmt.Fprintln(w, " - statement latencies in milliseconds and failures:")
			} else {
				fmt.Fprintln(w, "statement latencies in milliseconds and failures:")
			}
			for k, first := range s.Commands {
				key := func(what string) string { return fmt.Sprintf("%s %d %s", s.Name, k+1, what) }
				n := p.Counters[key("n")]
				avg := 0.0
				if n > 0 {
					avg = float64(p.Counters[key("ns")]) / float64(n) / 1e6
				}
				fmt.Fprintf(w, "   %11.3f  %10d  %s\n", avg, p.Counters[key("failed")], first)
			}
		}
	}
}

// progressGiven: -P was given, which candor records as the report interval
// (every result has one; pgbench prints stddev only with -P, -R or -L).
func progressGiven(res *result.Result) bool {
	var s struct {
		ReportInterval *int64 `json:"report_interval,omitempty"`
	}
	_ = json.Unmarshal(res.Spec, &s)
	return s.ReportInterval != nil
}

// countAbove counts the values of h above limit (ns).
func countAbove(h *hdr.Histogram, limit int64) int64 {
	var n int64
	for _, b := range h.Distribution() {
		if b.From > limit {
			n += b.Count
		}
	}
	return n
}

// PgbenchProgressLine is pgbench's -P line for one interval: the elapsed
// time, tps, latency average and stddev, and failed transactions.
func PgbenchProgressLine(iv result.Interval) string {
	secs := iv.LengthSec
	if secs <= 0 {
		secs = 1e-9
	}
	var n, failed int64
	var h *hdr.Histogram
	for _, o := range iv.Ops {
		n += o.Count
		failed += o.Errors
		if o.Histogram == "" {
			continue
		}
		if x, err := result.DecodeHistogram(o.Histogram); err == nil {
			if h == nil {
				h = hdr.New(x.LowestTrackableValue(), x.HighestTrackableValue(), int(x.SignificantFigures()))
			}
			h.Merge(x)
		}
	}
	var mean, sd float64
	if h != nil {
		mean, sd = h.Mean()/1e6, h.StdDev()/1e6
	}
	return fmt.Sprintf("progress: %.1f s, %.1f tps, lat %.3f ms stddev %.3f, %d failed", iv.ElapsedSec, float64(n)/secs, mean, sd, failed)
}
