package runflags

import (
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/engine"
	_ "github.com/candor-bench/candor/internal/workload/sysbench"
	_ "github.com/candor-bench/candor/internal/workload/ycsb"
)

// Parse reads a command line into a Spec without cobra: what is given is
// set, what is not stays the workload's (nil), and bad input is exit 2
// with the message the command gives.
func TestParse(t *testing.T) {
	s, err := Parse(engine.PhaseRun, []string{"ycsb/a", "--threads", "4", "--time", "90", "--max-error-rate", "2%", "-p", "recordcount=10", "--target", "null://"})
	if err != nil {
		t.Fatal(err)
	}
	if s.Workload != "ycsb/a" || *s.Threads != 4 || *s.Duration != 90*time.Second || s.MaxErrorRate != 0.02 ||
		s.Operations != nil || s.Rate != nil || len(s.Targets) != 1 || s.Properties[0] != "recordcount=10" {
		t.Errorf("spec %+v", s)
	}
	s, err = Parse(engine.PhaseRun, []string{"sysbench/oltp_read_only", "--table_size=100", "--auto-inc=off"})
	if err != nil || strings.Join(s.Options, " ") != "table-size=100 auto-inc=off" {
		t.Errorf("workload options %v, %v", s.Options, err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "name a workload"},
		{[]string{"ycsb/a", "x"}, `unexpected argument "x"`},
		{[]string{"ycsb/a", "--no-such-flag"}, "unknown flag: --no-such-flag (see 'candor run --help')"},
		{[]string{"ycsb/a", "--time", "soon"}, "is not a duration"},
		{[]string{"ycsb/a", "--max-error-rate", "150"}, "is above 1"},
		{[]string{"ycsb/a", "--table-size", "100"}, "--table-size is an option of sysbench, not of ycsb"},
		{[]string{"ycsb/a", "--read-consistency", "ONE"}, "applies to CQL targets"},
	} {
		_, err := Parse(engine.PhaseRun, c.args)
		if err == nil || !strings.Contains(err.Error(), c.want) || engine.Code(err) != engine.ExitUsage {
			t.Errorf("Parse(%q) = %v (exit %d), want %q, exit 2", c.args, err, engine.Code(err), c.want)
		}
	}
}
