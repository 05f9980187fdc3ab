// Package keydist holds seeded random distributions with the exact semantics
// of the reference tools: YCSB 0.17.0's generators (site.ycsb.generator) and,
// later, sysbench's. Generators are not safe for concurrent use: each worker
// builds its own and passes its own *rand.Rand, derived from a recorded seed.
package keydist

import "math/rand"

// Long draws int64 values. NextValue advances; LastValue returns the last
// value drawn (or, for counters, the highest value handed out/acknowledged)
// with the generator's reference semantics.
type Long interface {
	Next(r *rand.Rand) int64
	Last() int64
}

// API (implemented in the other files of this package):
//
//	FNVHash64(v int64) int64                  YCSB Utils.fnvhash64: FNV-1a over 8 little-endian bytes, Math.abs
//	NewUniform(lb, ub int64) Long             UniformLongGenerator, inclusive bounds
//	NewSequential(lb, ub int64) *Sequential   SequentialGenerator (wraps), shared across workers: atomic
//	NewConstant(v int64) Long
//	NewZipfian(min, max int64, theta float64) *Zipfian          ZipfianGenerator (inclusive), theta 0.99 = ZipfianConstant
//	NewZipfianItems(items int64) *Zipfian                       ZipfianGenerator(items) = (0, items-1, 0.99)
//	NewScrambledZipfian(min, max int64) *ScrambledZipfian      constants ZETAN, 1e10 items
//	NewSkewedLatest(basis Long) *SkewedLatest                   basis.Last() is the newest acknowledged key
//	NewHotspot(lb, ub int64, hotSet, hotOpn float64) Long
//	NewExponential(percentile, rng float64) Long                ExponentialGenerator
//	NewCounter(start int64) *Counter                            CounterGenerator; goroutine safe
//	NewAcknowledgedCounter(start int64) *AcknowledgedCounter    goroutine safe; Acknowledge(v) error
//	NewDiscrete(weights []float64) *Discrete                    DiscreteGenerator: NextIndex(r) int
