package report

import (
	"fmt"
	"strings"

	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/stats"
)

// Durability is a cell's ledger figures over its repetitions.
type Durability struct {
	Lost, Unknown, RPO, RTO, RTOAll, Recovered90 stats.Summary
}

// LedgerFigures are the durability figures of phases with a ledger
// accounting, by name, in the order reports and compare list them; ok is
// false when no phase has one.
func LedgerFigures(ps []*result.Phase) (names []string, values map[string][]float64, ok bool) {
	names = []string{"lost", "unknown", "rpo_s", "rto_s", "rto_all_s", "recovered90_s"}
	values = map[string][]float64{}
	for _, p := range ps {
		if p.Ledger == nil || p.Ledger.Accounting == nil {
			continue
		}
		ok = true
		a := p.Ledger.Accounting
		values["lost"] = append(values["lost"], float64(a.Lost))
		values["unknown"] = append(values["unknown"], float64(a.Unknown))
		if f := a.Fault; f != nil {
			values["rpo_s"] = append(values["rpo_s"], f.RPOSeconds)
			for k, v := range map[string]*float64{"rto_s": f.RTOSeconds, "rto_all_s": f.RTOAllSeconds, "recovered90_s": f.Recovered90Seconds} {
				if v != nil {
					values[k] = append(values[k], *v)
				}
			}
		}
	}
	return names, values, ok
}

// DurabilityOf summarises the ledger figures of a cell's phases; nil when
// none has a ledger.
func DurabilityOf(ps []*result.Phase) *Durability {
	_, v, ok := LedgerFigures(ps)
	if !ok {
		return nil
	}
	return &Durability{Lost: stats.Summarize(v["lost"]), Unknown: stats.Summarize(v["unknown"]), RPO: stats.Summarize(v["rpo_s"]),
		RTO: stats.Summarize(v["rto_s"]), RTOAll: stats.Summarize(v["rto_all_s"]), Recovered90: stats.Summarize(v["recovered90_s"])}
}

// durabilityTable shows lost writes, RPO and RTO per cell, side by side;
// nil when no run of the variant kept a ledger.
func durabilityTable(v *Variant) *table {
	t := &table{Caption: "Durability: lost acknowledged writes, RPO and RTO around the fault",
		Head:  []string{"target", "threads", "lost", "unknown", "RPO s", "RTO s", "RTO all workers s", "90% throughput after s", "n"},
		Right: []bool{false, true, true, true, true, true, true, true, true},
		Note: "lost: acknowledged writes absent from the server afterwards; unknown: writes whose answer never came; " +
			"RPO: the fault's time minus the earliest lost acknowledgement; RTO: from the fault to the first acknowledged write after it " +
			"(all workers: to the last worker's). Measured from each run's first fault. " + ciNote}
	sec := func(x float64) string { return fmt.Sprintf("%.3f", x) }
	cnt := func(x float64) string { return fmt.Sprintf("%.0f", x) }
	val := func(s stats.Summary, f func(float64) string) string {
		if s.N == 0 {
			return "–"
		}
		return withCI(s, f)
	}
	for _, c := range v.Runs {
		d := c.Durability
		if d == nil {
			continue
		}
		t.Rows = append(t.Rows, []string{c.Series.Label, fmt.Sprint(c.Threads), val(d.Lost, cnt), val(d.Unknown, cnt), val(d.RPO, sec),
			val(d.RTO, sec), val(d.RTOAll, sec), val(d.Recovered90, sec), nText(c)})
	}
	if len(t.Rows) == 0 {
		return nil
	}
	return t
}

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
		if ev.Leftover != "" {
			fmt.Fprintf(&b, "; %s", ev.Leftover)
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
		if f.RTONotMeasured != "" {
			// The run ended on purpose before a recovery could be seen.
			if f.RTOSeconds == nil {
				rto = "not measured"
			}
			if f.RTOAllSeconds == nil {
				all = "not measured"
			}
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
				ws = append(ws, fmt.Sprintf("w%d %s", w.Worker, cond(f.RTONotMeasured != "", "not measured", "never")))
			}
		}
		if len(ws) > 0 {
			out = append(out, "ledger: RTO per worker: "+strings.Join(ws, ", "))
		}
		if f.RTONotMeasured != "" {
			out = append(out, "ledger: RTO not measured: "+f.RTONotMeasured)
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

// faultCaption lists a result's faults under its time series (drawn there
// as red bands); "" without faults.
func faultCaption(r *result.Result) string {
	var lines []string
	for _, p := range r.Phases {
		lines = append(lines, FaultLines(p.Faults)...)
	}
	if len(lines) == 0 {
		return ""
	}
	return "Faults (red bands): " + strings.Join(lines, "; ") + "."
}

// cond is a if c, else b.
func cond(c bool, a, b string) string {
	if c {
		return a
	}
	return b
}
