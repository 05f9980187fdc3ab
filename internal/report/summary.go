package report

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/candor-bench/candor/internal/result"
)

// The summaries candor prints when a run ends: candor's text, YCSB's
// [OVERALL] lines (the sysbench format is in sysbench.go).

// WriteRepetitions prints mean ± 95% CI half-width (and the standard
// deviation) over the repetitions.
func WriteRepetitions(w io.Writer, r *result.Repetitions) {
	excluded := ""
	if r.Excluded > 0 {
		reps := make([]string, len(r.ExcludedReps))
		for i, n := range r.ExcludedReps {
			reps[i] = fmt.Sprint(n)
		}
		excluded = fmt.Sprintf("%d excluded: repetition %s did not complete", r.Excluded, strings.Join(reps, ", "))
	}
	if r.N < 2 {
		noun := "repetitions"
		if r.N == 1 {
			noun = "repetition"
		}
		fmt.Fprintf(w, "\n%d complete %s, too few for statistics (%s)\n", r.N, noun, excluded)
		return
	}
	fmt.Fprintf(w, "\nover %d repetitions: mean ± 95%% confidence interval (standard deviation)\n", r.N)
	if excluded != "" {
		fmt.Fprintf(w, "(%s)\n", excluded)
	}
	ci := func(s result.Stat) float64 { return (s.CI95High - s.CI95Low) / 2 }
	fmt.Fprintf(w, "throughput  %.1f ± %.1f ops/s (sd %.1f)\n", r.Throughput.Mean, ci(r.Throughput), r.Throughput.StdDev)
	lat := func(s result.Stat) string {
		return fmt.Sprintf("%s ± %s", result.FormatNs(int64(s.Mean)), result.FormatNs(int64(ci(s))))
	}
	fmt.Fprintf(w, "%-13s %22s %20s %20s %20s\n", "operation", "ops/s", "p50", "p95", "p99")
	for _, o := range r.Ops {
		fmt.Fprintf(w, "%-13s %22s %20s %20s %20s\n", trunc(o.Name, 13),
			fmt.Sprintf("%.1f ± %.1f", o.Throughput.Mean, ci(o.Throughput)), lat(o.P50), lat(o.P95), lat(o.P99))
	}
}

// WriteText prints a phase summary that fits 100 columns; classes are the
// error classes in the order their first errors are listed.
func WriteText(w io.Writer, res *result.Result, p *result.Phase, classes []string) {
	measure := res.Run.LatencyMeasure
	if p.Name == "load" {
		measure = fmt.Sprintf("per batch of up to %d rows", res.Run.LoadBatch)
	}
	fmt.Fprintf(w, "\n%s %s: %s in %.2f s", res.Workload.Name, p.Name, p.Status, p.DurationSec)
	if p.Name == "load" {
		fmt.Fprintf(w, ", %d rows, %.1f rows/s\n", p.Rows, p.Throughput)
	} else {
		fmt.Fprintf(w, ", %.1f ops/s\n", p.Throughput)
	}
	if p.Failure != "" {
		fmt.Fprintf(w, "FAILED: %s\n", p.Failure)
	}
	writeRowRates(w, p)
	writeTpmC(w, p)
	fmt.Fprintf(w, "latency: %s\n", measure)
	fmt.Fprintf(w, "%-13s %9s %9s %7s %7s %7s %7s %7s %7s %7s %7s %6s\n",
		"operation", "count", "ops/s", "avg", "min", "p50", "p90", "p95", "p99", "p99.9", "max", "errors")
	for _, o := range p.Ops {
		s := o.Latency
		if s == nil {
			s = &result.Summary{}
		}
		var errs int64
		for _, n := range o.Errors {
			errs += n
		}
		fmt.Fprintf(w, "%-13s %9d %9.1f %7s %7s %7s %7s %7s %7s %7s %7s %6d\n",
			trunc(o.Name, 13), o.Count, o.Throughput, result.FormatNs(int64(math.Round(s.Mean))), result.FormatNs(s.Min),
			result.FormatNs(s.P50), result.FormatNs(s.P90), result.FormatNs(s.P95), result.FormatNs(s.P99),
			result.FormatNs(s.P999), result.FormatNs(s.Max), errs)
	}
	for _, o := range p.Ops {
		if len(o.Errors) == 0 && o.Retries == 0 {
			continue
		}
		fmt.Fprintf(w, "%s: attempts %d, retries %d, aborts %d, errors by class: %s\n", o.Name, o.Attempts, o.Retries, o.Aborts, ClassList(o.Errors))
		for _, c := range classes {
			if m := o.FirstErrors[c]; m != "" {
				fmt.Fprintf(w, "  first %s error: %s\n", c, m)
			}
		}
	}
	for _, o := range p.Ops {
		// The latency summary counts the lower bounds of operations still
		// running at the end (result.OpResult.Unfinished) besides count.
		if o.Latency != nil && o.Latency.Count > o.Count {
			fmt.Fprintf(w, "%s: %d still running at the end, in the latencies with their time so far (a lower bound)\n", o.Name, o.Latency.Count-o.Count)
		}
	}
	if p.Rate != nil {
		flag := ""
		switch why, fault := p.ScheduleVerdict(); {
		case fault:
			flag = "  (behind schedule around the scheduled fault only: " + why + "; the rate was sustained over the run)"
		case why != "":
			flag = "  BEHIND SCHEDULE: " + why
		}
		fmt.Fprintf(w, "open loop: target %.1f ops/s, achieved %.1f ops/s, max schedule lag %s%s\n",
			p.Rate.Target, p.Rate.Achieved, result.FormatNs(p.Rate.MaxLagNs), flag)
		if p.Dropped > 0 {
			fmt.Fprintf(w, "dropped: %s operations due by the schedule never began (in no latency figure)\n", result.Thousands(p.Dropped))
		}
	}
	if p.Reconnects > 0 {
		fmt.Fprintf(w, "reconnects: %d\n", p.Reconnects)
	}
	if l := UnavailableLine(p.Unavailable); l != "" {
		fmt.Fprintln(w, l)
	}
	WriteFaultSummary(w, p)
	c := p.Client
	fmt.Fprintf(w, "client: %.2f cores, max RSS %.1f MB, %s CPU per %s, host %.0f%% busy",
		c.AvgCores, float64(c.MaxRSS)/1e6, result.FormatNs(int64(c.CPUNsPerOp)), map[bool]string{true: "row", false: "operation"}[p.Name == "load"], 100*c.HostBusy)
	if caps := res.Target.Capabilities; caps != nil && caps.Embedded {
		fmt.Fprint(w, "\n(in-process target: candor's CPU includes the target's work)")
	}
	if c.Saturated {
		fmt.Fprintf(w, "\nWARNING client saturated: %s; the figures may measure candor, not the database", c.SaturatedCause)
	}
	fmt.Fprintln(w)
}

func trunc(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// WriteYCSB prints YCSB 0.17.0's text exporter lines ([OVERALL], [READ], ...)
// so existing parsers keep working. Latencies in µs; 95th and 99th
// percentiles as 0.17.0 reports by default; failed operations under
// <OP>-FAILED, as YCSB measures them.
//
// Differences from YCSB: RunTime is the measured phase (after warm-up),
// where YCSB's also includes each thread's DB init and cleanup; there are
// no [TOTAL_GC*] or [CLEANUP] lines (no JVM, no measured cleanup); and the
// figures come from candor's nanosecond histograms rounded to µs.
func WriteYCSB(w io.Writer, p *result.Phase) {
	runMs := p.DurationSec * 1000
	fmt.Fprintf(w, "[OVERALL], RunTime(ms), %d\n", int64(math.Round(runMs)))
	// Top-level operations, failed ones included (the READ and UPDATE inside
	// READ-MODIFY-WRITE are not operations of their own); a load counts
	// records, as YCSB's does, not candor's batches.
	n := p.Operations
	if p.Name == "load" {
		n = p.Rows
	}
	thr := 0.0
	if runMs > 0 {
		thr = 1000 * float64(n) / runMs
	}
	fmt.Fprintf(w, "[OVERALL], Throughput(ops/sec), %s\n", javaDouble(thr))
	for _, o := range p.Ops {
		if o.Latency != nil {
			// Its figures include the lower bounds of operations still
			// running at the end; YCSB's Operations counts finished ones.
			lat := *o.Latency
			lat.Count = o.Count
			ycsbBlock(w, o.Name, &lat)
			fmt.Fprintf(w, "[%s], Return=OK, %d\n", o.Name, o.Count)
		}
		if o.Failed != nil {
			ycsbBlock(w, o.Name+"-FAILED", o.Failed)
			fmt.Fprintf(w, "[%s], Return=ERROR, %d\n", o.Name, o.Failed.Count)
		}
	}
}

func ycsbBlock(w io.Writer, name string, s *result.Summary) {
	us := func(ns int64) int64 { return int64(math.Round(float64(ns) / 1000)) }
	fmt.Fprintf(w, "[%s], Operations, %d\n", name, s.Count)
	fmt.Fprintf(w, "[%s], AverageLatency(us), %s\n", name, javaDouble(s.Mean/1000))
	fmt.Fprintf(w, "[%s], MinLatency(us), %d\n", name, us(s.Min))
	fmt.Fprintf(w, "[%s], MaxLatency(us), %d\n", name, us(s.Max))
	fmt.Fprintf(w, "[%s], 95thPercentileLatency(us), %d\n", name, us(s.P95))
	fmt.Fprintf(w, "[%s], 99thPercentileLatency(us), %d\n", name, us(s.P99))
}

// javaDouble prints a float the way Java's Double.toString does for the
// ranges YCSB prints (always a decimal point).
func javaDouble(f float64) string {
	s := fmt.Sprintf("%v", f)
	if !strings.ContainsAny(s, ".eEN") {
		s += ".0"
	}
	return s
}

// writeRowRates prints commit-loop's headline figure under a phase's first
// line: rows committed per second as the client measured them and as the
// server saw them, and the server's rate per job with several jobs. With
// --in-server one operation is a whole loop, so the ops/s above is not the
// figure; nothing is printed for phases without these figures.
func writeRowRates(w io.Writer, p *result.Phase) {
	rr, ok := RowRatesOf(p)
	if !ok {
		return
	}
	server := "not available"
	if rr.Server > 0 {
		server = fmt.Sprintf("%.1f rows/s", rr.Server)
	}
	fmt.Fprintf(w, "commit rate: client %.1f rows/s, server %s (%.0f rows)\n", rr.Client, server, rr.Rows)
	if len(rr.Jobs) > 0 {
		parts := make([]string, len(rr.Jobs))
		for i, v := range rr.Jobs {
			parts[i] = fmt.Sprintf("job %d %.1f", i+1, v)
		}
		fmt.Fprintf(w, "server rows/s per job: %s\n", strings.Join(parts, ", "))
	}
}

// UnavailableLine says how much of a phase its workers spent without a
// session, or "" when none (or an older result does not say).
func UnavailableLine(u *result.Unavailability) string {
	if u == nil || u.WithoutSec <= 0 {
		return ""
	}
	return fmt.Sprintf("without a session: %.2f%% of the phase's worker-seconds (%.2f of %.2f)", 100*u.Share, u.WithoutSec, u.WorkerSec)
}

// IsolationLine says what the list-append checker found in a phase's
// history ("" without one): "isolation: 1234 transactions (1100 ok, 130
// failed, 4 unknown), anomalies G-single 16, G2-item 9; history
// r.history.jsonl".
func IsolationLine(iso *result.Isolation) string {
	if iso == nil {
		return ""
	}
	found := "no anomaly found"
	if len(iso.Anomalies) > 0 {
		classes := make([]string, 0, len(iso.Anomalies))
		for c := range iso.Anomalies {
			classes = append(classes, c)
		}
		sort.Strings(classes)
		var parts []string
		for _, c := range classes {
			parts = append(parts, fmt.Sprintf("%s %d", c, iso.Anomalies[c]))
		}
		found = "anomalies " + strings.Join(parts, ", ")
	}
	l := fmt.Sprintf("isolation: %d transactions (%d ok, %d failed, %d unknown), %s", iso.Transactions,
		iso.OK, iso.Failed, iso.Unknown, found)
	if iso.History != "" {
		l += "; history " + iso.History
	}
	if iso.Error != "" {
		l += "; " + iso.Error
	}
	return l
}

// WriteFaultSummary prints a phase's faults, its workers' time without a
// session, its ledger verdict and its isolation checker's.
func WriteFaultSummary(w io.Writer, p *result.Phase) {
	if l := IsolationLine(p.Isolation); l != "" {
		fmt.Fprintln(w, l)
	}
	for _, l := range FaultLines(p.Faults) {
		fmt.Fprintln(w, l)
	}
	var parts []string
	for i, ws := range p.Workers {
		if ws.Reconnects > 0 || ws.NoSessionSec > 0 {
			parts = append(parts, fmt.Sprintf("w%d %d in %.2f s", i, ws.Reconnects, ws.NoSessionSec))
		}
	}
	if len(parts) > 0 {
		fmt.Fprintf(w, "reconnects by worker (time without a session): %s\n", strings.Join(parts, ", "))
	}
	ledgerLines := LedgerLines(p.Ledger)
	if u, ok := UnreplicatedAtFault(p); ok {
		ledgerLines = append(ledgerLines, UnreplicatedLine(u))
	}
	for _, l := range ledgerLines {
		fmt.Fprintln(w, l)
	}
}
