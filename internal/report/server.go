package report

import (
	"fmt"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"github.com/candor-bench/candor/internal/result"
)

// hasServerCounters says whether some phase of r recorded a sample of
// the server's counters.
func hasServerCounters(r *result.Result) bool {
	for i := range r.Phases {
		if s := r.Phases[i].Server; s != nil && len(s.Samples) > 0 && len(s.Counters) > 0 {
			return true
		}
	}
	return false
}

// serverCaption lists what could not be read, when anything could not.
func serverCaption(r *result.Result) string {
	seen := map[string]string{}
	for i := range r.Phases {
		if s := r.Phases[i].Server; s != nil {
			for k, v := range s.Unavailable {
				seen[k] = v
			}
		}
	}
	if len(seen) == 0 {
		return ""
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := "Not available:"
	for i, k := range keys {
		if i > 0 {
			out += ";"
		}
		out += " " + k + " (" + firstLine(seen[k]) + ")"
	}
	return out
}

// drawServerCounters draws one panel per group of the server's counters
// (transactions, checkpoints, WAL, sizes...), each with the run's total
// throughput, all on one time axis from the command's start. Cumulative
// counters are drawn as their rate between samples, gauges as read. So
// that a throughput that falls while checkpoints rise shows on one chart,
// every line is drawn as a percentage of its own peak in the result, and
// the legend gives the peak.
func drawServerCounters(r *result.Result) ([]byte, error) {
	offsetOf := func(ph *result.Phase) float64 {
		if r.Started.IsZero() || ph.Started.IsZero() {
			return 0
		}
		return ph.Started.Sub(r.Started).Seconds()
	}
	// Throughput: every operation's rate summed per interval, rows per
	// second for a load (its operations are batches), without the short
	// tail of a phase that just ended.
	var thr plotter.XYs
	for pi := range r.Phases {
		ph := &r.Phases[pi]
		off := offsetOf(ph)
		scale := 1.0
		if ph.Name == "load" {
			var batches int64
			for _, iv := range ph.Intervals {
				for _, o := range iv.Ops {
					batches += o.Count
				}
			}
			if batches > 0 && ph.Rows > 0 {
				scale = float64(ph.Rows) / float64(batches)
			}
		}
		for _, iv := range ph.Intervals {
			if iv.LengthSec < r.Run.ReportInterval/2 {
				continue
			}
			sum := 0.0
			for _, o := range iv.Ops {
				sum += o.Rate * scale
			}
			thr = append(thr, plotter.XY{X: off + iv.ElapsedSec, Y: sum})
		}
	}
	type series struct {
		label string
		unit  string
		xy    plotter.XYs
	}
	groups := map[string][]*series{}
	var order []string
	for pi := range r.Phases {
		ph := &r.Phases[pi]
		sc := ph.Server
		if sc == nil {
			continue
		}
		off := offsetOf(ph)
		for _, c := range sc.Counters {
			if _, ok := groups[c.Group]; !ok {
				order = append(order, c.Group)
			}
			var s *series
			for _, x := range groups[c.Group] {
				if x.label == c.Name {
					s = x
				}
			}
			if s == nil {
				s = &series{label: c.Name, unit: c.Unit}
				groups[c.Group] = append(groups[c.Group], s)
			}
			var prevT, prevV float64
			have := false
			for _, smp := range sc.Samples {
				v, ok := smp.Values[c.Name]
				if !ok {
					continue
				}
				x := off + smp.ElapsedSec
				if c.Kind != "counter" {
					s.xy = append(s.xy, plotter.XY{X: x, Y: v})
					continue
				}
				// A rate needs two readings; a counter that went back
				// (a server restart, a reset) starts again.
				if have && smp.ElapsedSec > prevT && v >= prevV {
					s.xy = append(s.xy, plotter.XY{X: x, Y: (v - prevV) / (smp.ElapsedSec - prevT)})
				}
				prevT, prevV, have = smp.ElapsedSec, v, true
			}
		}
	}
	sort.Strings(order)
	var plots []*plot.Plot
	for _, g := range order {
		p := newPlot(g, "seconds", "% of the line's peak")
		n := 0
		add := func(xy plotter.XYs, label string, bytes bool, i, dash int) error {
			peak := 0.0
			for _, v := range xy {
				peak = max(peak, v.Y)
			}
			norm := make(plotter.XYs, len(xy))
			for j, v := range xy {
				norm[j] = v
				if peak > 0 {
					norm[j].Y = 100 * v.Y / peak
				}
			}
			n++
			pk := compact(peak)
			if bytes {
				pk = fmtBytes(int64(peak))
			}
			return addLine(p, clean(norm, false), i, dash, fmt.Sprintf("%s (peak %s)", label, pk), false)
		}
		if err := add(thr, "throughput per s", false, 0, 1); err != nil {
			return nil, err
		}
		for i, s := range groups[g] {
			label := s.label
			if s.unit != "" && s.unit != "bytes" {
				label += ", " + s.unit
			}
			if isRate(r, s.label) {
				label += "/s"
			}
			if err := add(s.xy, label, s.unit == "bytes", i+1, 0); err != nil {
				return nil, err
			}
		}
		p.Y.Min, p.Y.Max = 0, 105
		p.X.Min = 0
		plots = append(plots, p)
	}
	if len(plots) == 0 {
		return nil, fmt.Errorf("no server counters recorded")
	}
	return render(plots...)
}

// isRate says whether name is a cumulative counter in r (drawn per second).
func isRate(r *result.Result, name string) bool {
	for i := range r.Phases {
		if s := r.Phases[i].Server; s != nil {
			for _, c := range s.Counters {
				if c.Name == name {
					return c.Kind == "counter"
				}
			}
		}
	}
	return false
}
