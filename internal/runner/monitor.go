package runner

import (
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/candor-bench/candor/internal/measure"
	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/target"
)

// monitor ticks the collector every report interval: it makes the interval
// records, prints the status lines and samples the client's resource use.
type monitor struct {
	r          *Runner
	name       string
	start      time.Time
	warmEnd    time.Time
	coll       *measure.Collector
	intervals  []result.Interval
	samples    []result.UsageSample
	first      measure.Usage
	prev       measure.Usage
	last       measure.Usage
	counters   []string
	reconnects *atomic.Int64
	down       *atomic.Int64 // workers without a session now (run phase)
	lastRecon  int64
	queue      *backlog // open-loop run phases
	dropped    *int64   // open-loop run phases: set when the workers are done
	final      bool     // the tick after the workers are done
	active     []bool   // by operation: it has finished or failed in some interval
	gc         *gcPacer // run phases
	// the machine's load averages as the phase started
	loadStart   [3]float64
	loadStartOK bool
	// load progress
	loadTotal int64
	loadBytes int64 // the load's approximate size (loadBytes); 0 = unknown
}

func newMonitor(r *Runner, name string, start time.Time, coll *measure.Collector) *monitor {
	u := measure.SampleUsage()
	m := &monitor{r: r, name: name, start: start, coll: coll, first: u, prev: u, last: u}
	m.loadStart, m.loadStartOK = measure.LoadAvg()
	return m
}

// machineLoad is the machine's load over the phase: the load averages at
// its start and now, and the CPU stolen between the first and last usage
// samples; nil where /proc has no load averages.
func (m *monitor) machineLoad() *result.MachineLoad {
	end, ok := measure.LoadAvg()
	if !ok || !m.loadStartOK {
		return nil
	}
	ml := &result.MachineLoad{Phase: m.name, Start: m.loadStart, End: end}
	if st, ok := measure.StealShare(m.first, m.last); ok {
		ml.Steal = &st
	}
	return ml
}

// loop ticks until done is closed, then makes a final tick. rows reports load
// progress (rows done so far) for the progress bar.
func (m *monitor) loop(done <-chan struct{}, rows func() int64) {
	every := m.r.Config.ReportInterval
	next := m.start.Add(every)
	warmPending := m.warmEnd.After(m.start)
	for {
		at := next
		if warmPending && m.warmEnd.Before(at) {
			at = m.warmEnd
		}
		t := time.NewTimer(time.Until(at))
		select {
		case <-done:
			t.Stop()
			m.final = true
			m.tick(time.Now(), rows())
			m.finishLine()
			return
		case <-t.C:
		}
		now := time.Now()
		m.tick(now, rows())
		if warmPending && !now.Before(m.warmEnd) {
			warmPending = false
			m.coll.ResetTotal()
			if m.r.Status != nil {
				fmt.Fprintf(m.r.Status, "[%s] warm-up over after %s; measuring\n", m.name, m.warmEnd.Sub(m.start).Round(time.Millisecond))
			}
		}
		for !next.After(now) {
			next = next.Add(every)
		}
	}
}

// tick closes one interval.
func (m *monitor) tick(now time.Time, rows int64) {
	snap := m.coll.Tick(now)
	if m.gc != nil {
		m.gc.tick()
	}
	u := measure.SampleUsage()
	d := measure.Delta(m.prev, u)
	m.prev, m.last = u, u
	length := snap.End.Sub(snap.Start).Seconds()
	iv := result.Interval{
		Phase: m.name, Index: len(m.intervals), Start: snap.Start,
		ElapsedSec: now.Sub(m.start).Seconds(), LengthSec: length,
		Warmup: snap.Start.Before(m.warmEnd),
		// The final record of a phase, when short, is the moments between
		// its end and its workers' return: not an interval of its own.
		Tail:   m.final && length < m.r.Config.ReportInterval.Seconds()/2,
		Client: &result.UsageSample{ElapsedSec: now.Sub(m.start).Seconds(), Cores: d.ClientCores, RSS: d.RSS, HostBusy: d.HostBusy},
	}
	for _, s := range snap.Ops {
		iop := result.IntervalOp{Name: s.Name, Count: s.Count(), Errors: s.ErrorCount(), Unfinished: s.Unfinished}
		if length > 0 {
			iop.Rate = float64(iop.Count) / length
		}
		if h := s.H[measure.Latency]; h != nil && h.TotalCount() > 0 {
			p := h.ValueAtPercentilesSlice([]float64{50, 99})
			iop.P50, iop.P99, iop.Max, iop.Mean = p[0], p[1], h.Max(), h.Mean()
			iop.Histogram, _ = result.EncodeHistogram(h)
		}
		if iop.Errors > 0 {
			iop.ByClass = classMap(s.Errors)
		}
		iv.Ops = append(iv.Ops, iop)
	}
	if len(m.counters) > 0 {
		iv.Counters = map[string]int64{}
		for i, n := range snap.Counters {
			iv.Counters[m.counters[i]] = n
		}
	}
	if m.reconnects != nil {
		now := m.reconnects.Load()
		iv.Reconnects = now - m.lastRecon
		m.lastRecon = now
	}
	if m.down != nil && !m.final {
		iv.NoSession = int(m.down.Load())
	}
	if m.queue != nil {
		q, c := m.queue.sample(now.Sub(m.start))
		iv.Queue, iv.Concurrency = &q, &c
	}
	if m.loadTotal > 0 {
		iv.RowsDone = rows
	}
	if m.final && m.dropped != nil {
		d := *m.dropped
		iv.Dropped = &d
	}
	m.intervals = append(m.intervals, iv)
	m.samples = append(m.samples, *iv.Client)
	if m.r.Intervals != nil {
		m.r.Intervals(iv)
	}
	m.status(iv, rows)
}

func classMap(errs [measure.NumClasses]int64) map[string]int64 {
	out := map[string]int64{}
	for i, n := range errs {
		if n > 0 && i < len(target.Classes) {
			out[string(target.Classes[i])] += n
		}
	}
	return out
}

// status prints one line per interval: per operation ops/s, p50, p99, errors;
// for a load, a progress bar with rate and ETA.
func (m *monitor) status(iv result.Interval, rows int64) {
	w := m.r.Status
	if w == nil {
		return
	}
	if m.loadTotal > 0 {
		elapsed := iv.ElapsedSec
		rate := 0.0
		if elapsed > 0 {
			rate = float64(rows) / elapsed
		}
		eta := "--"
		if rate > 0 && rows < m.loadTotal {
			eta = (time.Duration(float64(m.loadTotal-rows)/rate) * time.Second).Round(time.Second).String()
		}
		frac := float64(rows) / float64(m.loadTotal)
		const width = 30
		filled := int(frac * width)
		if filled > width {
			filled = width
		}
		bar := strings.Repeat("#", filled) + strings.Repeat(".", width-filled)
		line := fmt.Sprintf("[load] %7.1fs [%s] %5.1f%% %d/%d rows %.0f rows/s ETA %s",
			elapsed, bar, 100*frac, rows, m.loadTotal, rate, eta)
		if m.loadBytes > 0 {
			line += fmt.Sprintf(" ~%s of ~%s", FormatBytes(int64(frac*float64(m.loadBytes))), FormatBytes(m.loadBytes))
		}
		if m.r.StatusTTY {
			fmt.Fprintf(w, "\r%-130s", line)
		} else {
			fmt.Fprintln(w, line)
		}
		return
	}
	if iv.LengthSec < m.r.Config.ReportInterval.Seconds()/2 && !hasOps(iv) {
		// The empty tail of a phase that just ended: a line only to say
		// what was dropped, labelled as the end rather than again with the
		// last line's time.
		if iv.Dropped != nil && *iv.Dropped > 0 {
			fmt.Fprintf(w, "[%s] %8s | dropped %s\n", m.name, "end", result.Thousands(*iv.Dropped))
		}
		return
	}
	if m.r.StatusLine != nil {
		if line := m.r.StatusLine(iv, m.r.Config.Threads); line != "" {
			fmt.Fprintln(w, line)
		}
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[%s] %7.1fs", m.name, iv.ElapsedSec)
	if iv.Warmup {
		b.WriteString(" (warm-up)")
	}
	if m.active == nil {
		m.active = make([]bool, len(iv.Ops))
	}
	shown := false
	for i, o := range iv.Ops {
		if o.Count > 0 || o.Errors > 0 {
			m.active[i] = true
		}
		// An operation the workload runs is shown at 0 ops/s when none
		// finished (an outage), not left out.
		if !m.active[i] {
			continue
		}
		shown = true
		fmt.Fprintf(&b, " | %s %.0f ops/s p50 %s p99 %s err %d", o.Name, o.Rate, result.FormatNs(o.P50), result.FormatNs(o.P99), o.Errors)
	}
	if !shown {
		b.WriteString(" | 0 ops/s")
	}
	if iv.Reconnects > 0 {
		fmt.Fprintf(&b, " | reconnects %d", iv.Reconnects)
	}
	if iv.NoSession > 0 {
		fmt.Fprintf(&b, " | without a session %d", iv.NoSession)
	}
	if iv.Dropped != nil && *iv.Dropped > 0 {
		fmt.Fprintf(&b, " | dropped %s", result.Thousands(*iv.Dropped))
	}
	fmt.Fprintln(w, b.String())
}

// cpuNsPer is the client CPU the phase used per unit of work (operation or
// row), from the first and last usage samples.
func (m *monitor) cpuNsPer(n int64) float64 {
	if n <= 0 {
		return 0
	}
	return (m.last.ProcCPU - m.first.ProcCPU) * 1e9 / float64(n)
}

func hasOps(iv result.Interval) bool {
	for _, o := range iv.Ops {
		if o.Count > 0 || o.Errors > 0 {
			return true
		}
	}
	return false
}

func (m *monitor) finishLine() {
	if m.loadTotal > 0 && m.r.StatusTTY && m.r.Status != nil {
		fmt.Fprintln(m.r.Status)
	}
}

// phase builds the phase record from what the monitor collected.
func (m *monitor) phase(end time.Time) *result.Phase {
	p := &result.Phase{Name: m.name, Started: m.start, Ended: end, Intervals: m.intervals, MachineLoad: m.machineLoad()}
	d := measure.Delta(m.first, m.last)
	p.Client = result.ClientUsage{Samples: m.samples, AvgCores: d.ClientCores, HostBusy: d.HostBusy}
	for _, s := range m.samples {
		if s.RSS > p.Client.MaxRSS {
			p.Client.MaxRSS = s.RSS
		}
	}
	// Judge saturation only over a second or more, and never for an
	// embedded database: its work is the client's CPU by construction.
	judge := end.Sub(m.start) >= time.Second && !m.r.Target.Capabilities().Embedded
	switch {
	case !judge:
	case d.ClientShare >= 0.9:
		p.Client.Saturated = true
		p.Client.SaturatedCause = fmt.Sprintf("the client used %.0f%% of its %.0f cores", 100*d.ClientShare, d.ClientCores/d.ClientShare)
	case d.HostBusy >= 0.95 && d.ClientShare >= 0.5:
		p.Client.Saturated = true
		p.Client.SaturatedCause = fmt.Sprintf("the host was %.0f%% busy and the client used %.0f%% of it", 100*d.HostBusy, 100*d.ClientShare)
	}
	return p
}
