package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/candor-bench/candor/internal/isolation/elle"
	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/workload"
)

// isolationOf takes the history a workload recorded in a run phase
// (workload.Historian: isolation/list-append), writes it beside the
// result and checks it (docs/ISOLATION.md). The history file is written
// before the check, so a check that fails leaves the history to re-check.
func isolationOf(wl workload.Workload, resultPath string, rep, repeat int) *result.Isolation {
	h, ok := wl.(workload.Historian)
	if !ok {
		return nil
	}
	txns := h.TakeHistory()
	iso := &result.Isolation{Checker: "list-append, Elle's dependency inference (internal/isolation/elle)", Anomalies: map[string]int{}}
	if resultPath != "" {
		path := historyPathOf(resultPath, rep, repeat)
		iso.History = filepath.Base(path)
		if err := writeHistory(path, txns); err != nil {
			iso.Error = err.Error()
		}
	}
	rep2, err := elle.Check(txns)
	if err != nil {
		iso.Error = strings.TrimPrefix(iso.Error+"; ", "; ") + "checking the history: " + err.Error()
		return iso
	}
	iso.Transactions, iso.OK, iso.Failed, iso.Unknown = rep2.Transactions, rep2.OK, rep2.Failed, rep2.Unknown
	for k, v := range rep2.Counts {
		iso.Anomalies[k] = v
	}
	for _, a := range rep2.Anomalies {
		iso.Examples = append(iso.Examples, result.IsolationAnomaly{Class: a.Class, Txns: a.Txns, Ops: a.Ops, Steps: a.Steps})
	}
	return iso
}

// historyPathOf is the history file of a result file (and repetition,
// when the run repeats): RESULT.history.jsonl, RESULT.rep-N.history.jsonl.
func historyPathOf(resultPath string, rep, repeat int) string {
	base := strings.TrimSuffix(resultPath, ".json")
	if repeat > 1 {
		base += fmt.Sprintf(".rep-%d", rep)
	}
	return base + ".history.jsonl"
}

// writeHistory writes txns as JSON lines into a new file at path (never
// over an existing one: results are never overwritten).
func writeHistory(path string, txns []elle.Txn) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("writing the history: %w", err)
	}
	if err := elle.WriteHistory(f, txns); err != nil {
		f.Close()
		return fmt.Errorf("writing the history %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing the history %s: %w", path, err)
	}
	return nil
}
