package cli

import (
	"strings"
	"testing"
)

// A name a user mistypes gets one message naming what they probably meant:
// flags, workloads, YCSB's single-dash options, go-tpc's and YCSB's
// "WORKLOAD VERB" order, the drop-ins' own options. Each is bad input
// (exit 2), never a panic.
func TestMistypedNamesSuggestTheIntendedOne(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
		want []string // substrings of stderr
		not  string   // not in stderr ("" none)
	}{
		{"flag", []string{"run", "ycsb/a", "--thread", "4", "--target", "null://"}, []string{"unknown flag: --thread", "did you mean --threads?"}, ""},
		{"flag typo", []string{"run", "ycsb/a", "--threds=4", "--target", "null://"}, []string{"did you mean --threads?"}, ""},
		{"workload", []string{"run", "tpc-c", "--target", "null://"}, []string{`unknown workload "tpc-c" (did you mean tpcc?)`}, ""},
		{"sysbench test without its workload", []string{"run", "oltp_read_write", "--target", "null://"}, []string{"did you mean sysbench/oltp_read_write?"}, ""},
		{"YCSB's file name", []string{"run", "ycsb/workloada", "--target", "null://"}, []string{"did you mean ycsb/a?"}, ""},
		{"far from every name", []string{"run", "frobnicate", "--target", "null://"}, []string{"unknown workload", "valid workloads"}, "did you mean"},
		{"YCSB's -threads", []string{"run", "ycsb/a", "-threads", "4", "--target", "null://"}, []string{"long options take two dashes: --threads"}, ""},
		{"YCSB's -target", []string{"run", "ycsb/a", "-target", "100"}, []string{"YCSB's -target (operations per second) is candor's --rate"}, ""},
		{"go-tpc's order", []string{"tpcc", "prepare", "--warehouses", "1", "--target", "null://"}, []string{"there is no 'candor tpcc' command", "'candor load tpcc'"}, "unknown flag"},
		{"a workload as the command", []string{"ycsb/a", "--threads", "4"}, []string{"'candor run ycsb/a'"}, "unknown flag"},
		{"the verb after the workload", []string{"run", "tpcc", "prepare", "--target", "null://"}, []string{`unexpected argument "prepare"`, "candor load tpcc"}, "sysbench"},
		{"a command mistyped", []string{"sysbenc", "--threads=4", "oltp_read_write", "run"}, []string{`unknown command "sysbenc"`, "did you mean sysbench?"}, "unknown flag"},
		{"sysbench option", []string{"sysbench", "--thread=4", "oltp_read_write", "run"}, []string{"unknown option --thread; did you mean --threads?"}, ""},
		{"sysbench option typo", []string{"sysbench", "--table_sise=4", "oltp_read_write", "run"}, []string{"did you mean --table-size?"}, ""},
		{"pgbench option", []string{"pgbench", "--clients", "4", "bench"}, []string{"option --clients is neither pgbench's nor candor's (did you mean --client?)"}, "too many"},
		{"candor's option in pgbench's place", []string{"pgbench", "--threads", "4", "bench"}, []string{"candor pgbench takes pgbench's: -c N"}, "--threads;"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runAbs(t, dir, c.args...)
			if code != ExitUsage {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, ExitUsage, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if c.not != "" && strings.Contains(stderr, c.not) {
				t.Errorf("stderr has %q:\n%s", c.not, stderr)
			}
			if n := strings.Count(strings.TrimSpace(stderr), "\n"); n > 0 || strings.Contains(stderr, "panic") {
				t.Errorf("want one line, got %d:\n%s", n+1, stderr)
			}
		})
	}
}
