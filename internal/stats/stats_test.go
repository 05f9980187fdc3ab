package stats

import (
	"math"
	"testing"

	"github.com/candor-bench/candor/internal/result"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestSummarizeKnownSamples(t *testing.T) {
	cases := []struct {
		name           string
		xs             []float64
		mean, sd, half float64
	}{
		// 10..18 step 2: mean 14, s = √10, t(0.975, 4) = 2.7764451 → 2.7764451·√10/√5 = 3.926486
		{"five values", []float64{10, 12, 14, 16, 18}, 14, 3.16228, 3.926486},
		// three published-style runs: mean 17000, s = 1000, t(0.975, 2) = 4.3026527 → 4.3026527·1000/√3 = 2484.1377
		{"three runs", []float64{16000, 17000, 18000}, 17000, 1000, 2484.1377},
		// identical values: no spread, zero-width interval
		{"no spread", []float64{5, 5, 5, 5}, 5, 0, 0},
		// one value: uncertainty unknown, interval collapses to the mean
		{"single", []float64{42}, 42, 0, 0},
	}
	for _, c := range cases {
		s := Summarize(c.xs)
		if !near(s.Mean, c.mean, 1e-9) || !near(s.StdDev, c.sd, 1e-4) || !near(s.HalfWidth(), c.half, 1e-4) {
			t.Errorf("%s: mean %v sd %v half %v; want %v %v %v", c.name, s.Mean, s.StdDev, s.HalfWidth(), c.mean, c.sd, c.half)
		}
		if s.N != len(c.xs) || !near(s.CI95Low+s.CI95High, 2*s.Mean, 1e-9) {
			t.Errorf("%s: interval not centred on the mean: %+v", c.name, s)
		}
	}
	if s := Summarize(nil); s.N != 0 || s.Mean != 0 {
		t.Errorf("empty sample: %+v", s)
	}
}

func TestTQuantile975(t *testing.T) {
	cases := []struct {
		df   int
		want float64
	}{
		// published values to 6 decimals (the 3-decimal tables and a
		// normal expansion beyond df 30 are not close enough)
		{1, 12.706205}, {2, 4.302653}, {3, 3.182446}, {10, 2.228139}, {30, 2.042272},
		{40, 2.021075}, {60, 2.000298}, {120, 1.979930},
	}
	for _, c := range cases {
		if got := TQuantile975(c.df); !near(got, c.want, 2e-6) {
			t.Errorf("t(0.975, %d) = %.7f, want %.6f", c.df, got, c.want)
		}
	}
	if !math.IsNaN(TQuantile975(0)) {
		t.Error("df 0 must be NaN")
	}
}

func TestRepetitions(t *testing.T) {
	// Three runs; UPDATE is missing from the third (counted as zero throughput).
	ph := func(thr, readThr, p99 float64, withUpdate bool) result.Phase {
		p := result.Phase{Name: "run", Status: result.StatusComplete, Throughput: thr, Ops: []result.OpResult{
			{Name: "READ", Throughput: readThr, Latency: &result.Summary{Mean: p99 / 2, P99: int64(p99)}}}}
		if withUpdate {
			p.Ops = append(p.Ops, result.OpResult{Name: "UPDATE", Throughput: thr - readThr})
		}
		return p
	}
	r := Repetitions([]result.Phase{ph(100, 60, 1000, true), ph(110, 66, 1200, true), ph(90, 90, 800, false)})
	if r.N != 3 || !near(r.Throughput.Mean, 100, 1e-9) || !near(r.Throughput.StdDev, 10, 1e-9) {
		t.Fatalf("throughput %+v", r.Throughput)
	}
	// t(2) = 4.303: half width 4.303·10/√3 = 24.84
	if !near(r.Throughput.CI95High-r.Throughput.Mean, 24.84, 0.01) {
		t.Errorf("throughput CI %+v", r.Throughput)
	}
	if len(r.Ops) != 2 || r.Ops[0].Name != "READ" || !near(r.Ops[0].P99.Mean, 1000, 1e-9) || r.Ops[0].P99.N != 3 {
		t.Fatalf("READ repetitions %+v", r.Ops)
	}
	if u := r.Ops[1]; u.Name != "UPDATE" || u.Throughput.N != 3 || !near(u.Throughput.Mean, (40+44+0)/3.0, 1e-9) {
		t.Errorf("UPDATE throughput %+v: the missing run must count as 0", u.Throughput)
	}
}
