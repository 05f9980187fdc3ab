package keydist

import (
	"errors"
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

func TestFNVHash64YCSBKeys(t *testing.T) {
	// Keys "user"+FNVHash64(keynum) as YCSB 0.17.0 builds them with
	// insertorder=hashed, zeropadding=1: the Java method compiled verbatim
	// (spec 1.3). go-ycsb's big-endian hash matches only keynum 0.
	cases := []struct {
		keynum int64
		key    string
	}{
		{0, "user6284781860667377211"},      // all-zero bytes: the one key go-ycsb shares
		{1, "user8517097267634966620"},      // LSB first: the 1 is hashed first, not last
		{2, "user1820151046732198393"},      // hash has the top bit set: Math.abs applied
		{3, "user4052466453699787802"},      // top bit clear: unchanged
		{4, "user3232700585171816769"},      // another small keynum
		{999, "user2071219101098386137"},    // two non-zero bytes (0xe7, 0x03)
		{999999, "user2744965632448235251"}, // three non-zero bytes
	}
	for _, c := range cases {
		if got := "user" + strconv.FormatInt(FNVHash64(c.keynum), 10); got != c.key {
			t.Errorf("key(%d) = %s, want %s", c.keynum, got, c.key)
		}
	}
}

func TestFNVHash64NonNegative(t *testing.T) {
	// Math.abs makes every hash non-negative except math.MinInt64, which no
	// small input produces; negative inputs hash their two's-complement bytes.
	for v := int64(-1000); v < 100000; v++ {
		if h := FNVHash64(v); h < 0 {
			t.Fatalf("FNVHash64(%d) = %d, want >= 0", v, h)
		}
	}
}

func TestJavaLong(t *testing.T) {
	cases := []struct {
		in   float64
		want int64
	}{
		{math.NaN(), 0},                             // NaN casts to 0 (a Zipfian's NaN eta)
		{math.Inf(1), math.MaxInt64},                // -ln(0)/gamma saturates
		{math.Inf(-1), math.MinInt64},               // saturates low
		{1e19, math.MaxInt64},                       // finite but beyond int64
		{-1e19, math.MinInt64},                      // finite but below int64
		{0x1p63, math.MaxInt64},                     // exactly 2^63 is out of range
		{-0x1p63, math.MinInt64},                    // exactly -2^63 is in range
		{2.9, 2},                                    // truncates toward zero
		{-2.9, -2},                                  // truncates toward zero
		{1e10 + 0.5, 10000000000},                   // large in-range value
		{0x1p62, 4611686018427387904},               // exact power of two
		{-0.0, 0},                                   // negative zero
		{math.SmallestNonzeroFloat64, 0},            // tiny
		{9.223372036854775e18, 9223372036854774784}, // a double just below 2^63
	}
	for _, c := range cases {
		if got := javaLong(c.in); got != c.want {
			t.Errorf("javaLong(%v) = %d, want %d", c.in, got, c.want)
		}
	}
}

func TestJavaInt(t *testing.T) {
	cases := []struct {
		in   float64
		want int64
	}{
		{math.NaN(), 0},                // NaN casts to 0
		{2e10, math.MaxInt32},          // a hot set of 2e10 keys saturates
		{-2e10, math.MinInt32},         // saturates low
		{200.9, 200},                   // truncates
		{math.MaxInt32, math.MaxInt32}, // boundary in range
	}
	for _, c := range cases {
		if got := javaInt(c.in); got != c.want {
			t.Errorf("javaInt(%v) = %d, want %d", c.in, got, c.want)
		}
	}
}

func TestZeta(t *testing.T) {
	cases := []struct {
		n     int64
		theta float64
		want  float64
	}{
		{0, 0.99, 0},                      // empty sum
		{-5, 0.99, 0},                     // no items
		{1, 0.99, 1},                      // 1/1^theta
		{2, 0.99, 1 + math.Pow(2, -0.99)}, // zeta2theta
		{1000, 0, 1000},                   // theta 0: uniform, every term 1
		{4, 1, 1 + 0.5 + 1.0/3 + 0.25},    // harmonic number H_4
	}
	for _, c := range cases {
		if got := Zeta(c.n, c.theta); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("Zeta(%d, %v) = %v, want %v", c.n, c.theta, got, c.want)
		}
	}
}

func TestScrambledZipfianZetanIsZeta1e10(t *testing.T) {
	// YCSB's ZETAN constant is zeta(1e10, 0.99). Check it without summing
	// 1e10 terms: sum the first 1e6 exactly and the rest by Euler-Maclaurin
	// (integral, end-point and first derivative terms; the next term is below
	// 1e-20). A typo in any of the constant's digits past the 9th shows.
	const theta, m, n = 0.99, 1e6, 1e10
	f := func(x float64) float64 { return math.Pow(x, -theta) }
	df := func(x float64) float64 { return -theta * math.Pow(x, -theta-1) }
	head := Zeta(m, theta)
	tail := (math.Pow(n, 1-theta)-math.Pow(m, 1-theta))/(1-theta) + (f(n)-f(m))/2 + (df(n)-df(m))/12
	if got := head + tail; math.Abs(got/ScrambledZipfianZetan-1) > 1e-9 {
		t.Errorf("zeta(1e10, 0.99) ≈ %.15g, constant is %.15g", got, ScrambledZipfianZetan)
	}
}

func TestAllocationFree(t *testing.T) {
	// Draws are on the per-operation hot path: none may allocate.
	counter := NewAcknowledgedCounter(1000)
	gens := map[string]Long{
		"uniform":      NewUniform(0, 999),
		"sequential":   NewSequential(0, 999),
		"constant":     NewConstant(7),
		"zipfian":      NewZipfianItems(1000),
		"scrambled":    NewScrambledZipfian(0, 999),
		"latest":       NewSkewedLatest(counter),
		"hotspot":      NewHotspot(0, 999, 0.2, 0.8),
		"exponential":  NewExponential(95, 857),
		"counter":      NewCounter(0),
		"acknowledged": counter,
	}
	r := newRand(1)
	for name, g := range gens {
		if a := testing.AllocsPerRun(1000, func() { g.Next(r) }); a != 0 {
			t.Errorf("%s: %v allocations per Next, want 0", name, a)
		}
	}
	d := NewDiscrete([]float64{0.5, 0.5})
	if a := testing.AllocsPerRun(1000, func() { d.NextIndex(r) }); a != 0 {
		t.Errorf("discrete: %v allocations per NextIndex, want 0", a)
	}
}

func TestDrawMatchesNext(t *testing.T) {
	// Draw returns what Next returns from the same random state, consuming
	// the same random numbers, and leaves Last alone.
	cases := []struct {
		name string
		make func() Long
	}{
		{"uniform", func() Long { return NewUniform(-5, 1000) }},            // Int63n path
		{"constant", func() Long { return NewConstant(3) }},                 // ignores r
		{"zipfian", func() Long { return NewZipfianItems(500) }},            // all three branches
		{"scrambled", func() Long { return NewScrambledZipfian(10, 99) }},   // hashed buckets
		{"latest", func() Long { return NewSkewedLatest(NewCounter(300)) }}, // basis 299
		{"hotspot", func() Long { return NewHotspot(0, 99, 0.2, 0.8) }},     // Float64 then Int63n
		{"exponential", func() Long { return NewExponential(95, 100) }},     // one Float64
	}
	for _, c := range cases {
		byNext, byDraw := c.make(), c.make()
		d, ok := byDraw.(Drawer)
		if !ok {
			t.Errorf("%s: not a Drawer", c.name)
			continue
		}
		before := byDraw.Last()
		rn, rd := newRand(20), newRand(20)
		for i := 0; i < 2000; i++ {
			if vn, vd := byNext.Next(rn), d.Draw(rd); vn != vd {
				t.Fatalf("%s: draw %d: Next %d, Draw %d", c.name, i, vn, vd)
			}
		}
		if byDraw.Last() != before {
			t.Errorf("%s: Draw changed Last from %d to %d", c.name, before, byDraw.Last())
		}
	}
}

func TestUniform(t *testing.T) {
	// 100 values from -50 to 49: every draw in range and the counts flat.
	const lb, ub, n = -50, 49, 1_000_000
	g := NewUniform(lb, ub)
	r := newRand(2)
	counts := make([]int64, ub-lb+1)
	for i := 0; i < n; i++ {
		v := g.Next(r)
		if v < lb || v > ub {
			t.Fatalf("draw %d out of [%d, %d]", v, lb, ub)
		}
		if g.Last() != v {
			t.Fatalf("Last() = %d after drawing %d", g.Last(), v)
		}
		counts[v-lb]++
	}
	probs := make([]float64, len(counts))
	for i := range probs {
		probs[i] = 1.0 / float64(len(probs))
	}
	checkChiSquare(t, "uniform(-50, 49)", counts, probs, n)
}

func TestUniformEdges(t *testing.T) {
	r := newRand(3)
	cases := []struct {
		name   string
		lb, ub int64
		check  func(v int64) bool
	}{
		// a single value
		{"single", 7, 7, func(v int64) bool { return v == 7 }},
		// reversed bounds: documented to return lb, where Java would fail
		{"reversed", 10, 5, func(v int64) bool { return v == 10 }},
		// the whole int64 range: the interval overflows to 2^64
		{"full", math.MinInt64, math.MaxInt64, func(int64) bool { return true }},
		// an interval above 2^63 (rejection sampling path)
		{"huge", -1, math.MaxInt64, func(v int64) bool { return v >= -1 }},
	}
	for _, c := range cases {
		g := NewUniform(c.lb, c.ub)
		for i := 0; i < 1000; i++ {
			if v := g.Next(r); !c.check(v) {
				t.Fatalf("%s: draw %d", c.name, v)
			}
		}
	}
}

func TestConstant(t *testing.T) {
	// Next ignores r (nil is fine) and always returns v.
	g := NewConstant(42)
	if g.Next(nil) != 42 || g.Last() != 42 {
		t.Errorf("constant: Next %d Last %d, want 42", g.Next(nil), g.Last())
	}
}

func TestSequentialWraps(t *testing.T) {
	s := NewSequential(5, 7)
	if got := s.Last(); got != 4 {
		t.Errorf("Last before Next = %d, want lb-1 = 4", got)
	}
	want := []int64{5, 6, 7, 5, 6, 7, 5} // wraps to lb after ub
	for i, w := range want {
		if got := s.Next(nil); got != w {
			t.Fatalf("draw %d = %d, want %d", i, got, w)
		}
		if got := s.Last(); got != w {
			t.Fatalf("Last after draw %d = %d, want %d", i, got, w)
		}
	}
	// Reversed bounds: documented to return lb forever.
	if r := NewSequential(9, 3); r.Next(nil) != 9 || r.Next(nil) != 9 {
		t.Error("reversed bounds: want lb on every draw")
	}
}

func TestSequentialShared(t *testing.T) {
	// 8 goroutines share one generator, as YCSB's threads do: together they
	// hand out each of 100 values exactly 8*3000/100 times.
	const workers, per, lb, ub = 8, 3000, 100, 199
	s := NewSequential(lb, ub)
	counts := make([][]int64, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		counts[w] = make([]int64, ub-lb+1)
		wg.Add(1)
		go func(c []int64) {
			defer wg.Done()
			for i := 0; i < per; i++ {
				c[s.Next(nil)-lb]++
			}
		}(counts[w])
	}
	wg.Wait()
	for v := 0; v <= ub-lb; v++ {
		var total int64
		for w := range counts {
			total += counts[w][v]
		}
		if total != workers*per/(ub-lb+1) {
			t.Errorf("value %d handed out %d times, want %d", v+lb, total, workers*per/(ub-lb+1))
		}
	}
}

func TestCounter(t *testing.T) {
	c := NewCounter(10)
	if c.Last() != 9 {
		t.Errorf("Last before Next = %d, want start-1 = 9", c.Last())
	}
	for _, w := range []int64{10, 11, 12} {
		if got := c.Next(nil); got != w || c.Last() != w {
			t.Fatalf("Next = %d, Last = %d, want %d", got, c.Last(), w)
		}
	}
}

func TestCounterShared(t *testing.T) {
	// Concurrent Next calls hand out every value exactly once.
	const workers, per = 16, 1000
	c := NewCounter(0)
	seen := make([]int32, workers*per)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < per; i++ {
				v := c.Next(nil)
				if v < 0 || v >= int64(len(seen)) {
					t.Errorf("value %d out of range", v)
					return
				}
				seen[v]++ // distinct indices: no race unless a value repeats
			}
		}()
	}
	wg.Wait()
	for v, n := range seen {
		if n != 1 {
			t.Fatalf("value %d handed out %d times", v, n)
		}
	}
	if c.Last() != workers*per-1 {
		t.Errorf("Last = %d, want %d", c.Last(), workers*per-1)
	}
}

func TestDiscreteProportions(t *testing.T) {
	// A CoreWorkload-like mix (read, update, insert with weight 0, scan):
	// each index drawn in proportion to its weight over the sum (1.25), the
	// zero weight never.
	weights := []float64{0.6, 0.25, 0, 0.4}
	const n = 1_000_000
	d := NewDiscrete(weights)
	if d.Err() != nil {
		t.Fatal(d.Err())
	}
	r := newRand(4)
	counts := make([]int64, len(weights))
	for i := 0; i < n; i++ {
		counts[d.NextIndex(r)]++
	}
	if counts[2] != 0 {
		t.Errorf("index with weight 0 drawn %d times", counts[2])
	}
	for i, w := range weights {
		checkShare(t, "index "+strconv.Itoa(i), counts[i], n, w/1.25)
	}
}

func TestDiscreteInvalid(t *testing.T) {
	cases := []struct {
		name    string
		weights []float64
	}{
		{"empty", nil},                                                 // nothing to choose
		{"all zero", []float64{0, 0}},                                  // sum 0
		{"negative", []float64{0.5, -0.1}},                             // a negative weight
		{"NaN", []float64{math.NaN(), 1}},                              // not a number
		{"infinite", []float64{math.Inf(1), 1}},                        // infinite weight
		{"sum overflows", []float64{math.MaxFloat64, math.MaxFloat64}}, // finite weights, infinite sum
	}
	r := newRand(5)
	for _, c := range cases {
		d := NewDiscrete(c.weights)
		if d.Err() == nil {
			t.Errorf("%s: Err() = nil, want an error", c.name)
		}
		if got := d.NextIndex(r); got != -1 {
			t.Errorf("%s: NextIndex = %d, want -1", c.name, got)
		}
	}
	// A single positive weight is always chosen.
	if got := NewDiscrete([]float64{0, 3}).NextIndex(r); got != 1 {
		t.Errorf("single positive weight: NextIndex = %d, want 1", got)
	}
}

func TestHotspot(t *testing.T) {
	// YCSB defaults: 20% of 1000 keys hot, 80% of operations on them; the
	// hot set is [0, 200) and each set is uniform inside.
	const lb, ub, n = 0, 999, 1_000_000
	g := NewHotspot(lb, ub, 0.2, 0.8)
	r := newRand(6)
	counts := make([]int64, ub-lb+1)
	var hot int64
	for i := 0; i < n; i++ {
		v := g.Next(r)
		if v < lb || v > ub {
			t.Fatalf("draw %d out of [%d, %d]", v, lb, ub)
		}
		counts[v-lb]++
		if v < 200 {
			hot++
		}
	}
	checkShare(t, "hot set", hot, n, 0.8)
	flat := func(k int) []float64 {
		p := make([]float64, k)
		for i := range p {
			p[i] = 1 / float64(k)
		}
		return p
	}
	checkChiSquare(t, "inside hot set", counts[:200], flat(200), int(hot))
	checkChiSquare(t, "inside cold set", counts[200:], flat(800), n-int(hot))
}

func TestHotspotEdges(t *testing.T) {
	r := newRand(7)
	cases := []struct {
		name           string
		lb, ub         int64
		hotSet, hotOpn float64
		min, max       int64 // every draw must fall in [min, max]
	}{
		// an empty hot set: YCSB divides by zero, we draw cold
		{"no hot set", 0, 99, 0, 0.9, 0, 99},
		// a hot fraction out of range is replaced by 0, as in YCSB
		{"hot fraction > 1", 0, 99, 1.5, 0.9, 0, 99},
		// everything hot, every operation hot: empty cold set never drawn
		{"all hot", 0, 99, 1, 1, 0, 99},
		// all operations cold
		{"all cold", 0, 99, 0.5, 0, 50, 99},
		// reversed bounds are swapped, as in YCSB
		{"reversed", 99, 0, 0.1, 1, 0, 9},
		// Java's (int) cast caps the hot set at 2^31-1 keys
		{"int cast", 0, 1e10, 0.5, 1, 0, math.MaxInt32 - 1},
	}
	for _, c := range cases {
		g := NewHotspot(c.lb, c.ub, c.hotSet, c.hotOpn)
		for i := 0; i < 10000; i++ {
			if v := g.Next(r); v < c.min || v > c.max {
				t.Fatalf("%s: draw %d out of [%d, %d]", c.name, v, c.min, c.max)
			}
		}
	}
}

func TestExponential(t *testing.T) {
	// percentile 95 of draws below range 1000: P(X < x) = 1 - exp(-gamma x)
	// with gamma = -ln(0.05)/1000, since X = floor(-ln U / gamma).
	const n = 1_000_000
	g := NewExponential(95, 1000)
	gamma := -math.Log(0.05) / 1000
	r := newRand(8)
	var below1000, below200 int64
	for i := 0; i < n; i++ {
		v := g.Next(r)
		if v < 0 {
			t.Fatalf("negative draw %d", v)
		}
		if v < 1000 {
			below1000++
		}
		if v < 200 {
			below200++
		}
	}
	checkShare(t, "P(X < range)", below1000, n, 0.95)
	checkShare(t, "P(X < 200)", below200, n, 1-math.Exp(-gamma*200))
}

func TestZipfianFrequencies(t *testing.T) {
	// Zipfian(0, 999, 0.99), 1e6 draws.
	const items, n = 1000, 1_000_000
	z := NewZipfian(0, items-1, ZipfianConstant)
	r := newRand(9)
	counts := make([]int64, items)
	for i := 0; i < n; i++ {
		v := z.Next(r)
		if v < 0 || v >= items {
			t.Fatalf("draw %d out of [0, %d]", v, items-1)
		}
		counts[v]++
	}
	zetan := Zeta(items, ZipfianConstant)

	// The first two items are exact Zipf: 1/zetan and 0.5^0.99/zetan.
	checkShare(t, "item 0", counts[0], n, 1/zetan)
	checkShare(t, "item 1", counts[1], n, math.Pow(0.5, 0.99)/zetan)

	// Every item against the probabilities Gray's algorithm gives it
	// (derived by inverting the third branch, see gray.cells).
	model := gray{n: items, theta: ZipfianConstant, zetan: zetan, eta: grayEta(items, ZipfianConstant, zetan)}
	checkChiSquare(t, "Gray cells", counts, model.cells(items), n)

	// Against the ideal Zipf 1/(k+1)^0.99/zetan: Gray's closed form is an
	// approximation, 17% high at item 2, within 1.2% for items 10..20 (0.2%
	// pooled) and 3.5% low in the tail (computed from gray.cells for
	// n = 1000). So the pooled share of items 10..20 (ideal 0.0952, 5 sd of
	// sampling = 1.5% relative) must be within 2% of the ideal.
	var pooled int64
	ideal := 0.0
	for k := 10; k <= 20; k++ {
		pooled += counts[k]
		ideal += 1 / math.Pow(float64(k+1), 0.99) / zetan
	}
	if got := float64(pooled) / n; math.Abs(got/ideal-1) > 0.02 {
		t.Errorf("items 10..20: share %.5f, ideal Zipf %.5f (more than 2%% off)", got, ideal)
	}
	// Least squares slope of log(count) over log(k+1), k in 10..999,
	// pooled in groups 25% wide so counts are large.
	var sx, sy, sxx, sxy, m float64
	for lo := 10; lo < items; lo += lo / 4 {
		hi := min(lo+lo/4, items)
		var c int64
		for k := lo; k < hi; k++ {
			c += counts[k]
		}
		mid := math.Log(float64(lo+hi+1) / 2)
		y := math.Log(float64(c) / float64(hi-lo))
		sx, sy, sxx, sxy, m = sx+mid, sy+y, sxx+mid*mid, sxy+mid*y, m+1
	}
	// Gray's cells fall from 1.01 to 0.965 of the ideal between items 10
	// and 999, steepening the slope by about 0.01; ±0.05 allows that and
	// sampling noise but not a theta of 0.9 or 1.1.
	if slope := (m*sxy - sx*sy) / (m*sxx - sx*sx); math.Abs(slope+0.99) > 0.05 {
		t.Errorf("log-log slope %.3f, want -0.99 ± 0.05", slope)
	}
}

func TestZipfianOffsetAndLast(t *testing.T) {
	// Bounds are inclusive and min is the most popular value; Last follows
	// YCSB: set only by third-branch draws (values other than min, min+1).
	z := NewZipfian(500, 509, ZipfianConstant)
	if z.Last() != 500 {
		t.Errorf("Last before any draw = %d, want min", z.Last())
	}
	r := newRand(10)
	counts := make(map[int64]int)
	prevLast := z.Last()
	for i := 0; i < 10000; i++ {
		v := z.Next(r)
		if v < 500 || v > 509 {
			t.Fatalf("draw %d out of [500, 509]", v)
		}
		counts[v]++
		switch l := z.Last(); {
		case v >= 502 && l != v:
			t.Fatalf("third-branch draw %d left Last at %d", v, l)
		case v < 502 && l != prevLast:
			t.Fatalf("draw %d changed Last from %d to %d", v, prevLast, l)
		}
		prevLast = z.Last()
	}
	for v := int64(501); v <= 509; v++ {
		if counts[v] > counts[500] {
			t.Errorf("value %d drawn %d times, more than min (%d)", v, counts[v], counts[500])
		}
	}
}

func TestZipfianIncrementalZeta(t *testing.T) {
	// Growing by NextLong extends zeta term by term in the same order as a
	// fresh sum, so the result is bit-identical; eta keeps the constructor's
	// items (YCSB's behaviour) and a smaller count never shrinks zeta.
	z := NewZipfianItems(1000)
	r := newRand(11)
	for _, n := range []int64{1001, 1500, 1200, 4000} {
		z.NextLong(r, n)
	}
	s := z.state.Load()
	if s.countForZeta != 4000 {
		t.Fatalf("countForZeta = %d, want 4000", s.countForZeta)
	}
	if want := Zeta(4000, ZipfianConstant); s.zetan != want {
		t.Errorf("extended zetan = %.17g, fresh Zeta(4000) = %.17g", s.zetan, want)
	}
	if want := grayEta(1000, ZipfianConstant, s.zetan); math.Abs(s.eta/want-1) > 1e-12 {
		t.Errorf("eta = %.17g, want %.17g (constructor's items, grown zetan)", s.eta, want)
	}
}

func TestZipfianDegenerate(t *testing.T) {
	// YCSB's ZipfianGenerator(0) (SkewedLatest over an empty table) has
	// zetan 0 and a NaN eta; draws must not panic and stay at 0 or 1 until
	// growth, where Java's cast of NaN gives offset 0.
	z := NewZipfianItems(0)
	r := newRand(12)
	for i := 0; i < 1000; i++ {
		if v := z.Next(r); v != 0 {
			t.Fatalf("Zipfian(0 items) drew %d, want 0", v)
		}
	}
	for i := 0; i < 1000; i++ {
		if v := z.NextLong(r, 5); v < 0 || v > 1 {
			t.Fatalf("Zipfian(0 items).NextLong(5) drew %d, want 0 or 1 (NaN eta)", v)
		}
	}
}

func TestScrambledZipfian(t *testing.T) {
	// ScrambledZipfian(1000, 1999): 1000 buckets fed by an inner Zipfian over
	// 0..1e10 with zetan = ZETAN. Expected share of bucket b is the mass of
	// the inner items i with FNVHash64(i) % 1000 == b: exact cells for the
	// 1e5 most popular items, and the remaining mass (about 45%) spread
	// evenly. The spread's error per bucket (sd ≈ 4e-6, from the sum of the
	// squared tail probabilities) is a tenth of the sampling error (3e-5).
	const lo, hi, n, head = 1000, 1999, 1_000_000, 100_000
	const buckets = hi - lo + 1
	s := NewScrambledZipfian(lo, hi)
	r := newRand(13)
	counts := make([]int64, buckets)
	for i := 0; i < n; i++ {
		v := s.Next(r)
		if v < lo || v > hi {
			t.Fatalf("draw %d out of [%d, %d]", v, lo, hi)
		}
		if s.Last() != v {
			t.Fatalf("Last() = %d after drawing %d", s.Last(), v)
		}
		counts[v-lo]++
	}
	const inner = ScrambledZipfianItemCount + 1
	model := gray{n: inner, theta: ZipfianConstant, zetan: ScrambledZipfianZetan,
		eta: grayEta(inner, ZipfianConstant, ScrambledZipfianZetan)}
	cells := model.cells(head)
	probs := make([]float64, buckets)
	rest := 1.0
	for i, p := range cells {
		probs[FNVHash64(int64(i))%buckets] += p
		rest -= p
	}
	for b := range probs {
		probs[b] += rest / buckets
	}

	// The hottest bucket is min + FNVHash64(0) % 1000 = 1211, holding the
	// inner item 0 (share 1/ZETAN = 3.78%) plus a thousandth of the rest.
	hottest := FNVHash64(0) % buckets
	if hottest != 211 {
		t.Fatalf("FNVHash64(0) %% 1000 = %d, want 211", hottest)
	}
	if p := probs[hottest]; p < 1/ScrambledZipfianZetan || p > 1/ScrambledZipfianZetan+0.002 {
		t.Fatalf("model share of bucket 211 = %.5f, want 1/ZETAN + a little", p)
	}
	checkShare(t, "hottest bucket 1211", counts[hottest], n, probs[hottest])
	for b, c := range counts {
		if c > counts[hottest] {
			t.Errorf("bucket %d drawn %d times, more than the hottest (%d)", b+lo, c, counts[hottest])
		}
	}
	checkChiSquare(t, "scrambled buckets", counts, probs, n)
}

func TestScrambledZipfianEdges(t *testing.T) {
	r := newRand(14)
	// One item: always min. Reversed bounds: documented to return min.
	for _, c := range []struct{ lo, hi, want int64 }{{5, 5, 5}, {9, 3, 9}} {
		s := NewScrambledZipfian(c.lo, c.hi)
		for i := 0; i < 100; i++ {
			if v := s.Next(r); v != c.want {
				t.Fatalf("ScrambledZipfian(%d, %d) drew %d, want %d", c.lo, c.hi, v, c.want)
			}
		}
	}
}

func TestSkewedLatest(t *testing.T) {
	// Basis: run-phase insert keys start at recordcount = 1000, so Last is
	// 999 and the Zipfian is built over 999 items. Key 999-k is drawn with
	// the Gray probability of offset k; the newest key with 1/zeta(999).
	const n = 1_000_000
	basis := NewCounter(1000)
	g := NewSkewedLatest(basis)
	r := newRand(15)
	draw := func(max int64) []int64 {
		counts := make([]int64, max+1)
		for i := 0; i < n; i++ {
			v := g.Next(r)
			if v < 1 || v > max {
				t.Fatalf("draw %d out of [1, %d]", v, max)
			}
			counts[max-v]++ // by offset from the newest key
		}
		return counts
	}

	counts := draw(999)
	zetan := Zeta(999, ZipfianConstant)
	checkShare(t, "newest key of 999", counts[0], n, 1/zetan)
	checkShare(t, "second newest of 999", counts[1], n, math.Pow(0.5, 0.99)/zetan)
	model := gray{n: 999, theta: ZipfianConstant, zetan: zetan, eta: grayEta(999, ZipfianConstant, zetan)}
	checkChiSquare(t, "latest over 999 keys", counts, model.cells(1000), n)

	// 1000 inserts later the newest key is 1999 and zeta was extended: the
	// newest key's share is 1/zeta(1999), and the cells use YCSB's eta
	// (constructor's 999 items in the numerator).
	for i := 0; i < 1000; i++ {
		basis.Next(nil)
	}
	counts = draw(1999)
	zetan = Zeta(1999, ZipfianConstant)
	checkShare(t, "newest key of 1999", counts[0], n, 1/zetan)
	model = gray{n: 1999, theta: ZipfianConstant, zetan: zetan, eta: grayEta(999, ZipfianConstant, zetan)}
	checkChiSquare(t, "latest over 1999 keys", counts, model.cells(2000), n)

	// The test can tell the eta variants apart: the same counts do not fit
	// an eta computed from the grown item count.
	wrong := gray{n: 1999, theta: ZipfianConstant, zetan: zetan, eta: grayEta(1999, ZipfianConstant, zetan)}
	if stat, df := chiSquare(counts, wrong.cells(2000), n); stat < chiCrit(df) {
		t.Errorf("counts also fit eta from the grown count (chi-square %.1f, %d df): the check above has no power", stat, df)
	}
}

func TestSkewedLatestConcurrent(t *testing.T) {
	// Workload D's shape under -race: 16 workers share one SkewedLatest over
	// an AcknowledgedCounter, 5% of operations insert and acknowledge. A draw
	// never exceeds the newest acknowledged key, read after the draw.
	const workers, per = 16, 5000
	basis := NewAcknowledgedCounter(1000)
	for i := 0; i < 1000; i++ { // keys 1000..1999 already inserted
		if err := basis.Acknowledge(basis.Next(nil)); err != nil {
			t.Fatal(err)
		}
	}
	g := NewSkewedLatest(basis)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(seed int64) {
			defer wg.Done()
			r := newRand(seed)
			for i := 0; i < per; i++ {
				if r.Intn(20) == 0 {
					if err := basis.Acknowledge(basis.Next(r)); err != nil {
						t.Error(err)
						return
					}
					continue
				}
				v := g.Next(r)
				if l := basis.Last(); v < 1 || v > l {
					t.Errorf("draw %d out of [1, %d]", v, l)
					return
				}
			}
		}(int64(100 + w))
	}
	wg.Wait()
	if got := g.zipf.state.Load().countForZeta; got < 1999 || got > basis.Last() {
		t.Errorf("zeta covers %d items, want between 1999 and %d", got, basis.Last())
	}
}

func TestAcknowledgedCounterOutOfOrder(t *testing.T) {
	// Keys 100..104 handed out; acknowledgements arrive out of order and Last
	// advances only over the contiguous acknowledged prefix.
	a := NewAcknowledgedCounter(100)
	if a.Last() != 99 {
		t.Fatalf("initial Last = %d, want start-1 = 99", a.Last())
	}
	for i := 0; i < 5; i++ {
		a.Next(nil)
	}
	steps := []struct {
		ack  int64
		last int64
	}{
		{102, 99},  // gap at 100: no advance
		{100, 100}, // fills 100, 101 still missing
		{104, 100}, // another island
		{101, 102}, // joins 100..102
		{103, 104}, // joins everything
	}
	for _, s := range steps {
		if err := a.Acknowledge(s.ack); err != nil {
			t.Fatalf("Acknowledge(%d): %v", s.ack, err)
		}
		if got := a.Last(); got != s.last {
			t.Fatalf("after Acknowledge(%d) Last = %d, want %d", s.ack, got, s.last)
		}
	}
}

func TestAcknowledgedCounterErrors(t *testing.T) {
	a := NewAcknowledgedCounter(0)
	for i := 0; i < 4; i++ {
		a.Next(nil) // 0..3 handed out
	}
	if err := a.Acknowledge(0); err != nil {
		t.Fatal(err)
	}
	if err := a.Acknowledge(2); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		ack  int64
		want error
	}{
		{"below Last", 0, ErrAlreadyAcknowledged},        // already swept
		{"pending duplicate", 2, ErrAlreadyAcknowledged}, // marked, not yet swept
		{"never handed out", 4, ErrNotHandedOut},         // Next has not returned it
		{"before start", -1, ErrAlreadyAcknowledged},     // below the initial limit
	}
	for _, c := range cases {
		if err := a.Acknowledge(c.ack); !errors.Is(err, c.want) {
			t.Errorf("%s: Acknowledge(%d) = %v, want %v", c.name, c.ack, err, c.want)
		}
	}
	if a.Last() != 0 {
		t.Errorf("Last = %d after rejected acknowledgements, want 0", a.Last())
	}
}

func TestAcknowledgedCounterWindow(t *testing.T) {
	// With key 0 outstanding, keys 1..AckWindow-1 fit the ring and key
	// AckWindow would wrap onto key 0's slot: "too many unacknowledged
	// insertion keys". Acknowledging 0 sweeps the whole ring and makes room.
	a := NewAcknowledgedCounter(0)
	for i := 0; i <= AckWindow; i++ {
		a.Next(nil)
	}
	for v := int64(1); v < AckWindow; v++ {
		if err := a.Acknowledge(v); err != nil {
			t.Fatalf("Acknowledge(%d): %v", v, err)
		}
	}
	err := a.Acknowledge(AckWindow)
	if !errors.Is(err, ErrTooManyUnacknowledged) {
		t.Fatalf("Acknowledge(AckWindow) = %v, want ErrTooManyUnacknowledged", err)
	}
	if want := "too many unacknowledged insertion keys"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not say %q", err, want)
	}
	if a.Last() != -1 {
		t.Fatalf("Last = %d, want -1 (key 0 outstanding)", a.Last())
	}
	if err := a.Acknowledge(0); err != nil {
		t.Fatal(err)
	}
	if a.Last() != AckWindow-1 {
		t.Fatalf("Last = %d, want %d", a.Last(), AckWindow-1)
	}
	if err := a.Acknowledge(AckWindow); err != nil {
		t.Fatalf("Acknowledge(AckWindow) after the sweep: %v", err)
	}
	if a.Last() != AckWindow {
		t.Fatalf("Last = %d, want %d", a.Last(), AckWindow)
	}
}

func TestAcknowledgedCounterAckDuringSweep(t *testing.T) {
	// The interleaving that strands an acknowledgement in YCSB's tryLock
	// scheme, forced: while the goroutine acknowledging 10 is sweeping and
	// has just found 11 missing, 11 is acknowledged (its sweep attempt fails,
	// the flag is held). The sweeper must notice after letting go.
	a := NewAcknowledgedCounter(10)
	a.Next(nil)
	a.Next(nil)
	injected := false
	a.scanned = func() {
		if injected {
			return
		}
		injected = true
		if err := a.Acknowledge(11); err != nil {
			t.Error(err)
		}
		if a.Last() != 10 {
			t.Errorf("Last = %d inside the sweep, want 10", a.Last())
		}
	}
	if err := a.Acknowledge(10); err != nil {
		t.Fatal(err)
	}
	if !injected {
		t.Fatal("hook not called")
	}
	if a.Last() != 11 {
		t.Errorf("Last = %d, want 11: the acknowledgement made during the sweep was stranded", a.Last())
	}
}

func TestAcknowledgedCounterConcurrent(t *testing.T) {
	// 64 workers insert and acknowledge, each yielding at random in between
	// so acknowledgements arrive out of order and race for the sweep. A
	// reader checks that Last never passes a key whose Acknowledge has not
	// started. At the end Last is exactly the last key handed out.
	const workers, per, start = 64, 2000, 5000
	a := NewAcknowledgedCounter(start)
	acked := make([]atomic.Bool, workers*per) // set just before Acknowledge(start+i)
	var wg, rd sync.WaitGroup
	stop := make(chan struct{})
	rd.Add(1)
	go func() {
		defer rd.Done()
		prev := a.Last()
		for {
			select {
			case <-stop:
				return
			default:
			}
			l := a.Last()
			if l < prev {
				t.Errorf("Last went back from %d to %d", prev, l)
				return
			}
			for v := prev + 1; v <= l; v++ {
				if !acked[v-start].Load() {
					t.Errorf("Last = %d but %d not acknowledged", l, v)
				}
			}
			prev = l
		}
	}()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(seed int64) {
			defer wg.Done()
			r := newRand(seed)
			for i := 0; i < per; i++ {
				v := a.Next(nil)
				for j := r.Intn(3); j > 0; j-- {
					runtime.Gosched()
				}
				acked[v-start].Store(true)
				if err := a.Acknowledge(v); err != nil {
					t.Error(err)
					return
				}
			}
		}(int64(w))
	}
	wg.Wait()
	close(stop)
	rd.Wait()
	if want := int64(start + workers*per - 1); a.Last() != want {
		t.Errorf("final Last = %d, want %d", a.Last(), want)
	}
}

func TestIntegerPowMatchesMathPow(t *testing.T) {
	// ipow must agree with math.Pow to ~1e-13 relatively over the draw range.
	for _, n := range []int{1, 2, 3, 100, 1024} {
		for _, x := range []float64{1e-3, 0.5, 0.8, 0.95, 0.999999, 1} {
			got, want := ipow(x, n), math.Pow(x, float64(n))
			if want != 0 && math.Abs(got-want)/want > 1e-13 {
				t.Errorf("ipow(%v,%d) = %v, math.Pow = %v", x, n, got, want)
			}
		}
	}
	cases := []struct {
		alpha float64
		want  int
	}{
		{1 / (1 - 0.99), 100}, // YCSB's theta: integral
		{2, 2},                // exact integer
		{1 / (1 - 0.5), 2},    // theta 0.5
		{1.5, 0},              // not integral: exp/log path
		{2000, 0},             // too large for the squaring path
	}
	for _, c := range cases {
		if got := integralExponent(c.alpha); got != c.want {
			t.Errorf("integralExponent(%v) = %d, want %d", c.alpha, got, c.want)
		}
	}
}
