package audit

import (
	"fmt"
	"strings"

	"github.com/candor-bench/candor/internal/result"
)

// checkFailed flags the results whose data failed a check (--check,
// bank's invariant): status check_failed, or a failed check recorded.
func checkFailed(sides []Side) []Finding {
	var bad []string
	eachResult(sides, func(l string, r *result.Result) {
		if failed := result.FailedChecks(r); len(failed) > 0 {
			bad = append(bad, fmt.Sprintf("%s: %s", l, strings.Join(failed, "; ")))
		}
	})
	if len(bad) == 0 {
		return nil
	}
	return []Finding{ruleOf("check-failed", Error, "%s", strings.Join(bad, "; "))}
}

// retriesExceedCommits flags the run phases with an operation whose
// retries exceed its successful operations (result.RetriesOverCommits).
func retriesExceedCommits(sides []Side) []Finding {
	var bad []string
	eachResult(sides, func(l string, r *result.Result) {
		for _, p := range runPhases(r) {
			for _, line := range result.RetriesOverCommits(p) {
				bad = append(bad, l+": "+line)
			}
		}
	})
	if len(bad) == 0 {
		return nil
	}
	return []Finding{ruleOf("retries-exceed-commits", Warning, "%s", strings.Join(bad, "; "))}
}
