package result

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/candor-bench/candor/internal/ledger"
)

// ledgerFiles is what a phase's ledger directory holds, read by
// ReadLedgerFiles: the records of every worker and, when the run kept them,
// the ids it read back from the server. Never written to JSON.
type ledgerFiles struct {
	dir     string
	records []ledger.Record
	present map[int64]int // nil: no read-back file (only the records' figures are checked)
	err     string        // why the files were not read; "" when they were
}

// LedgerFilesNote says, for the ledger's figures, whether they were checked
// against the ledger's files beside the result (LawLedgerFiles): "" when
// every figure was (or the accounting was made by this process, not read
// from a result file), else the words to print beside them.
func (l *LedgerResult) LedgerFilesNote() string {
	switch {
	case l == nil || l.Accounting == nil || l.files == nil:
		return "" // nil files: not read from a file, but made by this process from them
	case l.files.err != "":
		return "not checked against the ledger's files (" + l.files.err + ")"
	case l.files.present == nil:
		return "lost, duplicates and unrecorded not checked against the ledger's files (no " + ledger.ReadBackFile + " in " + l.files.dir + ")"
	}
	return ""
}

// ReadLedgerFiles reads, for each phase with a ledger accounting, the
// ledger's files in its directory (relative to resultDir, the result
// file's directory), so that Check recomputes the accounting from them. A
// directory that is missing or unreadable is noted (LedgerFilesNote), not
// an error: a result copied without its ledger is still readable.
func ReadLedgerFiles(r *Result, resultDir string) {
	for i := range r.Phases {
		l := r.Phases[i].Ledger
		if l == nil || l.Accounting == nil {
			continue
		}
		lf := &ledgerFiles{dir: l.Dir}
		l.files = lf
		if l.Dir == "" {
			lf.err = "a merged ledger: its shards' files are not read"
			continue
		}
		dir := l.Dir
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(resultDir, dir)
		}
		lf.dir = dir
		if _, err := os.Stat(dir); err != nil {
			lf.err = "no directory " + dir
			continue
		}
		recs, _, err := ledger.ReadDir(dir)
		if err != nil {
			lf.err = err.Error()
			continue
		}
		lf.records = recs
		if l.Source == "verify" {
			continue // the accounting was made from a later read-back, which is not kept
		}
		present, err := ledger.ReadReadBack(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			lf.err = err.Error()
		default:
			lf.present = ledger.Only(present, l.Writers)
		}
	}
}

// checkLedgerFiles recomputes a's figures from the ledger's files and
// reports each that differs (LawLedgerFiles).
func checkLedgerFiles(l *LedgerResult, add func(law, format string, a ...any)) {
	lf, a := l.files, l.Accounting
	if lf == nil || lf.err != "" {
		return
	}
	in := ledger.Input{Records: lf.records, Present: lf.present}
	if lf.present == nil {
		in.Present = map[int64]int{}
	}
	if a.Fault != nil {
		in.FaultAt = a.Fault.At.UnixNano() // the fault's instant is the result's (its events)
	}
	re := ledger.Account(in)
	diff := func(what string, got, want int) {
		if got != want {
			add(LawLedgerFiles, "%s %d in the result, %d recomputed from the ledger's files in %s", what, got, want, lf.dir)
		}
	}
	diff("records", a.Records, re.Records)
	diff("writes", a.Writes, re.Writes)
	diff("acknowledged", a.Acknowledged, re.Acknowledged)
	diff("failed", a.Failed, re.Failed)
	diff("unknown", a.Unknown, re.Unknown)
	if lf.present == nil {
		return
	}
	diff("lost", a.Lost, re.Lost)
	diff("unknown_committed", a.UnknownCommitted, re.UnknownCommitted)
	diff("failed_present", a.FailedPresent, re.FailedPresent)
	diff("duplicates", a.Duplicates, re.Duplicates)
	diff("unrecorded", a.Unrecorded, re.Unrecorded)
	ids := func(what string, got, want []int64) {
		if !equalIDs(got, want) {
			add(LawLedgerFiles, "%s %v in the result, %v recomputed from the ledger's files in %s", what, got, want, lf.dir)
		}
	}
	ids("lost_ids", a.LostIDs, re.LostIDs)
	ids("failed_present_ids", a.FailedPresentIDs, re.FailedPresentIDs)
	ids("duplicate_ids", a.DuplicateIDs, re.DuplicateIDs)
	ids("unrecorded_ids", a.UnrecordedIDs, re.UnrecordedIDs)
	if f, rf := a.Fault, re.Fault; f != nil && rf != nil && !near(f.RPOSeconds, rf.RPOSeconds) {
		add(LawLedgerFiles, "rpo_s %.9g in the result, %.9g recomputed from the ledger's files in %s", f.RPOSeconds, rf.RPOSeconds, lf.dir)
	}
}

func equalIDs(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	a = append([]int64(nil), a...)
	sort.Slice(a, func(i, j int) bool { return a[i] < a[j] })
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
