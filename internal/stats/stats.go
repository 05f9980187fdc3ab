// Package stats summarises repeated measurements: mean, sample standard
// deviation and a 95% confidence interval of the mean from Student's t
// distribution, and Welch's t test. Student's t distribution (its CDF and
// quantile, through the regularized incomplete beta function) comes from
// gonum (gonum.org/v1/gonum/stat/distuv).
package stats

import "math"

// Summary describes a sample of repeated measurements.
type Summary struct {
	N      int     `json:"n"`
	Mean   float64 `json:"mean"`
	StdDev float64 `json:"stddev"` // sample standard deviation (n−1); 0 for n < 2
	// CI95Low and CI95High bound the 95% confidence interval of the mean
	// (mean ± t(0.975, n−1)·s/√n); both equal the mean for n < 2, where the
	// uncertainty is unknown.
	CI95Low  float64 `json:"ci95_low"`
	CI95High float64 `json:"ci95_high"`
}

// Summarize computes the summary of xs.
func Summarize(xs []float64) Summary {
	s := Summary{N: len(xs)}
	if s.N == 0 {
		return s
	}
	for _, x := range xs {
		s.Mean += x
	}
	s.Mean /= float64(s.N)
	s.CI95Low, s.CI95High = s.Mean, s.Mean
	if s.N < 2 {
		return s
	}
	var sq float64
	for _, x := range xs {
		d := x - s.Mean
		sq += d * d
	}
	s.StdDev = math.Sqrt(sq / float64(s.N-1))
	half := TQuantile975(s.N-1) * s.StdDev / math.Sqrt(float64(s.N))
	s.CI95Low, s.CI95High = s.Mean-half, s.Mean+half
	return s
}

// HalfWidth is half the confidence interval's width.
func (s Summary) HalfWidth() float64 { return (s.CI95High - s.CI95Low) / 2 }

// TQuantile975 is the 0.975 quantile of Student's t with df (≥ 1) degrees
// of freedom, the factor of a 95% confidence interval.
func TQuantile975(df int) float64 {
	if df < 1 {
		return math.NaN()
	}
	return TQuantile(0.975, float64(df))
}
