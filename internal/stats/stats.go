// Package stats summarises repeated measurements: mean, sample standard
// deviation and a 95% confidence interval of the mean from Student's t
// distribution. It depends on nothing but the standard library.
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

// t975 holds Student's t quantile at 0.975 for 1..30 degrees of freedom
// (standard tables, 3 decimals).
var t975 = [...]float64{
	12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
	2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
}

// TQuantile975 is the 0.975 quantile of Student's t with df degrees of
// freedom: the table above for df ≤ 30, beyond it the Cornish–Fisher
// expansion around the normal quantile 1.959964 (error < 0.001).
func TQuantile975(df int) float64 {
	if df < 1 {
		return math.NaN()
	}
	if df <= len(t975) {
		return t975[df-1]
	}
	const z = 1.959963984540054
	n := float64(df)
	return z + (z*z*z+z)/(4*n) + (5*math.Pow(z, 5)+16*z*z*z+3*z)/(96*n*n)
}
