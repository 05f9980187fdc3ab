package audit

import (
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/candor-bench/candor/internal/result"
)

// Trend thresholds: a run is still trending when the least-squares slope of
// its per-interval throughput differs from zero at the 1% level and moves
// throughput by more than 5% of its mean over the measured time. The
// intervals are autocorrelated, which makes the t test too eager; the size
// threshold keeps noise on a steady run from counting.
const (
	TrendAlpha     = 0.01
	TrendChangePct = 5.0
	// trendMinIntervals is the fewest intervals the test runs on.
	trendMinIntervals = 5
)

// TrendResult is the slope test over one phase's interval series.
type TrendResult struct {
	N         int     // intervals used
	Slope     float64 // ops/s per second
	Mean      float64 // mean ops/s
	ChangePct float64 // slope × measured span / mean, in percent
	P         float64 // two-sided p value of the slope
}

// Trending reports whether the test found a trend worth a finding.
func (t TrendResult) Trending() bool {
	return t.P < TrendAlpha && math.Abs(t.ChangePct) > TrendChangePct
}

// Trend fits a line to a phase's throughput per interval over the second
// half of its measured intervals (all of them when fewer than 10; warm-up
// and a short last interval left out). ok is false with fewer than 5 intervals
// or no throughput.
func Trend(p *result.Phase) (TrendResult, bool) {
	var xs, ys []float64
	full := 0.0
	for _, iv := range p.Intervals {
		if iv.LengthSec > full {
			full = iv.LengthSec
		}
	}
	for _, iv := range p.Intervals {
		if iv.Warmup || iv.LengthSec <= 0 || iv.LengthSec < full/2 {
			continue
		}
		var n int64
		for _, o := range iv.Ops {
			n += o.Count - o.Errors
		}
		xs = append(xs, iv.ElapsedSec)
		ys = append(ys, float64(n)/iv.LengthSec)
	}
	if len(xs) < trendMinIntervals {
		return TrendResult{N: len(xs)}, false
	}
	// "At the end": the second half of the measured intervals, so that a
	// ramp at the start that settled does not count (no-warmup says it).
	if h := len(xs) / 2; h >= trendMinIntervals {
		xs, ys = xs[h:], ys[h:]
	}
	alpha, beta := stat.LinearRegression(xs, ys, nil, false)
	mean := stat.Mean(ys, nil)
	if mean <= 0 {
		return TrendResult{N: len(xs)}, false
	}
	var sse, sxx float64
	mx := stat.Mean(xs, nil)
	for i := range xs {
		r := ys[i] - (alpha + beta*xs[i])
		sse += r * r
		sxx += (xs[i] - mx) * (xs[i] - mx)
	}
	n := float64(len(xs))
	tr := TrendResult{N: len(xs), Slope: beta, Mean: mean, ChangePct: 100 * beta * (xs[len(xs)-1] - xs[0]) / mean}
	if sxx == 0 {
		return tr, false
	}
	se := math.Sqrt(sse / (n - 2) / sxx)
	switch {
	case se == 0 && beta == 0:
		tr.P = 1
	case se == 0:
		tr.P = 0
	default:
		t := math.Abs(beta / se)
		tr.P = 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 2}.Survival(t)
	}
	return tr, true
}
