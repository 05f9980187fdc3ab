package keydist

import (
	"fmt"
	"math"
	"math/rand"
	"testing"
)

// fixedSource feeds chosen uniforms to a *rand.Rand: rand.Float64 returns
// Int63()/2^63, so u[i] comes back exactly as the i-th Float64 (u must be a
// multiple of 2^-63 in [0, 1), which every value used below is).
type fixedSource struct {
	u []float64
	i int
}

func (s *fixedSource) Int63() int64 {
	v := s.u[s.i%len(s.u)]
	s.i++
	return int64(v * (1 << 63))
}

func (s *fixedSource) Seed(int64) {}

func fixedRand(u ...float64) *rand.Rand { return rand.New(&fixedSource{u: u}) }

// TestSysbenchFormulas checks each distribution against its definition in
// sb_rand.c on chosen uniforms, branch by branch.
func TestSysbenchFormulas(t *testing.T) {
	def := NewSysbenchRand(DefaultSysbenchParams())
	pareto := math.Log(0.2) / math.Log(0.8)
	twelve := func(v float64) []float64 { // rnd, then twelve gaussian draws
		u := []float64{v}
		for i := 0; i < 12; i++ {
			u = append(u, 0.5)
		}
		return u
	}
	cases := []struct {
		name string
		draw func(r *rand.Rand) int64
		u    []float64
		want int64
	}{
		// uniform: a + U·(b-a+1): U = 0 gives a, U = 0.5 the middle, U → 1 gives b
		{"uniform U=0", func(r *rand.Rand) int64 { return SysbenchUniform(r, 1, 10000) }, []float64{0}, 1},
		{"uniform U=0.5", func(r *rand.Rand) int64 { return SysbenchUniform(r, 1, 10000) }, []float64{0.5}, 5001},
		{"uniform U→1", func(r *rand.Rand) int64 { return SysbenchUniform(r, 1, 10000) }, []float64{1 - 0x1p-53}, 10000},
		// gaussian: twelve draws of 0.25 average to 0.25 of (b-a+1) = 2500
		{"gaussian", func(r *rand.Rand) int64 { return SysbenchGaussian(r, 1, 10000, 12) }, []float64{0.25}, 2501},
		// special, rnd = 0.2 < 0.25: gaussian branch, twelve 0.5 → a + t/2 = 1 + 4999.5
		{"special gaussian branch", func(r *rand.Rand) int64 { return def.Draw(r, 1, 10000) }, twelve(0.2), 5000},
		// special, rnd = 0.25: res = t exactly, not < t: window branch at its
		// lowest point, 0.25·(d+1) + t/2 - t/200 = 25.2475 + 4999.5 - 49.995
		{"special window low", func(r *rand.Rand) int64 { return def.Draw(r, 1, 10000) }, []float64{0.25}, 1 + 4974},
		// special, rnd → 1: the top of the window, (d+1) + t/2 - t/200 = 5050.495
		{"special window high", func(r *rand.Rand) int64 { return def.Draw(r, 1, 10000) }, []float64{1 - 0x1p-53}, 1 + 5050},
		// special with a single value: t = 0
		{"special a=b", func(r *rand.Rand) int64 { return def.Draw(r, 7, 7) }, []float64{0.9}, 7},
		// special with res = 100: every draw in the window (resMult = +Inf)
		{"special res=100", func(r *rand.Rand) int64 { return SysbenchSpecial(r, 1, 10000, 12, 1, 100) }, []float64{0}, 1 + 4949},
		// special with res = 0: every draw gaussian
		{"special res=0", func(r *rand.Rand) int64 { return SysbenchSpecial(r, 1, 10000, 12, 1, 0) }, twelve(0.99), 5000},
		// pareto: a + (b-a+1)·U^power
		{"pareto U=0.5", func(r *rand.Rand) int64 { return SysbenchPareto(r, 1, 10000, 0.2) }, []float64{0.5}, 1 + int64(10000*math.Pow(0.5, pareto))},
		{"pareto U=0", func(r *rand.Rand) int64 { return SysbenchPareto(r, 1, 10000, 0.2) }, []float64{0}, 1},
		// reversed bounds return a
		{"uniform reversed", func(r *rand.Rand) int64 { return SysbenchUniform(r, 5, 4) }, []float64{0.5}, 5},
	}
	for _, c := range cases {
		if got := c.draw(fixedRand(c.u...)); got != c.want {
			t.Errorf("%s: got %d, want %d", c.name, got, c.want)
		}
	}
}

// TestSysbenchSpecialShares: with the defaults, 75% of draws (plus the
// gaussian draws that happen to fall there) land in the upper three quarters
// of the 1% window at the middle of [1, 10000], i.e. [4975, 5051], and
// almost nothing lands in the window's unused lower quarter.
func TestSysbenchSpecialShares(t *testing.T) {
	const n = 400_000
	s := NewSysbenchRand(DefaultSysbenchParams())
	r := newRand(11)
	var hot, lowQuarter, outside int64
	for i := 0; i < n; i++ {
		v := s.Draw(r, 1, 10000)
		switch {
		case v < 1 || v > 10000:
			outside++
		case v >= 4975 && v <= 5051:
			hot++
		case v >= 4950 && v < 4975:
			lowQuarter++
		}
	}
	if outside > 0 {
		t.Fatalf("%d draws outside [1, 10000]", outside)
	}
	// The gaussian quarter puts density ≈ 1/(σ√(2π)), σ = 9999/12, on each
	// value near the middle: 77 values get ≈ 0.25·77·4.79e-4 ≈ 0.0092.
	checkShare(t, "hot window [4975, 5051]", hot, n, 0.75+0.25*77/(9999.0/12*math.Sqrt(2*math.Pi)))
	checkShare(t, "window's lower quarter [4950, 4974]", lowQuarter, n, 0.25*25/(9999.0/12*math.Sqrt(2*math.Pi)))
}

// TestSysbenchGaussianMoments: mean a + n/2 - 1/2 (truncation) and variance
// n²/(12·iter) + 1/12 (the Irwin–Hall variance plus truncation noise).
func TestSysbenchGaussianMoments(t *testing.T) {
	const draws = 500_000
	const a, b, iter = 1, 1000, 12
	s := NewSysbenchRand(SysbenchParams{Type: SysbenchGaussianType, SpecIter: iter})
	r := newRand(12)
	var sum, sumSq float64
	for i := 0; i < draws; i++ {
		v := s.Draw(r, a, b)
		if v < a || v > b {
			t.Fatalf("draw %d outside [%d, %d]", v, a, b)
		}
		x := float64(v)
		sum += x
		sumSq += x * x
	}
	mean := sum / draws
	variance := sumSq/draws - mean*mean
	n := float64(b - a + 1)
	wantMean := a + n/2 - 0.5
	wantVar := n*n/(12*iter) + 1.0/12
	if sd := math.Sqrt(wantVar / draws); math.Abs(mean-wantMean) > 5*sd {
		t.Errorf("mean %.3f, want %.3f ± %.3f", mean, wantMean, 5*sd)
	}
	// The sample variance of a near-normal variable has relative sd √(2/N).
	if tol := 5 * math.Sqrt(2.0/draws); math.Abs(variance/wantVar-1) > tol {
		t.Errorf("variance %.1f, want %.1f (relative tolerance %.4f)", variance, wantVar, tol)
	}
}

// TestSysbenchParetoConcentration: P(v - a < q·n) = q^(1/power); with
// h = 0.2 that is 0.8 for q = 0.2 (the 80/20 rule).
func TestSysbenchParetoConcentration(t *testing.T) {
	const draws = 200_000
	s := NewSysbenchRand(SysbenchParams{Type: SysbenchParetoType, ParetoH: 0.2})
	power := math.Log(0.2) / math.Log(0.8)
	r := newRand(13)
	const a, b = 1, 100_000
	counts := map[float64]int64{}
	cuts := []float64{0.001, 0.01, 0.2, 0.5}
	for i := 0; i < draws; i++ {
		v := s.Draw(r, a, b)
		if v < a || v > b {
			t.Fatalf("draw %d outside [%d, %d]", v, a, b)
		}
		for _, q := range cuts {
			if float64(v-a) < q*(b-a+1) {
				counts[q]++
			}
		}
	}
	for _, q := range cuts {
		checkShare(t, fmt.Sprintf("pareto below %g of the range", q), counts[q], draws, math.Pow(q, 1/power))
	}
	if p := math.Pow(0.2, 1/power); math.Abs(p-0.8) > 1e-9 {
		t.Errorf("h=0.2: share below 20%% is %v, want 0.8", p)
	}
}

// TestSysbenchUniformFlat: chi-square over 100 values.
func TestSysbenchUniformFlat(t *testing.T) {
	const n = 1_000_000
	s := NewSysbenchRand(SysbenchParams{Type: SysbenchUniformType})
	r := newRand(14)
	counts := make([]int64, 100)
	for i := 0; i < n; i++ {
		v := s.Draw(r, 1, 100)
		if v < 1 || v > 100 {
			t.Fatalf("draw %d outside [1, 100]", v)
		}
		counts[v-1]++
	}
	probs := make([]float64, 100)
	for i := range probs {
		probs[i] = 0.01
	}
	checkChiSquare(t, "sysbench uniform(1, 100)", counts, probs, n)
}

// TestNewSysbenchRandDefaults: the type names round-trip and bad parameters
// are replaced as documented.
func TestNewSysbenchRandDefaults(t *testing.T) {
	for _, name := range SysbenchRandTypes {
		if got := NewSysbenchRand(SysbenchParams{Type: name}).Type(); got != name {
			t.Errorf("Type() = %q, want %q", got, name)
		}
	}
	if got := NewSysbenchRand(SysbenchParams{Type: "zipfian"}).Type(); got != SysbenchUniformType {
		t.Errorf("unknown type gives %q, want uniform", got)
	}
	if d := DefaultSysbenchParams(); d.Type != "special" || d.SpecIter != 12 || d.SpecPct != 1 || d.SpecRes != 75 || d.ParetoH != 0.2 {
		t.Errorf("defaults %+v are not sysbench 1.0.20's", d)
	}
	// iter 0 is read as 1: one uniform draw, so the gaussian is uniform
	if got := SysbenchGaussian(fixedRand(0.5), 1, 100, 0); got != 51 {
		t.Errorf("gaussian iter=0: got %d, want 51", got)
	}
}

func TestSysbenchAllocationFree(t *testing.T) {
	r := newRand(15)
	for _, name := range SysbenchRandTypes {
		s := NewSysbenchRand(SysbenchParams{Type: name, SpecIter: 12, SpecPct: 1, SpecRes: 75, ParetoH: 0.2})
		if a := testing.AllocsPerRun(1000, func() { s.Draw(r, 1, 1_000_000) }); a != 0 {
			t.Errorf("%s: %v allocations per draw", name, a)
		}
	}
	u := NewSysbenchUnique(1, 2)
	if a := testing.AllocsPerRun(1000, func() { u.Next() }); a != 0 {
		t.Errorf("unique: %v allocations per Next", a)
	}
	buf := make([]byte, 0, 200)
	if a := testing.AllocsPerRun(1000, func() { buf = AppendSysbenchString(buf[:0], r, "###-@@@") }); a != 0 {
		t.Errorf("string: %v allocations", a)
	}
}

// TestSysbenchPermute checks reference values of the quadratic-residue map
// and that it is injective on samples from both halves and the fixed top.
func TestSysbenchPermute(t *testing.T) {
	const p = SysbenchUniquePrime
	cases := []struct{ x, want uint32 }{
		{0, 0},                   // 0² = 0
		{2, 4},                   // x ≤ p/2: x²
		{65536, 5},               // 65536² = 2^32 ≡ 5 (mod p)
		{p - 1, p - 1},           // (p-1)² ≡ 1, above p/2: p - 1
		{p - 2, p - 4},           // (p-2)² ≡ 4: p - 4
		{p, p},                   // the five values ≥ p map to themselves
		{0xFFFFFFFF, 0xFFFFFFFF}, // likewise
	}
	for _, c := range cases {
		if got := SysbenchPermute(c.x); got != c.want {
			t.Errorf("permute(%d) = %d, want %d", c.x, got, c.want)
		}
	}
	seen := make(map[uint32]uint32, 3<<16)
	check := func(x uint32) {
		y := SysbenchPermute(x)
		if prev, dup := seen[y]; dup && prev != x {
			t.Fatalf("permute(%d) = permute(%d) = %d", x, prev, y)
		}
		seen[y] = x
	}
	for i := uint32(0); i < 1<<16; i++ {
		check(i)               // bottom
		check(p/2 - 1<<15 + i) // across the p/2 fold
		check(p - 1 - i)       // top of [0, p)
	}
}

// TestSysbenchUniqueDistinct: a million draws from one sequence, spread
// over goroutines, are all different; two sequences seeded alike agree.
func TestSysbenchUniqueDistinct(t *testing.T) {
	u := NewSysbenchUniqueRand(newRand(16))
	const per, workers = 250_000, 4
	out := make([][]uint32, workers)
	done := make(chan int)
	for w := 0; w < workers; w++ {
		go func(w int) {
			vals := make([]uint32, per)
			for i := range vals {
				vals[i] = u.Next()
			}
			out[w] = vals
			done <- w
		}(w)
	}
	for i := 0; i < workers; i++ {
		<-done
	}
	seen := make(map[uint32]bool, per*workers)
	for _, vals := range out {
		for _, v := range vals {
			if seen[v] {
				t.Fatalf("unique() returned %d twice", v)
			}
			seen[v] = true
		}
	}
	a, b := NewSysbenchUnique(123, 456), NewSysbenchUnique(123, 456)
	for i := 0; i < 100; i++ {
		if x, y := a.Next(), b.Next(); x != y {
			t.Fatalf("draw %d: same seed gives %d and %d", i, x, y)
		}
	}
	// The sequence is scrambled, not a counter: consecutive values differ widely.
	c := NewSysbenchUnique(0, 0)
	x, y := c.Next(), c.Next()
	if d := int64(x) - int64(y); d > -1000 && d < 1000 {
		t.Errorf("consecutive unique values %d and %d are close", x, y)
	}
}

// TestAppendSysbenchString: '#' becomes a digit, '@' a letter, the rest is
// copied; every digit value appears about equally often.
func TestAppendSysbenchString(t *testing.T) {
	const tmpl = "###########-@@@-x"
	r := newRand(17)
	counts := make([]int64, 10)
	const rows = 50_000
	for i := 0; i < rows; i++ {
		s := AppendSysbenchString(nil, r, tmpl)
		if len(s) != len(tmpl) {
			t.Fatalf("length %d, want %d", len(s), len(tmpl))
		}
		for j := 0; j < len(tmpl); j++ {
			switch tmpl[j] {
			case '#':
				if s[j] < '0' || s[j] > '9' {
					t.Fatalf("%q: position %d is not a digit", s, j)
				}
				counts[s[j]-'0']++
			case '@':
				if s[j] < 'a' || s[j] > 'z' {
					t.Fatalf("%q: position %d is not a letter", s, j)
				}
			default:
				if s[j] != tmpl[j] {
					t.Fatalf("%q: position %d changed", s, j)
				}
			}
		}
	}
	probs := make([]float64, 10)
	for i := range probs {
		probs[i] = 0.1
	}
	checkChiSquare(t, "digits", counts, probs, rows*11)
}
