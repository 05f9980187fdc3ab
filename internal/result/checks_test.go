package result

import (
	"strings"
	"testing"
)

// A failed check is named with its figures; check_failed ranks between
// complete and interrupted when shards are merged.
func TestChecksVerdicts(t *testing.T) {
	r := &Result{Checks: []DataCheck{
		{Name: "accounts", Passed: true, When: "after run"},
		{Name: "total balance", Offending: 1, Detail: "total 99, expected 100: -1", When: "during run"},
	}}
	if got := CheckFailure(r); !strings.Contains(got, "1 check(s) of the data failed: total balance (during run): 1 offending: total 99") {
		t.Errorf("CheckFailure = %q", got)
	}
	if got := r.Checks[1].String(); got != "FAIL (1 offending)  total balance [during run]: total 99, expected 100: -1" {
		t.Errorf("String = %q", got)
	}
	if CheckFailure(&Result{Checks: r.Checks[:1]}) != "" {
		t.Error("a passed check failed the result")
	}
	for _, c := range []struct{ a, b, want string }{
		{StatusComplete, StatusCheckFailed, StatusCheckFailed},
		{StatusCheckFailed, StatusInterrupted, StatusInterrupted},
		{StatusFailed, StatusCheckFailed, StatusFailed},
	} {
		if got := worseStatus(c.a, c.b); got != c.want {
			t.Errorf("worseStatus(%s, %s) = %s, want %s", c.a, c.b, got, c.want)
		}
	}
	p := &Phase{Ops: []OpResult{{Name: "TRANSFER", Done: 10, Retries: 11, Aborts: 1}, {Name: "READ", Done: 10, Retries: 10}}}
	if got := RetriesOverCommits(p); len(got) != 1 || !strings.HasPrefix(got[0], "TRANSFER: 11 retries for 10 commits") {
		t.Errorf("RetriesOverCommits = %q", got)
	}
}
