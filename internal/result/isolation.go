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
