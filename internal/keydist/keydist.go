// Package keydist holds seeded random distributions with the semantics of the
// reference tools: YCSB 0.17.0's generators (package site.ycsb.generator,
// described in docs/YCSB.md, "Reference facts") and
// sysbench 1.0.20's (sysbench.go; docs/SYSBENCH.md, "Reference facts").
//
// # Randomness
//
// No generator owns a random source. Every draw takes the caller's
// math/rand *rand.Rand; the runner gives each worker its own, seeded from the
// recorded run seed, so a run's choices are reproducible from that seed
// (apart from the interleaving of shared counters between workers, which
// depends on scheduling exactly as in YCSB). The sequence of values differs
// from Java YCSB's for the same seed (different random number generator); the
// distributions are the same.
//
// # Concurrency
//
// YCSB builds one key chooser per workload and shares it between all client
// threads; candor does the same with up to hundreds of workers. Every type in
// this package is therefore safe for concurrent use by any number of
// goroutines, each passing its own *rand.Rand (a *rand.Rand itself is not safe
// for concurrent use and must not be shared). Parameters are computed once by
// the constructor and only read afterwards; the few mutable pieces (counters,
// the last value drawn, a Zipfian's item count when it grows) are atomics, and
// no draw takes a lock or allocates, except the rare draw that grows a
// Zipfian's item count (a SkewedLatest after an insert), which takes the
// Zipfian's mutex and publishes a new 24-byte state.
//
// Recording the last value drawn (YCSB's lastValue) is the one write a random
// draw makes to shared memory, and when many cores draw from one generator
// that cache line moves between them on every draw. Two goroutines on a
// 2-core machine sharing a ScrambledZipfian took 17 ns per draw in aggregate
// without the record and 28-63 ns with it (BenchmarkScrambledZipfian*
// Parallel); the cost grows with the number of cores. YCSB's CoreWorkload never reads a key chooser's
// lastValue (only the insert counter's, which is not random), so the random
// generators also offer Draw (the optional Drawer capability): the same
// draw without that record, writing nothing shared. A workload sharing a key
// chooser between workers should call Draw when the generator has it.
//
// # Bad parameters
//
// Constructors do not return errors and nothing here panics on bad input:
// workloads validate their options before building generators. Where a
// parameter is out of range each constructor documents what it does instead
// (YCSB would throw an ArithmeticException or print a warning).
package keydist

import (
	"math"
	"math/rand"
	"sync/atomic"
)

// Long draws int64 values, YCSB's NumberGenerator. Next advances and returns
// the new value; Last returns the last value drawn (or, for counters, the
// highest value handed out/acknowledged) with the generator's reference
// semantics, which each implementation documents.
//
// Next takes the caller's random source; generators that are not random
// (counters, Constant) ignore it, and it may then be nil.
type Long interface {
	Next(r *rand.Rand) int64
	Last() int64
}

// Drawer is the optional capability of the random generators (Uniform,
// Zipfian, ScrambledZipfian, SkewedLatest, Hotspot, Exponential, Constant):
// Draw returns the same value Next would, consuming the same random numbers,
// but does not record it for Last, so concurrent draws write no shared
// memory. Discover it with a type assertion on a Long.
type Drawer interface {
	Draw(r *rand.Rand) int64
}

// Compile-time checks that every generator is a Long.
var (
	_ Long = (*uniform)(nil)
	_ Long = (*Sequential)(nil)
	_ Long = constant(0)
	_ Long = (*Zipfian)(nil)
	_ Long = (*ScrambledZipfian)(nil)
	_ Long = (*SkewedLatest)(nil)
	_ Long = (*hotspot)(nil)
	_ Long = (*exponential)(nil)
	_ Long = (*Counter)(nil)
	_ Long = (*AcknowledgedCounter)(nil)

	_ Drawer = (*uniform)(nil)
	_ Drawer = constant(0)
	_ Drawer = (*Zipfian)(nil)
	_ Drawer = (*ScrambledZipfian)(nil)
	_ Drawer = (*SkewedLatest)(nil)
	_ Drawer = (*hotspot)(nil)
	_ Drawer = (*exponential)(nil)
)

// cacheLine is the padding unit that keeps a frequently written atomic off the
// cache line of read-mostly fields (64 bytes on amd64 and most arm64 parts).
const cacheLine = 64

// lastValue is a generator's most recently drawn value. Every Next of a shared
// generator stores into it, so it is padded onto a cache line of its own: the
// stores then invalidate only this line in other cores' caches, never the
// read-only parameters the next draw needs.
type lastValue struct {
	_ [cacheLine]byte
	v atomic.Int64
	_ [cacheLine - 8]byte
}

// javaLong converts like Java's (long) cast of a double (JLS 5.1.3): NaN
// becomes 0 and values beyond the int64 range saturate. Go's int64(f) is
// implementation-defined in those cases, and YCSB relies on them (a Zipfian
// with a NaN eta, an exponential draw of -ln(0) = +Inf).
func javaLong(f float64) int64 {
	switch {
	case f != f:
		return 0
	case f >= 0x1p63:
		return math.MaxInt64
	case f <= -0x1p63:
		return math.MinInt64
	}
	return int64(f)
}

// javaInt converts like Java's (int) cast of a double: NaN becomes 0 and
// values beyond the int32 range saturate.
func javaInt(f float64) int64 {
	switch {
	case f != f:
		return 0
	case f >= math.MaxInt32:
		return math.MaxInt32
	case f <= math.MinInt32:
		return math.MinInt32
	}
	return int64(f)
}

// uniformIn returns a uniformly distributed value in [0, n) for n > 0, or any
// uint64 for n == 0 (meaning 2^64). It is unbiased: rand.Int63n rejects the
// few top values that would make the modulo uneven, where YCSB's
// Math.abs(nextLong()) % n keeps a bias of at most n/2^63 (below 1e-9 for any
// key range up to 1e10) and returns a negative value once in 2^64 draws.
func uniformIn(r *rand.Rand, n uint64) uint64 {
	switch {
	case n == 0:
		return r.Uint64()
	case n <= math.MaxInt64:
		return uint64(r.Int63n(int64(n)))
	}
	for {
		if v := r.Uint64(); v < n {
			return v
		}
	}
}
