package report

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"image/color"
	"math"
	"regexp"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/candor-bench/candor/internal/result"
)

// Every chart is a gonum/plot plot drawn on a vgsvg canvas; this file only
// chooses data, scales, ticks and labels.

const (
	chartWidth = 7 * vg.Inch
	panelH     = 3 * vg.Inch
)

// newPlot is plot.New with a sans-serif face for every text.
func newPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	sans := func(f *font.Font) { f.Typeface, f.Variant = "Liberation", "Sans" }
	sans(&p.Title.TextStyle.Font)
	p.Title.TextStyle.Font.Size = vg.Points(11)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		sans(&a.Label.TextStyle.Font)
		sans(&a.Tick.Label.Font)
	}
	sans(&p.Legend.TextStyle.Font)
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.ThumbnailWidth = vg.Points(14)
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.Add(plotter.NewGrid())
	return p
}

// render draws the plots stacked vertically into one SVG. Each plot's
// legend is drawn beside it, in a band to the right of every plot's area
// (never over the lines, never outside the picture).
func render(plots ...*plot.Plot) ([]byte, error) {
	legends := make([]plot.Legend, len(plots))
	band := vg.Length(0)
	for i, p := range plots {
		legends[i] = p.Legend
		empty := plot.NewLegend()
		empty.TextStyle = p.Legend.TextStyle
		p.Legend = empty
		if r := legends[i].Rectangle(draw.Canvas{}); r.Size().X > band {
			band = r.Size().X
		}
	}
	if band > 0 {
		// A browser without Liberation Sans draws the text in a wider
		// face (DejaVu Sans: about 15% wider): room for it.
		band = band*5/4 + legendGap
	}
	c := vgsvg.New(chartWidth+band, panelH*vg.Length(len(plots)))
	dc := draw.New(c)
	area := draw.Crop(dc, 0, -band, 0, 0)
	rows := make([][]*plot.Plot, len(plots))
	for i, p := range plots {
		rows[i] = []*plot.Plot{p}
	}
	var err error
	func() {
		// gonum/plot panics on degenerate data; report it as an error
		// instead of taking the command down.
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("draw chart: %v", r)
			}
		}()
		canv := plot.Align(rows, draw.Tiles{Rows: len(plots), Cols: 1, PadY: vg.Points(10), PadTop: vg.Points(4), PadBottom: vg.Points(4),
			PadLeft: vg.Points(6), PadRight: vg.Points(10)}, area) // PadRight: room for the last x tick label, centred on the right edge
		for i, p := range plots {
			p.Draw(canv[i][0])
			if band > 0 {
				lc := canv[i][0]
				lc.Min.X, lc.Max.X = area.Max.X+legendGap/2, dc.Max.X
				lc.Max.Y -= vg.Points(6)
				legends[i].Top, legends[i].Left = true, true
				legends[i].Draw(lc)
			}
		}
	}()
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, err
	}
	out := bytes.ReplaceAll(b.Bytes(), []byte("font-family:Liberation Sans;"), []byte("font-family:'Liberation Sans',Arial,Helvetica,sans-serif;"))
	return classify(out), nil
}

var styleAttr = regexp.MustCompile(`style="([^"<>]*)"`)

// classify replaces every style attribute a chart repeats by a class
// defined once in a <style> at its top: a page of many charts is some 40%
// smaller (a site of every experiment stays a few MB). A class is named
// after a hash of its style, so charts inlined in one page never disagree
// on what a class means.
func classify(svg []byte) []byte {
	counts := map[string]int{}
	for _, m := range styleAttr.FindAllSubmatch(svg, -1) {
		counts[string(m[1])]++
	}
	names := map[string]string{}
	var rules []string
	for st, n := range counts {
		if n < 3 {
			continue
		}
		h := fnv.New32a()
		h.Write([]byte(st))
		names[st] = fmt.Sprintf("c%08x", h.Sum32())
		rules = append(rules, "."+names[st]+"{"+st+"}")
	}
	if len(rules) == 0 {
		return svg
	}
	sort.Strings(rules)
	out := styleAttr.ReplaceAllFunc(svg, func(b []byte) []byte {
		if n, ok := names[string(b[len(`style="`):len(b)-1])]; ok {
			return []byte(`class="` + n + `"`)
		}
		return b
	})
	open := bytes.Index(out, []byte("<svg"))
	end := bytes.IndexByte(out[max(open, 0):], '>')
	if open < 0 || end < 0 {
		return svg
	}
	at := open + end + 1
	return append(append(append([]byte(nil), out[:at]...), []byte("\n<style>"+strings.Join(rules, "")+"</style>")...), out[at:]...)
}

// legendGap is the space between a plot and its legend.
const legendGap = vg.Inch / 6 // 12 points

// clean drops points that cannot be drawn (NaN, infinities, and
// non-positive values on a log axis).
func clean(xy plotter.XYs, logY bool) plotter.XYs {
	out := xy[:0:0]
	for _, p := range xy {
		if math.IsNaN(p.X) || math.IsNaN(p.Y) || math.IsInf(p.X, 0) || math.IsInf(p.Y, 0) || (logY && p.Y <= 0) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// addLine adds a line with the i-th colour and dash pattern d; with a label
// it appears in the legend.
func addLine(p *plot.Plot, xy plotter.XYs, i, d int, label string, points bool) error {
	if len(xy) == 0 {
		return nil
	}
	l, err := plotter.NewLine(xy)
	if err != nil {
		return err
	}
	l.Color = plotutil.Color(i)
	l.Width = vg.Points(1.2)
	l.Dashes = plotutil.Dashes(d)
	p.Add(l)
	var thumb plot.Thumbnailer = l
	if points || len(xy) == 1 {
		s, err := plotter.NewScatter(xy)
		if err != nil {
			return err
		}
		s.Color = l.Color
		s.Shape = plotutil.Shape(i)
		s.Radius = vg.Points(2.5)
		p.Add(s)
		thumb = thumbs{l, s}
	}
	if label != "" {
		p.Legend.Add(label, thumb)
	}
	return nil
}

type thumbs []plot.Thumbnailer

func (t thumbs) Thumbnail(c *draw.Canvas) {
	for _, x := range t {
		x.Thumbnail(c)
	}
}

// latencyAxis puts ns values on a log axis when they span more than a
// factor of 20, labelled with units.
func latencyAxis(p *plot.Plot, lo, hi float64) bool {
	logScale := lo > 0 && hi/lo > 20
	if logScale {
		p.Y.Scale = plot.LogScale{}
	}
	p.Y.Tick.Marker = nsTicks{log: logScale}
	return logScale
}

// nsTicks labels a latency axis (values in ns) with units; on a log axis
// the major ticks are 1, 2 and 5 per decade.
type nsTicks struct{ log bool }

func (t nsTicks) Ticks(min, max float64) []plot.Tick {
	if !t.log || min <= 0 {
		ticks := plot.DefaultTicks{}.Ticks(min, max)
		for i := range ticks {
			if ticks[i].Label != "" {
				ticks[i].Label = fmtNs(ticks[i].Value)
			}
		}
		return ticks
	}
	var ticks []plot.Tick
	for dec := math.Pow(10, math.Floor(math.Log10(min))); dec <= max; dec *= 10 {
		for m := 1; m < 10; m++ {
			v := dec * float64(m)
			if v < min || v > max {
				continue
			}
			label := ""
			if m == 1 || m == 2 || m == 5 {
				label = fmtNs(v)
			}
			ticks = append(ticks, plot.Tick{Value: v, Label: label})
		}
	}
	return ticks
}

// rateTicks labels a throughput axis compactly (12k, 1.5M).
type rateTicks struct{}

func (rateTicks) Ticks(min, max float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(min, max)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = compact(ticks[i].Value)
		}
	}
	return ticks
}

func compact(v float64) string {
	a := math.Abs(v)
	trim := func(s string) string {
		if strings.Contains(s, ".") {
			s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
		}
		return s
	}
	switch {
	case a >= 1e6:
		return trim(fmt.Sprintf("%.2f", v/1e6)) + "M"
	case a >= 1e3:
		return trim(fmt.Sprintf("%.2f", v/1e3)) + "k"
	}
	return trim(fmt.Sprintf("%.2f", v))
}

// drawThreadCurves draws throughput (with 95% CI bars) and p99 per
// operation against threads, one line per target series.
func drawThreadCurves(v *Variant) ([]byte, error) {
	// The panels carry no title: the legend sits in their top-left corner,
	// where a title would collide with it; the y axis names the measure.
	thr := newPlot("", "threads", "throughput (ops/s)")
	thr.Y.Tick.Marker = rateTicks{}
	lat := newPlot("", "threads", "p99 latency")
	type series struct {
		label string
		cells []*Cell
	}
	var ss []*series
	idx := map[*Series]*series{}
	for _, c := range v.Runs {
		if c.N() == 0 {
			continue // every repetition excluded: nothing to draw
		}
		s := idx[c.Series]
		if s == nil {
			s = &series{label: c.Series.Label}
			idx[c.Series] = s
			ss = append(ss, s)
		}
		s.cells = append(s.cells, c)
	}
	ops := opNames(v.Runs)
	lo, hi := math.Inf(1), 0.0
	for _, s := range ss {
		for _, c := range s.cells {
			for _, o := range c.Ops {
				if o.P99.N > 0 && o.P99.Mean > 0 {
					lo, hi = math.Min(lo, o.P99.Mean), math.Max(hi, o.P99.Mean)
				}
			}
		}
	}
	logY := latencyAxis(lat, lo, hi)
	thr.X.Tick.Marker = threadTicks(v.Runs)
	lat.X.Tick.Marker = thr.X.Tick.Marker
	if minT, maxT := threadRange(v.Runs); minT > 0 && maxT >= 8*minT {
		// doubling sweeps (8, 16, ..., 128) read best on a log axis
		thr.X.Scale, lat.X.Scale = plot.LogScale{}, plot.LogScale{}
	}
	for i, s := range ss {
		var xy plotter.XYs
		var errs plotter.YErrors
		for _, c := range s.cells {
			xy = append(xy, plotter.XY{X: float64(c.Threads), Y: c.Throughput.Mean})
			h := 0.0
			if c.Throughput.N >= 2 {
				h = c.Throughput.HalfWidth()
			}
			errs = append(errs, struct{ Low, High float64 }{h, h})
		}
		if err := addLine(thr, clean(xy, false), i, 0, s.label, true); err != nil {
			return nil, err
		}
		if len(xy) == len(clean(xy, false)) {
			eb, err := plotter.NewYErrorBars(errBars{xy, errs})
			if err == nil {
				eb.Color = plotutil.Color(i)
				thr.Add(eb)
			}
		}
		for j, op := range ops {
			var pts plotter.XYs
			for _, c := range s.cells {
				if o := c.Op(op); o != nil && o.P99.N > 0 {
					pts = append(pts, plotter.XY{X: float64(c.Threads), Y: o.P99.Mean})
				}
			}
			label := s.label
			if len(ops) > 1 {
				label += " " + op
			}
			if err := addLine(lat, clean(pts, logY), i, j, label, true); err != nil {
				return nil, err
			}
		}
	}
	thr.Y.Min = 0
	return render(thr, lat)
}

type errBars struct {
	plotter.XYs
	plotter.YErrors
}

func threadRange(cells []*Cell) (lo, hi int) {
	for i, c := range cells {
		if i == 0 || c.Threads < lo {
			lo = c.Threads
		}
		hi = max(hi, c.Threads)
	}
	return lo, hi
}

// threadTicks marks the measured thread counts.
func threadTicks(cells []*Cell) plot.Ticker {
	seen := map[int]bool{}
	var ticks []plot.Tick
	for _, c := range cells {
		if !seen[c.Threads] {
			seen[c.Threads] = true
			ticks = append(ticks, plot.Tick{Value: float64(c.Threads), Label: fmt.Sprint(c.Threads)})
		}
	}
	sort.Slice(ticks, func(a, b int) bool { return ticks[a].Value < ticks[b].Value })
	return plot.ConstantTicks(ticks)
}

// drawSpectrum draws the latency percentile spectrum of one operation, one
// line per cell.
func drawSpectrum(cells []*Cell, op string) ([]byte, error) {
	p := newPlot("", "percentile", "latency")
	var lines []plotter.XYs
	var labels []string
	lo, hi := math.Inf(1), 0.0
	multiSeries := map[*Series]bool{}
	for _, c := range cells {
		multiSeries[c.Series] = true
	}
	for _, c := range cells {
		o := c.Op(op)
		if o == nil {
			continue
		}
		sp := o.Spectrum()
		if len(sp) == 0 {
			continue
		}
		xy := make(plotter.XYs, 0, len(sp))
		for _, pt := range sp {
			y := math.Max(float64(pt.Ns), 1)
			xy = append(xy, plotter.XY{X: -math.Log10(1 - pt.Percentile/100), Y: y})
			lo, hi = math.Min(lo, y), math.Max(hi, y)
		}
		lines = append(lines, xy)
		label := c.Series.Label + ", " + threadsText(c.Threads)
		if c.N() > 1 {
			label += fmt.Sprintf(" (%d runs)", c.N())
		}
		labels = append(labels, label)
	}
	if len(lines) == 0 {
		p.Title.Text = "no latency histograms recorded"
		return render(p)
	}
	logY := latencyAxis(p, lo, hi)
	p.Legend.Top, p.Legend.Left = false, false // the curves rise to the right: the corner below is free
	p.X.Min, p.X.Max = 0, 5
	p.X.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: 0, Label: "0%"}, {Value: 1, Label: "90%"}, {Value: 2, Label: "99%"},
		{Value: 3, Label: "99.9%"}, {Value: 4, Label: "99.99%"}, {Value: 5, Label: "99.999%"}})
	for i, xy := range lines {
		if err := addLine(p, clean(xy, logY), i, 0, labels[i], false); err != nil {
			return nil, err
		}
	}
	return render(p)
}

// drawTimeSeries draws one result's throughput and p99 per operation for
// every interval of every phase, on seconds since the command started.
func drawTimeSeries(r *result.Result) ([]byte, error) {
	// A load (rows per second) and a run (operations per second) are drawn
	// on their own axes, one chart of each kind: on one linear axis the
	// run's rate sat flat at zero under the load's.
	var load, run []int
	for i := range r.Phases {
		if kindOf(r.Phases[i].Name) == "load" {
			load = append(load, i)
		} else {
			run = append(run, i)
		}
	}
	both := len(load) > 0 && len(run) > 0
	var plots []*plot.Plot
	for _, g := range []struct {
		title string
		idx   []int
	}{{"load", load}, {"run", run}} {
		if len(g.idx) == 0 {
			continue
		}
		title := ""
		if both {
			title = g.title
		}
		ps, err := phaseSeries(r, g.idx, title)
		if err != nil {
			return nil, err
		}
		plots = append(plots, ps...)
	}
	if len(plots) == 0 {
		p := newPlot("no intervals recorded", "seconds", "throughput (per second)")
		p.X.Min, p.Y.Min = 0, 0
		plots = append(plots, p)
	}
	return render(plots...)
}

// phaseSeries draws the phases idx of r: throughput over time and, when
// any interval has one, p99 latency over time on the same time axis.
func phaseSeries(r *result.Result, idx []int, title string) ([]*plot.Plot, error) {
	thr := newPlot(title, "seconds", "throughput (per second)")
	thr.Y.Tick.Marker = rateTicks{}
	lat := newPlot("", "seconds", "p99 latency per interval")
	type line struct {
		xy     plotter.XYs
		op     string
		phase  int
		series int
	}
	var rates, p99s []line
	colour := map[string]int{}
	lo, hi := math.Inf(1), 0.0
	offsetOf := func(ph *result.Phase) float64 {
		if r.Started.IsZero() || ph.Started.IsZero() {
			return 0
		}
		return ph.Started.Sub(r.Started).Seconds()
	}
	// The warm-up of each run phase is shaded, beneath the lines.
	var warm []span
	for _, pi := range idx {
		if w := warmupSpan(&r.Phases[pi]); w.to > w.from {
			off := offsetOf(&r.Phases[pi])
			warm = append(warm, span{off + w.from, off + w.to})
		}
	}
	if len(warm) > 0 {
		thr.Add(shade(warm))
		lat.Add(shade(warm))
		thr.Legend.Add("warm-up (not measured)", shade(nil))
	}
	// Every fault that ran is a band from its start to its end.
	var faults []span
	for _, pi := range idx {
		off := offsetOf(&r.Phases[pi])
		faults = append(faults, faultSpans(&r.Phases[pi], off)...)
	}
	if len(faults) > 0 {
		thr.Add(faultShade(faults))
		lat.Add(faultShade(faults))
		thr.Legend.Add("fault", faultShade(nil))
	}
	x0 := math.Inf(1)
	for _, pi := range idx {
		ph := &r.Phases[pi]
		offset := offsetOf(ph)
		x0 = math.Min(x0, offset)
		// A load reports batches: scale them to rows with the phase's
		// rows per batch.
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
		byOp := map[string]*[2]plotter.XYs{}
		var order []string
		// An operation the phase never ran (a workload's declared
		// operation with a zero share) draws no flat zero line.
		ran := map[string]bool{}
		for _, iv := range ph.Intervals {
			for _, o := range iv.Ops {
				ran[o.Name] = ran[o.Name] || o.Count > 0 || o.Errors > 0
			}
		}
		for _, iv := range ph.Intervals {
			x := offset + iv.ElapsedSec
			for _, o := range iv.Ops {
				if !ran[o.Name] {
					continue
				}
				s := byOp[o.Name]
				if s == nil {
					s = &[2]plotter.XYs{}
					byOp[o.Name] = s
					order = append(order, o.Name)
				}
				s[0] = append(s[0], plotter.XY{X: x, Y: o.Rate * scale})
				if o.Count > 0 && o.P99 > 0 {
					s[1] = append(s[1], plotter.XY{X: x, Y: float64(o.P99)})
					lo, hi = math.Min(lo, float64(o.P99)), math.Max(hi, float64(o.P99))
				} else {
					s[1] = append(s[1], plotter.XY{X: x, Y: math.NaN()}) // no data: the line breaks here
				}
			}
		}
		for _, op := range order {
			name := op
			if ph.Name == "load" && scale != 1 {
				name = "load rows (" + op + ")"
			}
			if _, ok := colour[name]; !ok {
				colour[name] = len(colour)
			}
			rates = append(rates, line{byOp[op][0], name, pi, colour[name]})
			p99s = append(p99s, line{byOp[op][1], op, pi, colour[name]})
		}
	}
	logY := latencyAxis(lat, lo, hi)
	labelled := map[string]bool{}
	for i, l := range rates {
		label := ""
		if !labelled[l.op] {
			labelled[l.op] = true
			label = l.op
		}
		if err := addLine(thr, clean(l.xy, false), l.series, 0, label, false); err != nil {
			return nil, err
		}
		for _, seg := range segments(p99s[i].xy) {
			if err := addLine(lat, clean(seg, logY), l.series, 0, "", false); err != nil {
				return nil, err
			}
		}
	}
	if len(rates) == 0 {
		thr.Title.Text = strings.TrimSpace(title + " (no intervals recorded)")
	}
	thr.Y.Min = 0
	// The time since the command started, from the group's first phase:
	// never negative (one interval alone once drew -0.4 s).
	thr.X.Min = 0
	if len(idx) > 0 && idx[0] > 0 && !math.IsInf(x0, 1) {
		thr.X.Min = math.Floor(x0)
	}
	if hi == 0 {
		return []*plot.Plot{thr}, nil
	}
	if !logY {
		lat.Y.Min = 0 // a single interval's p99 drew three equal tick labels
	}
	lat.X.Min, lat.X.Max = thr.X.Min, thr.X.Max // one time axis for both panels
	return []*plot.Plot{thr, lat}, nil
}

// span is an interval of the x axis.
type span struct{ from, to float64 }

// warmupSpan is the warm-up at the start of a phase, in seconds from the
// phase's start (its intervals count from there too); empty without one.
func warmupSpan(ph *result.Phase) span {
	if ph.WarmupSec > 0 {
		return span{0, ph.WarmupSec}
	}
	return span{}
}

// shade fills spans of the x axis over the whole height of the plot, in
// light grey; added before the lines, it lies beneath them. It adds nothing
// to the axes' ranges. As a legend thumbnail it is a grey box.
type shade []span

var shadeColor = color.NRGBA{R: 128, G: 128, B: 128, A: 48}

func (s shade) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	for _, sp := range s {
		x0, x1 := trX(sp.from), trX(sp.to)
		x0, x1 = max(x0, c.Min.X), min(x1, c.Max.X)
		if x1 <= x0 {
			continue
		}
		c.FillPolygon(shadeColor, []vg.Point{{X: x0, Y: c.Min.Y}, {X: x1, Y: c.Min.Y}, {X: x1, Y: c.Max.Y}, {X: x0, Y: c.Max.Y}})
	}
}

func (s shade) Thumbnail(c *draw.Canvas) {
	c.FillPolygon(shadeColor, []vg.Point{c.Min, {X: c.Max.X, Y: c.Min.Y}, c.Max, {X: c.Min.X, Y: c.Max.Y}})
}

// faultSpans are the phase's faults that ran, in seconds from the command's
// start (off is the phase's own start). The fault the ledger measured RPO
// and RTO from spans its outage, from its start to the first acknowledged
// write after it (a kill command takes 0.06 s; the outage it causes,
// seconds); other faults span their own run.
func faultSpans(ph *result.Phase, off float64) []span {
	var out []span
	outage, idx := -1.0, 0
	if l := ph.Ledger; l != nil && l.Accounting != nil && l.Accounting.Fault != nil && l.Accounting.Fault.RTOSeconds != nil {
		outage = *l.Accounting.Fault.RTOSeconds
		if l.FaultIndex != nil {
			idx = *l.FaultIndex
		}
	}
	for _, ev := range ph.Faults {
		if ev.Start.IsZero() {
			continue
		}
		end := max(ev.EndS, ev.StartS)
		if ev.Index == idx && outage >= 0 {
			end = max(end, ev.StartS+outage)
		}
		out = append(out, span{off + ev.StartS, off + end})
	}
	return out
}

// faultShade is shade in red, at least two points wide (a command that
// takes a moment is still seen).
type faultShade []span

var faultColor = color.NRGBA{R: 220, G: 40, B: 40, A: 56}

func (s faultShade) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	for _, sp := range s {
		x0, x1 := trX(sp.from), trX(sp.to)
		if x1-x0 < 2 {
			x1 = x0 + 2
		}
		x0, x1 = max(x0, c.Min.X), min(x1, c.Max.X)
		if x1 <= x0 {
			continue
		}
		c.FillPolygon(faultColor, []vg.Point{{X: x0, Y: c.Min.Y}, {X: x1, Y: c.Min.Y}, {X: x1, Y: c.Max.Y}, {X: x0, Y: c.Max.Y}})
	}
}

func (s faultShade) Thumbnail(c *draw.Canvas) {
	c.FillPolygon(faultColor, []vg.Point{c.Min, {X: c.Max.X, Y: c.Min.Y}, c.Max, {X: c.Min.X, Y: c.Max.Y}})
}

// segments splits a line at its NaN points (intervals without data), so
// that no line is drawn across them.
func segments(xy plotter.XYs) []plotter.XYs {
	var out []plotter.XYs
	var cur plotter.XYs
	for _, p := range xy {
		if math.IsNaN(p.Y) {
			if len(cur) > 0 {
				out = append(out, cur)
			}
			cur = nil
			continue
		}
		cur = append(cur, p)
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}
