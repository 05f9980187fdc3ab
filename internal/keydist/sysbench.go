package keydist

import (
	"math"
	"math/bits"
	"math/rand"
	"sync/atomic"
)

// sysbench 1.0.20's random numbers (src/sb_rand.c; docs/SYSBENCH.md, "Reference facts").
//
// Every draw takes the caller's *rand.Rand: sysbench keeps one xoroshiro128+
// state per thread, candor one math/rand source per worker, so the values
// differ from sysbench's for any seed while the distributions are the same.
// sysbench computes in C doubles and converts the result to uint32; candor
// computes the same doubles and truncates to int64, which is identical for
// every range sysbench can express (0 ≤ a ≤ b < 2^32).
//
// The functions and SysbenchRand values are safe for concurrent use (each
// goroutine passing its own *rand.Rand) and never allocate.

// Sysbench distribution names, as --rand-type spells them.
const (
	SysbenchUniformType  = "uniform"
	SysbenchGaussianType = "gaussian"
	SysbenchSpecialType  = "special"
	SysbenchParetoType   = "pareto"
)

// SysbenchRandTypes lists the --rand-type values of sysbench 1.0.20 in its
// help order. (sysbench 1.1 drops "special" and adds "zipfian".)
var SysbenchRandTypes = []string{SysbenchUniformType, SysbenchGaussianType, SysbenchSpecialType, SysbenchParetoType}

// SysbenchParams are sysbench's random-number options.
type SysbenchParams struct {
	Type     string  // --rand-type: uniform, gaussian, special or pareto
	SpecIter int     // --rand-spec-iter: uniform draws summed by gaussian and special
	SpecPct  int     // --rand-spec-pct: width of special's hot window, percent of the range
	SpecRes  int     // --rand-spec-res: percent of special's draws that land in the window
	ParetoH  float64 // --rand-pareto-h: Pareto shape, in (0, 1)
}

// DefaultSysbenchParams are sysbench 1.0.20's defaults: --rand-type=special
// (1.1 switched to uniform), --rand-spec-iter=12, --rand-spec-pct=1,
// --rand-spec-res=75, --rand-pareto-h=0.2.
func DefaultSysbenchParams() SysbenchParams {
	return SysbenchParams{Type: SysbenchSpecialType, SpecIter: 12, SpecPct: 1, SpecRes: 75, ParetoH: 0.2}
}

type sysbenchKind uint8

const (
	sbUniform sysbenchKind = iota
	sbGaussian
	sbSpecial
	sbPareto
)

// SysbenchRand is sysbench.rand.default: the distribution chosen by
// --rand-type with its parameters, the constants sysbench precomputes in
// sb_rand_init computed once. It is an immutable value.
type SysbenchRand struct {
	kind        sysbenchKind
	iter        int
	iterMult    float64 // 1/iter
	pctMult     float64 // pct/100
	pct2Mult    float64 // pct/200
	resMult     float64 // 100/(100-res); +Inf for res = 100
	paretoPower float64 // ln h / ln(1-h)
}

// NewSysbenchRand builds the distribution. Parameters the workload should
// have rejected are replaced rather than failing: an unknown Type is
// uniform, SpecIter below 1 is 1, SpecPct and SpecRes are clamped to
// [0, 100], and ParetoH outside (0, 1) is 0.2.
func NewSysbenchRand(p SysbenchParams) SysbenchRand {
	s := SysbenchRand{}
	switch p.Type {
	case SysbenchGaussianType:
		s.kind = sbGaussian
	case SysbenchSpecialType:
		s.kind = sbSpecial
	case SysbenchParetoType:
		s.kind = sbPareto
	default:
		s.kind = sbUniform
	}
	s.iter = max(p.SpecIter, 1)
	s.iterMult = 1.0 / float64(s.iter)
	pct := float64(min(max(p.SpecPct, 0), 100))
	s.pctMult = pct / 100.0
	s.pct2Mult = pct / 200.0
	res := float64(min(max(p.SpecRes, 0), 100))
	s.resMult = 100.0 / (100.0 - res) // res = 100 gives +Inf: every draw is special, as in sysbench
	h := p.ParetoH
	if !(h > 0 && h < 1) {
		h = 0.2
	}
	s.paretoPower = math.Log(h) / math.Log(1.0-h)
	return s
}

// Type returns the --rand-type name of the distribution.
func (s SysbenchRand) Type() string { return SysbenchRandTypes[s.kind] }

// Draw returns a value in [a, b] (sb_rand_default(a, b)). b < a returns a.
func (s SysbenchRand) Draw(r *rand.Rand, a, b int64) int64 {
	if b < a {
		return a
	}
	switch s.kind {
	case sbGaussian:
		return sysbenchGaussian(r, a, b, s.iter, s.iterMult)
	case sbSpecial:
		return sysbenchSpecial(r, a, b, s.iter, s.iterMult, s.resMult, s.pctMult, s.pct2Mult)
	case sbPareto:
		return sysbenchPareto(r, a, b, s.paretoPower)
	}
	return SysbenchUniform(r, a, b)
}

// SysbenchUniform is sb_rand_uniform (sysbench.rand.uniform): a + U·(b-a+1)
// truncated, U uniform in [0, 1). b < a returns a.
func SysbenchUniform(r *rand.Rand, a, b int64) int64 {
	if b < a {
		return a
	}
	return a + int64(r.Float64()*float64(b-a+1))
}

// SysbenchGaussian is sb_rand_gaussian: a + (Σ_{i<iter} U_i·(b-a+1))/iter
// truncated, an Irwin–Hall approximation of a normal distribution centred on
// the middle of the range. iter below 1 is 1; b < a returns a.
func SysbenchGaussian(r *rand.Rand, a, b int64, iter int) int64 {
	if b < a {
		return a
	}
	iter = max(iter, 1)
	return sysbenchGaussian(r, a, b, iter, 1.0/float64(iter))
}

func sysbenchGaussian(r *rand.Rand, a, b int64, iter int, iterMult float64) int64 {
	t := float64(b - a + 1)
	sum := 0.0
	for i := 0; i < iter; i++ {
		sum += r.Float64() * t
	}
	return a + int64(sum*iterMult)
}

// SysbenchSpecial is sb_rand_special, sysbench 1.0.20's default. With
// t = b-a and one uniform draw rnd: when rnd·t·100/(100-res) < t (a share of
// 1-res/100 of the draws) the value is a + t·(Σ_{i<iter} U_i)/iter, a
// gaussian over the whole range; otherwise it is
// a + trunc(rnd·(d+1) + t/2 - t·pct/200) with d = t·pct/100, a window of
// width about pct% of the range centred on its middle. Because rnd is reused
// and is at least 1-res/100 in that branch, only the upper res% of the window
// is ever hit (with the defaults: the upper three quarters of a 1% window
// takes 75% of all draws). Arguments as NewSysbenchRand clamps them.
func SysbenchSpecial(r *rand.Rand, a, b int64, iter, pct, res int) int64 {
	s := NewSysbenchRand(SysbenchParams{Type: SysbenchSpecialType, SpecIter: iter, SpecPct: pct, SpecRes: res, ParetoH: 0.2})
	return s.Draw(r, a, b)
}

func sysbenchSpecial(r *rand.Rand, a, b int64, iter int, iterMult, resMult, pctMult, pct2Mult float64) int64 {
	t := float64(b - a)
	rangeSize := t * resMult
	rnd := r.Float64()
	// NaN (t = 0 with res = 100) compares false, as in C: the special branch.
	if rnd*rangeSize < t {
		sum := 0.0
		for i := 0; i < iter; i++ {
			sum += r.Float64()
		}
		return a + int64(sum*t*iterMult)
	}
	d := t * pctMult
	v := rnd*(d+1) + t/2 - t*pct2Mult
	return a + int64(v)
}

// SysbenchPareto is sb_rand_pareto: a + trunc((b-a+1)·U^(ln h/ln(1-h))).
// With h = 0.2 about 80% of the draws fall in the lowest 20% of the range.
// h outside (0, 1) is 0.2; b < a returns a.
func SysbenchPareto(r *rand.Rand, a, b int64, h float64) int64 {
	if b < a {
		return a
	}
	if !(h > 0 && h < 1) {
		h = 0.2
	}
	return sysbenchPareto(r, a, b, math.Log(h)/math.Log(1.0-h))
}

func sysbenchPareto(r *rand.Rand, a, b int64, power float64) int64 {
	return a + int64(float64(b-a+1)*math.Pow(r.Float64(), power))
}

// SysbenchUniquePrime is the largest prime below 2^32, the modulus of
// sysbench.rand.unique()'s permutation.
const SysbenchUniquePrime = 4294967291

// SysbenchPermute is the bijection of uint32 behind sysbench.rand.unique()
// (Jeff Preshing's RandomSequence): x ↦ x² mod p for x ≤ p/2 and
// p - (x² mod p) above, p = 4294967291; the five values ≥ p map to
// themselves. Because p ≡ 3 (mod 4), this is a permutation of [0, p).
func SysbenchPermute(x uint32) uint32 {
	const p = SysbenchUniquePrime
	if x >= p {
		return x
	}
	residue := uint32(uint64(x) * uint64(x) % p)
	if x <= p/2 {
		return residue
	}
	return p - residue
}

// SysbenchUnique is sysbench.rand.unique(): a shared sequence of distinct
// uint32 values in a scrambled order (the first 2^32 values drawn are all
// different). It is safe for concurrent use; each Next is one atomic add.
type SysbenchUnique struct {
	_      [cacheLine]byte
	index  atomic.Uint32
	_      [cacheLine - 4]byte
	offset uint32
}

// NewSysbenchUnique seeds the sequence as sysbench's rand_unique_seed does
// with the two numbers it takes from libc random().
func NewSysbenchUnique(index, offset uint32) *SysbenchUnique {
	u := &SysbenchUnique{offset: SysbenchPermute(SysbenchPermute(offset) + 0x46790905)}
	u.index.Store(SysbenchPermute(SysbenchPermute(index) + 0x682f0161))
	return u
}

// NewSysbenchUniqueRand seeds the sequence from r with two 31-bit numbers,
// the range of libc random() that sysbench seeds it from.
func NewSysbenchUniqueRand(r *rand.Rand) *SysbenchUnique {
	index := uint32(r.Int31())
	offset := uint32(r.Int31())
	return NewSysbenchUnique(index, offset)
}

// Next returns the next value of the sequence (sb_rand_unique).
func (u *SysbenchUnique) Next() uint32 {
	i := u.index.Add(1) - 1
	return SysbenchPermute((SysbenchPermute(i) + u.offset) ^ 0x5bf03635)
}

// AppendSysbenchString appends template to dst with every '#' replaced by a
// random decimal digit and every '@' by a random lower-case letter, other
// bytes copied: sysbench.rand.string (sb_rand_str). The characters are
// uniform as in sysbench; they are taken from 64-bit words several at a time
// (exact mixed-radix digits of the word, at most 26^8 values per word, so
// the bias is below 1e-8) rather than one double per character.
func AppendSysbenchString(dst []byte, r *rand.Rand, template string) []byte {
	var word uint64
	left := 0
	for i := 0; i < len(template); i++ {
		ch := template[i]
		var radix uint64
		switch ch {
		case '#':
			radix = 10
		case '@':
			radix = 26
		default:
			dst = append(dst, ch)
			continue
		}
		if left == 0 {
			word, left = r.Uint64(), 8
		}
		hi, lo := bits.Mul64(word, radix)
		word = lo
		left--
		if ch == '#' {
			dst = append(dst, byte('0'+hi))
		} else {
			dst = append(dst, byte('a'+hi))
		}
	}
	return dst
}
