package report

import (
	"fmt"
	"io"
	"math"
	"strings"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/version"
)

// The sysbench format reproduces sysbench 1.0.20's report layout
// (db_report_cumulative, sb_report_cumulative) and its --report-interval line
// (db_report_intermediate), so scripts that parse sysbench output read
// candor's. Values come from candor's own measurements: latencies from its
// HDR histograms (sysbench uses a coarser log histogram, whose buckets
// --histogram prints), "ignored errors" are the restarted events, and
// percentiles are computed for --percentile (0: none, as in sysbench).

// sysbenchWidth is the width sysbench right-aligns latency figures to.
const sysbenchWidth = 53

// SysbenchHeader prints what sysbench prints before its first interval:
// the target rate with --rate, the interval with --report-interval, and the
// seed the workload draws from (--rand-seed, else candor's run seed, where
// sysbench would say "from current time").
func SysbenchHeader(w io.Writer, threads int, rate, reportEvery float64, seed int64) {
	SysbenchBanner(w)
	fmt.Fprintln(w, "Running the test with following options:")
	fmt.Fprintf(w, "Number of threads: %d\n", threads)
	if rate > 0 {
		fmt.Fprintf(w, "Target transaction rate: %g/sec\n", rate)
	}
	if reportEvery > 0 {
		fmt.Fprintf(w, "Report intermediate results every %g second(s)\n", reportEvery)
	}
	fmt.Fprintf(w, "Initializing random number generator from seed (%d).\n\n\n", seed)
	fmt.Fprintln(w, "Initializing worker threads...")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Threads started!")
	fmt.Fprintln(w)
}

// SysbenchBanner is the first line and the blank line after it, where
// sysbench prints "sysbench 1.0.20 (using ...)" before every command.
func SysbenchBanner(w io.Writer) {
	v, _, _ := version.Info()
	fmt.Fprintf(w, "candor %s (sysbench 1.0.20 report format)\n\n", v)
}

// SysbenchIntervalLine formats one --report-interval line as
// db_report_intermediate does, and in an open loop (--rate) the queue line
// after it.
func SysbenchIntervalLine(iv result.Interval, threads int, pct float64) string {
	secs := iv.LengthSec
	if secs <= 0 {
		secs = 1e-9
	}
	var events, errs int64
	var lat float64
	for _, o := range iv.Ops {
		events += o.Count
		errs += o.Errors
		// With --percentile=0 sysbench shows its histogram's lowest bound,
		// 0.001 ms, as "0.00".
		if o.Histogram != "" && pct > 0 {
			if h, err := result.DecodeHistogram(o.Histogram); err == nil {
				lat = math.Max(lat, float64(h.ValueAtPercentile(pct))/1e6)
			}
		}
	}
	r, wr, ot := float64(iv.Counters["reads"]), float64(iv.Counters["writes"]), float64(iv.Counters["other"])
	line := fmt.Sprintf("[ %.0fs ] thds: %d tps: %4.2f qps: %4.2f (r/w/o: %4.2f/%4.2f/%4.2f) lat (ms,%g%%): %4.2f err/s: %4.2f reconn/s: %4.2f",
		iv.ElapsedSec, threads, float64(events)/secs, (r+wr+ot)/secs, r/secs, wr/secs, ot/secs, pct, lat,
		float64(errs)/secs, float64(iv.Reconnects)/secs)
	if iv.Queue != nil && iv.Concurrency != nil {
		// With --rate sysbench adds the backlog of its event queue and the
		// threads running an event; candor's queue is the events due by the
		// workers' own schedules and not yet begun (package sysbench).
		line += fmt.Sprintf("\n[ %.0fs ] queue length: %d, concurrency: %d", iv.ElapsedSec, *iv.Queue, *iv.Concurrency)
	}
	return line
}

// WriteSysbench prints the final report of a run phase: with pct > 0 its
// percentile (sysbench's --percentile), with histogram its latency
// histogram (--histogram).
func WriteSysbench(w io.Writer, p *result.Phase, pct float64, histogram bool) {
	secs := p.DurationSec
	if secs <= 0 {
		secs = 1e-9
	}
	var events, ignored int64
	var lat *result.Summary
	var hist *hdr.Histogram
	for _, o := range p.Ops {
		events += o.Count
		ignored += o.Retries
		if o.Latency != nil {
			lat = o.Latency
			if enc := o.Histograms["latency"]; enc != "" {
				if h, err := result.DecodeHistogram(enc); err == nil {
					hist = h
				}
			}
		}
	}
	var pctNs int64
	if hist != nil && pct > 0 {
		pctNs = hist.ValueAtPercentile(pct)
	}
	if histogram && hist != nil {
		writeSysbenchHistogram(w, hist)
	}
	reads, writes, other := p.Counters["reads"], p.Counters["writes"], p.Counters["other"]
	queries := reads + writes + other
	fmt.Fprintln(w, "SQL statistics:")
	fmt.Fprintln(w, "    queries performed:")
	fmt.Fprintf(w, "        read:                            %d\n", reads)
	fmt.Fprintf(w, "        write:                           %d\n", writes)
	fmt.Fprintf(w, "        other:                           %d\n", other)
	fmt.Fprintf(w, "        total:                           %d\n", queries)
	fmt.Fprintf(w, "    transactions:                        %-6d (%.2f per sec.)\n", events, float64(events)/secs)
	fmt.Fprintf(w, "    queries:                             %-6d (%.2f per sec.)\n", queries, float64(queries)/secs)
	fmt.Fprintf(w, "    ignored errors:                      %-6d (%.2f per sec.)\n", ignored, float64(ignored)/secs)
	fmt.Fprintf(w, "    reconnects:                          %-6d (%.2f per sec.)\n", p.Reconnects, float64(p.Reconnects)/secs)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "General statistics:")
	fmt.Fprintf(w, "    total time:                          %.4fs\n", p.DurationSec)
	fmt.Fprintf(w, "    total number of events:              %d\n", events)
	fmt.Fprintln(w)
	if lat == nil {
		lat = &result.Summary{}
	}
	ms := func(ns float64) float64 { return ns / 1e6 }
	fmt.Fprintln(w, "Latency (ms):")
	sysbenchFigure(w, "         min:", ms(float64(lat.Min)))
	sysbenchFigure(w, "         avg:", ms(lat.Mean))
	sysbenchFigure(w, "         max:", ms(float64(lat.Max)))
	if pct > 0 {
		sysbenchFigure(w, fmt.Sprintf("        %3sth percentile:", trimFloat(pct)), ms(float64(pctNs)))
	} else {
		fmt.Fprintln(w, "         percentile stats:               disabled")
	}
	sysbenchFigure(w, "         sum:", ms(lat.Mean*float64(lat.Count)))
	fmt.Fprintln(w)
	evAvg, evSD := meanSD(p.Workers, func(s result.WorkerStats) float64 { return float64(s.Ops) })
	tAvg, tSD := meanSD(p.Workers, func(s result.WorkerStats) float64 { return s.BusySec })
	fmt.Fprintln(w, "Threads fairness:")
	fmt.Fprintf(w, "    events (avg/stddev):           %.4f/%3.2f\n", evAvg, evSD)
	fmt.Fprintf(w, "    execution time (avg/stddev):   %.4f/%3.2f\n", tAvg, tSD)
	fmt.Fprintln(w)
}

// sysbench's latency histogram (sb_histogram.c): 1024 buckets evenly spaced
// in log(ms) from 0.001 ms to 100,000 ms, a value going to the nearest.
const (
	sbHistBuckets = 1024
	sbHistMinMs   = 0.001
	sbHistMaxMs   = 100000
)

// writeSysbenchHistogram prints --histogram's block as sysbench does
// (sb_histogram_print): each non-empty bucket's value in ms, a bar of up to
// 40 stars scaled to the fullest bucket, and its count. candor's HDR buckets
// (0.1% wide) are put into sysbench's (1.8% wide) by their midpoints.
func writeSysbenchHistogram(w io.Writer, h *hdr.Histogram) {
	deduct := math.Log(sbHistMinMs)
	mult := (sbHistBuckets - 1) / (math.Log(sbHistMaxMs) - deduct)
	var counts [sbHistBuckets]int64
	var most int64
	for _, b := range h.Distribution() {
		if b.Count == 0 {
			continue
		}
		i := 0
		if ms := float64(b.From+b.To) / 2 / 1e6; ms > 0 {
			i = int(math.Floor((math.Log(ms)-deduct)*mult + 0.5))
		}
		i = min(max(i, 0), sbHistBuckets-1)
		counts[i] += b.Count
		most = max(most, counts[i])
	}
	if most == 0 {
		return
	}
	fmt.Fprintln(w, "Latency histogram (values are in milliseconds)")
	fmt.Fprintln(w, "       value  ------------- distribution ------------- count")
	for i, n := range counts {
		if n == 0 {
			continue
		}
		stars := int(math.Floor(float64(n)*40/float64(most) + 0.5))
		fmt.Fprintf(w, "%12.3f |%-40s %d\n", math.Exp(float64(i)/mult+deduct), strings.Repeat("*", stars), n)
	}
	fmt.Fprintln(w, " ")
}

func sysbenchFigure(w io.Writer, label string, v float64) {
	fmt.Fprintf(w, "%s%*.2f\n", label, sysbenchWidth-len(label), v)
}

func trimFloat(f float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.3f", f), "0"), ".")
}

// meanSD is the mean and population standard deviation, as sysbench prints.
func meanSD(ws []result.WorkerStats, f func(result.WorkerStats) float64) (float64, float64) {
	if len(ws) == 0 {
		return 0, 0
	}
	var sum, sq float64
	for _, w := range ws {
		sum += f(w)
	}
	mean := sum / float64(len(ws))
	for _, w := range ws {
		d := f(w) - mean
		sq += d * d
	}
	return mean, math.Sqrt(sq / float64(len(ws)))
}
