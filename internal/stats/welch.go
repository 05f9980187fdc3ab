package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Welch is the result of Welch's unequal-variances two-sample t test of
// sample B against sample A, with the 95% confidence interval of the
// difference of the means (B − A).
type Welch struct {
	NA, NB       int
	MeanA, MeanB float64
	// Diff is MeanB − MeanA; CI95Low and CI95High bound its 95% confidence
	// interval: Diff ± t(0.975, DF)·SE.
	Diff              float64
	CI95Low, CI95High float64
	// SE is the standard error of the difference, √(s²A/nA + s²B/nB).
	SE float64
	// T is Diff / SE (Welch's t statistic of B − A).
	T float64
	// DF is the Welch–Satterthwaite degrees of freedom
	// (s²A/nA + s²B/nB)² / ((s²A/nA)²/(nA−1) + (s²B/nB)²/(nB−1)).
	DF float64
	// P is the two-sided p-value: the probability under equal means of a
	// |t| at least as large, 2·(1 − F(|T|; DF)).
	P float64
}

// WelchTest runs Welch's t test on two samples. It needs at least two values
// in each sample (ok is false otherwise: the variance and so the uncertainty
// are unknown). When both samples have no spread the test degenerates: equal
// means give P = 1, different means P = 0, and the interval is the
// difference itself.
func WelchTest(a, b []float64) (w Welch, ok bool) {
	sa, sb := Summarize(a), Summarize(b)
	w = Welch{NA: sa.N, NB: sb.N, MeanA: sa.Mean, MeanB: sb.Mean, Diff: sb.Mean - sa.Mean}
	w.CI95Low, w.CI95High = w.Diff, w.Diff
	if sa.N < 2 || sb.N < 2 {
		w.T, w.DF, w.P = math.NaN(), math.NaN(), math.NaN()
		return w, false
	}
	va := sa.StdDev * sa.StdDev / float64(sa.N)
	vb := sb.StdDev * sb.StdDev / float64(sb.N)
	w.SE = math.Sqrt(va + vb)
	if w.SE == 0 {
		w.DF = float64(sa.N + sb.N - 2)
		switch {
		case w.Diff == 0:
			w.T, w.P = 0, 1
		default:
			w.T, w.P = math.Copysign(math.Inf(1), w.Diff), 0
		}
		return w, true
	}
	w.T = w.Diff / w.SE
	w.DF = (va + vb) * (va + vb) / (va*va/float64(sa.N-1) + vb*vb/float64(sb.N-1))
	w.P = StudentTTwoSided(w.T, w.DF)
	half := TQuantile(0.975, w.DF) * w.SE
	w.CI95Low, w.CI95High = w.Diff-half, w.Diff+half
	return w, true
}

// StudentTTwoSided is the two-sided tail probability P(|T| ≥ |t|) of
// Student's t distribution with df (> 0, not necessarily integer) degrees of
// freedom, from gonum's Student's t (which evaluates the regularized
// incomplete beta function, P(|T| ≥ |t|) = I_x(df/2, 1/2) with
// x = df / (df + t²)). Arguments out of range give NaN, not a panic.
func StudentTTwoSided(t, df float64) float64 {
	if math.IsNaN(t) || math.IsNaN(df) || df <= 0 {
		return math.NaN()
	}
	if math.IsInf(t, 0) {
		return 0
	}
	return 2 * studentsT(df).Survival(math.Abs(t))
}

// StudentTCDF is the cumulative distribution function F(t) = P(T ≤ t) of
// Student's t with df degrees of freedom (df > 0, real).
func StudentTCDF(t, df float64) float64 {
	if math.IsNaN(t) || math.IsNaN(df) || df <= 0 {
		return math.NaN()
	}
	return studentsT(df).CDF(t)
}

// TQuantile is the p quantile (0 < p < 1) of Student's t with df (> 0, real)
// degrees of freedom: the t with StudentTCDF(t, df) = p. Welch's test needs
// it for the non-integer Welch–Satterthwaite degrees of freedom. Arguments
// out of range give NaN, not a panic.
func TQuantile(p, df float64) float64 {
	if !(p > 0 && p < 1) || !(df > 0) {
		return math.NaN()
	}
	return studentsT(df).Quantile(p)
}

// studentsT is the standard Student's t distribution (location 0, scale 1)
// with df degrees of freedom.
func studentsT(df float64) distuv.StudentsT {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
}
