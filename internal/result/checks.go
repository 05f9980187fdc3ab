package result

import (
	"fmt"
	"strings"
)

// DataCheck is one check of the data a run left on the server (--check,
// docs/CHECKS.md): a workload's consistency condition, bank's total
// balance, ids without duplicates. Offending counts the rows (or groups of
// rows) that break it, 0 when it passed; Detail says what was found.
type DataCheck struct {
	Name      string `json:"name"`
	Passed    bool   `json:"passed"`
	Offending int64  `json:"offending"`
	Detail    string `json:"detail,omitempty"`
	// When says when it was made: "after load", "after run" ("after run
	// 2" with --repeat), or "during run" for the verdict of the checks made
	// every interval (Phase.IntervalChecks hold each one).
	When string `json:"when,omitempty"`
}

// IntervalCheck is one check made while a run phase went on, at T seconds
// from the phase's start, in a session of its own. Error says why it
// could not be made (a lost session during a fault): it is then neither
// passed nor failed.
type IntervalCheck struct {
	T         float64 `json:"t"`
	Name      string  `json:"name"`
	Passed    bool    `json:"passed"`
	Offending int64   `json:"offending,omitempty"`
	Detail    string  `json:"detail,omitempty"`
	Error     string  `json:"error,omitempty"`
}

// FailedChecks lists the checks of r that failed, one line each ("name
// (when): N offending: detail"); none when every check passed.
func FailedChecks(r *Result) []string {
	var out []string
	for _, c := range r.Checks {
		if c.Passed {
			continue
		}
		line := c.Name
		if c.When != "" {
			line += " (" + c.When + ")"
		}
		line += fmt.Sprintf(": %d offending", c.Offending)
		if c.Detail != "" {
			line += ": " + c.Detail
		}
		out = append(out, line)
	}
	return out
}

// CheckFailure is the error text of a result whose checks failed ("" when
// none did).
func CheckFailure(r *Result) string {
	failed := FailedChecks(r)
	if len(failed) == 0 {
		return ""
	}
	return fmt.Sprintf("%d check(s) of the data failed: %s", len(failed), strings.Join(failed, "; "))
}

// String is the check as candor prints it: "PASS  name [when]: detail" or
// "FAIL (N offending)  name [when]: detail".
func (c DataCheck) String() string {
	verdict := "PASS"
	if !c.Passed {
		verdict = fmt.Sprintf("FAIL (%d offending)", c.Offending)
	}
	line := verdict + "  " + c.Name
	if c.When != "" && c.When != "check" {
		line += " [" + c.When + "]"
	}
	if c.Detail != "" {
		line += ": " + c.Detail
	}
	return line
}

// RetriesOverCommits lists, for each operation of a run phase whose
// retries exceed its successful operations (commits), one line saying so:
// contention (or an optimistic scheme) that spends more attempts on
// conflicts than on work.
func RetriesOverCommits(p *Phase) []string {
	var out []string
	for _, o := range p.Ops {
		if o.Retries > 0 && o.Retries > o.Done {
			out = append(out, fmt.Sprintf("%s: %d retries for %d commits (%d aborted): retries exceed commits", o.Name, o.Retries, o.Done, o.Aborts))
		}
	}
	return out
}
