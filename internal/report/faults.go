package report

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/candor-bench/candor/internal/ledger"
	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/stats"
)

// Durability is a cell's ledger figures over its repetitions.
type Durability struct {
	Lost, Unknown, RPO, RTO, RTOAll, Recovered90 stats.Summary
}

// LedgerFigures are the durability figures of phases with a ledger
// accounting of the run's own, by name, in the order reports and compare
// list them; ok is false when no phase has one.
func LedgerFigures(ps []*result.Phase) (names []string, values map[string][]float64, ok bool) {
	return ledgerFiguresOf(ps, runAccounting)
}

// VerifiedFigures are LedgerFigures of each phase's latest candor ledger
// verify (result.LedgerResult.LatestVerified), never the run's own; ok is
// false when no phase was verified.
func VerifiedFigures(ps []*result.Phase) (names []string, values map[string][]float64, ok bool) {
	return ledgerFiguresOf(ps, verifiedAccounting)
}

func runAccounting(l *result.LedgerResult) *ledger.Accounting {
	if l == nil {
		return nil
	}
	return l.Accounting
}

func verifiedAccounting(l *result.LedgerResult) *ledger.Accounting {
	if v := l.LatestVerified(); v != nil {
		return v.Accounting
	}
	return nil
}

func ledgerFiguresOf(ps []*result.Phase, of func(*result.LedgerResult) *ledger.Accounting) (names []string, values map[string][]float64, ok bool) {
	names = []string{"lost", "unknown", "rpo_s", "rto_s", "rto_all_s", "recovered90_s"}
	values = map[string][]float64{}
	for _, p := range ps {
		a := of(p.Ledger)
		if a == nil {
			continue
		}
		ok = true
		values["lost"] = append(values["lost"], float64(a.Lost))
		values["unknown"] = append(values["unknown"], float64(a.Unknown))
		// Outcomes, besides: in the durability table, not in compare's rows.
		for k, v := range map[string]int{"acknowledged": a.Acknowledged, "failed": a.Failed,
			"unknown_committed": a.UnknownCommitted, "unknown_not_committed": a.UnknownNotCommitted} {
			values[k] = append(values[k], float64(v))
		}
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

// VerifyText says which candor ledger verify a phase's verified figures
// are: when it ran and the fault its RPO and RTO are measured from; or
// that the ledger was never verified.
func VerifyText(p *result.Phase) string {
	if p == nil || p.Ledger == nil {
		return "no ledger"
	}
	v := p.Ledger.LatestVerified()
	if v == nil {
		if n := len(p.Ledger.Verifications); n > 0 {
			return fmt.Sprintf("never verified (%d candor ledger verify: %s)", n, p.Ledger.Verifications[n-1].Outcome)
		}
		return "never verified by candor ledger verify"
	}
	s := "candor ledger verify " + v.Time.UTC().Format(time.RFC3339)
	if v.FaultIndex != nil {
		s += fmt.Sprintf(", fault %d", *v.FaultIndex)
		for _, ev := range p.Faults {
			if ev.Index == *v.FaultIndex {
				s += " (" + ev.Spec + ")"
				break
			}
		}
	}
	return s
}

// DurabilityOf summarises the ledger figures of a cell's phases; nil when
// none has a ledger accounting, the run's or candor ledger verify's (the
// figures are the run's own).
func DurabilityOf(ps []*result.Phase) *Durability {
	_, v, ok := LedgerFigures(ps)
	if _, _, verified := VerifiedFigures(ps); !ok && !verified {
		return nil
	}
	return &Durability{Lost: stats.Summarize(v["lost"]), Unknown: stats.Summarize(v["unknown"]), RPO: stats.Summarize(v["rpo_s"]),
		RTO: stats.Summarize(v["rto_s"]), RTOAll: stats.Summarize(v["rto_all_s"]), Recovered90: stats.Summarize(v["recovered90_s"])}
}

// durabilityTable shows each cell's ledger verdict: every write's outcome
// (acknowledged, failed, unknown and how the unknown resolved), lost
// acknowledged writes, what the standbys lacked at the fault, RPO and RTO —
// a row of means per cell, then one per repetition; nil when no run of
// the variant kept a ledger.
func durabilityTable(m *Model, v *Variant) *table {
	t := &table{Caption: "Durability: every write's outcome, lost acknowledged writes, RPO and RTO around the fault",
		Head: []string{"target", "threads", "run", "figures", "acknowledged", "failed", "unknown", "unknown committed / not", "lost",
			"unreplicated at the fault", "RPO s", "RTO s", "RTO all workers s", "90% throughput after s", "n"},
		Right: []bool{false, true, false, false, true, true, true, true, true, true, true, true, true, true, true},
		Note: "figures: the run's are its own accounting at its end; ledger verify's are the latest candor ledger verify " +
			"of each run (when it ran, and the fault its RPO and RTO are measured from), read back later, beside the run's, " +
			"never replacing them; \"never verified\" when no verify accounted for the ledger. " +
			"lost: acknowledged writes absent from the server afterwards; unknown: writes whose answer never came, " +
			"then found committed or not; unreplicated at the fault: the WAL the primary had written that a standby's " +
			"replication slot had not confirmed, read from the last server-counter sample before the fault (the most any " +
			"standby lacked; PostgreSQL); RPO: the fault's time minus the earliest lost acknowledgement; RTO: from the fault to " +
			"the first acknowledged write after it (all workers: to the last worker's); 90% throughput: to the first interval " +
			"back at 90% of the rate before the fault, at the resolution of one report interval. RPO and RTO are measured from " +
			"the fault the writes failed after (of the faults started by the first write that failed or went unanswered, the " +
			"last to start; the first fault when none failed). The first row of a target is the mean over its runs. " + ciNote}
	sec := func(x float64) string { return fmt.Sprintf("%.2f", x) }
	whole := func(x float64) string { return fmt.Sprintf("%.0f", x) }
	cnt := func(x float64) string { return fmt.Sprintf("%.0f", x) }
	val := func(s stats.Summary, f func(float64) string) string {
		if s.N == 0 {
			return "–"
		}
		return withCI(s, f)
	}
	var unchecked []string // the runs whose figures the ledger's files did not check
	for _, c := range v.Runs {
		if c.Durability == nil {
			continue
		}
		var ps []*result.Phase
		for _, ref := range c.Phases {
			ps = append(ps, m.phase(ref))
		}
		// row is the figures of ps: the run's own (own), else verify's.
		row := func(run, figures string, ps []*result.Phase, own bool, n string) []string {
			of, unrep := verifiedAccounting, "–"
			if own {
				of, unrep = runAccounting, unreplicatedText(ps)
			}
			_, f, _ := ledgerFiguresOf(ps, of)
			sm := func(k string) stats.Summary { return stats.Summarize(f[k]) }
			// The 90% recovery is seen at one interval's resolution.
			rec := sec
			if res := intervalResolution(ps, of); res >= 1 {
				rec = whole
			}
			return []string{c.Series.Label, fmt.Sprint(c.Threads), run, figures, val(sm("acknowledged"), cnt), val(sm("failed"), cnt),
				val(sm("unknown"), cnt), unknownResolved(f), val(sm("lost"), cnt), unrep,
				val(sm("rpo_s"), sec), val(sm("rto_s"), sec), val(sm("rto_all_s"), sec), val(sm("recovered90_s"), rec), n}
		}
		var own, verified []*result.Phase
		var ownAt, verifiedAt []int // run numbers
		for i, p := range ps {
			if runAccounting(p.Ledger) != nil {
				own, ownAt = append(own, p), append(ownAt, i+1)
			}
			if verifiedAccounting(p.Ledger) != nil {
				verified, verifiedAt = append(verified, p), append(verifiedAt, i+1)
			}
		}
		never := ""
		if len(verified) == 0 {
			never = " (never verified)"
		}
		if len(own) > 0 {
			t.Rows = append(t.Rows, row("mean", "the run's"+never, own, true, fmt.Sprint(len(own))))
		} else {
			t.Rows = append(t.Rows, noAccountingRow(c.Series.Label, c.Threads, "mean", "the run's: none (the run made no accounting)", len(t.Head)))
		}
		if len(verified) > 0 {
			label := "ledger verify's (latest of each run)"
			if len(ps) == 1 {
				label = "ledger verify's: " + VerifyText(verified[0])
			}
			t.Rows = append(t.Rows, row("mean", label, verified, false, fmt.Sprint(len(verified))))
		}
		for i, p := range ps {
			if note := p.Ledger.LedgerFilesNote(); note != "" {
				unchecked = append(unchecked, fmt.Sprintf("%s, %d threads, run %d: %s", c.Series.Label, c.Threads, i+1, note))
			}
		}
		if len(ps) > 1 {
			for i, p := range own {
				t.Rows = append(t.Rows, row(fmt.Sprintf("run %d", ownAt[i]), "the run's", []*result.Phase{p}, true, "1"))
			}
			for i, p := range ps {
				if len(verified) > 0 && verifiedAccounting(p.Ledger) == nil {
					t.Rows = append(t.Rows, noAccountingRow(c.Series.Label, c.Threads, fmt.Sprintf("run %d", i+1), VerifyText(p), len(t.Head)))
				}
			}
			for i, p := range verified {
				t.Rows = append(t.Rows, row(fmt.Sprintf("run %d", verifiedAt[i]), "ledger verify's: "+VerifyText(p), []*result.Phase{p}, false, "1"))
			}
		}
	}
	if len(t.Rows) == 0 {
		return nil
	}
	if len(unchecked) > 0 {
		t.Caption += " (figures " + strings.Join(unchecked, "; ") + ")"
	}
	return t
}

// noAccountingRow is a durability row without figures, saying why.
func noAccountingRow(label string, threads int, run, why string, width int) []string {
	r := []string{label, fmt.Sprint(threads), run, why}
	for len(r) < width-1 {
		r = append(r, "–")
	}
	return append(r, "0")
}

// unknownResolved is how the unknown writes resolved: committed / not,
// means over the runs.
func unknownResolved(f map[string][]float64) string {
	c, n := stats.Summarize(f["unknown_committed"]), stats.Summarize(f["unknown_not_committed"])
	if c.N == 0 {
		return "–"
	}
	return fmt.Sprintf("%s / %s", trimFloat(c.Mean), trimFloat(n.Mean))
}

// intervalResolution is the report interval the phases' 90% recovery was
// measured at (0: not recorded).
func intervalResolution(ps []*result.Phase, of func(*result.LedgerResult) *ledger.Accounting) float64 {
	res := 0.0
	for _, p := range ps {
		if a := of(p.Ledger); a != nil && a.Fault != nil {
			res = math.Max(res, a.Fault.IntervalSeconds)
		}
	}
	return res
}

// unreplicatedText is what the standbys lacked at the fault, a mean over
// the phases that recorded it ("not recorded" otherwise).
func unreplicatedText(ps []*result.Phase) string {
	var bytes []float64
	for _, p := range ps {
		if u, ok := UnreplicatedAtFault(p); ok {
			bytes = append(bytes, u.Bytes)
		}
	}
	if len(bytes) == 0 {
		return "not recorded"
	}
	return withCI(stats.Summarize(bytes), bytesText)
}

// Unreplicated is what a phase's standbys lacked just before its fault.
type Unreplicated struct {
	// Bytes is the most WAL any standby's replication slot had not
	// confirmed (counter unreplicated_bytes:SLOT); BySlot each one's.
	Bytes  float64
	BySlot map[string]float64
	// ReplayLagMs is the largest replay lag pg_stat_replication showed
	// then (its standbys still connected; absent: none).
	ReplayLagMs *float64
	// BeforeS is how long before the fault the sample was read.
	BeforeS float64
}

// UnreplicatedAtFault reads, from the last server-counter sample at or
// before the fault RPO and RTO are measured from, what the standbys had
// not yet received; ok is false without such a sample.
func UnreplicatedAtFault(p *result.Phase) (u Unreplicated, ok bool) {
	if p.Server == nil || p.Ledger == nil || p.Ledger.Accounting == nil || p.Ledger.Accounting.Fault == nil {
		return u, false
	}
	at := -1.0
	idx := 0
	if p.Ledger.FaultIndex != nil {
		idx = *p.Ledger.FaultIndex
	}
	for _, ev := range p.Faults {
		if ev.Index == idx && !ev.Start.IsZero() {
			at = ev.StartS
		}
	}
	if at < 0 {
		return u, false
	}
	var last *result.ServerSample
	for i := range p.Server.Samples {
		if s := &p.Server.Samples[i]; s.ElapsedSec <= at {
			last = s
		}
	}
	if last == nil {
		return u, false
	}
	u.BySlot = map[string]float64{}
	for k, v := range last.Values {
		switch {
		case strings.HasPrefix(k, "unreplicated_bytes:"):
			u.BySlot[strings.TrimPrefix(k, "unreplicated_bytes:")] = v
			u.Bytes = math.Max(u.Bytes, v)
			ok = true
		case strings.HasPrefix(k, "replay_lag_ms:"):
			if u.ReplayLagMs == nil || v > *u.ReplayLagMs {
				x := v
				u.ReplayLagMs = &x
			}
		}
	}
	u.BeforeS = at - last.ElapsedSec
	return u, ok
}

// UnreplicatedLine says what the standbys lacked at the fault.
func UnreplicatedLine(u Unreplicated) string {
	var keys, slots []string
	for k := range u.BySlot {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		slots = append(slots, fmt.Sprintf("%s %s", k, bytesText(u.BySlot[k])))
	}
	lag := "no standby streaming"
	if u.ReplayLagMs != nil {
		lag = fmt.Sprintf("replay lag %.1f ms", *u.ReplayLagMs)
	}
	return fmt.Sprintf("ledger: unreplicated at the fault: %s WAL not confirmed by a standby (%s; %s), read %.1f s before it",
		bytesText(u.Bytes), strings.Join(slots, ", "), lag, u.BeforeS)
}

// bytesText prints a byte count in binary units ("0 B" for none).
func bytesText(b float64) string {
	if b < 1 {
		return "0 B"
	}
	return fmtBytes(int64(b))
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
		out := []string{"ledger: no accounting: " + cond(lr.Error != "", lr.Error, "the run made none (it did not finish)")}
		if v := lr.LatestVerified(); v != nil {
			out = append(out, fmt.Sprintf("ledger: the figures below are candor ledger verify's (%s), not the run's", v.Time.UTC().Format(time.RFC3339)))
			for _, l := range accountingLines(&result.LedgerResult{Accounting: v.Accounting}) {
				out = append(out, "verify "+l)
			}
		}
		return out
	}
	out := accountingLines(lr)
	if lr.Source == "verify" {
		// An older candor stored verify's figures as the run's.
		out = append([]string{"ledger: the figures below are candor ledger verify's (an older candor stored them as the run's), not the run's"}, out...)
	}
	if v := lr.LatestVerified(); v != nil {
		out = append(out, fmt.Sprintf("ledger: candor ledger verify (%s), its own figures: lost %d, unknown resolved %d committed", v.Time.UTC().Format(time.RFC3339), v.Accounting.Lost, v.Accounting.UnknownCommitted))
	}
	return out
}

// accountingLines are the lines of lr's Accounting (not nil).
func accountingLines(lr *result.LedgerResult) []string {
	a := lr.Accounting
	out := []string{
		fmt.Sprintf("ledger: %d writes: %d acknowledged, %d failed, %d unknown; lost %d (acknowledged, absent)", a.Writes, a.Acknowledged, a.Failed, a.Unknown, a.Lost),
		fmt.Sprintf("ledger: unknown resolved %d committed, %d not; failed but present %d; duplicates %d; unrecorded %d", a.UnknownCommitted, a.UnknownNotCommitted, a.FailedPresent, a.Duplicates, a.Unrecorded),
	}
	if note := lr.LedgerFilesNote(); note != "" {
		out = append(out, "ledger: these figures are "+note)
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
