package keydist

import (
	"math"
	"math/rand"
	"testing"
)

// Statistical helpers shared by the distribution tests.
//
// Every test uses a fixed seed, so it is deterministic; the tolerances are
// still chosen so that a correct implementation would pass for almost any
// seed: proportions within 5 standard deviations of a binomial (p ≈ 6e-7 of a
// false failure per check), chi-square below the quantile at z = 4.5 of its
// Wilson-Hilferty normal approximation (p ≈ 3e-6). A wrong parameter (theta,
// eta, a hot set off by one fraction) moves the statistic by far more.

// newRand returns the deterministic source a test draws from.
func newRand(seed int64) *rand.Rand { return rand.New(rand.NewSource(seed)) }

// binomialTol is 5 standard deviations of a proportion p estimated from n
// draws.
func binomialTol(p float64, n int) float64 {
	return 5 * math.Sqrt(p*(1-p)/float64(n))
}

// checkShare fails the test if got/n is not within 5 standard deviations of p.
func checkShare(t *testing.T, what string, got int64, n int, p float64) {
	t.Helper()
	share := float64(got) / float64(n)
	if tol := binomialTol(p, n); math.Abs(share-p) > tol {
		t.Errorf("%s: share %.6f, want %.6f ± %.6f", what, share, p, tol)
	}
}

// chiSquare returns Pearson's statistic of counts against probabilities
// (n draws in total) and its degrees of freedom. Cells with an expected count
// below 5 are pooled into one so the chi-square approximation holds; a count
// in a cell of probability 0 makes the statistic infinite.
func chiSquare(counts []int64, probs []float64, n int) (stat float64, df int) {
	var poolObs, poolExp float64
	cells := 0
	for i, p := range probs {
		exp := p * float64(n)
		obs := float64(counts[i])
		if exp < 5 {
			poolObs += obs
			poolExp += exp
			continue
		}
		stat += (obs - exp) * (obs - exp) / exp
		cells++
	}
	if poolExp > 0 {
		stat += (poolObs - poolExp) * (poolObs - poolExp) / poolExp
		cells++
	} else if poolObs > 0 {
		return math.Inf(1), cells
	}
	return stat, cells - 1
}

// chiCrit is the chi-square quantile for df degrees of freedom at z = 4.5
// standard normal deviations (upper tail ≈ 3.4e-6), by the Wilson-Hilferty
// cube approximation, accurate to well under 1% for df >= 10.
func chiCrit(df int) float64 {
	k := float64(df)
	c := 1 - 2/(9*k) + 4.5*math.Sqrt(2/(9*k))
	return k * c * c * c
}

// checkChiSquare fails the test if counts do not fit probs.
func checkChiSquare(t *testing.T, what string, counts []int64, probs []float64, n int) {
	t.Helper()
	stat, df := chiSquare(counts, probs, n)
	t.Logf("%s: chi-square %.1f df %d crit %.1f", what, stat, df, chiCrit(df))
	if crit := chiCrit(df); !(stat < crit) {
		t.Errorf("%s: chi-square %.1f with %d df, want < %.1f", what, stat, df, crit)
	}
}

// gray describes one draw of Gray's algorithm: the values zetan, eta and the
// item count the draw uses. Its cells are derived independently of the code
// under test, by inverting the algorithm's third branch.
type gray struct {
	n     int64
	theta float64
	zetan float64
	eta   float64
}

// grayEta is Gray's eta for a Zipfian built with items items, whose zeta is
// now zetan.
func grayEta(items int64, theta, zetan float64) float64 {
	return (1 - math.Pow(2/float64(items), 1-theta)) / (1 - (1+math.Pow(2, -theta))/zetan)
}

// cells returns the probability of each offset 0..m-1 from the minimum.
//
// With u uniform on [0, 1): offset 0 if u < 1/zetan, offset 1 if
// u < (1+0.5^theta)/zetan, else floor(g(u)) with
// g(u) = n (eta u - eta + 1)^(1/(1-theta)), increasing in u, so offset k has
// probability |[max(u2, g⁻¹(k)), min(1, g⁻¹(k+1)))| with
// g⁻¹(y) = 1 - (1 - (y/n)^(1-theta))/eta.
func (g gray) cells(m int64) []float64 {
	u2 := (1 + math.Pow(0.5, g.theta)) / g.zetan
	inv := func(y float64) float64 {
		return 1 - (1-math.Pow(y/float64(g.n), 1-g.theta))/g.eta
	}
	p := make([]float64, m)
	for k := int64(0); k < m; k++ {
		lo := math.Max(u2, inv(float64(k)))
		hi := math.Min(1, inv(float64(k+1)))
		if hi > lo {
			p[k] = hi - lo
		}
	}
	p[0] += math.Min(1, 1/g.zetan)
	if m > 1 {
		p[1] += math.Max(0, math.Min(1, u2)-1/g.zetan)
	}
	return p
}
