package result

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/ledger"
)

// ledgerRun writes, in dir, the ledger files of a run with a fault: 30
// acknowledged writes of which the server kept all but three (ids 5..7,
// acknowledged before the fault), and the ids read back, as a run does;
// then the result beside them, its accounting made by ledger.Account.
func ledgerRun(t *testing.T, dir string) (path string, r *Result) {
	t.Helper()
	t0 := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	w, err := ledger.Create(filepath.Join(dir, "ledger"), 0, t0, 0)
	if err != nil {
		t.Fatal(err)
	}
	present := map[int64]int{}
	for seq := range int64(30) {
		at := t0.Add(time.Duration(seq) * time.Millisecond).UnixNano()
		id := ledger.ID(0, seq)
		if err := w.Append(id, at, at+1000, ledger.Acknowledged); err != nil {
			t.Fatal(err)
		}
		if seq < 5 || seq > 7 {
			present[id] = 1
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	present[ledger.ID(0, 3)] = 2 // a duplicate
	if err := ledger.WriteReadBack(filepath.Join(dir, "ledger"), present); err != nil {
		t.Fatal(err)
	}
	recs, _, err := ledger.ReadDir(filepath.Join(dir, "ledger"))
	if err != nil {
		t.Fatal(err)
	}
	a := ledger.Account(ledger.Input{Records: recs, Present: present, FaultAt: t0.Add(20 * time.Millisecond).UnixNano()})
	p := Phase{Name: "run", Status: StatusComplete, Started: t0, Ended: t0.Add(time.Second), DurationSec: 1,
		Ledger: &LedgerResult{Dir: "ledger", Table: "candor_ledger", Accounting: &a}}
	r = &Result{Schema: SchemaVersion, Status: StatusComplete, Phases: []Phase{p}}
	path = filepath.Join(dir, "result.json")
	return path, r
}

func writeJSON(t *testing.T, path string, r *Result) {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// The edit: lost 3 → 0 with lost_ids and rpo_s removed keeps the
// laws between the figures; the files beside the result refuse it, naming
// the figure, the file's value and the recomputed one.
func TestLedgerFiguresAreCheckedAgainstTheFiles(t *testing.T) {
	dir := t.TempDir()
	path, r := ledgerRun(t, dir)
	if r.Phases[0].Ledger.Accounting.Lost != 3 || r.Phases[0].Ledger.Accounting.Duplicates != 1 {
		t.Fatalf("the run's accounting: %+v", r.Phases[0].Ledger.Accounting)
	}
	writeJSON(t, path, r)
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != StatusComplete || got.Phases[0].Ledger.LedgerFilesNote() != "" {
		t.Fatalf("the run's own result: status %s (%s), note %q", got.Status, got.Error, got.Phases[0].Ledger.LedgerFilesNote())
	}

	edits := []struct {
		want string
		edit func(a *ledger.Accounting)
	}{
		{"lost 0 in the result, 3 recomputed", func(a *ledger.Accounting) {
			a.Lost, a.LostIDs, a.Fault.RPOSeconds, a.Fault.EarliestLostAck = 0, nil, 0, nil
		}},
		{"duplicates 0 in the result, 1 recomputed", func(a *ledger.Accounting) { a.Duplicates, a.DuplicateIDs = 0, nil }},
		{"unrecorded 1 in the result, 0 recomputed", func(a *ledger.Accounting) { a.Unrecorded, a.UnrecordedIDs = 1, []int64{ledger.ID(9, 1)} }},
		{"acknowledged 29 in the result, 30 recomputed", func(a *ledger.Accounting) { a.Acknowledged--; a.Failed++ }},
	}
	for _, e := range edits {
		t.Run(e.want, func(t *testing.T) {
			_, r := ledgerRun(t, t.TempDir()) // a fresh copy of the figures
			e.edit(r.Phases[0].Ledger.Accounting)
			writeJSON(t, path, r)
			got, err := Read(path)
			if err != nil {
				t.Fatal(err)
			}
			if got.Status != StatusInconsistent || !strings.Contains(got.Error, LawLedgerFiles+": run: "+e.want) {
				t.Fatalf("status %s, error %q: want %s with %q", got.Status, got.Error, LawLedgerFiles, e.want)
			}
		})
	}

	// Without the files the figures are not checked, and say so.
	os.RemoveAll(filepath.Join(dir, "ledger"))
	_, r = ledgerRun(t, t.TempDir())
	a := r.Phases[0].Ledger.Accounting
	a.Lost, a.LostIDs, a.Fault.RPOSeconds, a.Fault.EarliestLostAck = 0, nil, 0, nil
	writeJSON(t, path, r)
	got, err = Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != StatusComplete || !strings.Contains(got.Phases[0].Ledger.LedgerFilesNote(), "not checked against the ledger's files") {
		t.Fatalf("without files: status %s (%s), note %q", got.Status, got.Error, got.Phases[0].Ledger.LedgerFilesNote())
	}
}

// The laws that tie the accounting's figures to one another hold without
// the files.
func TestLedgerFiguresAgreeWithOneAnother(t *testing.T) {
	at := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	ack := at.Add(-2 * time.Second)
	cases := []struct {
		want string
		edit func(a *ledger.Accounting)
	}{
		{"0 lost ids listed, but 1 counted", func(a *ledger.Accounting) { a.LostIDs = nil }},
		{"lost 1, but the earliest lost acknowledgement is absent", func(a *ledger.Accounting) { a.Fault.EarliestLostAck = nil }},
		{"nothing lost, but rpo_s 2", func(a *ledger.Accounting) { a.Lost, a.LostIDs, a.Fault.EarliestLostAck = 0, nil, nil }},
		{"rpo_s 5 ≠ the fault's instant − the earliest lost acknowledgement (2 s)", func(a *ledger.Accounting) { a.Fault.RPOSeconds = 5 }},
		{"0 duplicate ids listed, but 2 counted", func(a *ledger.Accounting) { a.Duplicates = 2 }},
	}
	for _, c := range cases {
		t.Run(c.want, func(t *testing.T) {
			r := lawful()
			a := r.Phases[0].Ledger.Accounting
			a.Fault = &ledger.FaultAccounting{At: at, RPOSeconds: 2, EarliestLostAck: &ack}
			if vs := Check(r); len(vs) != 0 {
				t.Fatalf("lawful: %v", vs)
			}
			c.edit(a)
			vs := Check(r)
			found := false
			for _, v := range vs {
				found = found || (v.Law == LawLedger && strings.Contains(v.Detail, c.want))
			}
			if !found {
				t.Fatalf("Check = %v, want %q", vs, c.want)
			}
		})
	}
}
