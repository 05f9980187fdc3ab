//go:build unix

package result

import (
	"fmt"
	"math"
	"math/rand"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// BenchmarkMerge64Shards10Min reads, merges and writes 64 shard results of
// a 10-minute run (600 one-second intervals, two operations, each interval
// with its histogram), as candor merge does.
func BenchmarkMerge64Shards10Min(b *testing.B) {
	dir := b.TempDir()
	rng := rand.New(rand.NewSource(3))
	// A pool of interval histograms, reused: the merge decodes every one.
	var pool []string
	for range 64 {
		h := newHist()
		// A latency distribution as services have: log-normal about
		// 500 µs, with a tail to tens of milliseconds.
		for range 2000 {
			h.RecordValue(int64(500_000 * math.Exp(0.8*rng.NormFloat64())))
		}
		pool = append(pool, enc(b, h))
	}
	start := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	var files []string
	for i := range 64 {
		r := shardResult(b, i, 64, start, [][]int64{{1000}})
		p := &r.Phases[0]
		p.Intervals = nil
		for k := range 600 {
			iv := Interval{Phase: "run", Index: k, Start: start.Add(time.Duration(k)*time.Second + time.Duration(i)*time.Millisecond), ElapsedSec: float64(k + 1), LengthSec: 1}
			for _, name := range []string{"READ", "UPDATE"} {
				iv.Ops = append(iv.Ops, IntervalOp{Name: name, Count: 2000, Rate: 2000, Histogram: pool[rng.Intn(len(pool))]})
			}
			p.Intervals = append(p.Intervals, iv)
		}
		f := filepath.Join(dir, fmt.Sprintf("shard-%d.json", i))
		if err := Write(f, r); err != nil {
			b.Fatal(err)
		}
		files = append(files, f)
	}
	// CPU time per merge, beside the wall-clock ns/op: on a shared host the
	// wall clock says more about the other processes than about the merge.
	var before, after syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	b.ResetTimer()
	defer func() {
		syscall.Getrusage(syscall.RUSAGE_SELF, &after)
		cpu := time.Duration(after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano())
		b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
	}()
	for range b.N {
		rs, err := ReadAll(files)
		if err != nil {
			b.Fatal(err)
		}
		var in []MergeInput
		for i, r := range rs {
			in = append(in, MergeInput{File: files[i], Result: r})
		}
		m, err := Merge(in)
		if err != nil {
			b.Fatal(err)
		}
		if err := WriteCompact(filepath.Join(dir, "merged.json"), m); err != nil {
			b.Fatal(err)
		}
	}
}
