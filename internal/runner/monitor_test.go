package runner

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/result"
)

// The status line of a phase's short, empty tail: none, unless operations
// were dropped, and then labelled as the end, not again with the last
// line's time.
func TestStatusOfThePhasesTail(t *testing.T) {
	var out bytes.Buffer
	m := &monitor{r: &Runner{Status: &out, Config: Config{ReportInterval: time.Second}}, name: "run"}
	ops := []result.IntervalOp{{Name: "READ"}}
	dropped := int64(1234567)
	none := int64(0)

	m.status(result.Interval{ElapsedSec: 2, LengthSec: 1, Ops: []result.IntervalOp{{Name: "READ", Count: 10, Rate: 10}}}, 0)
	m.status(result.Interval{ElapsedSec: 2.001, LengthSec: 0.001, Ops: ops, Dropped: &none}, 0)
	m.status(result.Interval{ElapsedSec: 2.002, LengthSec: 0.001, Ops: ops, Dropped: &dropped}, 0)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("status lines:\n%s\nwant the interval's and the tail's with what was dropped", out.String())
	}
	if !strings.HasPrefix(lines[0], "[run]     2.0s | READ 10 ops/s") {
		t.Errorf("interval line %q", lines[0])
	}
	if want := "[run]      end | dropped 1,234,567"; lines[1] != want {
		t.Errorf("tail line %q, want %q", lines[1], want)
	}
}
