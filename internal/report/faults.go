package report

import (
	"fmt"
	"strings"

	"github.com/candor-bench/candor/internal/result"
)

// FaultLines describes a phase's faults, one line each: when each ran,
// how it ended, a command's exit status and its output's first line.
func FaultLines(evs []result.FaultEvent) []string {
	var out []string
	for _, ev := range evs {
		var b strings.Builder
		fmt.Fprintf(&b, "fault %d %s: %s", ev.Index+1, ev.Status, ev.Spec)
		if !ev.Start.IsZero() {
			fmt.Fprintf(&b, " (%.2f s to %.2f s", ev.StartS, ev.EndS)
			if ev.ExitStatus != nil {
				fmt.Fprintf(&b, ", exit %d", *ev.ExitStatus)
			}
			b.WriteString(")")
		}
		if ev.Error != "" {
			fmt.Fprintf(&b, ": %s", ev.Error)
		}
		if ev.Status == "failed" && ev.Output != "" {
			first, _, _ := strings.Cut(strings.TrimSpace(ev.Output), "\n")
			fmt.Fprintf(&b, "; output: %s", first)
		}
		out = append(out, b.String())
	}
	return out
}

// LedgerLines describes a phase's ledger verdict: writes by outcome, lost
// ones and RPO, how unknown writes resolved, failed-but-present and
// duplicates, RTO overall and per worker, time to 90% throughput.
func LedgerLines(lr *result.LedgerResult) []string {
	if lr == nil {
		return nil
	}
	if lr.Accounting == nil {
		return []string{"ledger: no accounting: " + lr.Error}
	}
	a := lr.Accounting
	out := []string{
		fmt.Sprintf("ledger: %d writes: %d acknowledged, %d failed, %d unknown; lost %d (acknowledged, absent)", a.Writes, a.Acknowledged, a.Failed, a.Unknown, a.Lost),
		fmt.Sprintf("ledger: unknown resolved %d committed, %d not; failed but present %d; duplicates %d; unrecorded %d", a.UnknownCommitted, a.UnknownNotCommitted, a.FailedPresent, a.Duplicates, a.Unrecorded),
	}
	if f := a.Fault; f != nil {
		rto := "none (nothing acknowledged after the fault)"
		if f.RTOSeconds != nil {
			rto = fmt.Sprintf("%.3f s", *f.RTOSeconds)
		}
		all := "never (a worker did not recover)"
		if f.RTOAllSeconds != nil {
			all = fmt.Sprintf("%.3f s", *f.RTOAllSeconds)
		}
		rec := "never"
		if f.Recovered90Seconds != nil {
			rec = fmt.Sprintf("%.1f s (±%.1f s)", *f.Recovered90Seconds, f.IntervalSeconds)
		}
		out = append(out, fmt.Sprintf("ledger: RPO %.3f s; RTO %s (first acknowledged write), %s (every worker); throughput back to 90%% of %.1f/s after %s",
			f.RPOSeconds, rto, all, f.PreFaultRate, rec))
		var ws []string
		for _, w := range f.Workers {
			if w.RTOSeconds != nil {
				ws = append(ws, fmt.Sprintf("w%d %.3f s", w.Worker, *w.RTOSeconds))
			} else {
				ws = append(ws, fmt.Sprintf("w%d never", w.Worker))
			}
		}
		if len(ws) > 0 {
			out = append(out, "ledger: RTO per worker: "+strings.Join(ws, ", "))
		}
	}
	if len(a.LostIDs) > 0 {
		var ids []string
		for _, id := range a.LostIDs {
			ids = append(ids, fmt.Sprint(id))
		}
		out = append(out, "ledger: first lost ids: "+strings.Join(ids, " "))
	}
	if lr.TruncatedBytes > 0 {
		out = append(out, fmt.Sprintf("ledger: %d bytes of partial records ignored (a crash while writing)", lr.TruncatedBytes))
	}
	return out
}
