package stats

import (
	"math"
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
// freedom. It uses the identity
//
//	P(|T| ≥ |t|) = I_x(df/2, 1/2) with x = df / (df + t²),
//
// where I is the regularized incomplete beta function.
func StudentTTwoSided(t, df float64) float64 {
	if math.IsNaN(t) || math.IsNaN(df) || df <= 0 {
		return math.NaN()
	}
	if math.IsInf(t, 0) {
		return 0
	}
	return RegIncBeta(df/(df+t*t), df/2, 0.5)
}

// StudentTCDF is the cumulative distribution function F(t) = P(T ≤ t) of
// Student's t with df degrees of freedom (df > 0, real).
func StudentTCDF(t, df float64) float64 {
	p := StudentTTwoSided(t, df) / 2 // one tail
	if t < 0 {
		return p
	}
	return 1 - p
}

// TQuantile is the p quantile (0 < p < 1) of Student's t with df (> 0, real)
// degrees of freedom: the t with StudentTCDF(t, df) = p, found by bisection
// on the CDF to a relative precision of about 1e-12. Welch's test needs it
// for the non-integer Welch–Satterthwaite degrees of freedom, which the
// table of TQuantile975 does not cover.
func TQuantile(p, df float64) float64 {
	if !(p > 0 && p < 1) || !(df > 0) {
		return math.NaN()
	}
	if p == 0.5 {
		return 0
	}
	if p < 0.5 {
		return -TQuantile(1-p, df)
	}
	// Bracket the quantile: the CDF is increasing, F(0) = 0.5 < p.
	lo, hi := 0.0, 1.0
	for StudentTCDF(hi, df) < p {
		lo, hi = hi, hi*2
		if hi > 1e300 {
			return math.Inf(1)
		}
	}
	for i := 0; i < 200 && hi-lo > 1e-12*hi; i++ {
		mid := (lo + hi) / 2
		if StudentTCDF(mid, df) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// RegIncBeta is the regularized incomplete beta function
//
//	I_x(a, b) = B(x; a, b) / B(a, b),  B(x; a, b) = ∫₀ˣ u^(a−1) (1−u)^(b−1) du,
//
// for 0 ≤ x ≤ 1 and a, b > 0. It evaluates the classical continued fraction
//
//	I_x(a, b) = x^a (1−x)^b / (a B(a, b)) · 1/(1+ d₁/(1+ d₂/(1+ …)))
//	d₂ₘ₊₁ = −(a+m)(a+b+m) x / ((a+2m)(a+2m+1))
//	d₂ₘ   = m (b−m) x / ((a+2m−1)(a+2m))
//
// with the modified Lentz algorithm. The fraction converges quickly for
// x < (a+1)/(a+b+2); above that the symmetry I_x(a, b) = 1 − I_{1−x}(b, a)
// is used. B(a, b) comes from math.Lgamma. Accuracy is about 1e-14
// relative for the arguments a t test produces.
func RegIncBeta(x, a, b float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsNaN(a) || math.IsNaN(b) || a <= 0 || b <= 0 || x < 0 || x > 1:
		return math.NaN()
	case x == 0:
		return 0
	case x == 1:
		return 1
	}
	if x > (a+1)/(a+b+2) {
		return 1 - RegIncBeta(1-x, b, a)
	}
	lga, _ := math.Lgamma(a)
	lgb, _ := math.Lgamma(b)
	lgab, _ := math.Lgamma(a + b)
	// log of x^a (1−x)^b / B(a, b)
	front := math.Exp(a*math.Log(x) + b*math.Log1p(-x) - (lga + lgb - lgab))
	return front * betaFraction(x, a, b) / a
}

// betaFraction evaluates 1/(1+ d₁/(1+ d₂/(1+ …))) (see RegIncBeta) by the
// modified Lentz method: f = C·D products of successive convergent ratios,
// with tiny values substituted for zeros so no division by zero occurs.
func betaFraction(x, a, b float64) float64 {
	const (
		tiny = 1e-300
		eps  = 1e-15
	)
	// The fraction is 1/(1 + d1/(1 + d2/(1 + ...))): start Lentz on the
	// denominator 1 + d1/(1 + ...) and invert at the end.
	f := 1.0
	c := 1.0
	d := 0.0
	for n := 1; n <= 10000; n++ {
		m := float64(n / 2)
		var dn float64
		if n%2 == 1 {
			dn = -(a + m) * (a + b + m) * x / ((a + 2*m) * (a + 2*m + 1))
		} else {
			dn = m * (b - m) * x / ((a + 2*m - 1) * (a + 2*m))
		}
		d = 1 + dn*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + dn/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		delta := c * d
		f *= delta
		if math.Abs(delta-1) < eps {
			break
		}
	}
	return 1 / f
}
