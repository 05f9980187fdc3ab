package engine

import (
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/result"
)

// The interval checks of a phase become one verdict per check; a phase in
// which not one snapshot could be made has a failed "could not be made"
// verdict, not none (a bank run whose checking session never answered
// would otherwise show no check during the run at all).
func TestIntervalVerdicts(t *testing.T) {
	recs := []result.IntervalCheck{
		{T: 1, Name: "total balance", Passed: true},
		{T: 2, Error: "connection refused"},
		{T: 3, Name: "total balance", Passed: false, Offending: 1, Detail: "sum 999 != 1000"},
	}
	v := intervalVerdicts(recs, "during run")
	if len(v) != 1 || v[0].Passed || v[0].Offending != 1 || !strings.Contains(v[0].Detail, "2 snapshot(s), 1 failed") ||
		!strings.Contains(v[0].Detail, "1 could not be made") {
		t.Errorf("verdicts %+v", v)
	}
	v = intervalVerdicts([]result.IntervalCheck{{T: 1, Error: "connection refused"}, {T: 2, Error: "timeout"}}, "during run")
	if len(v) != 1 || v[0].Passed || !strings.Contains(v[0].Detail, "none of 2") || !strings.Contains(v[0].Detail, "connection refused") {
		t.Errorf("no snapshot made: verdicts %+v", v)
	}
	if v := intervalVerdicts(nil, "during run"); len(v) != 0 {
		t.Errorf("no interval checks: verdicts %+v", v)
	}
}
