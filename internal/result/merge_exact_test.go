package result

import (
	"fmt"
	"math"
	"math/rand"
	"slices"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// randomShards are n shards of a run with two operations whose interval
// histograms mix the shapes a merge meets: a few values, thousands of
// values about a median, hour-long tails, counts of billions (several-byte
// counts in the encoding) and empty intervals.
func randomShards(t *testing.T, rng *rand.Rand, n, intervals int, start time.Time) ([]MergeInput, map[string][]*hdr.Histogram, map[string]*hdr.Histogram) {
	perInterval := map[string][]*hdr.Histogram{}
	total := map[string]*hdr.Histogram{}
	names := []string{"READ", "UPDATE"}
	for _, name := range names {
		total[name] = newHist()
		for range intervals {
			perInterval[name] = append(perInterval[name], newHist())
		}
	}
	var in []MergeInput
	for i := range n {
		r := shardResult(t, i, n, start, [][]int64{{1000}})
		p := &r.Phases[0]
		p.Intervals, p.Ops = nil, nil
		all := map[string]*hdr.Histogram{}
		for _, name := range names {
			all[name] = newHist()
		}
		for k := range intervals {
			iv := Interval{Phase: "run", Index: k, Start: start.Add(time.Duration(k)*time.Second + time.Duration(rng.Intn(5))*time.Millisecond),
				ElapsedSec: float64(k + 1), LengthSec: 1}
			for _, name := range names {
				h := newHist()
				switch rng.Intn(5) {
				case 0: // empty
				case 1:
					for range 1 + rng.Intn(5) {
						h.RecordValue(1 + rng.Int63n(10_000))
					}
				case 2:
					for range 3000 {
						h.RecordValue(int64(500_000 * math.Exp(0.8*rng.NormFloat64())))
					}
				case 3:
					for range 50 {
						h.RecordValue(1 + rng.Int63n(3_600_000_000_000)>>uint(rng.Intn(42)))
					}
				case 4:
					for range 20 {
						h.RecordValues(1+rng.Int63n(1_000_000), 1+rng.Int63n(1<<uint(rng.Intn(36))))
					}
				}
				perInterval[name][k].Merge(h)
				all[name].Merge(h)
				iv.Ops = append(iv.Ops, IntervalOp{Name: name, Count: h.TotalCount(), Histogram: enc(t, h), Max: h.Max()})
			}
			p.Intervals = append(p.Intervals, iv)
		}
		for _, name := range names {
			total[name].Merge(all[name])
			p.Ops = append(p.Ops, OpResult{Name: name, Count: all[name].TotalCount(), Latency: Summarize(all[name]),
				Histograms: map[string]string{"latency": enc(t, all[name])}})
		}
		in = append(in, MergeInput{File: fmt.Sprintf("s%d.json", i), Result: r})
	}
	return in, perInterval, total
}

// The merge adds counts straight from the encodings and reads an
// interval's figures from the counts; the result is exactly what hdr
// gives for one histogram holding every value: the same counts, totals,
// percentiles, maximum and mean (bit for bit), on randomized shards.
func TestMergeExactOnRandomShards(t *testing.T) {
	start := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	for seed := int64(1); seed <= 4; seed++ {
		rng := rand.New(rand.NewSource(seed))
		n, intervals := 2+rng.Intn(7), 3+rng.Intn(20)
		in, perInterval, total := randomShards(t, rng, n, intervals, start)
		m, err := Merge(in)
		if err != nil {
			t.Fatal(err)
		}
		ph := m.Phases[0]
		for _, op := range ph.Ops {
			want := total[op.Name]
			if op.Count != want.TotalCount() || !reflectEqualSummary(op.Latency, Summarize(want)) {
				t.Errorf("seed %d, %s: count %d, latency %+v, want %d, %+v", seed, op.Name, op.Count, op.Latency, want.TotalCount(), Summarize(want))
			}
			if got, err := DecodeHistogram(op.Histograms["latency"]); err != nil || !got.Equals(want) {
				t.Errorf("seed %d, %s: merged histogram is not the sum (%v)", seed, op.Name, err)
			}
		}
		if len(ph.Intervals) != intervals {
			t.Fatalf("seed %d: %d intervals, want %d", seed, len(ph.Intervals), intervals)
		}
		for k, iv := range ph.Intervals {
			for _, o := range iv.Ops {
				want := perInterval[o.Name][k]
				p := want.ValueAtPercentilesSlice([]float64{50, 99})
				if o.Count != want.TotalCount() || o.P50 != p[0] || o.P99 != p[1] || o.Max != want.Max() ||
					math.Float64bits(o.Mean) != math.Float64bits(want.Mean()) {
					t.Errorf("seed %d, interval %d, %s: count %d p50 %d p99 %d max %d mean %v; want %d %d %d %d %v",
						seed, k, o.Name, o.Count, o.P50, o.P99, o.Max, o.Mean, want.TotalCount(), p[0], p[1], want.Max(), want.Mean())
				}
				got, err := DecodeHistogram(o.Histogram)
				if err != nil || !slices.Equal(got.Export().Counts, want.Export().Counts) {
					t.Errorf("seed %d, interval %d, %s: merged histogram is not the sum (%v)", seed, k, o.Name, err)
				}
			}
		}
	}
}

func reflectEqualSummary(a, b *Summary) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// intervalStats reads the figures hdr reads, for every geometry a V2
// encoding can carry (lowest values above 1, 1 to 5 significant digits),
// empty sums included.
func TestIntervalStatsEqualsHdr(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	for _, g := range []struct {
		low, high int64
		sig       int
	}{{1, 3_600_000_000_000, 3}, {1, 1_000_000, 1}, {1000, 1 << 40, 2}, {7, 1 << 22, 5}, {1, 100_000, 4}} {
		for trial := range 20 {
			var a histAcc
			want := hdr.New(g.low, g.high, g.sig)
			for range rng.Intn(4) {
				h := hdr.New(g.low, g.high, g.sig)
				for range rng.Intn(300) {
					v := g.low + rng.Int63n(g.high-g.low)>>uint(rng.Intn(30))
					h.RecordValues(v, 1+rng.Int63n(1<<uint(rng.Intn(20))))
				}
				want.Merge(h)
				if err := a.add(enc(t, h)); err != nil {
					t.Fatal(err)
				}
			}
			if !a.any {
				continue // nothing added: the merge has no histogram to read
			}
			p50, p99, mx, mean := a.intervalStats()
			p := want.ValueAtPercentilesSlice([]float64{50, 99})
			if p50 != p[0] || p99 != p[1] || mx != want.Max() || math.Float64bits(mean) != math.Float64bits(want.Mean()) {
				t.Errorf("geometry %+v, trial %d: %d %d %d %v, hdr %d %d %d %v", g, trial, p50, p99, mx, mean, p[0], p[1], want.Max(), want.Mean())
			}
		}
	}
}

// A payload that runs past the histogram's counts is refused, whichever
// way it gets there, and leaves no count behind in the spare slot.
func TestAddCountsRefusesPastTheEnd(t *testing.T) {
	payload := func(vals ...int64) []byte {
		var p []byte
		for _, v := range vals {
			p = appendZigZag(p, v)
		}
		return p
	}
	const n = 8
	for _, c := range []struct {
		name string
		p    []byte
		ok   bool
	}{
		{"every count", payload(1, 2, 3, 4, 5, 6, 7, 8), true},
		{"a run to the end", payload(1, -7), true},
		{"a count past the end", payload(-8, 5), false},
		{"a zero count past the end", payload(-8, 0), false},
		{"a run past the end", payload(1, -8), false},
		{"a long count past the end", payload(-8, 1<<40), false},
		{"a long run past the end", payload(-(1 << 20)), false},
	} {
		counts := make([]int64, n+1)
		_, err := addCounts(counts, c.p)
		if (err == nil) != c.ok {
			t.Errorf("%s: error %v, want ok=%v", c.name, err, c.ok)
		}
		if c.ok && counts[n] != 0 {
			t.Errorf("%s: the spare count is %d", c.name, counts[n])
		}
	}
	var a histAcc
	h := hdr.New(1, 1000, 1)
	h.RecordValue(3)
	if err := a.add(enc(t, h)); err != nil {
		t.Fatal(err)
	}
	if spare := a.counts[:len(a.counts)+1][len(a.counts)]; spare != 0 {
		t.Errorf("the spare count is %d after a valid histogram", spare)
	}
}
