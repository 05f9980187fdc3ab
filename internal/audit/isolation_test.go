package audit

import (
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/result"
)

// observed builds a probe record: the anomalies in allowed are allowed, the
// others prevented as how says.
func observed(level string, how string, codes []string, allowed ...string) *result.ObservedIsolation {
	o := &result.ObservedIsolation{Level: level, Identity: "x"}
	for _, a := range []string{"G0", "P4", "G-single", "G2-item"} {
		oa := result.ObservedAnomaly{Anomaly: a, How: how, Codes: codes}
		for _, al := range allowed {
			if al == a {
				oa = result.ObservedAnomaly{Anomaly: a, Allowed: true}
			}
		}
		o.Outcomes = append(o.Outcomes, oa)
	}
	return o
}

// TestIsolationObserved: PostgreSQL's REPEATABLE READ (snapshot isolation:
// lost update aborted with 40001, write skew allowed) against MariaDB's
// (lost update and write skew allowed) is an error naming the lost update,
// though both are "repeatable read"; two PostgreSQL sides are not; a side
// without a probe is a note.
func TestIsolationObserved(t *testing.T) {
	pg := func() *result.ObservedIsolation {
		return observed("repeatable-read", "blocked, aborted", []string{"40001"}, "G2-item")
	}
	maria := observed("repeatable-read", "blocked", nil, "P4", "G2-item")

	sides := pair(nil)
	sides[0].Inputs[0].Result.Run.Isolation, sides[1].Inputs[0].Result.Run.Isolation = "repeatable-read", "repeatable-read"
	sides[0].Inputs[0].Result.IsolationObserved = pg()
	sides[1].Inputs[0].Result.IsolationObserved = maria
	rep := Sides(sides)
	got := findings(rep, "isolation-observed-differs")
	if len(got) != 1 || got[0].Severity != Error {
		t.Fatalf("PostgreSQL RR against MariaDB RR: %+v, want one error", got)
	}
	for _, want := range []string{"lost update (P4) allowed on one side only", "A: repeatable read: prevented (blocked, aborted 40001)", "B: repeatable read: allowed"} {
		if !strings.Contains(got[0].Text, want) {
			t.Errorf("finding %q lacks %q", got[0].Text, want)
		}
	}
	if f := findings(rep, "isolation-differs"); len(f) != 0 {
		t.Errorf("the level names are the same, yet isolation-differs: %+v", f)
	}

	same := pair(nil)
	same[0].Inputs[0].Result.IsolationObserved = pg()
	same[1].Inputs[0].Result.IsolationObserved = pg()
	if f := findings(Sides(same), "isolation-observed-differs"); len(f) != 0 {
		t.Errorf("PostgreSQL RR against PostgreSQL RR: %+v, want none", f)
	}

	one := pair(nil)
	one[0].Inputs[0].Result.IsolationObserved = pg()
	f := findings(Sides(one), "isolation-observed-differs")
	if len(f) != 1 || f[0].Severity != Note || !strings.Contains(f[0].Text, "not probed") {
		t.Errorf("one side probed: %+v, want a note", f)
	}
}
