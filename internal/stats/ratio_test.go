package stats

import (
	"math"
	"math/rand"
	"testing"
)

// TestRatioByHand: a = {90, 100, 110}, b = {180, 200, 220}: ratio 2, each
// mean's relative variance 10²/(3·100²) = 1/300, SE = √(2/300),
// Welch–Satterthwaite DF = 4, t(0.975, 4) = 2.776 (any t table), so the
// interval is 2·exp(∓2.776445·0.0816497) = [1.59433, 2.50890]: a change of
// [+59.4%, +150.9%], not symmetric around +100% as the difference's.
func TestRatioByHand(t *testing.T) {
	r, ok := RatioTest([]float64{90, 100, 110}, []float64{180, 200, 220})
	if !ok {
		t.Fatal("not ok")
	}
	if !near(r.Ratio, 2, 1e-12) || !near(r.SE, math.Sqrt(2.0/300), 1e-12) || !near(r.DF, 4, 1e-9) {
		t.Errorf("ratio %v, SE %v, DF %v; want 2, %v, 4", r.Ratio, r.SE, r.DF, math.Sqrt(2.0/300))
	}
	if !near(r.CI95Low, 1.594326, 1e-5) || !near(r.CI95High, 2.508896, 1e-5) {
		t.Errorf("CI [%v, %v], want [1.594326, 2.508896]", r.CI95Low, r.CI95High)
	}
	if lo, hi := Pct(r.CI95Low), Pct(r.CI95High); !near(lo, 59.43, 0.01) || !near(hi, 150.89, 0.01) {
		t.Errorf("change CI [%.2f%%, %.2f%%], want [+59.43%%, +150.89%%]", lo, hi)
	}
	// T = ln 2 / SE = 8.489 on 4 DF: p ≈ 0.00106
	if !near(r.T, math.Ln2/math.Sqrt(2.0/300), 1e-9) || !(r.P > 0.0009 && r.P < 0.0012) {
		t.Errorf("T %v, P %v; want 8.489, ≈0.00106", r.T, r.P)
	}
}

// TestRatioNeverBelowMinus100: the samples behind rerun's
// "[-120.6%, -31.9%]": A steady at 1,000 ops/s, B's three runs at 59, 237
// and 416. The difference of means over A's mean (Welch) gives exactly
// that interval, whose lower bound is a negative throughput; the log ratio
// gives bounds a throughput can take, and its test agrees with its
// interval (here: no significant difference on three runs that far apart).
func TestRatioNeverBelowMinus100(t *testing.T) {
	d := 443.5 * math.Sqrt(3) / TQuantile(0.975, 2) // B's standard deviation, so that t·SE = 443.5
	a := []float64{1000, 1000, 1000}
	b := []float64{237.5 - d, 237.5, 237.5 + d}
	w, _ := WelchTest(a, b)
	if lo, hi := 100*w.CI95Low/1000, 100*w.CI95High/1000; !near(lo, -120.6, 0.05) || !near(hi, -31.9, 0.05) {
		t.Fatalf("the difference's interval is [%.1f%%, %.1f%%], want the defect's [-120.6%%, -31.9%%]", lo, hi)
	}
	r, ok := RatioTest(a, b)
	if !ok {
		t.Fatal("not ok")
	}
	lo, hi := Pct(r.CI95Low), Pct(r.CI95High)
	if !(lo > -100) || !(lo < Pct(r.Ratio)) || !(hi > Pct(r.Ratio)) {
		t.Errorf("change %.1f%%, CI [%.1f%%, %.1f%%]: a bound at or below -100%% or not around the change", Pct(r.Ratio), lo, hi)
	}
	if (r.P < 0.05) != (r.CI95High < 1 || r.CI95Low > 1) {
		t.Errorf("P %v and CI [%v, %v] disagree", r.P, r.CI95Low, r.CI95High)
	}
}

// TestRatioProperties: over random samples, the bounds are positive and
// around the ratio, the test decides at 5% exactly when the interval leaves
// out 1, and swapping A and B gives the reciprocal interval and the same P.
func TestRatioProperties(t *testing.T) {
	rng := rand.New(rand.NewSource(35))
	for i := 0; i < 5000; i++ {
		a := sample(rng, 2+rng.Intn(6), 100+900*rng.Float64(), 0.01+0.6*rng.Float64())
		b := sample(rng, 2+rng.Intn(6), 100+900*rng.Float64(), 0.01+0.6*rng.Float64())
		r, ok := RatioTest(a, b)
		if !ok {
			continue // a non-positive mean
		}
		if !(r.CI95Low > 0 && r.CI95Low <= r.Ratio && r.Ratio <= r.CI95High) {
			t.Fatalf("a %v b %v: ratio %v CI [%v, %v]", a, b, r.Ratio, r.CI95Low, r.CI95High)
		}
		if excl := r.CI95High < 1 || r.CI95Low > 1; (r.P < 0.05) != excl && math.Abs(r.P-0.05) > 1e-9 {
			t.Fatalf("a %v b %v: P %v but CI [%v, %v]", a, b, r.P, r.CI95Low, r.CI95High)
		}
		s, _ := RatioTest(b, a)
		if !near(s.CI95Low*r.CI95High, 1, 1e-9) || !near(s.CI95High*r.CI95Low, 1, 1e-9) || !near(s.P, r.P, 1e-12) {
			t.Fatalf("swapped: [%v, %v] p %v, want [%v, %v] p %v", s.CI95Low, s.CI95High, s.P, 1/r.CI95High, 1/r.CI95Low, r.P)
		}
	}
}

// TestRatioAgreesWithFieller: with the relative spreads of repeated
// benchmark runs (a few percent) the interval is Fieller's, computed here
// independently, up to the second order of its relative half-width h
// (|difference| ≤ h²·ratio; h is 5-20% here, so the bounds agree within
// 0.3-4% of the ratio).
func TestRatioAgreesWithFieller(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for i := 0; i < 500; i++ {
		a := sample(rng, 3+rng.Intn(5), 1000, 0.03)
		b := sample(rng, 3+rng.Intn(5), 1000*(0.5+rng.Float64()), 0.03)
		r, _ := RatioTest(a, b)
		tq := TQuantile(0.975, r.DF)
		h := tq * r.SE
		lo, hi := fieller(a, b, tq)
		if tol := h * h * r.Ratio; !near(r.CI95Low, lo, tol) || !near(r.CI95High, hi, tol) {
			t.Fatalf("a %v b %v: log ratio [%v, %v], Fieller [%v, %v], tolerance %v", a, b, r.CI95Low, r.CI95High, lo, hi, tol)
		}
	}
}

// TestRatioCoverage: over samples of known means (normal, 5% spread, 3 to
// 5 runs a side), the 95% interval holds the true ratio 95% of the time.
func TestRatioCoverage(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	const trials = 20000
	hits := 0
	for i := 0; i < trials; i++ {
		a := sample(rng, 3+rng.Intn(3), 1000, 0.05)
		b := sample(rng, 3+rng.Intn(3), 700, 0.05)
		if r, _ := RatioTest(a, b); r.CI95Low <= 0.7 && 0.7 <= r.CI95High {
			hits++
		}
	}
	if cov := float64(hits) / trials; cov < 0.94 || cov > 0.96 {
		t.Errorf("coverage %.4f, want 0.95 ± 0.01", cov)
	}
}

// TestRatioDegenerate: fewer than two runs or a mean not above zero give
// no interval; samples without spread give the ratio itself.
func TestRatioDegenerate(t *testing.T) {
	if r, ok := RatioTest([]float64{1}, []float64{2, 3}); ok || r.Ratio != 2.5 || !math.IsNaN(r.CI95Low) {
		t.Errorf("one run: %+v, %v", r, ok)
	}
	if _, ok := RatioTest([]float64{0, 0}, []float64{2, 3}); ok {
		t.Errorf("A's mean 0: ok")
	}
	if r, ok := RatioTest([]float64{1, 2}, []float64{0, 0}); ok || !math.IsNaN(r.Ratio) {
		t.Errorf("B's mean 0: %+v, %v", r, ok)
	}
	if r, ok := RatioTest([]float64{5, 5}, []float64{10, 10}); !ok || r.CI95Low != 2 || r.CI95High != 2 || r.P != 0 {
		t.Errorf("no spread, different: %+v", r)
	}
	if r, ok := RatioTest([]float64{5, 5}, []float64{5, 5}); !ok || r.P != 1 || r.Ratio != 1 {
		t.Errorf("no spread, equal: %+v", r)
	}
}

// sample draws n normal values of the given mean and relative spread.
func sample(rng *rand.Rand, n int, mean, cv float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = mean * (1 + cv*rng.NormFloat64())
	}
	return out
}

// fieller is Fieller's 95% interval of x̄B/x̄A with t given: the ρ where
// (x̄B − ρ·x̄A)² = t²·(vB + ρ²·vA), v = s²/n.
func fieller(a, b []float64, t float64) (float64, float64) {
	sa, sb := Summarize(a), Summarize(b)
	va := sa.StdDev * sa.StdDev / float64(sa.N)
	vb := sb.StdDev * sb.StdDev / float64(sb.N)
	qa := sa.Mean*sa.Mean - t*t*va
	root := t * math.Sqrt(sa.Mean*sa.Mean*vb+sb.Mean*sb.Mean*va-t*t*va*vb)
	return (sa.Mean*sb.Mean - root) / qa, (sa.Mean*sb.Mean + root) / qa
}
