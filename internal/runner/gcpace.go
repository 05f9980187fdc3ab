package runner

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"

	"github.com/candor-bench/candor/internal/result"
)

// Garbage collection during a run phase.
//
// With Go's default GOGC=100 the heap may grow to twice what is live before
// the next collection, and a run holds little (histograms and buffers, a few
// MB), so a client allocating a few dozen bytes per operation collects every
// second or two. A collection starts mark workers on idle Ps and so wakes
// threads on other cores, and with client and server sharing the cores that
// disturbs how the kernel keeps each session next to its server process. On
// oltp_point_select with 4 threads on two cores, with the other wake-ups of
// the kind gone (blockconn's yield, the PostgreSQL driver's timer), candor
// ran at 0.95–0.99× sysbench's rate with the default and 1.03–1.04× with
// collections this far apart (docs/BENCHMARKS.md §7, "A quiet client").
//
// gcPacer sets the goal to the live heap plus gcHeadroom instead, and sets
// it again at every report tick from what the last collection left, so the
// heap stays within live + gcHeadroom however long the run (and within twice
// the live heap when that is larger). Go's goal is the live heap plus GOGC
// percent of the live heap, the goroutine stacks and the globals together,
// and never under GOGC percent of a 4 MiB minimum (goHeapMinimum), so a
// GOGC computed from the live heap alone let a run whose live heap is a few
// hundred KB grow its heap to 300 MB. A GOGC in the environment turns the
// pacer off. The collections a phase made are in its result
// (client.gc_cycles).

// gcHeadroom is how far the heap may grow past what is live.
const gcHeadroom = 64 << 20

// goHeapMinimum is the runtime's heap minimum at GOGC=100, which it scales
// with GOGC (defaultHeapMinimum in runtime/mgcpacer.go).
const goHeapMinimum = 4 << 20

// gcPacer is the collector's setting for one run phase.
type gcPacer struct {
	on      bool
	old     int    // GOGC before the phase
	percent int    // GOGC now
	cycles0 uint64 // collections before the phase
	samples []metrics.Sample
}

// The metrics the pacer reads, in its samples' order.
var gcMetrics = []string{
	"/gc/heap/live:bytes",
	"/gc/scan/stack:bytes",
	"/gc/scan/globals:bytes",
	"/gc/cycles/total:gc-cycles",
}

// gcSample is what the pacer reads: what GOGC multiplies (the live heap,
// the stacks and the globals), the live heap alone, and the collections.
type gcSample struct {
	base, live, cycles uint64
}

// startGCPacer collects once, so the phase starts from what is live, and
// sets the goal from it, unless the environment sets GOGC.
func startGCPacer() *gcPacer {
	p := &gcPacer{samples: make([]metrics.Sample, len(gcMetrics))}
	for i, name := range gcMetrics {
		p.samples[i].Name = name
	}
	if os.Getenv("GOGC") != "" {
		p.cycles0 = p.read().cycles
		return p
	}
	runtime.GC()
	p.on = true
	v := p.read()
	p.cycles0 = v.cycles
	p.percent = gcPercent(v.base, v.live)
	p.old = debug.SetGCPercent(p.percent)
	return p
}

// read returns what the collector last measured and the collections so far.
func (p *gcPacer) read() gcSample {
	metrics.Read(p.samples)
	var v [4]uint64
	for i, s := range p.samples {
		if s.Value.Kind() == metrics.KindUint64 {
			v[i] = s.Value.Uint64()
		}
	}
	return gcSample{base: v[0] + v[1] + v[2], live: v[0], cycles: v[3]}
}

// gcPercent is the GOGC that puts the heap goal at most gcHeadroom past the
// live heap, given base, what GOGC multiplies (live heap, stacks, globals),
// and never under Go's default: the goal is the larger of live + base*GOGC/100
// and goHeapMinimum*GOGC/100.
func gcPercent(base, live uint64) int {
	pct := min((live+gcHeadroom)*100/goHeapMinimum, gcHeadroom*100/max(base, 1))
	return max(100, int(pct))
}

// tick sets the goal again from what the last collection left.
func (p *gcPacer) tick() {
	if !p.on {
		return
	}
	v := p.read()
	if pct := gcPercent(v.base, v.live); pct != p.percent {
		p.percent = pct
		debug.SetGCPercent(pct)
	}
}

// stop restores the setting from before the phase, if the pacer changed it,
// and returns the collections made since the phase began.
func (p *gcPacer) stop() uint64 {
	if p.on {
		debug.SetGCPercent(p.old)
		p.on = false
	}
	return p.read().cycles - p.cycles0
}

// finish stops the pacer and records the phase's collections and headroom
// in c.
func (p *gcPacer) finish(c *result.ClientUsage) {
	paced := p.on
	cycles := p.stop()
	c.GCCycles = &cycles
	if paced {
		c.GCHeadroom = gcHeadroom
	}
}
