package report

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/ledger"
	"github.com/candor-bench/candor/internal/published"
	"github.com/candor-bench/candor/internal/result"
)

// claimInput is a result of plan "p", cell params, with one complete run
// phase per throughput (and one ledger loss count per phase when lost is
// given).
func claimInput(params map[string]string, tputs []float64, lost []int64) Input {
	r := &result.Result{Plan: &result.PlanRef{Name: "p", Params: params}}
	r.Workload.Name = "w"
	for i, x := range tputs {
		ph := result.Phase{Name: "run", Status: result.StatusComplete, Throughput: x}
		if lost != nil {
			ph.Ledger = &result.LedgerResult{Accounting: &ledger.Accounting{Lost: int(lost[i])}}
		}
		r.Phases = append(r.Phases, ph)
	}
	return Input{Path: "x.json", Result: r}
}

// Verdicts follow the 95% CI of the log ratio against the tolerance band:
// inside it reproduced, outside it not, across it too wide to call; one
// repetition is too few; an order is the ratio's interval below 1; lost
// counts are zero or positive in every repetition.
func TestClaimVerdicts(t *testing.T) {
	a := map[string]string{"target": "a"}
	b := map[string]string{"target": "b"}
	ratio := func(expect, tol float64) published.Claim {
		return published.Claim{ID: "r", Kind: published.Direct, Metric: "throughput", Ratio: []published.Selector{{"target": "a"}, {"target": "b"}}, Expect: expect, Tolerance: tol}
	}
	cases := []struct {
		name   string
		claim  published.Claim
		inputs []Input
		want   string
	}{
		{"inside the band", ratio(2, 0.25), []Input{claimInput(a, []float64{200, 202, 198}, nil), claimInput(b, []float64{100, 101, 99}, nil)}, Reproduced},
		{"outside the band", ratio(2, 0.25), []Input{claimInput(a, []float64{100, 102, 98}, nil), claimInput(b, []float64{100, 101, 99}, nil)}, NotReproduced},
		{"across the band", ratio(2, 0.25), []Input{claimInput(a, []float64{100, 300, 200}, nil), claimInput(b, []float64{100, 101, 99}, nil)}, TooWide},
		{"one repetition", ratio(2, 0.25), []Input{claimInput(a, []float64{200}, nil), claimInput(b, []float64{100, 101}, nil)}, TooFew},
		{"not run", ratio(2, 0.25), []Input{claimInput(a, []float64{200, 201}, nil)}, NotRun},
		{"order holds", published.Claim{Metric: "throughput", Less: []published.Selector{{"target": "b"}, {"target": "a"}}},
			[]Input{claimInput(a, []float64{200, 202, 198}, nil), claimInput(b, []float64{100, 101, 99}, nil)}, Reproduced},
		{"order reversed", published.Claim{Metric: "throughput", Less: []published.Selector{{"target": "a"}, {"target": "b"}}},
			[]Input{claimInput(a, []float64{200, 202, 198}, nil), claimInput(b, []float64{100, 101, 99}, nil)}, NotReproduced},
		{"zero lost", published.Claim{Metric: "lost", Zero: &published.Selector{"target": "a"}}, []Input{claimInput(a, []float64{1, 1}, []int64{0, 0})}, Reproduced},
		{"some lost", published.Claim{Metric: "lost", Zero: &published.Selector{"target": "a"}}, []Input{claimInput(a, []float64{1, 1}, []int64{0, 3})}, NotReproduced},
		{"lost every time", published.Claim{Metric: "lost", Positive: &published.Selector{"target": "a"}}, []Input{claimInput(a, []float64{1, 1}, []int64{2, 3})}, Reproduced},
		{"lost once", published.Claim{Metric: "lost", Positive: &published.Selector{"target": "a"}}, []Input{claimInput(a, []float64{1, 1}, []int64{0, 3})}, TooFew},
		{"untestable", published.Claim{Kind: published.Untestable, Untestable: "a 3-node cluster"}, nil, Untestable},
		{"at most, 0 against 1..3", published.Claim{Metric: "lost", AtMost: []published.Selector{{"target": "a"}, {"target": "b"}}}, []Input{claimInput(a, []float64{1}, []int64{0}), claimInput(b, []float64{1, 1, 1}, []int64{3, 1, 2})}, Reproduced},
		{"at most, both 0", published.Claim{Metric: "lost", AtMost: []published.Selector{{"target": "a"}, {"target": "b"}}}, []Input{claimInput(a, []float64{1}, []int64{0}), claimInput(b, []float64{1}, []int64{0})}, Reproduced},
		{"at most, overlapping", published.Claim{Metric: "lost", AtMost: []published.Selector{{"target": "a"}, {"target": "b"}}}, []Input{claimInput(a, []float64{1, 1}, []int64{0, 2}), claimInput(b, []float64{1}, []int64{1})}, TooWide},
		{"at most, above", published.Claim{Metric: "lost", AtMost: []published.Selector{{"target": "a"}, {"target": "b"}}}, []Input{claimInput(a, []float64{1}, []int64{5}), claimInput(b, []float64{1}, []int64{1})}, NotReproduced},
		{"kind not-run", published.Claim{Kind: published.NotRun, Needs: "a 10-minute cell"}, nil, NotRun},
	}
	for _, c := range cases {
		v := checkClaim("p", c.claim, c.inputs)
		if v.Verdict != c.want {
			t.Errorf("%s: verdict %q (%s; %s), want %q", c.name, v.Verdict, v.Measured, v.Reason, c.want)
		}
	}
	// The measured ratio is a over b with its interval around it.
	v := checkClaim("p", ratio(2, 0.25), []Input{claimInput(a, []float64{200, 202, 198}, nil), claimInput(b, []float64{100, 101, 99}, nil)})
	if math.Abs(v.Value-2) > 1e-9 || !(v.Low < 2 && v.High > 2) || !strings.Contains(v.Measured, "95% CI") {
		t.Errorf("measured %v [%v, %v] %q", v.Value, v.Low, v.High, v.Measured)
	}
}

// An analog shows the mechanism or not, and never reproduces the source's
// claim: the figures that make a direct claim reproduced or not make an
// analog's mechanism seen or not seen here; an untestable claim prints its
// reason and a not-run claim what it needs, counted apart.
func TestAnalogVerdicts(t *testing.T) {
	a := map[string]string{"target": "a"}
	b := map[string]string{"target": "b"}
	less := func(kind string, first, second string) published.Claim {
		return published.Claim{ID: "o", Kind: kind, Metric: "throughput", Less: []published.Selector{{"target": first}, {"target": second}}}
	}
	inputs := []Input{claimInput(a, []float64{200, 202, 198}, nil), claimInput(b, []float64{100, 101, 99}, nil)}
	for _, c := range []struct {
		claim published.Claim
		want  string
	}{
		{less(published.Direct, "b", "a"), Reproduced},
		{less(published.Direct, "a", "b"), NotReproduced},
		{less(published.Analog, "b", "a"), MechanismSeen},
		{less(published.Analog, "a", "b"), MechanismNotSeen},
	} {
		if v := checkClaim("p", c.claim, inputs); v.Verdict != c.want {
			t.Errorf("%s %s: verdict %q, want %q", c.claim.Kind, c.claim.Less, v.Verdict, c.want)
		}
	}
	u := checkClaim("p", published.Claim{Kind: published.Untestable, Untestable: "YugabyteDB cannot be installed here"}, nil)
	n := checkClaim("p", published.Claim{Kind: published.NotRun, Needs: "a 10-minute commit loop"}, nil)
	if u.Text() != "untestable here: YugabyteDB cannot be installed here" || n.Text() != "not run here: a 10-minute commit loop" {
		t.Errorf("texts %q, %q", u.Text(), n.Text())
	}
	if got := VerdictCounts([]*Verdict{u, n, n}); got != "2 not run here, 1 untestable here" {
		t.Errorf("counts %q", got)
	}
}

// The source's words are set beside its own figures: E2's "about 4 times"
// is 1.68× by its own table.
func TestClaimWords(t *testing.T) {
	c := published.Claim{Kind: published.Untestable, Untestable: "two products", Words: &published.Words{Text: "about 4 times", Value: 4, Of: []float64{1803.83, 1073.55}}}
	v := checkClaim("p", c, nil)
	if !strings.Contains(v.Words, `"about 4 times" (4×)`) || !strings.Contains(v.Words, "= 1.68×") {
		t.Errorf("words: %q", v.Words)
	}
}

// A long plan cell name in a narrow text column wraps after its "_"
// separators and keeps its distinguishing end, never cut to a common
// prefix with "...".
func TestTextCellNamesKeepTheirEnd(t *testing.T) {
	names := []string{"sysbench-oltp_read_write_pg_t16_auto-inc-off_sequence-cache-1.json", "sysbench-oltp_read_write_pg_t16_auto-inc-on_sequence-cache-1000.json"}
	for _, n := range names {
		got := strings.Join(wrapCell(n, 36), "")
		if got != n {
			t.Errorf("%s wrapped as %q", n, wrapCell(n, 36))
		}
	}
}

// Values are printed as the plan wrote them: a cell's plan parameter
// auto-inc=off wins over the workload's resolved option false.
func TestParamsAsThePlanWroteThem(t *testing.T) {
	r := &result.Result{Plan: &result.PlanRef{Name: "p", Params: map[string]string{"auto-inc": "off", "target": "pg"}}}
	r.Workload.Options = map[string]any{"auto-inc": false, "tables": float64(10)}
	p := paramsOf(r, "run")
	if p["auto-inc"] != "off" || p["tables"] != "10" {
		t.Errorf("params %v", p)
	}
}

// A load and a run are drawn on their own axes: a chart each, titled, so a
// run's transactions/s is not a flat line under the load's rows/s.
func TestTimeSeriesLoadAndRunApart(t *testing.T) {
	r := fixtures()["ycsb-a-pg-t4.json"].build(t)
	run := r.Phases[len(r.Phases)-1]
	load := run
	load.Name, load.Rows = "load", 1000
	r.Phases = append([]result.Phase{load}, r.Phases...)
	svg, err := drawTimeSeries(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, title := range []string{">load<", ">run<"} {
		if !bytes.Contains(svg, []byte(title)) {
			t.Errorf("no chart titled %s", title)
		}
	}
	// Two throughput axes (one per phase kind), each with its p99 panel.
	if n := bytes.Count(svg, []byte(">throughput (per second)<")); n != 2 {
		t.Errorf("%d throughput axes, want 2", n)
	}
}

// A plan's claims count only the results of its cells as they are now: a
// result of the same plan name and cell parameters but another identity
// (the plan's duration changed since, say) is left out with a warning,
// not pooled with the fresh ones.
func TestClaimsLeaveOutOlderCells(t *testing.T) {
	a := map[string]string{"target": "a", "identity": "aaaa0001"}
	b := map[string]string{"target": "b", "identity": "bbbb0001"}
	stale := map[string]string{"target": "a", "identity": "aaaa0000"}
	in := func(params map[string]string, cell string, tputs ...float64) Input {
		x := claimInput(params, tputs, nil)
		x.Result.Plan.Cell = cell
		return x
	}
	p := &ClaimsPlan{Name: "p", Published: &published.Published{Claims: []published.Claim{
		{ID: "r", Metric: "throughput", Ratio: []published.Selector{{"target": "a"}, {"target": "b"}}, Expect: 2, Tolerance: 0.25}}},
		Cells: []published.Cell{{Workload: "w", Params: map[string]string{"target": "a"}, ID: "w_a", Identity: "aaaa0001"},
			{Workload: "w", Params: map[string]string{"target": "b"}, ID: "w_b", Identity: "bbbb0001"}}}
	inputs := []Input{in(a, "w_a", 200, 202, 198), in(b, "w_b", 100, 101, 99), in(stale, "w_a", 900, 910, 905), in(a, "w_gone", 10, 11)}
	v := CheckClaims(p, inputs)
	if len(v) != 1 || v[0].Verdict != Reproduced || math.Abs(v[0].Value-2) > 1e-9 {
		t.Errorf("verdict %+v: want 2.0 from the current cells only", v)
	}
	if kept, stale := p.madeHere(inputs); len(kept) != 2 || stale != 2 {
		t.Errorf("kept %d, stale %d; want 2 and 2", len(kept), stale)
	}
}
