package result

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

func newHist() *hdr.Histogram { return hdr.New(1, 3_600_000_000_000, 3) }

func enc(t testing.TB, h *hdr.Histogram) string {
	s, err := EncodeHistogram(h)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// shardResult is a shard of a run phase with one operation whose latencies
// are vals, one interval per second from start.
func shardResult(t testing.TB, i, n int, start time.Time, vals [][]int64) *Result {
	all := newHist()
	p := Phase{Name: "run", Status: StatusComplete, Started: start, Ended: start.Add(time.Duration(len(vals)) * time.Second), DurationSec: float64(len(vals))}
	for k, iv := range vals {
		h := newHist()
		for _, v := range iv {
			h.RecordValue(v)
			all.RecordValue(v)
		}
		p.Intervals = append(p.Intervals, Interval{Phase: "run", Index: k, Start: start.Add(time.Duration(k) * time.Second),
			ElapsedSec: float64(k + 1), LengthSec: 1, Ops: []IntervalOp{{Name: "READ", Count: int64(len(iv)), Histogram: enc(t, h), Max: h.Max()}}})
	}
	p.Ops = []OpResult{{Name: "READ", Count: all.TotalCount(), Errors: map[string]int64{"timeout": int64(i)},
		Latency: Summarize(all), Histograms: map[string]string{"latency": enc(t, all)}}}
	p.Operations = all.TotalCount()
	return &Result{Schema: SchemaVersion, ID: fmt.Sprintf("shard-%d", i), Status: StatusComplete,
		Provenance: Provenance{CandorVersion: "1.0"}, Workload: Workload{Name: "ycsb/c", Options: map[string]any{"recordcount": 1000, "insertstart": i * 10}},
		Run:    RunConfig{Threads: 2, ReportInterval: 1, DurationSec: float64(len(vals))},
		Shard:  &ShardInfo{RunID: "r1", Index: i, Count: n, Threads: 8, Clock: &ClockOffset{Source: "server", OffsetNs: int64(i) * 1000}},
		Phases: []Phase{p}}
}

func randomVals(rng *rand.Rand, intervals, per int) [][]int64 {
	out := make([][]int64, intervals)
	for k := range out {
		for range per {
			out[k] = append(out[k], 1000+rng.Int63n(50_000_000))
		}
	}
	return out
}

// The merged percentiles are those of one histogram holding every value:
// the histograms are added, never averaged.
func TestMergeAddsHistograms(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	start := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	const n = 3
	var in []MergeInput
	all := newHist()
	perInterval := []*hdr.Histogram{newHist(), newHist()}
	for i := range n {
		vals := randomVals(rng, 2, 500+i*300)
		for k, iv := range vals {
			for _, v := range iv {
				all.RecordValue(v)
				perInterval[k].RecordValue(v)
			}
		}
		// Shards' clocks and starts differ by a few milliseconds.
		in = append(in, MergeInput{File: fmt.Sprintf("s%d.json", i), Result: shardResult(t, i, n, start.Add(time.Duration(i)*3*time.Millisecond), vals)})
	}
	m, err := Merge(in)
	if err != nil {
		t.Fatal(err)
	}
	op := m.Phases[0].Ops[0]
	if want := Summarize(all); *op.Latency != *want {
		t.Errorf("merged latency %+v, want %+v", *op.Latency, *want)
	}
	if op.Errors["timeout"] != 0+1+2 {
		t.Errorf("errors %v, want 3 timeouts", op.Errors)
	}
	if m.Run.Threads != 2*n || m.Merged.Count != n || len(m.Merged.Shards) != n || m.Merged.Shards[2].Clock.OffsetNs != 2000 {
		t.Errorf("merged run %+v, shards %+v", m.Run, m.Merged)
	}
	if got := len(m.Phases[0].Intervals); got != 2 {
		t.Fatalf("%d merged intervals, want 2 (aligned on wall-clock seconds)", got)
	}
	for k, iv := range m.Phases[0].Intervals {
		h := perInterval[k]
		p := h.ValueAtPercentilesSlice([]float64{50, 99})
		o := iv.Ops[0]
		if o.Count != h.TotalCount() || o.P50 != p[0] || o.P99 != p[1] || o.Max != h.Max() {
			t.Errorf("interval %d: %+v, want count %d p50 %d p99 %d max %d", k, o, h.TotalCount(), p[0], p[1], h.Max())
		}
		if !iv.Start.Equal(start.Add(time.Duration(k) * time.Second)) {
			t.Errorf("interval %d starts %s", k, iv.Start)
		}
	}
}

func TestHistAccEqualsHdrMerge(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	var a histAcc
	want := newHist()
	for range 20 {
		h := newHist()
		for range 1 + rng.Intn(2000) {
			v := 1 + rng.Int63n(3_600_000_000_000)>>uint(rng.Intn(40))
			n := 1 + rng.Int63n(1<<uint(rng.Intn(40)))
			h.RecordValues(v, n)
		}
		want.Merge(h)
		if err := a.add(enc(t, h)); err != nil {
			t.Fatal(err)
		}
	}
	if got := a.histogram(); !got.Equals(want) {
		t.Errorf("accumulated histogram differs from hdr's Merge: total %d vs %d", got.TotalCount(), want.TotalCount())
	}
	text, err := a.encode()
	if err != nil {
		t.Fatal(err)
	}
	if got, err := DecodeHistogram(text); err != nil || !got.Equals(want) {
		t.Errorf("the sum's own encoding does not decode to it: %v", err)
	}
	// Another geometry goes the plain way, and still adds up.
	other := hdr.New(1, 1000, 2)
	other.RecordValue(5)
	if err := a.add(enc(t, other)); err != nil {
		t.Fatal(err)
	}
	if got := a.histogram().TotalCount(); got != want.TotalCount()+1 {
		t.Errorf("total %d after another geometry, want %d", got, want.TotalCount()+1)
	}
	if err := a.add("HISTFAAAAB942pNpmSzMwMDAxAABzAwMAAAA//8="); err == nil {
		t.Error("a truncated histogram was accepted")
	}
}

func TestMergeRefuses(t *testing.T) {
	start := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	vals := [][]int64{{1000, 2000}}
	two := func(edit func(b *Result)) []MergeInput {
		a, b := shardResult(t, 0, 2, start, vals), shardResult(t, 1, 2, start, vals)
		edit(b)
		return []MergeInput{{File: "a.json", Result: a}, {File: "b.json", Result: b}}
	}
	for _, c := range []struct {
		name string
		in   []MergeInput
		want string
	}{
		{"itself", two(func(b *Result) { b.ID = "shard-0" }), "cannot be merged with itself"},
		{"other run", two(func(b *Result) { b.Shard.RunID = "r2" }), `the run id differs: a.json has "r1", b.json has "r2"`},
		{"N differs", two(func(b *Result) { b.Shard.Count = 3 }), "the shard count N differs: a.json has 2, b.json has 3"},
		{"version", two(func(b *Result) { b.Provenance.CandorVersion = "1.1" }), "the candor version differs"},
		{"options", two(func(b *Result) { b.Workload.Options = map[string]any{"recordcount": 2000} }), "the workload options differ"[:24]},
		{"same index", two(func(b *Result) { b.Shard.Index = 0 }), "are both shard 0"},
		{"missing", []MergeInput{{File: "a.json", Result: shardResult(t, 0, 2, start, vals)}}, "shard 1 of 2 missing"},
		{"not a shard", two(func(b *Result) { b.Shard = nil }), "b.json is not a shard result"},
		// the 16:24:50–56 and 16:24:57–25:03: one after the other
		{"not together", two(func(b *Result) {
			b.Phases[0].Started = b.Phases[0].Started.Add(1100 * time.Millisecond)
			b.Phases[0].Ended = b.Phases[0].Ended.Add(1100 * time.Millisecond)
		}), "did not run together (0s in common"},
		// the issue's --threads 8 and --threads 4 under one run id
		{"threads", two(func(b *Result) { b.Shard.Threads = 4 }), "--threads (the total split over the shards) differs: a.json has 8, b.json has 4"},
		{"operations", two(func(b *Result) { b.Shard.Operations = 10 }), "--operations (the total split over the shards) differs"},
		{"rate", two(func(b *Result) { b.Shard.Rate = 10 }), "--rate (the total split over the shards) differs"},
		{"inconsistent", two(func(b *Result) { b.Status, b.BrokenLaws = StatusInconsistent, []string{"attempts: x"} }), "breaks the laws of its own arithmetic"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Merge(c.in)
			if !errors.Is(err, ErrMerge) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one saying %q", err, c.want)
			}
		})
	}
	// Per-shard options (insertstart) and two differences at once.
	_, err := Merge(two(func(b *Result) { b.Run.DurationSec = 5; b.Target.Version = "17" }))
	var me *MergeError
	if !errors.As(err, &me) || len(me.Problems) != 2 {
		t.Errorf("error %v, want the two differences listed", err)
	}
}

// TestHistAccDamaged: every byte of an encoded histogram flipped in turn,
// and every truncation, is either read as some histogram or refused with an
// error; none panics, and an input refused leaves the sum as it was.
func TestHistAccDamaged(t *testing.T) {
	h := newHist()
	for v := int64(1); v < 1e12; v = v*3 + 7 {
		h.RecordValues(v, v%97+1)
	}
	good, err := base64.StdEncoding.DecodeString(enc(t, h))
	if err != nil {
		t.Fatal(err)
	}
	try := func(b []byte) {
		var a histAcc
		if err := a.add(enc(t, h)); err != nil {
			t.Fatal(err)
		}
		before := a.histogram().TotalCount()
		if err := a.add(base64.StdEncoding.EncodeToString(b)); err != nil && a.histogram().TotalCount() != before {
			t.Fatalf("a refused input changed the sum: %d, was %d", a.histogram().TotalCount(), before)
		}
	}
	for i := range good {
		for _, x := range []byte{0x01, 0x80, 0xff} {
			b := bytes.Clone(good)
			b[i] ^= x
			try(b)
		}
		try(good[:i])
	}
}
