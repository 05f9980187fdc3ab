package stats

import "math"

// Ratio compares the mean of sample B with the mean of sample A as their
// ratio, B/A, on the log scale: the 95% confidence interval is
// exp(ln(x̄B/x̄A) ± t(0.975, DF)·SE), with SE the delta method's standard
// error of ln x̄B − ln x̄A,
//
//	SE² = s²A/(nA·x̄A²) + s²B/(nB·x̄B²)
//
// (the relative variances of the two means added) and DF the
// Welch–Satterthwaite degrees of freedom of those two terms. Unlike the
// interval of the difference of means divided by x̄A, whose lower bound
// falls below −100% when B is noisy (a throughput change of
// [−120.6%, −31.9%]), its bounds are ratios a positive quantity can take:
// always above 0, so a change is always above −100%. It is symmetric:
// comparing A with B gives the reciprocal interval. The test of equal means
// on the same scale, T = ln(x̄B/x̄A)/SE, decides at 5% exactly when the
// interval leaves out 1, so a verdict and its interval never disagree.
type Ratio struct {
	NA, NB       int
	MeanA, MeanB float64
	// Ratio is MeanB / MeanA; CI95Low and CI95High bound its 95%
	// confidence interval (0 < CI95Low ≤ Ratio ≤ CI95High).
	Ratio             float64
	CI95Low, CI95High float64
	// SE is the standard error of ln(Ratio) (delta method).
	SE float64
	// T is ln(Ratio) / SE.
	T float64
	// DF is the Welch–Satterthwaite degrees of freedom
	// (uA + uB)² / (uA²/(nA−1) + uB²/(nB−1)), uX = s²X/(nX·x̄X²).
	DF float64
	// P is the two-sided p-value of T, 2·(1 − F(|T|; DF)).
	P float64
}

// Pct is a ratio as a change in percent: 100·(r − 1).
func Pct(r float64) float64 { return 100 * (r - 1) }

// RatioTest compares the means of two samples as RatioOf does.
func RatioTest(a, b []float64) (Ratio, bool) { return RatioOf(Summarize(a), Summarize(b)) }

// RatioOf compares two samples' means, given their summaries, as a ratio
// B/A on the log scale (see Ratio). It needs at least two values in each
// sample and both means above zero (ok is false otherwise: no interval, and
// only Ratio is set when the means allow it). When neither sample has any
// spread the interval is the ratio itself, and P is 1 for equal means, 0
// otherwise.
func RatioOf(a, b Summary) (r Ratio, ok bool) {
	r = Ratio{NA: a.N, NB: b.N, MeanA: a.Mean, MeanB: b.Mean, Ratio: math.NaN()}
	r.T, r.DF, r.P, r.CI95Low, r.CI95High = math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()
	if a.N == 0 || b.N == 0 || !(a.Mean > 0) || !(b.Mean > 0) {
		return r, false
	}
	r.Ratio = b.Mean / a.Mean
	if a.N < 2 || b.N < 2 {
		return r, false
	}
	r.CI95Low, r.CI95High = r.Ratio, r.Ratio
	ua := a.StdDev * a.StdDev / (float64(a.N) * a.Mean * a.Mean)
	ub := b.StdDev * b.StdDev / (float64(b.N) * b.Mean * b.Mean)
	r.SE = math.Sqrt(ua + ub)
	lr := math.Log(r.Ratio)
	if r.SE == 0 {
		r.DF = float64(a.N + b.N - 2)
		if a.Mean == b.Mean {
			r.T, r.P = 0, 1
		} else {
			r.T, r.P = math.Copysign(math.Inf(1), lr), 0
		}
		return r, true
	}
	r.T = lr / r.SE
	r.DF = (ua + ub) * (ua + ub) / (ua*ua/float64(a.N-1) + ub*ub/float64(b.N-1))
	r.P = StudentTTwoSided(r.T, r.DF)
	half := TQuantile(0.975, r.DF) * r.SE
	r.CI95Low, r.CI95High = math.Exp(lr-half), math.Exp(lr+half)
	return r, true
}
