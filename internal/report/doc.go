package report

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/candor-bench/candor/internal/result"
)

// document is the renderer-neutral content of a report: headings,
// paragraphs, tables and figures in order. Figures are drawn only by the
// renderers that show them.
type document struct {
	Title  string
	Blocks []block
	// Figures in document order (numbered from 1).
	Figures []*figure
}

type blockKind int

const (
	bHeading blockKind = iota
	bPara
	bList
	bTable
	bFigure
)

type block struct {
	Kind   blockKind
	Level  int    // heading level, 2..4
	Text   string // heading or paragraph text
	Items  []string
	Table  *table
	Figure *figure
	// FigOnly blocks introduce charts only; renderers without charts skip
	// them.
	FigOnly bool
}

type table struct {
	Caption string
	Head    []string
	Right   []bool // right-aligned columns
	Rows    [][]string
	Note    string
	// Keep marks columns the text renderer narrows only after all others.
	Keep []bool
	// Fold, when set, is the summary line under which HTML shows the
	// table folded (<details>); other renderers show it as it is.
	Fold string
}

type figure struct {
	N       int
	Title   string
	Caption string
	// Collapsed figures are shown folded (HTML <details>) when there are
	// many of them.
	Collapsed bool
	draw      func() ([]byte, error)
}

func (d *document) heading(level int, text string) {
	d.Blocks = append(d.Blocks, block{Kind: bHeading, Level: level, Text: text})
}

func (d *document) para(format string, a ...any) {
	d.Blocks = append(d.Blocks, block{Kind: bPara, Text: fmt.Sprintf(format, a...)})
}

func (d *document) list(items []string) {
	if len(items) > 0 {
		d.Blocks = append(d.Blocks, block{Kind: bList, Items: items})
	}
}

func (d *document) table(t *table) {
	if len(t.Rows) > 0 {
		d.Blocks = append(d.Blocks, block{Kind: bTable, Table: t})
	}
}

func (d *document) figure(title, caption string, collapsed bool, draw func() ([]byte, error)) {
	f := &figure{N: len(d.Figures) + 1, Title: title, Caption: caption, Collapsed: collapsed, draw: draw}
	d.Figures = append(d.Figures, f)
	d.Blocks = append(d.Blocks, block{Kind: bFigure, Figure: f})
}

// ciNote explains the ± figures.
const ciNote = "± is the half-width of the 95% confidence interval of the mean over the n repetitions " +
	"(Student's t), as a percentage of the mean; none is shown for a single run."

// buildDocument lays out the report.
func buildDocument(m *Model) *document {
	d := &document{Title: "candor report"}
	runs := 0
	for _, in := range m.Inputs {
		for _, p := range in.Result.Phases {
			if p.Name != "load" {
				runs++
			}
		}
	}
	names := make([]string, len(m.Workloads))
	for i, w := range m.Workloads {
		names[i] = w.Name
	}
	d.para("%d result file(s), %d measured run phase(s), %d target(s); workloads: %s.",
		len(m.Inputs), runs, len(m.Series), strings.Join(names, ", "))
	buildClaimsSection(d, m)
	buildAuditSection(d, Audit(m.Inputs))
	if len(m.Warnings) > 0 {
		d.heading(2, "Warnings")
		d.list(m.Warnings)
	}
	buildChecksSection(d, m)
	for _, w := range m.Workloads {
		buildWorkloadSection(d, m, w)
	}
	buildTargetsSection(d, m)
	if len(m.SizeEffects) > 0 {
		buildSizeSection(d, m)
	}
	buildTimeSection(d, m)
	buildProvenance(d, m)
	return d
}

func buildWorkloadSection(d *document, m *Model, w *Workload) {
	title := "Workload " + w.Name
	d.heading(2, title)
	var intro []string
	if w.Reference != "" {
		intro = append(intro, "Reference: "+w.Reference+".")
	}
	if len(w.LatencyMeasures) > 0 {
		intro = append(intro, "Latency: "+strings.Join(w.LatencyMeasures, "; ")+".")
	}
	if len(w.LatencyMeasures) > 1 {
		intro = append(intro, "WARNING: the runs measure latency differently; their latencies are not comparable.")
	}
	if len(w.Varying) > 0 {
		intro = append(intro, "Varying across the inputs: "+strings.Join(w.Varying, ", ")+".")
	}
	if len(intro) > 0 {
		d.para("%s", strings.Join(intro, " "))
	}
	for _, v := range w.Variants {
		if len(w.Variants) > 1 || v.Label != "" {
			d.heading(3, w.Name+" — "+orNone(v.Label))
		}
		tag := w.Name
		if v.Label != "" {
			tag += " (" + v.Label + ")"
		}
		if len(v.Runs) > 0 {
			if t := rowRateTable(v); t != nil {
				d.table(t) // commit-loop's headline figure first
			}
			if t := durabilityTable(m, v); t != nil {
				d.table(t)
			}
			d.table(runTable(v))
			if t := counterTable(v); t != nil {
				d.table(t)
			}
		}
		if len(v.Loads) > 0 {
			d.table(loadTable(v))
		}
		if ex := exclusions(v); len(ex) > 0 {
			d.para("Not in the figures above (runs that did not complete are never pooled with complete ones):")
			d.list(ex)
		}
		if threadCount(v.Runs) >= 2 {
			d.figure("Throughput and p99 latency against threads: "+tag,
				"Mean over the repetitions; error bars: 95% confidence interval where there are several.",
				false, func() ([]byte, error) { return drawThreadCurves(v) })
		}
		for _, op := range opNames(v.Runs) {
			few, drawn := fewSamples(v.Runs, op)
			if drawn {
				d.figure(fmt.Sprintf("Latency percentile spectrum of %s: %s", op, tag),
					"Histograms of the repetitions merged; x: percentile on a log scale of 1/(1−q).",
					false, func() ([]byte, error) { return drawSpectrum(v.Runs, op) })
			}
			if len(few) > 0 {
				d.para("Latencies of %s (%s), too few for a percentile spectrum (it needs at least %d per line):", op, tag, MinSpectrumSamples)
				d.list(few)
			}
		}
		d.table(errorTable(v))
		if !hasErrors(v) {
			d.para("No errors and no retries in %s.", tag)
		}
	}
}

// fewSamples lists, per cell whose operation op recorded fewer latencies
// than a spectrum needs, its samples ("pg, 1 thread: 3 samples: 1.21 s,
// 1.25 s, 1.30 s"); drawn says whether some cell has enough for a line.
func fewSamples(cells []*Cell, op string) (few []string, drawn bool) {
	for _, c := range cells {
		o := c.Op(op)
		if o == nil {
			continue
		}
		if o.Spectrum() != nil {
			drawn = true
			continue
		}
		xs := o.Samples()
		if len(xs) == 0 {
			drawn = true // no histogram: the chart says so
			continue
		}
		shown := make([]string, len(xs))
		for i, x := range xs {
			shown[i] = fmtNs(float64(x))
		}
		few = append(few, fmt.Sprintf("%s, %s: %s: %s", c.Series.Label, threadsText(c.Threads), plural(len(xs), "sample"), strings.Join(shown, ", ")))
	}
	return few, drawn
}

func orNone(s string) string {
	if s == "" {
		return "all runs"
	}
	return s
}

func threadCount(cells []*Cell) int {
	seen := map[int]bool{}
	for _, c := range cells {
		seen[c.Threads] = true
	}
	return len(seen)
}

// opNames are the operations of the cells, in first-seen order.
func opNames(cells []*Cell) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range cells {
		for _, o := range c.Ops {
			if !seen[o.Name] && o.Count > 0 {
				seen[o.Name] = true
				out = append(out, o.Name)
			}
		}
	}
	return out
}

// exclusions lists, per cell of the variant, the phases left out of its
// figures and why.
func exclusions(v *Variant) []string {
	var out []string
	for _, cells := range [][]*Cell{v.Runs, v.Loads} {
		for _, c := range cells {
			if t := c.ExclusionText(); t != "" {
				kind := ""
				if c.Kind == "load" {
					kind = " (load)"
				}
				out = append(out, fmt.Sprintf("%s, %s%s: %s", c.Series.Label, threadsText(c.Threads), kind, t))
			}
		}
	}
	return out
}

// nText is a cell's number of repetitions, "2 of 3" when some were
// excluded.
func nText(c *Cell) string {
	if len(c.Excluded) > 0 {
		return fmt.Sprintf("%d of %d", c.N(), c.N()+len(c.Excluded))
	}
	return fmt.Sprint(c.N())
}

func runTable(v *Variant) *table {
	t := &table{Caption: "Throughput and latency per operation",
		Head:  []string{"target", "threads", "operation", "ops/s", "avg", "p95", "p99", "n"},
		Right: []bool{false, true, false, true, true, true, true, true},
		Note:  ciNote}
	for _, c := range v.Runs {
		thr := fmt.Sprint(c.Threads)
		t.Rows = append(t.Rows, []string{c.Series.Label, thr, "total", withCI(c.Throughput, fmtRate), "", "", "", nText(c)})
		for _, o := range c.Ops {
			t.Rows = append(t.Rows, []string{"", "", o.Name, withCI(o.Throughput, fmtRate),
				withCI(o.Mean, fmtNs), withCI(o.P95, fmtNs), withCI(o.P99, fmtNs), ""})
		}
	}
	return t
}

// rowRateTable shows rows committed per second, client-measured and as the
// server saw them, as the published commit-loop table does; nil when no
// run of the variant recorded them.
func rowRateTable(v *Variant) *table {
	t := &table{Caption: "Commit rate: rows per second, client and server",
		Head:  []string{"target", "threads", "client rows/s", "server rows/s", "n"},
		Right: []bool{false, true, true, true, true},
		Note: "client: the rows over the run's duration as candor measured it; server: count(*) / (max(t) − min(t)) " +
			"over the commit times the server recorded in the rows. " + ciNote}
	for _, c := range v.Runs {
		if c.ClientRows == nil {
			continue
		}
		t.Rows = append(t.Rows, []string{c.Series.Label, fmt.Sprint(c.Threads), withCI(*c.ClientRows, fmtRate), withCI(*c.ServerRows, fmtRate), nText(c)})
	}
	if len(t.Rows) == 0 {
		return nil
	}
	return t
}

// counterTable shows transactions and queries per second (sysbench) or the
// workload's counters per second.
func counterTable(v *Variant) *table {
	var names []string
	seen := map[string]bool{}
	qps := false
	for _, c := range v.Runs {
		for _, k := range c.Counters {
			if !seen[k.Name] {
				seen[k.Name] = true
				names = append(names, k.Name)
			}
		}
		if c.QPS != nil {
			qps = true
		}
	}
	if len(names) == 0 {
		return nil
	}
	sort.Strings(names)
	t := &table{Caption: "Transactions and queries per second", Head: []string{"target", "threads", "tps"}, Right: []bool{false, true, true}}
	if qps {
		t.Head = append(t.Head, "qps")
		t.Right = append(t.Right, true)
	}
	for _, n := range names {
		t.Head = append(t.Head, n+"/s")
		t.Right = append(t.Right, true)
	}
	for _, c := range v.Runs {
		row := []string{c.Series.Label, fmt.Sprint(c.Threads), withCI(c.Throughput, fmtRate)}
		if qps {
			if c.QPS != nil {
				row = append(row, withCI(*c.QPS, fmtRate))
			} else {
				row = append(row, "–")
			}
		}
		for _, n := range names {
			cell := "–"
			for _, k := range c.Counters {
				if k.Name == n {
					cell = withCI(k.Rate, fmtRate)
				}
			}
			row = append(row, cell)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

func loadTable(v *Variant) *table {
	t := &table{Caption: "Load",
		Head:  []string{"target", "threads", "rows", "time", "rows/s", "batch avg", "batch p99", "n"},
		Right: []bool{false, true, true, true, true, true, true, true}}
	for _, c := range v.Loads {
		avg, p99 := "–", "–"
		if len(c.Ops) > 0 {
			avg, p99 = withCI(c.Ops[0].Mean, fmtNs), withCI(c.Ops[0].P99, fmtNs)
		}
		t.Rows = append(t.Rows, []string{c.Series.Label, fmt.Sprint(c.Threads), fmt.Sprintf("%.0f", c.Rows.Mean),
			withCI(c.Duration, func(s float64) string { return fmtNs(s * 1e9) }), withCI(c.Throughput, fmtRate), avg, p99, nText(c)})
	}
	return t
}

func hasErrors(v *Variant) bool {
	for _, cells := range [][]*Cell{v.Runs, v.Loads} {
		for _, c := range cells {
			for _, o := range c.Ops {
				if o.Retries > 0 || o.Aborts > 0 || len(o.Errors) > 0 {
					return true
				}
			}
		}
	}
	return false
}

func errorTable(v *Variant) *table {
	t := &table{Caption: "Errors and retries (summed over the repetitions)",
		Head:  []string{"target", "threads", "phase", "operation", "attempts", "retries", "aborts", "errors by class"},
		Right: []bool{false, true, false, false, true, true, true, false}}
	for _, cells := range [][]*Cell{v.Runs, v.Loads} {
		for _, c := range cells {
			for _, o := range c.Ops {
				if o.Retries == 0 && o.Aborts == 0 && len(o.Errors) == 0 {
					continue
				}
				t.Rows = append(t.Rows, []string{c.Series.Label, fmt.Sprint(c.Threads), c.Kind, o.Name,
					fmt.Sprint(o.Attempts), fmt.Sprint(o.Retries), fmt.Sprint(o.Aborts), ClassList(o.Errors)})
			}
		}
	}
	return t
}

// ClassList formats errors by class as "connection 2, retryable 5", sorted
// by class; "none" when there are none.
func ClassList(m map[string]int64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func buildSizeSection(d *document, m *Model) {
	d.heading(2, "Effect of data size")
	d.para("The same workload, target, threads and options at two data sizes: the change from the smaller to the larger (mean over the repetitions).")
	t := &table{Head: []string{"runs", "data size", "ops/s", "Δ ops/s", "Δ update avg", "Δ update p99"},
		Right: []bool{false, false, true, true, true, true}}
	for _, e := range m.SizeEffects {
		ua, up := "–", "–"
		if e.UpdateOp != "" {
			ua, up = fmtSigned(e.UpdateMeanPct), fmtSigned(e.UpdateP99Pct)
		}
		size := e.SmallLabel + " → " + strings.TrimSpace(strings.TrimPrefix(e.LargeLabel, strings.Fields(e.SmallLabel + " x")[0]))
		t.Rows = append(t.Rows, []string{fmt.Sprintf("%s on %s, %s", e.Workload, e.Series.Label, threadsText(e.Threads)), size,
			fmtRate(e.Small.Throughput.Mean) + " → " + fmtRate(e.Large.Throughput.Mean), fmtSigned(e.ThroughputPct), ua, up})
	}
	t.Note = "Δ: change in percent from the smaller size to the larger; update: the UPDATE operation, or the first whose name contains \"update\"."
	d.table(t)
}

func buildTimeSection(d *document, m *Model) {
	d.heading(2, "Runs over time")
	d.para("Throughput and p99 latency per reporting interval for each result file, load phases included, on one time axis from the start of the command.")
	for i := len(d.Blocks) - 2; i < len(d.Blocks); i++ {
		d.Blocks[i].FigOnly = true
	}
	collapsed := len(m.Inputs) > 8
	for i, in := range m.Inputs {
		r := in.Result
		title := fmt.Sprintf("#%d %s: %s on %s, %s", i+1, in.Path, r.Workload.Name, m.inputSeries[i].Label, threadsText(r.Run.Threads))
		d.figure(title, faultCaption(r), collapsed, func() ([]byte, error) { return drawTimeSeries(in.Result) })
		if hasServerCounters(r) { // server.go
			d.figure(title+": the server's counters beside throughput", serverCaption(r), collapsed, func() ([]byte, error) { return drawServerCounters(in.Result) })
		}
	}
}

func buildProvenance(d *document, m *Model) {
	d.heading(2, "Inputs and provenance")
	paths := make([]string, len(m.Inputs))
	for i, x := range m.Inputs {
		paths[i] = x.Path
	}
	dir := commonDir(paths)
	caption := "Inputs"
	if dir != "" {
		caption += " (files under " + dir + ")"
	}
	in := &table{Caption: caption,
		Head:  []string{"#", "file", "status", "run", "phases", "started"},
		Right: []bool{true},
		Keep:  []bool{false, true}}
	multi := len(m.Machines) > 1
	if multi {
		in.Head = append(in.Head, "machine")
	}
	for i, x := range m.Inputs {
		r := x.Result
		what := fmt.Sprintf("%s on %s, %s", r.Workload.Name, m.inputSeries[i].Label, threadsText(r.Run.Threads))
		row := []string{fmt.Sprint(i + 1), relPath(dir, x.Path), r.Status, what, phaseList(r), r.Started.UTC().Format("2006-01-02 15:04")}
		if multi {
			row = append(row, m.inputMachine[i].ID)
		}
		in.Rows = append(in.Rows, row)
	}
	d.table(in)

	mt := &table{Caption: "Client machines and candor builds",
		Head: []string{"machine", "candor (commit)", "go", "host", "system", "CPU, memory", "inputs"}}
	for _, mc := range m.Machines {
		p := mc.Prov
		mt.Rows = append(mt.Rows, []string{mc.ID, p.CandorVersion + " (" + p.Commit + ")", p.GoVersion, p.Hostname,
			systemText(p), fmt.Sprintf("%s × %d cores, %s", orDash(p.CPUModel), p.Cores, fmtBytes(p.MemoryBytes)),
			ranges(mc.Inputs)})
	}
	d.table(mt)

	tt := &table{Caption: "Targets", Head: []string{"target", "driver", "version", "URL", "inputs"}, Keep: []bool{false, false, false, true}}
	for _, s := range m.Series {
		v := s.VString
		if v == "" {
			v = s.Version
		}
		tt.Rows = append(tt.Rows, []string{s.Label, s.Driver, v, s.URLs[0], ranges(s.Inputs)})
		for _, u := range s.URLs[1:] { // the same server reached with other connection parameters
			tt.Rows = append(tt.Rows, []string{"", "", "", u, ""})
		}
	}
	d.table(tt)
	for _, s := range m.Series {
		keys := make([]string, 0, len(s.Settings))
		for k := range s.Settings {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var kv []string
		for _, k := range keys {
			kv = append(kv, k+"="+s.Settings[k])
		}
		if len(kv) == 0 {
			kv = []string{"none recorded"}
		}
		d.para("Settings of %s: %s.", s.Label, strings.Join(kv, ", "))
	}
	for _, w := range m.Workloads {
		var kv []string
		for _, p := range w.Common {
			kv = append(kv, p.Key+"="+p.Value)
		}
		if len(kv) > 0 {
			d.para("Options shared by every run of %s: %s.", w.Name, strings.Join(kv, ", "))
		}
	}
}

// phaseList describes a result's phases compactly: "load + 3 runs".
func phaseList(r *result.Result) string {
	var parts []string
	runs := 0
	for _, p := range r.Phases {
		if p.Name == "load" {
			parts = append(parts, "load")
		} else {
			runs++
		}
	}
	switch {
	case runs == 1:
		parts = append(parts, "1 run")
	case runs > 1:
		parts = append(parts, fmt.Sprintf("%d runs", runs))
	}
	bad := map[string]int{}
	var statuses []string
	for _, p := range r.Phases {
		if p.Status != result.StatusComplete {
			if bad[p.Status] == 0 {
				statuses = append(statuses, p.Status)
			}
			bad[p.Status]++
		}
	}
	if len(statuses) > 0 {
		var b []string
		for _, st := range statuses {
			b = append(b, fmt.Sprintf("%d %s", bad[st], st))
		}
		parts[len(parts)-1] += " (" + strings.Join(b, ", ") + ")"
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " + ")
}

// commonDir is the directory all paths share ("" when none).
func commonDir(paths []string) string {
	if len(paths) == 0 {
		return ""
	}
	dir := filepath.Dir(paths[0])
	for dir != "." && dir != "/" && dir != "" {
		ok := true
		for _, p := range paths {
			if !strings.HasPrefix(p, dir+string(filepath.Separator)) {
				ok = false
				break
			}
		}
		if ok {
			return dir
		}
		dir = filepath.Dir(dir)
	}
	return ""
}

func relPath(dir, p string) string {
	if dir == "" {
		return p
	}
	return strings.TrimPrefix(p, dir+string(filepath.Separator))
}

// systemText is a machine's OS, architecture and kernel, with its autogroup
// setting when the result recorded one.
func systemText(p result.Provenance) string {
	s := strings.TrimSpace(p.OS + "/" + p.Arch + " " + p.Kernel)
	if p.SchedAutogroup != "" {
		s += ", autogroups " + p.SchedAutogroup
	}
	return s
}
