package result

import "time"

// ObservedIsolation is what the run's isolation level allowed on its
// target, as candor's probes observed it (docs/ISOLATION.md): a run that
// names a level (--isolation) records it, so that the audit compares
// behaviour rather than level names.
type ObservedIsolation struct {
	Level string `json:"level"`
	// Identity is the server the probe ran on (driver, product, version,
	// address, settings): a probe is reused for runs on the same identity
	// and level.
	Identity string            `json:"identity"`
	Probed   time.Time         `json:"probed,omitzero"`  // when the probe ran
	Cached   bool              `json:"cached,omitempty"` // reused from an earlier probe of this identity and level
	Outcomes []ObservedAnomaly `json:"outcomes,omitempty"`
	// Error says why no probe was recorded (a target without SQL
	// transactions, a probe that failed); the run itself is unaffected.
	Error string `json:"error,omitempty"`
}

// ObservedAnomaly is one probe's outcome.
type ObservedAnomaly struct {
	Anomaly string `json:"anomaly"`
	Allowed bool   `json:"allowed"`
	// How it was prevented: "blocked", "aborted", "blocked, aborted" or
	// "not observed"; Codes are the server's codes of the aborts.
	How   string   `json:"how,omitempty"`
	Codes []string `json:"codes,omitempty"`
}

// Allowed reports whether the probe of anomaly ran and found it allowed,
// and whether it ran at all.
func (o *ObservedIsolation) Allowed(anomaly string) (allowed, probed bool) {
	if o == nil {
		return false, false
	}
	for _, a := range o.Outcomes {
		if a.Anomaly == anomaly {
			return a.Allowed, true
		}
	}
	return false, false
}

// Isolation is the verdict of the list-append checker on a run phase's
// history (the isolation/list-append workload; docs/ISOLATION.md): every
// transaction's micro-ops, outcome and times are in the history file
// named here, beside the result, and the checker's findings are below.
type Isolation struct {
	// Checker names the checker ("list-append, Elle's inference").
	Checker string `json:"checker"`
	// History is the history file's name, relative to the result's
	// directory (JSON lines, one transaction each).
	History      string `json:"history,omitempty"`
	Transactions int    `json:"transactions"`
	OK           int    `json:"ok"`
	Failed       int    `json:"failed"`
	Unknown      int    `json:"unknown"`
	// Anomalies counts the findings per class (G0, G1a, G1b, G1c,
	// G-single, G2-item, internal, duplicate-elements,
	// incompatible-order, unknown-element); empty when none was found.
	Anomalies map[string]int `json:"anomalies"`
	// Examples explain a few findings of each class.
	Examples []IsolationAnomaly `json:"examples,omitempty"`
	// Error says why the history could not be written or checked ("":
	// it was).
	Error string `json:"error,omitempty"`
}

// IsolationAnomaly is one finding: its class, the transactions (ids, each
// rendered with its ops) and the evidence, one sentence per step.
type IsolationAnomaly struct {
	Class string   `json:"class"`
	Txns  []int64  `json:"txns"`
	Ops   []string `json:"ops"`
	Steps []string `json:"steps"`
}
