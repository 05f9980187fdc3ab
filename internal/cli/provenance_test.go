package cli

import (
	"os"
	"testing"

	"github.com/candor-bench/candor/internal/measure"
)

func TestProvenanceRecordsAutogroups(t *testing.T) {
	b, err := os.ReadFile("/proc/sys/kernel/sched_autogroup_enabled")
	if err != nil {
		t.Skipf("this kernel has no autogroups: %v", err)
	}
	if got, want := collectProvenance().SchedAutogroup, measure.ParseAutogroup(string(b)); got != want || got == "" {
		t.Errorf("provenance sched_autogroup = %q, want %q", got, want)
	}
}
