package result

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// readReal reads a result a real run wrote (report's testdata), without
// Read's Enforce, so that the test edits it before the laws see it.
func readReal(t *testing.T) *Result {
	t.Helper()
	b, err := os.ReadFile("../report/testdata/results/ycsb-a-pg-t1.json")
	if err != nil {
		t.Fatal(err)
	}
	var r Result
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

// lastRunOp is the first operation of the result's last phase with a
// latency histogram.
func lastRunOp(t *testing.T, r *Result) *OpResult {
	t.Helper()
	p := &r.Phases[len(r.Phases)-1]
	for i := range p.Ops {
		if p.Ops[i].Histograms["latency"] != "" && p.Ops[i].Latency != nil {
			return &p.Ops[i]
		}
	}
	t.Fatal("no operation with a latency histogram")
	return nil
}

// The edits of a real result: a printed p99 ×10, a count the
// histogram does not hold, and the schema relabelled v1 to switch the laws
// off. Each is a broken law; the file as written breaks none.
func TestLawsBindSummariesAndSchema(t *testing.T) {
	if v := Check(readReal(t)); len(v) != 0 {
		t.Fatalf("the result as written breaks %v", v)
	}
	for _, c := range []struct {
		name string
		edit func(r *Result)
		want string
	}{
		{"p99 ×10", func(r *Result) { o := lastRunOp(t, r); o.Latency.P99 *= 10 }, "histograms: run 3: READ: the latency summary"},
		{"mean", func(r *Result) { o := lastRunOp(t, r); o.Latency.Mean /= 2 }, "the latency summary"},
		{"histogram total ≠ count", func(r *Result) {
			o := lastRunOp(t, r)
			o.Count += 100
			o.Throughput = float64(o.Count) / r.Phases[len(r.Phases)-1].DurationSec
		}, "the latency histogram's total"},
		{"histogram total > count + unfinished", func(r *Result) {
			o := lastRunOp(t, r)
			o.Count -= 100
			o.Throughput = float64(o.Count) / r.Phases[len(r.Phases)-1].DurationSec
		}, "the latency histogram's total"},
		{"schema v1 switches the laws off", func(r *Result) {
			r.Schema = "candor.result/v1"
			o := lastRunOp(t, r)
			o.Attempts += 7
		}, "attempts: run 3: READ: attempts"},
		{"intervals emptied", func(r *Result) {
			r.Phases[len(r.Phases)-1].Intervals = nil
		}, "intervals: run 3: no measured intervals"},
		{"intervals emptied in v1", func(r *Result) {
			r.Schema = "candor.result/v1"
			r.Phases[len(r.Phases)-1].Intervals = []Interval{}
		}, "intervals: run 3: no measured intervals"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := readReal(t)
			c.edit(r)
			var got []string
			for _, v := range Check(r) {
				got = append(got, v.String())
			}
			if !strings.Contains(strings.Join(got, "\n"), c.want) {
				t.Errorf("broken laws %q, want one saying %q", got, c.want)
			}
		})
	}
}
