package keydist

import (
	"math"
	"math/rand"
	"sync"
	"sync/atomic"
)

// ZipfianConstant is YCSB's ZipfianGenerator.ZIPFIAN_CONSTANT, the default
// skew theta.
const ZipfianConstant = 0.99

// ScrambledZipfian's fixed inner distribution (YCSB's
// ScrambledZipfianGenerator.ZETAN and ITEM_COUNT): the inner Zipfian draws
// from 0..ScrambledZipfianItemCount (inclusive, so 1e10+1 items) with theta
// ZipfianConstant, and ScrambledZipfianZetan is its precomputed zeta, so
// no generator ever sums 1e10 terms.
const (
	ScrambledZipfianZetan     = 26.46902820178302
	ScrambledZipfianItemCount = 10000000000
)

// Zeta returns zeta(n, theta) = sum over i = 0..n-1 of 1/(i+1)^theta, the
// normalising constant of a Zipfian over n items, summed in YCSB's order
// (ascending i). It is O(n): 1e8 items take a few seconds. Zeta(n <= 0) = 0.
func Zeta(n int64, theta float64) float64 {
	return zetaFrom(0, n, theta, 0)
}

// zetaFrom extends a partial sum: initial is zeta(st, theta), the result is
// zeta(n, theta). YCSB's incremental ZipfianGenerator.zeta(st, n, theta,
// initialsum).
func zetaFrom(st, n int64, theta, initial float64) float64 {
	sum := initial
	for i := st; i < n; i++ {
		sum += 1 / math.Pow(float64(i+1), theta)
	}
	return sum
}

// zipfState is the part of a Zipfian that changes when the item count grows.
// Each value is immutable once published; growth publishes a new one.
type zipfState struct {
	countForZeta int64   // number of items zetan sums over
	zetan        float64 // zeta(countForZeta, theta)
	eta          float64 // (1 - (2/items)^(1-theta)) / (1 - zeta2theta/zetan)
}

// Zipfian mirrors YCSB's ZipfianGenerator: Gray et al.'s algorithm ("Quickly
// Generating Billion-Record Synthetic Databases", SIGMOD 1994) for a Zipfian
// distribution over the inclusive range [min, max], where min is the most
// popular value, min+1 the next, and so on (popular items are clustered; see
// ScrambledZipfian for scattered ones). The probability of min+k is close to
// 1/((k+1)^theta * zeta(items, theta)); the first two values are exact, the
// rest follow Gray's closed-form approximation.
//
// Concurrency: safe for concurrent use. Draws read an immutable state through
// an atomic pointer and take no lock; only NextLong with an item count above
// every count seen before takes a mutex to extend zeta (O(growth)) and
// publish a new state. One Zipfian can therefore be shared by all workers.
// Next and NextLong also store third-branch values for Last; Draw does not.
type Zipfian struct {
	base      int64   // min
	items     int64   // max-min+1, as given to the constructor
	theta     float64 // skew
	zeta2     float64 // zeta(2, theta)
	alpha     float64 // 1/(1-theta)
	intAlpha  int     // alpha as an integer when it is one (theta 0.99: 100), else 0
	halfTheta float64 // 0.5^theta, cached for the second branch's bound
	etaNum    float64 // 1 - (2/items)^(1-theta), the numerator of eta

	state atomic.Pointer[zipfState]
	grow  sync.Mutex // serialises growth of state
	last  lastValue
}

// NewZipfian mirrors YCSB's ZipfianGenerator(min, max, theta): a Zipfian over
// the inclusive range [min, max] with skew theta (ZipfianConstant in every
// YCSB use). It computes zeta(max-min+1, theta) once, in O(max-min) time.
// Min must not exceed max: with no items the draws are meaningless (always
// min), as in YCSB.
func NewZipfian(min, max int64, theta float64) *Zipfian {
	items := max - min + 1
	return newZipfian(min, max, theta, Zeta(items, theta))
}

// NewZipfianItems mirrors YCSB's ZipfianGenerator(items): NewZipfian(0,
// items-1, ZipfianConstant).
func NewZipfianItems(items int64) *Zipfian {
	return NewZipfian(0, items-1, ZipfianConstant)
}

// newZipfian is YCSB's ZipfianGenerator(min, max, theta, zetan) constructor,
// which takes zeta precomputed (ScrambledZipfian passes its constant).
func newZipfian(min, max int64, theta, zetan float64) *Zipfian {
	items := max - min + 1
	z := &Zipfian{
		base:      min,
		items:     items,
		theta:     theta,
		zeta2:     Zeta(2, theta),
		alpha:     1 / (1 - theta),
		intAlpha:  integralExponent(1 / (1 - theta)),
		halfTheta: math.Pow(0.5, theta),
		etaNum:    1 - math.Pow(2/float64(items), 1-theta),
	}
	z.state.Store(&zipfState{countForZeta: items, zetan: zetan, eta: z.eta(zetan)})
	z.last.v.Store(min)
	return z
}

// eta is Gray's eta for a given zetan. YCSB recomputes it after growing
// zetan with the constructor's items in the numerator, not the new item
// count (ZipfianGenerator.nextLong); that is replicated here, so etaNum never
// changes.
func (z *Zipfian) eta(zetan float64) float64 {
	return z.etaNum / (1 - z.zeta2/zetan)
}

// Next draws from the constructor's range: YCSB's nextValue(), which is
// nextLong(items).
func (z *Zipfian) Next(r *rand.Rand) int64 {
	return z.NextLong(r, z.items)
}

// NextLong mirrors YCSB's ZipfianGenerator.nextLong(itemcount): a draw from
// min..min+itemcount-1 (approximately; see below) using one r.Float64.
//
// If itemcount exceeds the number of items zeta was computed for, zeta is
// first extended incrementally to itemcount (under a mutex, once per new
// count) and eta recomputed. As in YCSB (allowitemcountdecrease=false), a
// smaller itemcount keeps the larger zeta, and eta always uses the
// constructor's item count. The third branch returns
// min + (long)(itemcount * (eta*u - eta + 1)^alpha), which for itemcount
// different from the constructor's is only approximately bounded by
// min+itemcount-1, exactly as in YCSB.
func (z *Zipfian) NextLong(r *rand.Rand, itemcount int64) int64 {
	v, third := z.draw(r, itemcount)
	if third {
		z.last.v.Store(v)
	}
	return v
}

// Last mirrors YCSB's lastValue for a ZipfianGenerator: the most recent value
// drawn by Next or NextLong in any goroutine through the third branch of the
// algorithm (YCSB calls setLastValue only there, so draws of min and min+1
// leave it unchanged); min before that.
func (z *Zipfian) Last() int64 { return z.last.v.Load() }

// Draw is Next without recording the value for Last (see Drawer).
func (z *Zipfian) Draw(r *rand.Rand) int64 {
	v, _ := z.draw(r, z.items)
	return v
}

// draw is nextLong without the lastValue bookkeeping; third reports whether
// the value came from the algorithm's third branch.
func (z *Zipfian) draw(r *rand.Rand, itemcount int64) (v int64, third bool) {
	s := z.state.Load()
	if itemcount > s.countForZeta {
		s = z.extend(itemcount)
	}
	u := r.Float64()
	uz := u * s.zetan
	if uz < 1 {
		return z.base, false
	}
	if uz < 1+z.halfTheta {
		return z.base + 1, false
	}
	return z.base + javaLong(float64(itemcount)*z.pow(s.eta*u-s.eta+1)), true
}

// pow returns x^alpha. With YCSB's theta 0.99, alpha = 1/(1-theta) is 100
// (to 1e-13), and an integer power by repeated squaring (7 squarings, 2
// products) costs a few nanoseconds where exp(alpha·ln x) costs ~40 ns and
// math.Pow more: the zipfian draw dominated a YCSB operation's client cost.
// Each squaring adds at most an ulp and doubles the error before it, so the
// result is within ~3e-14 relatively of the exact power, and ignoring
// alpha's distance from 100 changes it by |alpha−100|·|ln x| ≈ 1e-13·|ln x|
// relatively. Together they move the truncated offset in about one draw in a
// million for 1e10 items: far below any statistical effect, and draws are not
// sequence-compatible with Java YCSB anyway (a different random number
// generator). Other thetas use exp(alpha·ln x).
func (z *Zipfian) pow(x float64) float64 {
	if z.intAlpha > 0 {
		return ipow(x, z.intAlpha)
	}
	if x > 0 {
		return math.Exp(z.alpha * math.Log(x))
	}
	return math.Pow(x, z.alpha)
}

// ipow is x^n for n ≥ 1 by repeated squaring.
func ipow(x float64, n int) float64 {
	r := 1.0
	for {
		if n&1 != 0 {
			r *= x
		}
		n >>= 1
		if n == 0 {
			return r
		}
		x *= x
	}
}

// integralExponent returns alpha as an int when it is within 1e-9 of an
// integer in [1, 1024], else 0.
func integralExponent(alpha float64) int {
	n := math.Round(alpha)
	if n >= 1 && n <= 1024 && math.Abs(alpha-n) < 1e-9 {
		return int(n)
	}
	return 0
}

// extend grows zeta to n items (if no other goroutine already has) and
// returns the current state. It is the only locked path.
func (z *Zipfian) extend(n int64) *zipfState {
	z.grow.Lock()
	defer z.grow.Unlock()
	s := z.state.Load()
	if n <= s.countForZeta {
		return s
	}
	zetan := zetaFrom(s.countForZeta, n, z.theta, s.zetan)
	ns := &zipfState{countForZeta: n, zetan: zetan, eta: z.eta(zetan)}
	z.state.Store(ns)
	return ns
}

// ScrambledZipfian mirrors YCSB's ScrambledZipfianGenerator, the key chooser
// for requestdistribution=zipfian: Zipfian popularity, but with the popular
// values scattered over [min, max] instead of clustered at min. A draw takes
// an inner Zipfian value v over 0..1e10 (theta 0.99, zeta fixed at
// ScrambledZipfianZetan) and returns min + FNVHash64(v) % (max-min+1); the
// most popular value is min + FNVHash64(0) % (max-min+1), drawn with
// probability a little above 1/ScrambledZipfianZetan (about 3.8%).
//
// Concurrency: safe for concurrent use; a draw reads only immutable state and
// takes no lock. Next also stores the value for Last; Draw does not.
type ScrambledZipfian struct {
	min       int64
	itemCount int64 // max-min+1
	gen       *Zipfian
	last      lastValue
}

// NewScrambledZipfian mirrors YCSB's ScrambledZipfianGenerator(min, max), max
// inclusive. Its cost is O(1): the inner Zipfian uses the precomputed zeta.
// If max < min every draw returns min (YCSB would divide by zero or return
// values outside the range).
func NewScrambledZipfian(min, max int64) *ScrambledZipfian {
	s := &ScrambledZipfian{
		min:       min,
		itemCount: max - min + 1,
		gen:       newZipfian(0, ScrambledZipfianItemCount, ZipfianConstant, ScrambledZipfianZetan),
	}
	s.last.v.Store(min)
	return s
}

// Next draws one value in [min, max] using one r.Float64 and records it for
// Last.
func (s *ScrambledZipfian) Next(r *rand.Rand) int64 {
	v := s.Draw(r)
	s.last.v.Store(v)
	return v
}

// Draw is Next without recording the value for Last (see Drawer).
func (s *ScrambledZipfian) Draw(r *rand.Rand) int64 {
	v, _ := s.gen.draw(r, s.gen.items)
	if s.itemCount <= 0 {
		return s.min
	}
	// Go's % truncates like Java's, so the one negative hash value
	// (math.MinInt64) maps below min exactly as in YCSB.
	return s.min + FNVHash64(v)%s.itemCount
}

// Last returns the value most recently drawn by Next in any goroutine
// (YCSB's lastValue), min before the first.
func (s *ScrambledZipfian) Last() int64 { return s.last.v.Load() }

// SkewedLatest mirrors YCSB's SkewedLatestGenerator, the key chooser for
// requestdistribution=latest: the newest key is the most popular, then the
// one before it, and so on. The newest key is basis.Last() at the time of
// each draw (in CoreWorkload the run phase's AcknowledgedCounter, so only
// acknowledged inserts are chosen).
//
// A draw is max - zipfian.NextLong(r, max) with max = basis.Last(), where the
// Zipfian was built as ZipfianGenerator(basis.Last()) at construction, i.e.
// over 0..Last-1. As inserts are acknowledged max grows and the Zipfian
// extends its zeta incrementally (one term per new key, under its mutex). So
// a draw returns max with probability 1/zeta(max), max-1 with probability
// 0.5^0.99/zeta(max), ..., and (as in YCSB) key 0 practically never.
//
// Concurrency: safe for concurrent use if basis.Last is (every generator in
// this package is). No lock is taken except when max has grown past every
// value seen before. Next also stores the value for Last; Draw does not.
type SkewedLatest struct {
	basis Long
	zipf  *Zipfian
	last  lastValue
}

// NewSkewedLatest mirrors YCSB's SkewedLatestGenerator(basis). It computes
// zeta(basis.Last()) once, in O(basis.Last()) time. With basis.Last() < 3 at
// construction Gray's eta is degenerate, as in YCSB (NaN for 0 and 2, where
// every draw returns max or max-1); draws still never fail or exceed max.
func NewSkewedLatest(basis Long) *SkewedLatest {
	last := basis.Last()
	s := &SkewedLatest{basis: basis, zipf: NewZipfianItems(last)}
	s.last.v.Store(last)
	return s
}

// Next draws one key using one r.Float64. The key is at most
// max = basis.Last() and, once the generator was built with at least 3 keys
// (basis.Last() >= 3), at least 1.
func (s *SkewedLatest) Next(r *rand.Rand) int64 {
	v := s.Draw(r)
	s.last.v.Store(v)
	return v
}

// Draw is Next without recording the value for Last (see Drawer).
func (s *SkewedLatest) Draw(r *rand.Rand) int64 {
	max := s.basis.Last()
	off, _ := s.zipf.draw(r, max)
	return max - off
}

// Last returns the value most recently drawn by Next in any goroutine
// (YCSB's lastValue), basis.Last() at construction before the first.
func (s *SkewedLatest) Last() int64 { return s.last.v.Load() }
