package engine

import (
	"testing"

	"github.com/candor-bench/candor/internal/measure"
)

func TestProvenanceRecordsAutogroups(t *testing.T) {
	want := measure.SchedAutogroup()
	if want == "" {
		t.Skip("this kernel has no autogroups")
	}
	if got := collectProvenance().SchedAutogroup; got != want {
		t.Errorf("provenance sched_autogroup = %q, want %q", got, want)
	}
}
