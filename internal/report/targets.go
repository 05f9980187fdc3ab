package report

import (
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/candor-bench/candor/internal/stats"
)

// buildTargetsSection is the shape of a published comparison of databases
// (E5's table): for each workload (and variant) and thread count run on two
// targets or more, each target's throughput with its 95% confidence
// interval, and each target's throughput as a multiple of the first
// target's, with the interval of that ratio. Nothing when no workload ran on
// two targets.
func buildTargetsSection(d *document, m *Model) {
	type row struct {
		label string
		cells map[*Series]*Cell
	}
	var rows []row
	used := map[*Series]bool{}
	for _, w := range m.Workloads {
		// Rows by threads; the variants of a workload share a row when no
		// target ran more than one of them (KV-3 in a transaction on one
		// target, not atomic on the others), and the row says which ran what.
		type group struct {
			cells    map[*Series]*Cell
			variants map[*Variant][]*Series
			vorder   []*Variant
			clash    bool
		}
		groups := map[int]*group{}
		var order []int
		for _, v := range w.Variants {
			for _, c := range v.Runs {
				if c.N() == 0 {
					continue
				}
				g := groups[c.Threads]
				if g == nil {
					g = &group{cells: map[*Series]*Cell{}, variants: map[*Variant][]*Series{}}
					groups[c.Threads] = g
					order = append(order, c.Threads)
				}
				if g.cells[c.Series] != nil {
					g.clash = true
				}
				g.cells[c.Series] = c
				if g.variants[v] == nil {
					g.vorder = append(g.vorder, v)
				}
				g.variants[v] = append(g.variants[v], c.Series)
			}
		}
		add := func(label string, cells map[*Series]*Cell) {
			if len(cells) < 2 {
				return
			}
			rows = append(rows, row{label: label, cells: cells})
			for s := range cells {
				used[s] = true
			}
		}
		for _, th := range order {
			g := groups[th]
			if !g.clash {
				label := w.Name + ", " + threadsText(th)
				if len(g.vorder) == 1 && g.vorder[0].Label != "" {
					label += " (" + g.vorder[0].Label + ")"
				} else if len(g.vorder) > 1 {
					var parts []string
					for _, v := range g.vorder {
						var names []string
						for _, s := range g.variants[v] {
							names = append(names, shortLabel(s.Label))
						}
						parts = append(parts, v.Label+": "+strings.Join(names, ", "))
					}
					label += " (" + strings.Join(parts, "; ") + ")"
				}
				add(label, g.cells)
				continue
			}
			for _, v := range g.vorder {
				cells := map[*Series]*Cell{}
				for _, c := range v.Runs {
					if c.Threads == th && c.N() > 0 {
						cells[c.Series] = c
					}
				}
				label := w.Name + ", " + threadsText(th)
				if v.Label != "" {
					label += " (" + v.Label + ")"
				}
				add(label, cells)
			}
		}
	}
	if len(rows) == 0 {
		return
	}
	var cols []*Series
	for _, s := range m.Series {
		if used[s] {
			cols = append(cols, s)
		}
	}
	base := cols[0]
	d.heading(2, "Throughput by target")
	d.para("Operations per second of each target (mean over the repetitions ± the 95%% confidence interval, as a percentage of the mean), "+
		"and each target's throughput as a multiple of %s's (× with its 95%% confidence interval).", base.Label)
	t := &table{Head: []string{"workload"}, Right: []bool{false}}
	for _, s := range cols {
		t.Head = append(t.Head, s.Label)
		t.Right = append(t.Right, true)
	}
	for _, s := range cols[1:] {
		t.Head = append(t.Head, shortLabel(s.Label)+" ×")
		t.Right = append(t.Right, true)
	}
	for _, r := range rows {
		line := []string{r.label}
		for _, s := range cols {
			c := r.cells[s]
			if c == nil {
				line = append(line, "–")
				continue
			}
			line = append(line, strings.TrimSpace(fmtRate(c.Throughput.Mean)+" "+ciText(c.Throughput)))
		}
		for _, s := range cols[1:] {
			a, b := r.cells[base], r.cells[s]
			if a == nil || b == nil {
				line = append(line, "–")
				continue
			}
			line = append(line, ratioText(ratio(a.Throughput, b.Throughput)))
		}
		t.Rows = append(t.Rows, line)
	}
	t.Note = "–: not run on that target. A ratio's interval is computed on its log (delta method: relative variances added, Welch–Satterthwaite degrees of freedom), so it stays above 0; none is shown when a side has a single run."
	d.table(t)
}

// ciText is a summary's ± as a percentage of its mean, "" for one run.
func ciText(s stats.Summary) string {
	if s.N < 2 || s.Mean == 0 {
		return ""
	}
	return fmtPct(100 * s.HalfWidth() / s.Mean)
}

// Ratio is B's mean over A's with its 95% confidence interval, computed
// on the log of the ratio (stats.Ratio: its bounds are above 0); Low and
// High equal R when either side has fewer than two runs.
type Ratio struct{ R, Low, High float64 }

func ratio(a, b stats.Summary) Ratio {
	if a.Mean == 0 {
		return Ratio{R: math.NaN(), Low: math.NaN(), High: math.NaN()}
	}
	r := Ratio{R: b.Mean / a.Mean}
	r.Low, r.High = r.R, r.R
	if q, ok := stats.RatioOf(a, b); ok {
		r.Low, r.High = q.CI95Low, q.CI95High
	}
	return r
}

func ratioText(r Ratio) string {
	if math.IsNaN(r.R) {
		return "–"
	}
	s := fmt.Sprintf("%.2f×", r.R)
	if r.High > r.Low {
		s += fmt.Sprintf(" (%.2f–%.2f)", r.Low, r.High)
	}
	return s
}

// shortLabel drops a label's version ("Apache Cassandra 5.0.9 [3 nodes,
// RF=2]" → "Apache Cassandra [3 nodes, RF=2]") for the ratio columns' heads.
func shortLabel(l string) string {
	return strings.Join(strings.Fields(versionRe.ReplaceAllString(l, "")), " ")
}

var versionRe = regexp.MustCompile(`\s\d+(\.\d+)+\b`)

// replicationFactor reads a CQL replication map's factor(s):
// "{'class': 'SimpleStrategy', 'replication_factor': '2'}" → "RF=2"; a
// NetworkTopologyStrategy's per data centre ("dc1:3, dc2:2").
var rfEntry = regexp.MustCompile(`'([^']+)': '([^']+)'`)

// clusterShape describes a CQL target's shape for its series label: "1
// node, RF=1"; "" for other targets.
func clusterShape(settings map[string]string) string {
	n, ok := settings["nodes"]
	repl, ok2 := settings["replication"]
	if !ok || !ok2 {
		return ""
	}
	nodes := n + " nodes"
	if n == "1" {
		nodes = "1 node"
	}
	var rf []string
	for _, e := range rfEntry.FindAllStringSubmatch(repl, -1) {
		switch e[1] {
		case "class":
		case "replication_factor":
			rf = append(rf, "RF="+e[2])
		default:
			rf = append(rf, e[1]+":"+e[2])
		}
	}
	if len(rf) == 0 {
		return nodes
	}
	return nodes + ", " + strings.Join(rf, ", ")
}
