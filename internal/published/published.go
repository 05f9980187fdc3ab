// Package published holds a plan's published: block — what the source of an
// experiment published, and each claim stated as what one machine can check
// (a ratio or an order between cells, lost writes, or untestable with a
// reason) — and how it is read. It is a leaf: the plan reader embeds it,
// and reports check its claims against results without reading plans.
package published

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Published is a plan's published: block: what the source of the
// experiment published, and each claim stated as what this machine can
// check (docs/PLANS.md, "The published: block").
type Published struct {
	Source     Source
	Conditions string // hardware, versions, cluster of the published figures
	Claims     []Claim
	// Tables are the tables the source published, in its own shape, to be
	// filled with the figures measured here.
	Tables []Table
}

// Table is a published table's shape: one row per combination of the Rows
// parameters' values and one column per combination of the Columns
// parameters' values and metric, in the order the plan's cells have them.
type Table struct {
	Caption       string
	Rows, Columns []string
	Metrics       []string
}

// Source names where the figures were published.
type Source struct{ Title, URL string }

// Claim is one published claim. Exactly one of Ratio, Less, Zero, Positive
// and Untestable states what is checked here.
type Claim struct {
	ID         string
	Said       string   // the source's own words
	Figures    []string // its figures, with their units
	Conditions string   // the claim's own conditions, when they differ from the block's
	// Metric is what is measured in each repetition of the named cells:
	// one of Metrics.
	Metric string
	// Ratio: Metric of Ratio[0] over Metric of Ratio[1] is Expect, within
	// Tolerance (relative: the band is Expect/(1+T) .. Expect·(1+T)).
	Ratio     []Selector
	Expect    float64
	From      []float64 // the published figures Expect is the ratio of, when given
	Tolerance float64
	// Less: Metric of Less[0] is below Metric of Less[1].
	Less []Selector
	// Zero: Metric is 0 in every repetition of the cells; Positive: above 0
	// in every one.
	Zero, Positive *Selector
	// Untestable says why the claim cannot be tested on one machine.
	Untestable string
	// Words is the source's words checked against its own figures.
	Words *Words
	// ClaimKind is direct, analog, untestable or not-run (docs/PLANS.md); Needs
	// says what a not-run claim needs.
	ClaimKind, Needs string
	// Line is the claim's line in the plan file (0 when not read from one).
	Line int
}

// Words is a figure the source's text states (Text, Value) beside the
// same figure computed from its own table (Of[0] / Of[1]).
type Words struct {
	Text  string
	Value float64
	Of    []float64
}

// Computed is the figure the source's own table gives.
func (w Words) Computed() float64 { return w.Of[0] / w.Of[1] }

// Selector names cells by their parameters: workload, target, threads and
// option values, as the plan writes them. A cell matches when it has every
// key with that value.
type Selector map[string]string

// String is "target=pg-sync, jobs=3" (keys sorted).
func (s Selector) String() string {
	var keys []string
	for k := range s {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + s[k]
	}
	return strings.Join(parts, ", ")
}

// Matches reports whether a cell of the given workload and parameters is
// one the selector names.
func (s Selector) Matches(workload string, params map[string]string) bool {
	for k, v := range s {
		got, ok := params[k]
		if k == "workload" {
			got, ok = workload, true
		}
		if !ok || got != v {
			return false
		}
	}
	return true
}

// Kind is the check a claim makes: ratio, less, zero, positive or
// untestable.
func (c Claim) Kind() string {
	switch {
	case c.Untestable != "":
		return "untestable"
	case len(c.Ratio) > 0:
		return "ratio"
	case len(c.Less) > 0:
		return "less"
	case c.Zero != nil:
		return "zero"
	case c.Positive != nil:
		return "positive"
	}
	return ""
}

// Selectors are the cells the claim names.
func (c Claim) Selectors() []Selector {
	out := append(append([]Selector(nil), c.Ratio...), c.Less...)
	for _, s := range []*Selector{c.Zero, c.Positive} {
		if s != nil {
			out = append(out, *s)
		}
	}
	return out
}

// Metrics are the measures a claim can check, per repetition of a cell.
var Metrics = map[string]string{
	"throughput":  "operations per second of the run",
	"server-rows": "rows per second as the server recorded them (commit-loop)",
	"client-rows": "rows per second as the client measured them (commit-loop)",
	"load-time":   "seconds the load took",
	"load-rate":   "rows per second of the load",
	"lost":        "acknowledged writes missing after the run (ledger)",
	"rpo":         "seconds of acknowledged writes lost (ledger)",
	"rto":         "seconds from the fault to the first acknowledged write (ledger)",
}

// DefaultTolerance is a ratio claim's tolerance when the plan gives none.
const DefaultTolerance = 0.25

type rawPublished struct {
	Source     rawSource      `yaml:"source"`
	Conditions string         `yaml:"conditions"`
	Claims     []rawClaim     `yaml:"claims"`
	Tables     []rawTable     `yaml:"tables"`
	Extra      map[string]any `yaml:",inline"`
}

type rawSource struct {
	Title string `yaml:"title"`
	URL   string `yaml:"url"`
}

type rawClaim struct {
	ID         string           `yaml:"id"`
	Said       string           `yaml:"said"`
	Figures    []string         `yaml:"figures"`
	Conditions string           `yaml:"conditions"`
	Metric     string           `yaml:"metric"`
	Ratio      []map[string]any `yaml:"ratio"`
	Expect     *float64         `yaml:"expect"`
	From       []float64        `yaml:"from"`
	Tolerance  *float64         `yaml:"tolerance"`
	Less       []map[string]any `yaml:"less"`
	Zero       map[string]any   `yaml:"zero"`
	Positive   map[string]any   `yaml:"positive"`
	Untestable string           `yaml:"untestable"`
	Words      *rawWords        `yaml:"words"`
	Kind       string           `yaml:"kind"`
	Needs      string           `yaml:"needs"`
	Extra      map[string]any   `yaml:",inline"`
}

type rawTable struct {
	Caption string         `yaml:"caption"`
	Rows    []string       `yaml:"rows"`
	Columns []string       `yaml:"columns"`
	Metrics []string       `yaml:"metrics"`
	Extra   map[string]any `yaml:",inline"`
}

type rawWords struct {
	Text  string    `yaml:"text"`
	Value float64   `yaml:"value"`
	Of    []float64 `yaml:"of"`
}

func selectorOf(m map[string]any) Selector {
	s := Selector{}
	for k, v := range m {
		s[k] = fmt.Sprint(v)
	}
	return s
}

// Parse reads the published: node; add records a problem at a line.
// Selectors are checked against the plan's cells by Check, once the plan
// is complete.
func Parse(n *yaml.Node, add func(int, string, ...any)) *Published {
	var r rawPublished
	if err := n.Decode(&r); err != nil {
		add(n.Line, "published: %s", strings.TrimPrefix(err.Error(), "yaml: "))
		return nil
	}
	for k := range r.Extra {
		add(n.Line, "published: unknown key %q; valid keys: source, conditions, claims, tables", k)
	}
	if r.Source.Title == "" && r.Source.URL == "" {
		add(n.Line, "published: source is missing: give its title and url")
	}
	if len(r.Claims) == 0 {
		add(n.Line, "published: claims is empty: list at least one claim")
	}
	pub := &Published{Source: Source(r.Source), Conditions: r.Conditions}
	tablesNode := mapValue(n, "tables")
	for i, rt := range r.Tables {
		line := itemLine(tablesNode, i)
		for k := range rt.Extra {
			add(line, "published table %d: unknown key %q; valid keys: caption, rows, columns, metrics", i+1, k)
		}
		if len(rt.Rows) == 0 || len(rt.Metrics) == 0 {
			add(line, "published table %d: give rows (the parameters that name a row, e.g. [target]) and metrics (e.g. [throughput])", i+1)
		}
		for _, m := range rt.Metrics {
			if _, ok := Metrics[m]; !ok {
				add(line, "published table %d: metric %q is not one of %s", i+1, m, strings.Join(metricNames(), ", "))
			}
		}
		pub.Tables = append(pub.Tables, Table{Caption: rt.Caption, Rows: rt.Rows, Columns: rt.Columns, Metrics: rt.Metrics})
	}
	claimsNode := mapValue(n, "claims")
	seen := map[string]bool{}
	for i, rc := range r.Claims {
		line := itemLine(claimsNode, i)
		name := rc.ID
		if name == "" {
			add(line, "published claim %d has no id", i+1)
			name = strconv.Itoa(i + 1)
		} else if seen[name] {
			add(line, "published claim %q: id used twice", name)
		}
		seen[name] = true
		for k := range rc.Extra {
			add(line, "published claim %q: unknown key %q; valid keys: id, said, figures, conditions, metric, ratio, expect, from, tolerance, less, zero, positive, untestable, words, kind, needs", name, k)
		}
		c := Claim{ID: rc.ID, Said: rc.Said, Figures: rc.Figures, Conditions: rc.Conditions, Metric: rc.Metric, Untestable: rc.Untestable, ClaimKind: rc.Kind, Needs: rc.Needs, Line: line}
		switch rc.Kind {
		case "", "direct", "analog", "untestable", "not-run":
		default:
			add(line, "published claim %q: kind %q is not one of direct, analog, untestable, not-run", name, rc.Kind)
		}
		if c.Said == "" {
			add(line, "published claim %q: said is missing: quote the source's words", name)
		}
		for _, m := range rc.Ratio {
			c.Ratio = append(c.Ratio, selectorOf(m))
		}
		for _, m := range rc.Less {
			c.Less = append(c.Less, selectorOf(m))
		}
		if rc.Zero != nil {
			s := selectorOf(rc.Zero)
			c.Zero = &s
		}
		if rc.Positive != nil {
			s := selectorOf(rc.Positive)
			c.Positive = &s
		}
		checks := 0
		for _, has := range []bool{len(c.Ratio) > 0, len(c.Less) > 0, c.Zero != nil, c.Positive != nil, c.Untestable != ""} {
			if has {
				checks++
			}
		}
		if checks != 1 {
			add(line, "published claim %q: give exactly one of ratio, less, zero, positive or untestable (got %d)", name, checks)
		}
		if (len(c.Ratio) > 0 && len(c.Ratio) != 2) || (len(c.Less) > 0 && len(c.Less) != 2) {
			add(line, "published claim %q: ratio and less name two cells, [{numerator}, {denominator}] or [{lower}, {higher}]", name)
		}
		if c.Untestable == "" && checks == 1 {
			if _, ok := Metrics[c.Metric]; !ok {
				add(line, "published claim %q: metric %q is not one of %s", name, c.Metric, strings.Join(metricNames(), ", "))
			}
		}
		if len(c.Ratio) > 0 {
			switch {
			case rc.Expect != nil:
				c.Expect = *rc.Expect
			case len(rc.From) == 2 && rc.From[1] != 0:
				c.Expect, c.From = rc.From[0]/rc.From[1], rc.From
			default:
				add(line, "published claim %q: a ratio needs expect: N or from: [numerator, denominator] (the published figures)", name)
			}
			if rc.Expect != nil && len(rc.From) == 2 && rc.From[1] != 0 && math.Abs(*rc.Expect/(rc.From[0]/rc.From[1])-1) > 0.01 {
				add(line, "published claim %q: expect %g is not from's %g / %g = %.3f", name, *rc.Expect, rc.From[0], rc.From[1], rc.From[0]/rc.From[1])
			}
			c.Tolerance = DefaultTolerance
			if rc.Tolerance != nil {
				c.Tolerance = *rc.Tolerance
			}
			if !(c.Expect > 0) || !(c.Tolerance > 0) {
				add(line, "published claim %q: expect and tolerance must be above 0", name)
			}
		}
		if w := rc.Words; w != nil {
			if w.Text == "" || len(w.Of) != 2 || w.Of[1] == 0 {
				add(line, "published claim %q: words needs text, value and of: [numerator, denominator] from the source's own table", name)
			} else {
				c.Words = &Words{Text: w.Text, Value: w.Value, Of: w.Of}
			}
		}
		pub.Claims = append(pub.Claims, c)
	}
	return pub
}

func metricNames() []string {
	var out []string
	for k := range Metrics {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Cell is a plan cell as claims see it: its workload and its parameters
// (target, threads, options) as the plan writes them.
type Cell struct {
	Workload string
	Params   map[string]string
	// ID and Identity are the cell's name and the hash of everything that
	// makes it (plan.Cell): a result counts for the cell only when it
	// records both, not one of an older version of the plan left in its
	// output directory.
	ID, Identity string
}

// Values are the distinct values of the parameters keys over the cells,
// as selectors, in the order the cells have them ("workload" names the
// cell's workload). A cell without one of the keys has none.
func Values(cells []Cell, keys []string) []Selector {
	var out []Selector
	seen := map[string]bool{}
	for _, c := range cells {
		s := Selector{}
		ok := true
		for _, k := range keys {
			v, has := c.Params[k]
			if k == "workload" {
				v, has = c.Workload, true
			}
			if !has {
				ok = false
				break
			}
			s[k] = v
		}
		if ok && !seen[s.String()] {
			seen[s.String()] = true
			out = append(out, s)
		}
	}
	return out
}

// MatchCells are the cells a selector names.
func MatchCells(cells []Cell, s Selector) []Cell {
	var out []Cell
	for _, c := range cells {
		if s.Matches(c.Workload, c.Params) {
			out = append(out, c)
		}
	}
	return out
}

// Check reports each selector and table parameter that names no cell, at
// the claim's line (line when it has none).
func (pub *Published) Check(cells []Cell, line int, add func(int, string, ...any)) {
	for i, t := range pub.Tables {
		for _, k := range append(append([]string(nil), t.Rows...), t.Columns...) {
			if len(Values(cells, []string{k})) == 0 {
				add(line, "published table %d: no cell of the plan has the parameter %q", i+1, k)
			}
		}
	}
	for _, c := range pub.Claims {
		for _, s := range c.Selectors() {
			if len(MatchCells(cells, s)) == 0 {
				at := line
				if c.Line > 0 {
					at = c.Line
				}
				add(at, "published claim %q: no cell of the plan has %s", c.ID, s)
			}
		}
	}
}

func itemLine(seq *yaml.Node, i int) int {
	if seq != nil && seq.Kind == yaml.SequenceNode && i < len(seq.Content) {
		return seq.Content[i].Line
	}
	return 1
}

func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n != nil && n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				return n.Content[i+1]
			}
		}
	}
	return nil
}
