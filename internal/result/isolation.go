package result

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
