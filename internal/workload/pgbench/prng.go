package pgbench

import (
	"math"
	"math/bits"
)

// prng is PostgreSQL's pg_prng: xoroshiro128** seeded through splitmix64,
// so that a script's random functions draw what pgbench 15 draws from the
// same seed (docs/SCRIPTS.md). It is used by one goroutine.
type prng struct{ s0, s1 uint64 }

// splitmix64 advances *state and returns its next output.
func splitmix64(state *uint64) uint64 {
	*state += 0x9E3779B97F4A7C15
	v := *state
	v = (v ^ (v >> 30)) * 0xBF58476D1CE4E5B9
	v = (v ^ (v >> 27)) * 0x94D049BB133111EB
	return v ^ (v >> 31)
}

// newPRNG returns the generator pg_prng_seed(seed) sets up.
func newPRNG(seed uint64) prng {
	p := prng{s0: splitmix64(&seed), s1: splitmix64(&seed)}
	if p.s0 == 0 && p.s1 == 0 {
		// A fixed point of the generator: pg_prng puts Knuth's LCG
		// constants there instead.
		p.s0, p.s1 = 0x5851F42D4C957F2D, 0x14057B7EF767814F
	}
	return p
}

// next is xoroshiro128**'s next 64-bit output.
func (p *prng) next() uint64 {
	s0 := p.s0
	sx := p.s1 ^ s0
	v := bits.RotateLeft64(s0*5, 7) * 9
	p.s0 = bits.RotateLeft64(s0, 24) ^ sx ^ (sx << 16)
	p.s1 = bits.RotateLeft64(sx, 37)
	return v
}

// uint64Range is uniform on [lo, hi] by bitmask rejection (lo when the
// range is empty).
func (p *prng) uint64Range(lo, hi uint64) uint64 {
	if hi <= lo {
		return lo
	}
	span := hi - lo
	shift := uint(bits.LeadingZeros64(span))
	for {
		v := p.next() >> shift
		if v <= span {
			return lo + v
		}
	}
}

// double is uniform on [0, 1) with 52 bits.
func (p *prng) double() float64 {
	return math.Ldexp(float64(p.next()>>12), -52)
}

// normal is one standard normal draw (Box–Muller on (0, 1]).
func (p *prng) normal() float64 {
	u1 := 1.0 - p.double()
	u2 := 1.0 - p.double()
	return math.Sqrt(-2.0*math.Log(u1)) * math.Sin(2.0*math.Pi*u2)
}

// uniform is pgbench's getrand: lb + a uniform offset in [0, ub-lb].
func (p *prng) uniform(lb, ub int64) int64 {
	return lb + int64(p.uint64Range(0, uint64(ub-lb)))
}

// exponential is pgbench's getExponentialRand.
func (p *prng) exponential(lb, ub int64, param float64) int64 {
	cut := math.Exp(-param)
	u := 1.0 - p.double()
	r := -math.Log(cut+(1.0-cut)*u) / param
	return lb + int64(float64(ub-lb+1)*r)
}

// gaussian is pgbench's getGaussianRand.
func (p *prng) gaussian(lb, ub int64, param float64) int64 {
	var z float64
	for {
		z = p.normal()
		if z >= -param && z < param {
			break
		}
	}
	r := (z + param) / (param * 2.0)
	return lb + int64(float64(ub-lb+1)*r)
}

// zipfian is pgbench's getZipfianRand: Devroye's rejection method
// (Non-Uniform Random Variate Generation, p. 550).
func (p *prng) zipfian(lb, ub int64, s float64) int64 {
	n := ub - lb + 1
	if n <= 1 {
		return lb
	}
	b := math.Pow(2.0, s-1.0)
	for {
		u := p.double()
		v := p.double()
		x := math.Floor(math.Pow(u, -1.0/(s-1.0)))
		t := math.Pow(1.0+1.0/x, s-1.0)
		if v*x*(t-1.0)/(b-1.0) <= t/b && x <= float64(n) {
			return lb - 1 + int64(x)
		}
	}
}

// Hash constants of pgbench's hash functions.
const (
	fnvOffsetBasis = 0xcbf29ce484222325
	fnvPrime       = 0x100000001b3
	mm2Mul         = 0xc6a4a7935bd1e995
	mm2MulTimes8   = 0x35253c9ade8f4ca8
	mm2Rot         = 47
)

// hashFNV1a is 64-bit FNV-1a over the 8 bytes of v, low byte first.
func hashFNV1a(v int64, seed uint64) int64 {
	h := uint64(fnvOffsetBasis) ^ seed
	for i := 0; i < 8; i++ {
		h ^= uint64(v & 0xff)
		h *= fnvPrime
		v >>= 8
	}
	return int64(h)
}

// hashMurmur2 is 64-bit MurmurHash2 of one 8-byte block.
func hashMurmur2(v int64, seed uint64) int64 {
	h := seed ^ mm2MulTimes8
	k := uint64(v)
	k *= mm2Mul
	k ^= k >> mm2Rot
	k *= mm2Mul
	h ^= k
	h *= mm2Mul
	h ^= h >> mm2Rot
	h *= mm2Mul
	h ^= h >> mm2Rot
	return int64(h)
}

// permute is pgbench's pseudorandom bijection of [0, size): six rounds of
// an odd multiply, xor and one-bit rotation of the lower and of the upper
// power-of-two window, then a random offset, all drawn from a generator
// seeded with seed.
func permute(val, isize, seed int64) int64 {
	if isize < 2 {
		return 0
	}
	p := newPRNG(uint64(seed))
	size := uint64(isize)
	v := uint64(val) % size
	masklen := uint(63 - bits.LeadingZeros64(size))
	mask := uint64(1)<<masklen - 1
	rot := func(x uint64) uint64 { return ((x << 1) & mask) | (x >> (masklen - 1)) }
	for i := 0; i < 6; i++ {
		m := (p.next() & mask) | 1
		r := p.next() & mask
		if v <= mask {
			v = rot(((v * m) ^ r) & mask)
		}
		m = (p.next() & mask) | 1
		r = p.next() & mask
		if t := size - 1 - v; t <= mask {
			v = size - 1 - rot(((t*m)^r)&mask)
		}
		v = (v + p.uint64Range(0, size-1)) % size
	}
	return int64(v)
}
