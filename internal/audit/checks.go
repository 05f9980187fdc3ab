package audit

import (
	"fmt"
	"strings"
	"time"

	"github.com/candor-bench/candor/internal/ledger"
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

// ledgerFigures notes each run phase's durability ledger: the run's own
// accounting, and beside it the latest candor ledger verify's, saying
// which is which, when verify ran and its fault, or that none verified it.
func ledgerFigures(sides []Side) []Finding {
	var lines []string
	eachResult(sides, func(l string, r *result.Result) {
		k := 0
		for _, p := range runPhases(r) {
			k++
			lr := p.Ledger
			if lr == nil {
				continue
			}
			own := "no accounting of the run's own"
			if lr.Accounting != nil {
				own = "the run's own accounting: " + accountingText(lr.Accounting)
			}
			ver := "never verified by candor ledger verify"
			if v := lr.LatestVerified(); v != nil {
				ver = "candor ledger verify " + v.Time.UTC().Format(time.RFC3339)
				if v.FaultIndex != nil {
					ver += fmt.Sprintf(" (fault %d)", *v.FaultIndex)
				}
				ver += ": " + accountingText(v.Accounting)
			} else if n := len(lr.Verifications); n > 0 {
				ver = fmt.Sprintf("never verified (%d candor ledger verify: %s)", n, lr.Verifications[n-1].Outcome)
			}
			lines = append(lines, fmt.Sprintf("%s run %d: %s; %s", l, k, own, ver))
		}
	})
	if len(lines) == 0 {
		return nil
	}
	return []Finding{ruleOf("ledger", Note, "%s", strings.Join(lines, "; "))}
}

// accountingText is a ledger accounting's outcomes in one phrase.
func accountingText(a *ledger.Accounting) string {
	return fmt.Sprintf("%d writes, %d acknowledged, %d failed, %d unknown (%d committed, %d not), lost %d, duplicates %d, unrecorded %d",
		a.Writes, a.Acknowledged, a.Failed, a.Unknown, a.UnknownCommitted, a.UnknownNotCommitted, a.Lost, a.Duplicates, a.Unrecorded)
}
