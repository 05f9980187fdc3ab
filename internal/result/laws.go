package result

import (
	"fmt"
	"math"
	"strings"

	"github.com/candor-bench/candor/internal/ledger"
)

// The conservation laws of a result: identities between its own figures
// that hold for every run, whatever the workload or the target. A result
// that breaks one states something false, whatever produced it (a bug in
// candor, a hand-edited file, a merge of the wrong files). Check lists the
// broken laws; Enforce marks the result and the phases that break them
// `inconsistent`. Write and Read call Enforce, so no result is written or
// read without its sums checked. docs/RESULT_SCHEMA.md lists the laws.
//
// Cost: the checks read the result once after the run (a few thousand
// additions for an hour of intervals), nothing on a run's own path.

// Law names, as they appear in a broken law's text and in the docs.
const (
	LawAttempts   = "attempts"   // per operation: attempts = done + retries + aborts
	LawErrors     = "errors"     // per operation: failed attempts by class = retries + aborts + no_session (+ failed spans)
	LawOperations = "operations" // per phase: operations_done = Σ done + aborts + no_session
	LawErrorRate  = "error-rate" // per phase: error_rate = failed / operations_done
	LawThroughput = "throughput" // per phase: throughput = Σ done / duration; per operation: count / duration
	LawSchedule   = "schedule"   // open loop: scheduled = done + aborts + unfinished + dropped
	LawIntervals  = "intervals"  // the measured intervals add up to the phase, per operation
	LawLedger     = "ledger"     // written = acknowledged + failed + unknown; lost ≤ acknowledged; ...
	// LawLedgerFiles: a ledger's figures equal those recomputed from its
	// files beside the result (its records and the ids read back), when
	// they are there (ReadLedgerFiles).
	LawLedgerFiles = "ledger-files"
	LawRepeats     = "repetitions" // n + excluded = run phases; n = complete run phases
	LawStatus      = "status"      // a complete result has only complete phases
	LawMerged      = "merged"      // a merged result names as many shards as it counts
	// LawUnavailable: per run phase, 0 ≤ without_session_s ≤ worker_s,
	// share = without_session_s / worker_s, and the workers' own
	// no_session_s (warm-up included) add up to at least without_session_s.
	LawUnavailable = "unavailable"
	LawHistograms  = "histograms" // per operation: count ≤ the latency histogram's total ≤ count + unfinished; each summary = its histogram's
	// LawLoad: each provenance.load entry names a phase of the result (its
	// index and name), once; its load averages are finite and ≥ 0, its
	// steal a share in 0..1.
	LawLoad = "load"
)

// Violation is one broken law: which, where, and the figures that break it.
type Violation struct {
	Law string
	// Phase is the index of the phase that breaks it, -1 for the result
	// as a whole.
	Phase  int
	Detail string
}

func (v Violation) String() string { return v.Law + ": " + v.Detail }

// schemaV1_0 is the layout before the laws: its operations have no `done`
// or `no_session` and its open-loop phases no `scheduled`, so only the laws
// that need none of them are checked — unless its data carries them (a
// later result relabelled v1): the version string alone never switches a
// law off that the figures can satisfy.
const schemaV1_0 = "candor.result/v1"

// carriesDone reports whether some operation of r has the fields v1.0
// lacks (done, no_session): the laws that need them apply.
func carriesDone(r *Result) bool {
	for _, p := range r.Phases {
		for _, o := range p.Ops {
			if o.Done > 0 || o.NoSession > 0 {
				return true
			}
		}
	}
	return false
}

// Check returns every law r breaks, in phase order; nil when none.
func Check(r *Result) []Violation {
	var out []Violation
	full := r.Schema != schemaV1_0 || carriesDone(r)
	add := func(law string, phase int, format string, a ...any) {
		out = append(out, Violation{Law: law, Phase: phase, Detail: fmt.Sprintf(format, a...)})
	}
	var runPhases, completeRuns, inconsistentRuns int
	for i := range r.Phases {
		p := &r.Phases[i]
		where := p.Name
		if p.Repetition > 0 {
			where = fmt.Sprintf("%s %d", p.Name, p.Repetition)
		}
		checkPhase(p, full, r.Merged != nil, r.Run.ReportInterval, func(law, format string, a ...any) {
			add(law, i, where+": "+format, a...)
		})
		if p.Name == "run" {
			runPhases++
			switch p.Status {
			case StatusComplete:
				completeRuns++
			case StatusInconsistent: // marked by an earlier Enforce: it may have been pooled
				inconsistentRuns++
			}
		}
		if r.Status == StatusComplete && p.Status != StatusComplete {
			add(LawStatus, i, "the result is complete but its phase %s is %s", where, p.Status)
		}
	}
	if rep := r.Repetitions; rep != nil {
		if rep.N+rep.Excluded != runPhases {
			add(LawRepeats, -1, "%d pooled + %d excluded repetitions, but %d run phases", rep.N, rep.Excluded, runPhases)
		}
		if rep.N < completeRuns || rep.N > completeRuns+inconsistentRuns {
			add(LawRepeats, -1, "%d pooled repetitions, but %d complete run phases", rep.N, completeRuns)
		}
	}
	if m := r.Merged; m != nil && m.Count != len(m.Shards) {
		add(LawMerged, -1, "merged from %d shards, but %d are listed", m.Count, len(m.Shards))
	}
	checkLoad(r, func(format string, a ...any) { add(LawLoad, -1, format, a...) })
	return out
}

// checkLoad checks the machine's load recorded per phase.
func checkLoad(r *Result, add func(format string, a ...any)) {
	seen := map[int]bool{}
	for _, l := range r.Provenance.Load {
		switch {
		case l.PhaseIndex < 0 || l.PhaseIndex >= len(r.Phases):
			add("provenance.load names phase %d of %d", l.PhaseIndex, len(r.Phases))
			continue
		case r.Phases[l.PhaseIndex].Name != l.Phase:
			add("provenance.load names phase %d %q, which is %q", l.PhaseIndex, l.Phase, r.Phases[l.PhaseIndex].Name)
		case seen[l.PhaseIndex]:
			add("provenance.load gives phase %d twice", l.PhaseIndex)
		}
		seen[l.PhaseIndex] = true
		for _, v := range append(l.Start[:], l.End[:]...) {
			if !(v >= 0) || math.IsInf(v, 0) {
				add("provenance.load of phase %d: load average %v is not a count ≥ 0", l.PhaseIndex, v)
				break
			}
		}
		if l.Steal != nil && !(*l.Steal >= 0 && *l.Steal <= 1) {
			add("provenance.load of phase %d: steal %v is not a share in 0..1", l.PhaseIndex, *l.Steal)
		}
	}
}

// checkPhase checks one phase's laws; add receives each broken one.
// A merged phase's throughput is the sum of its shards' (each over its own
// measured time), which its own totals cannot check.
func checkPhase(p *Phase, full, merged bool, every float64, add func(law, format string, a ...any)) {
	var done, aborts, noSession, unfinished int64
	for _, o := range p.Ops {
		if full && o.Attempts > 0 && o.Attempts != o.Done+o.Retries+o.Aborts {
			add(LawAttempts, "%s: attempts %d ≠ done %d + retries %d + aborts %d", o.Name, o.Attempts, o.Done, o.Retries, o.Aborts)
		}
		if full && o.Done > o.Count {
			add(LawAttempts, "%s: done %d > count %d (count adds sub-operations to done)", o.Name, o.Done, o.Count)
		}
		// Failed attempts are counted as they happen, retries and aborts
		// when their operation ends: in a run without warm-up the two
		// agree; an operation astride the warm-up's end may have its
		// failed attempts in the warm-up and its retries after it. Failed
		// sub-operation spans add to an operation's errors only.
		if full && p.WarmupSec == 0 && o.Count == o.Done {
			if errs := sumCounts(o.Errors); errs != o.Retries+o.Aborts+o.NoSession {
				add(LawErrors, "%s: failed attempts by class %d ≠ retries %d + aborts %d + no_session %d", o.Name, errs, o.Retries, o.Aborts, o.NoSession)
			}
		}
		if !merged && p.DurationSec > 0 && !near(o.Throughput, float64(o.Count)/p.DurationSec) {
			add(LawThroughput, "%s: throughput %g ≠ count %d / %g s", o.Name, o.Throughput, o.Count, p.DurationSec)
		}
		done += o.Done
		aborts += o.Aborts
		noSession += o.NoSession
		unfinished += o.Unfinished
	}
	if full && p.Name != "load" {
		if ops := done + aborts + noSession; p.Operations != ops {
			add(LawOperations, "operations_done %d ≠ done %d + aborts %d + no_session %d", p.Operations, done, aborts, noSession)
		}
		failed := aborts + noSession
		want := 0.0
		if p.Operations > 0 {
			want = float64(failed) / float64(p.Operations)
		}
		if !near(p.ErrorRate, want) {
			add(LawErrorRate, "error_rate %g ≠ failed %d / operations %d", p.ErrorRate, failed, p.Operations)
		}
		if !merged && p.DurationSec > 0 && !near(p.Throughput, float64(done)/p.DurationSec) {
			add(LawThroughput, "throughput %g ≠ done %d / %g s", p.Throughput, done, p.DurationSec)
		}
		if p.Scheduled != nil && p.WarmupSec == 0 {
			if got := done + aborts + unfinished + p.Dropped; *p.Scheduled != got {
				add(LawSchedule, "scheduled %d ≠ done %d + failed %d + unfinished %d + dropped %d", *p.Scheduled, done, aborts, unfinished, p.Dropped)
			}
		}
	}
	if u := p.Unavailable; u != nil {
		checkUnavailable(p, u, add)
	}
	checkHistograms(p, add)
	checkIntervals(p, every, add)
	if l := p.Ledger; l != nil && l.Accounting != nil {
		checkLedger(l, add)
	}
}

// checkUnavailable checks LawUnavailable on phase p's unavailability u.
func checkUnavailable(p *Phase, u *Unavailability, add func(law, format string, a ...any)) {
	if u.WithoutSec < 0 || u.WorkerSec < 0 || u.WithoutSec > u.WorkerSec*(1+1e-9) || u.Share < 0 || u.Share > 1 {
		add(LawUnavailable, "%g worker-seconds without a session of %g (share %g): want 0 ≤ without ≤ worker-seconds, 0 ≤ share ≤ 1", u.WithoutSec, u.WorkerSec, u.Share)
		return
	}
	want := 0.0
	if u.WorkerSec > 0 {
		want = u.WithoutSec / u.WorkerSec
	}
	if !near(u.Share, want) {
		add(LawUnavailable, "share %g ≠ %g worker-seconds without a session / %g", u.Share, u.WithoutSec, u.WorkerSec)
	}
	if len(p.Workers) == 0 {
		return
	}
	var own float64
	for _, w := range p.Workers {
		own += w.NoSessionSec
	}
	// Each worker's no_session_s is rounded by JSON no more than its sum.
	if u.WithoutSec > own+1e-6*math.Max(1, own) {
		add(LawUnavailable, "%g worker-seconds without a session in the measured time, but the workers' no_session_s add up to %g", u.WithoutSec, own)
	}
}

// checkHistograms: per operation, the latency histogram holds count
// operations, and each summary printed (latency, service, lag, failed) is
// the one its histogram gives (Summarize), so that no report prints a
// percentile or count the file's histogram contradicts. A summary without
// its histogram (an older result) is not checked; a histogram that cannot
// be decoded breaks the law.
func checkHistograms(p *Phase, add func(law, format string, a ...any)) {
	for _, o := range p.Ops {
		for _, sr := range []struct {
			name string
			sum  *Summary
		}{{"latency", o.Latency}, {"service", o.Service}, {"lag", o.Lag}, {"failed", o.Failed}} {
			enc := o.Histograms[sr.name]
			if enc == "" {
				continue
			}
			h, err := DecodeHistogram(enc)
			if err != nil {
				add(LawHistograms, "%s: its %s histogram cannot be read: %v", o.Name, sr.name, err)
				continue
			}
			// The latency histogram also holds a lower bound of each
			// operation cut short at the phase's end (unfinished), not
			// counted: count ≤ total ≤ count + unfinished.
			if t := h.TotalCount(); sr.name == "latency" && (t < o.Count || t > o.Count+o.Unfinished) {
				add(LawHistograms, "%s: the latency histogram's total %d is not count %d (+ up to %d unfinished)", o.Name, t, o.Count, o.Unfinished)
			}
			want := Summarize(h)
			switch {
			case want == nil && sr.sum == nil:
			case want == nil || sr.sum == nil:
				add(LawHistograms, "%s: the %s summary and its histogram disagree (one is empty)", o.Name, sr.name)
			case !sameSummary(*sr.sum, *want):
				add(LawHistograms, "%s: the %s summary (count %d, mean %g, p50 %d, p99 %d, max %d) ≠ its histogram's (count %d, mean %g, p50 %d, p99 %d, max %d)",
					o.Name, sr.name, sr.sum.Count, sr.sum.Mean, sr.sum.P50, sr.sum.P99, sr.sum.Max, want.Count, want.Mean, want.P50, want.P99, want.Max)
			}
		}
	}
}

// sameSummary compares summaries, the mean within near's rounding.
func sameSummary(a, b Summary) bool {
	am, bm := a.Mean, b.Mean
	a.Mean, b.Mean = 0, 0
	return a == b && near(am, bm)
}

// checkIntervals: per operation, the measured (not warm-up) intervals'
// counts, failed attempts and unfinished operations add up to the phase's.
// Results rebuilt from a side file after a crash have no phase totals of
// their own to compare. A phase with operations whose measured time holds
// at least one whole interval of the file's own length (every, the run's
// report_interval_s) had measured intervals due: none at all breaks the law
// (emptied intervals must not switch it off).
func checkIntervals(p *Phase, every float64, add func(law, format string, a ...any)) {
	if len(p.Ops) == 0 {
		return
	}
	measured := 0
	for _, iv := range p.Intervals {
		if !iv.Warmup {
			measured++
		}
	}
	if measured == 0 {
		if due := dueIntervals(p.DurationSec, every); due > 0 {
			add(LawIntervals, "no measured intervals, but %g s measured at %g s per interval had %d due", p.DurationSec, every, due)
		}
		return
	}
	type sums struct{ count, errs, unfinished int64 }
	by := map[string]*sums{}
	for _, iv := range p.Intervals {
		if iv.Warmup {
			continue
		}
		for _, o := range iv.Ops {
			s := by[o.Name]
			if s == nil {
				s = &sums{}
				by[o.Name] = s
			}
			s.count += o.Count
			s.errs += o.Errors
			s.unfinished += o.Unfinished
		}
	}
	for _, o := range p.Ops {
		s := by[o.Name]
		if s == nil {
			s = &sums{}
		}
		if s.count != o.Count || s.errs != sumCounts(o.Errors) || s.unfinished != o.Unfinished {
			add(LawIntervals, "%s: the intervals add up to count %d, errors %d, unfinished %d; the phase says %d, %d, %d",
				o.Name, s.count, s.errs, s.unfinished, o.Count, sumCounts(o.Errors), o.Unfinished)
		}
	}
}

// dueIntervals is how many whole intervals of every seconds a measured
// time of d seconds holds (0 when either is unknown).
func dueIntervals(d, every float64) int64 {
	if d <= 0 || every <= 0 {
		return 0
	}
	return int64(math.Floor(d/every + 1e-9))
}

// checkLedger: a ledger's outcomes add up.
func checkLedger(l *LedgerResult, add func(law, format string, a ...any)) {
	a := l.Accounting
	if a.Writes != a.Acknowledged+a.Failed+a.Unknown {
		add(LawLedger, "writes %d ≠ acknowledged %d + failed %d + unknown %d", a.Writes, a.Acknowledged, a.Failed, a.Unknown)
	}
	if a.Unknown != a.UnknownCommitted+a.UnknownNotCommitted {
		add(LawLedger, "unknown %d ≠ committed %d + not committed %d", a.Unknown, a.UnknownCommitted, a.UnknownNotCommitted)
	}
	if a.Lost < 0 || a.Lost > a.Acknowledged {
		add(LawLedger, "lost %d outside 0..acknowledged %d", a.Lost, a.Acknowledged)
	}
	if a.FailedPresent < 0 || a.FailedPresent > a.Failed {
		add(LawLedger, "failed yet present %d outside 0..failed %d", a.FailedPresent, a.Failed)
	}
	if a.Records < a.Writes {
		add(LawLedger, "%d records for %d distinct writes", a.Records, a.Writes)
	}
	for _, c := range []struct {
		what  string
		n     int
		listN int
	}{{"lost", a.Lost, len(a.LostIDs)}, {"failed yet present", a.FailedPresent, len(a.FailedPresentIDs)},
		{"duplicate", a.Duplicates, len(a.DuplicateIDs)}, {"unrecorded", a.Unrecorded, len(a.UnrecordedIDs)}} {
		if c.n < 0 || c.listN != min(c.n, ledger.DefaultMaxListed) {
			add(LawLedger, "%d %s ids listed, but %d counted (all are listed up to %d)", c.listN, c.what, c.n, ledger.DefaultMaxListed)
		}
	}
	if a.Duplicates < 0 || a.Unrecorded < 0 {
		add(LawLedger, "duplicates %d, unrecorded %d: negative", a.Duplicates, a.Unrecorded)
	}
	if f := a.Fault; f != nil {
		if (a.Lost > 0) != (f.EarliestLostAck != nil) {
			add(LawLedger, "lost %d, but the earliest lost acknowledgement is %s", a.Lost, map[bool]string{true: "given", false: "absent"}[f.EarliestLostAck != nil])
		}
		if a.Lost == 0 && f.RPOSeconds != 0 {
			add(LawLedger, "nothing lost, but rpo_s %g (0 when nothing was lost)", f.RPOSeconds)
		}
		if e := f.EarliestLostAck; a.Lost > 0 && e != nil && !near(f.RPOSeconds, float64(f.At.UnixNano()-e.UnixNano())/1e9) {
			add(LawLedger, "rpo_s %g ≠ the fault's instant − the earliest lost acknowledgement (%g s)", f.RPOSeconds, float64(f.At.UnixNano()-e.UnixNano())/1e9)
		}
	}
	checkLedgerFiles(l, add)
}

func sumCounts(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

// near compares two figures derived from the same counts: equal to 1e-9,
// relative (JSON keeps float64 exactly; the slack is for arithmetic order).
func near(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// Enforce checks r's laws and, when it breaks any, marks it: the result's
// and each offending phase's status become `inconsistent`, the phase's
// failure and the result's error name the laws, and BrokenLaws lists them.
// It returns the violations (nil when none). A result already marked is
// marked again from scratch, so that Enforce is idempotent.
func Enforce(r *Result) []Violation {
	vs := Check(r)
	if len(vs) == 0 {
		return nil
	}
	r.BrokenLaws = r.BrokenLaws[:0]
	byPhase := map[int][]string{}
	for _, v := range vs {
		r.BrokenLaws = append(r.BrokenLaws, v.String())
		if v.Phase >= 0 {
			byPhase[v.Phase] = append(byPhase[v.Phase], v.String())
		}
	}
	for i, laws := range byPhase {
		p := &r.Phases[i]
		why := "broken laws: " + strings.Join(laws, "; ")
		if p.Status != StatusInconsistent && p.Failure != "" {
			why += " (was " + p.Status + ": " + p.Failure + ")"
		}
		p.Status, p.Failure = StatusInconsistent, why
	}
	why := fmt.Sprintf("the result breaks %d law(s) of its own arithmetic: %s", len(vs), strings.Join(r.BrokenLaws, "; "))
	if r.Status != StatusInconsistent && r.Error != "" {
		why += " (was " + r.Status + ": " + r.Error + ")"
	}
	if r.Status != StatusInconsistent {
		r.Status, r.Error = StatusInconsistent, why
	}
	return vs
}
