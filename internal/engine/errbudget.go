package engine

import (
	"fmt"

	"github.com/candor-bench/candor/internal/result"
)

// FailedRunPhase returns the first run phase that failed without ending the
// run (above the error budget) and its description, or "" when none did.
func FailedRunPhase(phases []result.Phase) string {
	for _, p := range phases {
		if p.Name != PhaseRun || p.Status != result.StatusFailed || p.Failure == "" {
			continue
		}
		if p.Repetition > 0 {
			return fmt.Sprintf("repetition %d: %s", p.Repetition, p.Failure)
		}
		return p.Failure
	}
	return ""
}
