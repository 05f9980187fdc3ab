package result

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/ledger"
)

// lawful is a result that keeps every law: a run phase of two operations
// (one with a retried and a failed operation), a sub-operation span, three
// intervals, an open-loop schedule and a ledger.
func lawful() *Result {
	t0 := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	sched := int64(1000 + 3 + 2 + 1)
	p := Phase{Name: "run", Status: StatusComplete, Started: t0, Ended: t0.Add(10 * time.Second), DurationSec: 10, OpenLoop: true,
		Ops: []OpResult{
			{Name: "READ", Count: 700, Done: 600, Attempts: 604, Retries: 2, Aborts: 2, Unfinished: 1, Throughput: 70,
				Errors: map[string]int64{"retryable": 2, "not_found": 2}},
			{Name: "UPDATE", Count: 400, Done: 400, Attempts: 401, Retries: 0, Aborts: 1, Throughput: 40,
				Errors: map[string]int64{"other": 1}},
		},
		Operations: 600 + 2 + 400 + 1, Throughput: 100, Dropped: 2, Scheduled: &sched,
		Ledger: &LedgerResult{Table: "candor_ledger", Accounting: &ledger.Accounting{Records: 12, Writes: 10, Acknowledged: 7, Failed: 2, Unknown: 1,
			Lost: 1, LostIDs: []int64{4}, UnknownCommitted: 1}},
	}
	p.ErrorRate = 3.0 / float64(p.Operations)
	for i, c := range [][2]int64{{300, 200}, {300, 150}, {100, 50}} {
		errs := map[int]int64{0: 2, 1: 2, 2: 0}[i]
		p.Intervals = append(p.Intervals, Interval{Phase: "run", Index: i, LengthSec: 3.3, Ops: []IntervalOp{
			{Name: "READ", Count: c[0], Errors: errs, Unfinished: map[int]int64{2: 1}[i]},
			{Name: "UPDATE", Count: c[1], Errors: map[int]int64{1: 1}[i]},
		}})
	}
	return &Result{Schema: SchemaVersion, Status: StatusComplete, Phases: []Phase{p}}
}

func TestLawfulResultKeepsEveryLaw(t *testing.T) {
	if vs := Check(lawful()); len(vs) != 0 {
		t.Fatalf("a lawful result breaks %v", vs)
	}
	r := lawful()
	st := 0.02
	r.Provenance.Load = []MachineLoad{{PhaseIndex: 0, Phase: "run", Start: [3]float64{3.1, 2.65, 1.24}, End: [3]float64{4, 3, 1.5}, Steal: &st}}
	if vs := Check(r); len(vs) != 0 {
		t.Fatalf("a lawful machine load breaks %v", vs)
	}
}

// Each case breaks one law the way a bug or an edit would; Check must name
// it and Enforce mark the result.
func TestEachLawCatchesItsBreak(t *testing.T) {
	cases := []struct {
		law    string
		want   string
		mutate func(r *Result)
	}{
		// an attempt counted twice
		{LawAttempts, "attempts 605", func(r *Result) { r.Phases[0].Ops[0].Attempts++ }},
		// failed attempts that no retry, abort or lost session explains (the
		// issue's 4 connection errors of a run complete at rate 0)
		{LawErrors, "failed attempts by class 5", func(r *Result) { r.Phases[0].Ops[1].Errors["connection"] = 4 }},
		// operations that no operation accounts for
		{LawOperations, "operations_done 1004", func(r *Result) { r.Phases[0].Operations++ }},
		// a rate computed from aborts alone, leaving operations never attempted
		{LawErrorRate, "error_rate 0", func(r *Result) { r.Phases[0].ErrorRate = 0 }},
		{LawThroughput, "throughput 120", func(r *Result) { r.Phases[0].Throughput = 120 }},
		// an open loop that began an operation due after its end
		{LawSchedule, "scheduled 1006 ≠ done 1000 + failed 3 + unfinished 2", func(r *Result) {
			r.Phases[0].Ops[0].Unfinished = 2
			r.Phases[0].Intervals[2].Ops[0].Unfinished = 2
		}},
		// intervals that do not add up to their phase
		{LawIntervals, "READ: the intervals add up to count 699", func(r *Result) { r.Phases[0].Intervals[2].Ops[0].Count-- }},
		{LawLedger, "writes 10 ≠ acknowledged 8", func(r *Result) { r.Phases[0].Ledger.Accounting.Acknowledged++ }},
		{LawLedger, "unknown 1 ≠ committed 0", func(r *Result) { r.Phases[0].Ledger.Accounting.UnknownCommitted = 0 }},
		{LawLedger, "lost 9 outside 0..acknowledged 7", func(r *Result) { r.Phases[0].Ledger.Accounting.Lost = 9 }},
		{LawRepeats, "2 pooled + 0 excluded repetitions, but 1 run phases", func(r *Result) { r.Repetitions = &Repetitions{N: 2} }},
		{LawStatus, "the result is complete but its phase run is failed", func(r *Result) { r.Phases[0].Status = StatusFailed }},
		{LawMerged, "merged from 2 shards, but 1 are listed", func(r *Result) {
			r.Merged = &Merged{RunID: "x", Count: 2, Shards: []ShardSource{{Index: 0}}}
		}},
		// a machine load filed under a phase the result does not have, or
		// under another phase's name, or with a steal above the whole CPU
		{LawLoad, "names phase 1 of 1", func(r *Result) { r.Provenance.Load = []MachineLoad{{PhaseIndex: 1, Phase: "run"}} }},
		{LawLoad, `names phase 0 "load", which is "run"`, func(r *Result) { r.Provenance.Load = []MachineLoad{{PhaseIndex: 0, Phase: "load"}} }},
		{LawLoad, "steal 1.5 is not a share", func(r *Result) {
			st := 1.5
			r.Provenance.Load = []MachineLoad{{PhaseIndex: 0, Phase: "run", Start: [3]float64{3.1, 2, 1}, Steal: &st}}
		}},
	}
	for _, c := range cases {
		t.Run(c.law, func(t *testing.T) {
			r := lawful()
			c.mutate(r)
			vs := Check(r)
			found := false
			for _, v := range vs {
				found = found || (v.Law == c.law && strings.Contains(v.Detail, c.want))
			}
			if !found {
				t.Fatalf("Check = %v, want law %s with %q", vs, c.law, c.want)
			}
			Enforce(r)
			if r.Status != StatusInconsistent || len(r.BrokenLaws) == 0 || !strings.Contains(r.Error, c.law+": ") {
				t.Errorf("after Enforce: status %s, error %q, broken %v", r.Status, r.Error, r.BrokenLaws)
			}
			again := *r
			if Enforce(&again); again.Error != r.Error {
				t.Errorf("Enforce is not idempotent: %q then %q", r.Error, again.Error)
			}
		})
	}
}

// A result of the first layout has no done or no_session: only the laws
// that need neither are checked, so an old result stays readable.
func TestOldLayoutChecksWhatItCan(t *testing.T) {
	r := lawful()
	r.Schema = schemaV1_0
	for i := range r.Phases[0].Ops {
		r.Phases[0].Ops[i].Done = 0
	}
	if vs := Check(r); len(vs) != 0 {
		t.Errorf("an old result without done breaks %v", vs)
	}
	r.Phases[0].Intervals[0].Ops[1].Count += 3
	if vs := Check(r); len(vs) != 1 || vs[0].Law != LawIntervals {
		t.Errorf("an old result's intervals: %v, want the intervals law", vs)
	}
}

// Write marks a result that breaks a law; Read marks one edited since.
func TestWriteAndReadEnforce(t *testing.T) {
	dir := t.TempDir()
	r := lawful()
	r.Phases[0].Ops[0].Attempts += 5
	if err := Write(dir+"/bad.json", r); err != nil {
		t.Fatal(err)
	}
	if r.Status != StatusInconsistent {
		t.Errorf("Write left status %s", r.Status)
	}
	got, err := Read(dir + "/bad.json")
	if err != nil || got.Status != StatusInconsistent || got.Phases[0].Status != StatusInconsistent || !strings.Contains(got.Phases[0].Failure, "attempts") {
		t.Fatalf("Read: %v, status %s, phase %s %q", err, got.Status, got.Phases[0].Status, got.Phases[0].Failure)
	}
	// A file edited after it was written is caught when read.
	good := lawful()
	if err := Write(dir+"/good.json", good); err != nil {
		t.Fatal(err)
	}
	data, _ := readFile(dir + "/good.json")
	data = strings.Replace(data, `"operations_done": 1003`, `"operations_done": 2003`, 1)
	if err := WriteFileAtomic(dir+"/edited.json", []byte(data)); err != nil {
		t.Fatal(err)
	}
	if got, err := Read(dir + "/edited.json"); err != nil || got.Status != StatusInconsistent {
		t.Errorf("an edited result read as %v %v", got.Status, err)
	}
}

func readFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	return string(b), err
}

// BenchmarkCheck: the laws of an hour-long run of five operations at one
// interval a second (3,600 intervals): what Write and Read add to a result.
func BenchmarkCheck(b *testing.B) {
	r := lawful()
	p := &r.Phases[0]
	p.Intervals = nil
	ops := []string{"READ", "UPDATE", "INSERT", "SCAN", "READ-MODIFY-WRITE"}
	p.Ops = nil
	var total int64
	for _, name := range ops {
		p.Ops = append(p.Ops, OpResult{Name: name, Count: 3600 * 100, Done: 3600 * 100, Attempts: 3600 * 100, Throughput: 3600 * 100 / 3600.0})
		total += 3600 * 100
	}
	p.DurationSec, p.Operations, p.Throughput, p.ErrorRate, p.Scheduled, p.Dropped = 3600, total, float64(total)/3600, 0, nil, 0
	p.Ledger = nil
	for i := range 3600 {
		iv := Interval{Phase: "run", Index: i, LengthSec: 1}
		for _, name := range ops {
			iv.Ops = append(iv.Ops, IntervalOp{Name: name, Count: 100})
		}
		p.Intervals = append(p.Intervals, iv)
	}
	if vs := Check(r); len(vs) != 0 {
		b.Fatal(vs)
	}
	b.ResetTimer()
	for b.Loop() {
		Check(r)
	}
}
