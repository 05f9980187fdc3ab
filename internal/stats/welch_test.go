package stats

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mathext"
)

// TestRegIncBeta checks gonum's regularized incomplete beta function, on
// which StudentTTwoSided rests, against known values (note gonum's argument
// order: a, b, x).
func TestRegIncBeta(t *testing.T) {
	cases := []struct {
		x, a, b, want float64
	}{
		// I_x(1, 1) = x (uniform distribution)
		{0.3, 1, 1, 0.3},
		// I_x(a, 1) = x^a: 0.5³ = 0.125
		{0.5, 3, 1, 0.125},
		// symmetry: I_½(a, a) = ½
		{0.5, 7.5, 7.5, 0.5},
		// integer a, b: I_x(a, b) = P(Binomial(a+b−1, x) ≥ a); by hand for
		// Bin(7, 0.7) ≥ 5: 21·0.7⁵·0.3² + 7·0.7⁶·0.3 + 0.7⁷ = 0.6470695
		{0.7, 5, 3, 0.6470695},
		// I_x(½, ½) = (2/π)·asin(√x): (2/π)·asin(√0.2) = 0.2951672353 (closed form)
		{0.2, 0.5, 0.5, 0.2951672353},
		// mpmath.betainc(2.5, 0.5, 0, 0.3, regularized=True) = 0.01892712407 (30 digits)
		{0.3, 2.5, 0.5, 0.01892712407},
		// the ends
		{0, 2, 3, 0}, {1, 2, 3, 1},
	}
	for _, c := range cases {
		if got := mathext.RegIncBeta(c.a, c.b, c.x); !near(got, c.want, 1e-9) {
			t.Errorf("I_%v(%v, %v) = %.12f, want %.10f", c.x, c.a, c.b, got, c.want)
		}
	}
}

func TestStudentT(t *testing.T) {
	cases := []struct {
		t, df, twoSided float64
	}{
		// df = 1 is Cauchy: P(|T| ≥ t) = 1 − (2/π)·atan(t); t = 1 → 0.5
		{1, 1, 0.5},
		// t = 2: 1 − (2/π)·atan(2) = 0.2951672353
		{2, 1, 0.2951672353},
		// df = 2: P(|T| ≥ t) = 1 − t/√(2+t²); t = 2 → 1 − 2/√6 = 0.1835034191
		{2, 2, 0.1835034191},
		// standard t tables: t(0.975, 10) = 2.228 → two-sided p ≈ 0.05
		{2.228, 10, 0.05},
		// standard t tables: t(0.995, 30) = 2.750 → two-sided p ≈ 0.01
		{2.750, 30, 0.01},
		// non-integer df: mpmath numerical integration of the density,
		// 2·∫₂^∞ f(x; 3.5) dx = 0.126138522576
		{2, 3.5, 0.126138522576},
		// t = 0: the whole distribution
		{0, 5, 1},
	}
	for _, c := range cases {
		tol := 1e-9
		if c.df == 10 || c.df == 30 {
			tol = 2e-4 // the tables' 3 decimals
		}
		if got := StudentTTwoSided(c.t, c.df); !near(got, c.twoSided, tol) {
			t.Errorf("P(|T|≥%v; %v) = %.10f, want %.10f", c.t, c.df, got, c.twoSided)
		}
		if got := StudentTCDF(-c.t, c.df); !near(got, c.twoSided/2, tol) {
			t.Errorf("F(−%v; %v) = %.10f, want %.10f", c.t, c.df, got, c.twoSided/2)
		}
	}
	// non-integer df: t(0.975, 4.5) = 2.6589123, the root of
	// mpmath.betainc(2.25, 0.5, 0, 4.5/(4.5+t²), regularized=True)/2 = 0.025
	// (Welch's degrees of freedom are rarely integers)
	if got := TQuantile(0.975, 4.5); !near(got, 2.6589123, 1e-6) {
		t.Errorf("TQuantile(0.975, 4.5) = %.7f, want 2.6589123", got)
	}
	// standard tables: t(0.995, 5) = 4.032, t(0.95, 20) = 1.725, t(0.025, 8) = −2.306
	for _, c := range [][3]float64{{0.995, 5, 4.032}, {0.95, 20, 1.725}, {0.025, 8, -2.306}} {
		if got := TQuantile(c[0], c[1]); !near(got, c[2], 0.0006) {
			t.Errorf("TQuantile(%v, %v) = %.5f, want %.3f", c[0], c[1], got, c[2])
		}
	}
	if !math.IsNaN(TQuantile(1, 3)) || !math.IsNaN(TQuantile(0.5, 0)) || !math.IsNaN(TQuantile(-0.1, 3)) ||
		!math.IsNaN(StudentTTwoSided(1, 0)) || !math.IsNaN(StudentTCDF(1, -1)) || !math.IsNaN(StudentTTwoSided(math.NaN(), 3)) {
		t.Error("out-of-range arguments must give NaN")
	}
}

func TestWelch(t *testing.T) {
	cases := []struct {
		name              string
		a, b              []float64
		tt, df, p, lo, hi float64
		tolT, tolP, tolCI float64
	}{
		// By hand: means 2 and 5, both variances 1, SE = √(1/3+1/3) = 0.81650;
		// t = 3/0.8165 = 3.67423; df = (2/3)² / (2·(1/3)²/2) = 4;
		// CI = 3 ± t(0.975, 4)·SE = 3 ± 2.776·0.8165 = [0.733, 5.267];
		// p from mpmath integration of the t(4) density: 0.0213116411.
		{"hand", []float64{1, 2, 3}, []float64{4, 5, 6}, 3.674234614, 4, 0.0213116411, 0.733042064, 5.266957936, 1e-8, 1e-9, 1e-7},
		// Wikipedia "Welch's t-test", example 1 (A1 vs A2, 15 values each):
		// published t = −2.46 (A1 − A2), ν = 24.99, p = 0.021; the digits
		// below are the same computation in 30-digit mpmath.
		{"wikipedia example 1",
			[]float64{27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4},
			[]float64{27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4},
			2.455356398, 24.98852929, 0.0213780015, 0.349237066, 3.984096267, 1e-8, 1e-9, 1e-7},
		// Unequal sizes and variances, B slower: mpmath reference values.
		{"unequal", []float64{100, 102, 98, 101}, []float64{90, 95, 85},
			-3.404864674, 2.353300860, 0.0606811079, -21.5065982, 1.0065982, 1e-8, 1e-9, 1e-6},
	}
	for _, c := range cases {
		w, ok := WelchTest(c.a, c.b)
		if !ok {
			t.Fatalf("%s: not ok", c.name)
		}
		if !near(w.T, c.tt, c.tolT) || !near(w.DF, c.df, 1e-7) || !near(w.P, c.p, c.tolP) {
			t.Errorf("%s: t %.9f df %.9f p %.10f; want %.9f %.9f %.10f", c.name, w.T, w.DF, w.P, c.tt, c.df, c.p)
		}
		if !near(w.CI95Low, c.lo, c.tolCI) || !near(w.CI95High, c.hi, c.tolCI) {
			t.Errorf("%s: CI [%.9f, %.9f], want [%.9f, %.9f]", c.name, w.CI95Low, w.CI95High, c.lo, c.hi)
		}
	}
	// single runs: no test
	if _, ok := WelchTest([]float64{1}, []float64{2, 3}); ok {
		t.Error("a single value must not be tested")
	}
	// no spread: equal means are p = 1, different ones p = 0
	if w, ok := WelchTest([]float64{5, 5}, []float64{5, 5, 5}); !ok || w.P != 1 || w.Diff != 0 {
		t.Errorf("identical constant samples: %+v", w)
	}
	if w, ok := WelchTest([]float64{5, 5}, []float64{6, 6}); !ok || w.P != 0 || w.CI95Low != 1 || w.CI95High != 1 {
		t.Errorf("different constant samples: %+v", w)
	}
}
