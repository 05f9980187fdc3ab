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
// the live heap when that is larger). A GOGC in the environment turns it
// off. The collections a phase made are in its result (client.gc_cycles).

// gcHeadroom is how far the heap may grow past what is live.
const gcHeadroom = 64 << 20

// gcPacer is the collector's setting for one run phase.
type gcPacer struct {
	on      bool
	old     int    // GOGC before the phase
	percent int    // GOGC now
	cycles0 uint64 // collections before the phase
	samples []metrics.Sample
}

const (
	metricLive   = "/gc/heap/live:bytes"
	metricCycles = "/gc/cycles/total:gc-cycles"
)

// startGCPacer collects once, so the phase starts from what is live, and
// sets the goal from it, unless the environment sets GOGC.
func startGCPacer() *gcPacer {
	p := &gcPacer{samples: []metrics.Sample{{Name: metricLive}, {Name: metricCycles}}}
	if os.Getenv("GOGC") != "" {
		p.cycles0 = p.read()[1]
		return p
	}
	runtime.GC()
	p.on = true
	v := p.read()
	p.cycles0 = v[1]
	p.percent = gcPercent(v[0])
	p.old = debug.SetGCPercent(p.percent)
	return p
}

// read returns the live heap and the collections so far.
func (p *gcPacer) read() [2]uint64 {
	metrics.Read(p.samples)
	var v [2]uint64
	for i, s := range p.samples {
		if s.Value.Kind() == metrics.KindUint64 {
			v[i] = s.Value.Uint64()
		}
	}
	return v
}

// gcPercent is the GOGC that puts the heap goal gcHeadroom past live bytes,
// and never under Go's default.
func gcPercent(live uint64) int {
	if live == 0 {
		live = 1
	}
	return max(100, int(min(gcHeadroom*100/live, 1<<30)))
}

// tick sets the goal again from the live heap the last collection left.
func (p *gcPacer) tick() {
	if !p.on {
		return
	}
	if pct := gcPercent(p.read()[0]); pct != p.percent {
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
	return p.read()[1] - p.cycles0
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
