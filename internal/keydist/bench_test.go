package keydist

import (
	"sync/atomic"
	"testing"
)

// Benchmarks of the draws on the per-operation hot path. The Parallel
// variants share one generator between GOMAXPROCS goroutines, each with its
// own *rand.Rand, as the YCSB workload shares its key chooser between
// workers; they show the cost of the shared atomics (Last, counters).

// sink keeps the compiler from discarding draws.
var sink int64

func benchLong(b *testing.B, g Long) {
	r := newRand(1)
	b.ReportAllocs()
	var s int64
	for b.Loop() {
		s += g.Next(r)
	}
	sink = s
}

func benchLongParallel(b *testing.B, g Long) {
	var seed atomic.Int64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		r := newRand(seed.Add(1))
		var s int64
		for pb.Next() {
			s += g.Next(r)
		}
		atomic.AddInt64(&sink, s)
	})
}

func BenchmarkUniformNext(b *testing.B) { benchLong(b, NewUniform(0, 999_999)) }

func BenchmarkZipfianNext(b *testing.B) { benchLong(b, NewZipfianItems(1_000_000)) }

func BenchmarkScrambledZipfianNext(b *testing.B) {
	benchLong(b, NewScrambledZipfian(0, 1_000_000))
}

func BenchmarkScrambledZipfianNextParallel(b *testing.B) {
	benchLongParallel(b, NewScrambledZipfian(0, 1_000_000))
}

func BenchmarkScrambledZipfianDraw(b *testing.B) {
	s := NewScrambledZipfian(0, 1_000_000)
	r := newRand(1)
	b.ReportAllocs()
	var sum int64
	for b.Loop() {
		sum += s.Draw(r)
	}
	sink = sum
}

func BenchmarkScrambledZipfianDrawParallel(b *testing.B) {
	s := NewScrambledZipfian(0, 1_000_000)
	var seed atomic.Int64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		r := newRand(seed.Add(1))
		var sum int64
		for pb.Next() {
			sum += s.Draw(r)
		}
		atomic.AddInt64(&sink, sum)
	})
}

func BenchmarkSkewedLatestNext(b *testing.B) {
	benchLong(b, NewSkewedLatest(NewCounter(1_000_000)))
}

func BenchmarkHotspotNext(b *testing.B) { benchLong(b, NewHotspot(0, 999_999, 0.2, 0.8)) }

func BenchmarkExponentialNext(b *testing.B) { benchLong(b, NewExponential(95, 857_142)) }

func BenchmarkSequentialNext(b *testing.B) { benchLong(b, NewSequential(0, 999_999)) }

func BenchmarkCounterNextParallel(b *testing.B) { benchLongParallel(b, NewCounter(0)) }

func BenchmarkDiscreteNextIndex(b *testing.B) {
	// CoreWorkload's chooser for workload A: read 0.5, update 0.5.
	d := NewDiscrete([]float64{0.5, 0.5})
	r := newRand(1)
	b.ReportAllocs()
	var s int
	for b.Loop() {
		s += d.NextIndex(r)
	}
	sink = int64(s)
}

// BenchmarkAcknowledgedCounterNextAck measures one run-phase insert's
// bookkeeping: hand out a key, acknowledge it. There is no parallel variant:
// with workers that acknowledge at once, a worker descheduled for ~90 ms (seen
// on a loaded 2-core machine) lets the others run a whole AckWindow ahead and
// the benchmark fails with ErrTooManyUnacknowledged, as YCSB would.
func BenchmarkAcknowledgedCounterNextAck(b *testing.B) {
	a := NewAcknowledgedCounter(0)
	b.ReportAllocs()
	for b.Loop() {
		if err := a.Acknowledge(a.Next(nil)); err != nil {
			b.Fatal(err)
		}
	}
}
