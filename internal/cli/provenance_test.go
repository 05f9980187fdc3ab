package cli

import (
	"os"
	"testing"
)

func TestSchedAutogroup(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"1\n", "on"},
		{"0\n", "off"},
		{"0", "off"},
		{"2\n", "on"},
		{"", ""},
		{"yes\n", ""},
	} {
		if got := schedAutogroup(tc.in); got != tc.want {
			t.Errorf("schedAutogroup(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestProvenanceRecordsAutogroups(t *testing.T) {
	b, err := os.ReadFile("/proc/sys/kernel/sched_autogroup_enabled")
	if err != nil {
		t.Skipf("this kernel has no autogroups: %v", err)
	}
	if got, want := collectProvenance().SchedAutogroup, schedAutogroup(string(b)); got != want || got == "" {
		t.Errorf("provenance sched_autogroup = %q, want %q", got, want)
	}
}
