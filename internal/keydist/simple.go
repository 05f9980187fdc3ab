package keydist

import (
	"math"
	"math/rand"
	"sync/atomic"
)

// uniform mirrors YCSB's UniformLongGenerator.
type uniform struct {
	lb       int64
	interval uint64 // ub-lb+1; 0 stands for 2^64 (the full int64 range)
	last     lastValue
}

// NewUniform mirrors YCSB's UniformLongGenerator(lb, ub): values uniformly
// distributed over the inclusive range [lb, ub].
//
// YCSB computes Math.abs(nextLong()) % (ub-lb+1) + lb; this uses an unbiased
// draw (rand.Int63n) instead, which differs from YCSB's by a bias below 1e-9
// for any realistic range (see uniformIn). If ub < lb every draw returns lb
// (YCSB's result there is meaningless or an ArithmeticException).
//
// Next and Draw are safe for concurrent use. Last returns the value most
// recently drawn by Next in any goroutine, lb before the first.
func NewUniform(lb, ub int64) Long {
	u := &uniform{lb: lb, interval: 1}
	if ub >= lb {
		u.interval = uint64(ub) - uint64(lb) + 1
	}
	u.last.v.Store(lb)
	return u
}

func (u *uniform) Next(r *rand.Rand) int64 {
	v := u.Draw(r)
	u.last.v.Store(v)
	return v
}

func (u *uniform) Draw(r *rand.Rand) int64 { return u.lb + int64(uniformIn(r, u.interval)) }

func (u *uniform) Last() int64 { return u.last.v.Load() }

// constant mirrors YCSB's ConstantIntegerGenerator.
type constant int64

// NewConstant returns a generator that always yields v (YCSB's
// ConstantIntegerGenerator, used for fieldlengthdistribution=constant).
// Next and Draw ignore r, Last returns v; safe for concurrent use.
func NewConstant(v int64) Long { return constant(v) }

func (c constant) Next(*rand.Rand) int64 { return int64(c) }
func (c constant) Last() int64           { return int64(c) }
func (c constant) Draw(*rand.Rand) int64 { return int64(c) }

// Sequential mirrors YCSB's SequentialGenerator(countstart, countend): it
// hands out lb, lb+1, ..., ub, then starts again at lb. One counter is shared
// by all goroutines, as YCSB shares the generator between client threads, so
// together they visit the keys in order. Next ignores r and is safe for
// concurrent use (one atomic add).
type Sequential struct {
	lb       int64
	interval uint64 // ub-lb+1; 0 stands for 2^64
	n        atomic.Uint64
}

// NewSequential returns a Sequential over the inclusive range [lb, ub]. If
// ub < lb every draw returns lb.
func NewSequential(lb, ub int64) *Sequential {
	s := &Sequential{lb: lb, interval: 1}
	if ub >= lb {
		s.interval = uint64(ub) - uint64(lb) + 1
	}
	return s
}

// Next returns the next value in sequence, wrapping to lb after ub.
func (s *Sequential) Next(*rand.Rand) int64 {
	return s.at(s.n.Add(1) - 1)
}

// Last returns the value most recently handed out (by any goroutine), or
// lb-1 before the first Next.
func (s *Sequential) Last() int64 {
	n := s.n.Load()
	if n == 0 {
		return s.lb - 1
	}
	return s.at(n - 1)
}

// at is the i-th value of the sequence (0-based).
func (s *Sequential) at(i uint64) int64 {
	if s.interval != 0 {
		i %= s.interval
	}
	return s.lb + int64(i)
}

// hotspot mirrors YCSB's HotspotIntegerGenerator.
type hotspot struct {
	lb           int64
	hotInterval  int64
	coldInterval int64
	hotOpn       float64
	last         lastValue
}

// NewHotspot mirrors YCSB's HotspotIntegerGenerator(lb, ub, hotsetFraction,
// hotOpnFraction): the inclusive range [lb, ub] is split into a hot set, its
// first (int)((ub-lb+1)*hotSetFraction) values, and the cold rest. A draw
// lands in the hot set with probability hotOpnFraction and is uniform within
// the set it lands in. Each draw uses one r.Float64 and one uniform integer.
//
// As in YCSB, a fraction outside [0, 1] is replaced by 0, bounds given in the
// wrong order are swapped, and the hot set size is computed with Java's int
// cast, so it saturates at 2^31-1 values. Where YCSB divides by zero (an
// empty hot or cold set drawn from) this draws from the other set.
//
// Next and Draw are safe for concurrent use. Last returns the value most
// recently drawn by Next in any goroutine, lb before the first.
func NewHotspot(lb, ub int64, hotSetFraction, hotOpnFraction float64) Long {
	if !(hotSetFraction >= 0 && hotSetFraction <= 1) {
		hotSetFraction = 0
	}
	if !(hotOpnFraction >= 0 && hotOpnFraction <= 1) {
		hotOpnFraction = 0
	}
	if lb > ub {
		lb, ub = ub, lb
	}
	interval := ub - lb + 1
	hot := javaInt(float64(interval) * hotSetFraction)
	h := &hotspot{lb: lb, hotInterval: hot, coldInterval: interval - hot, hotOpn: hotOpnFraction}
	h.last.v.Store(lb)
	return h
}

func (h *hotspot) Next(r *rand.Rand) int64 {
	v := h.Draw(r)
	h.last.v.Store(v)
	return v
}

func (h *hotspot) Draw(r *rand.Rand) int64 {
	if (r.Float64() < h.hotOpn && h.hotInterval > 0) || h.coldInterval <= 0 {
		return h.lb + int64(uniformIn(r, uint64(h.hotInterval)))
	}
	return h.lb + h.hotInterval + int64(uniformIn(r, uint64(h.coldInterval)))
}

func (h *hotspot) Last() int64 { return h.last.v.Load() }

// exponential mirrors YCSB's ExponentialGenerator.
type exponential struct {
	gamma float64
	last  lastValue
}

// NewExponential mirrors YCSB's ExponentialGenerator(percentile, range): an
// exponential distribution whose rate gamma = -ln(1-percentile/100)/rng puts
// percentile per cent of the draws below rng. A draw is
// (long)(-ln(U)/gamma) with U = r.Float64() in [0, 1), so it is a
// non-negative integer; U = 0 gives math.MaxInt64, as Java's cast of +Inf.
// CoreWorkload uses percentile = exponential.percentile (95) and
// rng = recordcount * exponential.frac (0.8571428571), and subtracts the draw
// from the newest acknowledged key.
//
// Parameters outside 0 < percentile < 100, rng > 0 give a gamma that is not a
// positive number and meaningless draws (saturated or 0), as in YCSB.
//
// Next and Draw are safe for concurrent use. Last returns the value most
// recently drawn by Next in any goroutine, 0 before the first.
func NewExponential(percentile, rng float64) Long {
	return &exponential{gamma: -math.Log(1-percentile/100) / rng}
}

func (e *exponential) Next(r *rand.Rand) int64 {
	v := e.Draw(r)
	e.last.v.Store(v)
	return v
}

func (e *exponential) Draw(r *rand.Rand) int64 { return javaLong(-math.Log(r.Float64()) / e.gamma) }

func (e *exponential) Last() int64 { return e.last.v.Load() }
