// Package published holds a plan's published: block — what the source of an
// experiment published, and each claim of a kind (direct, analog,
// untestable, not-run) stated as what one machine can check (a ratio or an
// order between cells, lost writes) — and how it is read. It is a leaf: the plan reader embeds it,
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
	// Runs is the product the plan's cells run here ("PostgreSQL"), or the
	// products, comma-separated ("VoltDB, Cassandra"): a direct claim is
	// about one of them, an analog about another.
	Runs   string
	Claims []Claim
	// Slips are the source's slips no single claim uses.
	Slips []string
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

// Source names where the figures were published, as the text itself
// gives them: its title, author and date ("" when the text gives none)
// and a URL only when the text gives one. File is the text's copy under
// experiments/sources/, which a test checks each verbatim said: against.
type Source struct{ Title, Author, Date, URL, File string }

// The kinds of claim.
const (
	// Direct: the source's claim about the product that runs here,
	// checked on it.
	Direct = "direct"
	// Analog: the same mechanism on another product; it can show the
	// mechanism, never reproduce the source's claim.
	Analog = "analog"
	// Untestable: cannot be checked here, for the reason given.
	Untestable = "untestable"
	// NotRun: could run here, but is not: Needs says what it needs.
	NotRun = "not-run"
)

// Kinds are the kinds a claim can have, in the order the docs list them.
var Kinds = []string{Direct, Analog, Untestable, NotRun}

// Claim is one published claim of a kind. A direct or analog claim states
// what is checked here by exactly one of Ratio, Less, AtMost, Zero and
// Positive;
// an untestable one gives its reason, a not-run one what it needs.
type Claim struct {
	ID   string
	Kind string // one of Kinds
	// About is the product the source's claim is about ("YugabyteDB").
	About string
	// Said is the source's own words, verbatim, unless Paraphrase.
	Said       string
	Paraphrase bool
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
	// AtMost: Metric of AtMost[0] is at most Metric of AtMost[1] in every
	// pairing of their repetitions (counts such as lost writes, where 0 is
	// a figure a ratio cannot take).
	AtMost []Selector
	// Zero: Metric is 0 in every repetition of the cells; Positive: above 0
	// in every one.
	Zero, Positive *Selector
	// Repetitions is how many repetitions each side of the check needs
	// (a load metric: how many loads) before a verdict is called; fewer
	// give "too few repetitions", naming both. 0: the check's minimum
	// (MinRepetitions).
	Repetitions int
	// Untestable says why the claim cannot be tested on one machine
	// (kind untestable).
	Untestable string
	// Needs says what a not-run claim needs to run here.
	Needs string
	// Slips are the source's slips this claim uses (a figure that does not
	// add up, a unit switched), as notes beside its verdict.
	Slips []string
	// Words is the source's words checked against its own figures.
	Words *Words
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
// one the selector names. A key whose value is "" names the cells without
// that parameter.
func (s Selector) Matches(workload string, params map[string]string) bool {
	for k, v := range s {
		got, ok := params[k]
		if k == "workload" {
			got, ok = workload, true
		}
		if v == "" && !ok {
			continue
		}
		if !ok || got != v {
			return false
		}
	}
	return true
}

// Check is the check a claim makes: ratio, less, atmost, zero or positive; "" for
// a claim that checks nothing here (untestable, not run).
func (c Claim) Check() string {
	switch {
	case len(c.Ratio) > 0:
		return "ratio"
	case len(c.Less) > 0:
		return "less"
	case len(c.AtMost) > 0:
		return "atmost"
	case c.Zero != nil:
		return "zero"
	case c.Positive != nil:
		return "positive"
	}
	return ""
}

// MinRepetitions is the fewest repetitions per side a check can call: a
// ratio or an order needs a confidence interval (two), the others one.
func (c Claim) MinRepetitions() int {
	switch c.Check() {
	case "ratio", "less":
		return 2
	}
	return 1
}

// NeedsRepetitions is how many repetitions per side the claim needs before
// a verdict: its repetitions, else the check's minimum.
func (c Claim) NeedsRepetitions() int {
	if c.Repetitions > c.MinRepetitions() {
		return c.Repetitions
	}
	return c.MinRepetitions()
}

// Selectors are the cells the claim names.
func (c Claim) Selectors() []Selector {
	out := append(append(append([]Selector(nil), c.Ratio...), c.Less...), c.AtMost...)
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
	Runs       string         `yaml:"runs"`
	Slips      []string       `yaml:"slips"`
	Claims     []rawClaim     `yaml:"claims"`
	Tables     []rawTable     `yaml:"tables"`
	Extra      map[string]any `yaml:",inline"`
}

type rawSource struct {
	Title  string         `yaml:"title"`
	Author string         `yaml:"author"`
	Date   string         `yaml:"date"`
	URL    string         `yaml:"url"`
	File   string         `yaml:"file"`
	Extra  map[string]any `yaml:",inline"`
}

type rawClaim struct {
	ID         string           `yaml:"id"`
	Kind       string           `yaml:"kind"`
	About      string           `yaml:"about"`
	Said       string           `yaml:"said"`
	Paraphrase bool             `yaml:"paraphrase"`
	Needs      string           `yaml:"needs"`
	Slips      []string         `yaml:"slips"`
	Figures    []string         `yaml:"figures"`
	Conditions string           `yaml:"conditions"`
	Metric     string           `yaml:"metric"`
	Ratio      []map[string]any `yaml:"ratio"`
	Expect     *float64         `yaml:"expect"`
	From       []float64        `yaml:"from"`
	Tolerance  *float64         `yaml:"tolerance"`
	Less       []map[string]any `yaml:"less"`
	AtMost     []map[string]any `yaml:"atmost"`
	Zero       map[string]any   `yaml:"zero"`
	Positive   map[string]any   `yaml:"positive"`
	Untestable string           `yaml:"untestable"`
	Repeat     int              `yaml:"repetitions"`
	Words      *rawWords        `yaml:"words"`
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
		add(n.Line, "published: unknown key %q; valid keys: source, conditions, runs, slips, claims, tables", k)
	}
	for k := range r.Source.Extra {
		add(n.Line, "published source: unknown key %q; valid keys: title, author, date, url, file", k)
	}
	if r.Source.Title == "" || r.Source.Author == "" {
		add(n.Line, "published: source needs its title and author as the text gives them (source: {title: ..., author: ..., date: ...}; author: \"not given\" when the text names none)")
	}
	if len(r.Claims) == 0 {
		add(n.Line, "published: claims is empty: list at least one claim")
	}
	pub := &Published{Source: Source{Title: r.Source.Title, Author: r.Source.Author, Date: r.Source.Date, URL: r.Source.URL, File: r.Source.File},
		Conditions: r.Conditions, Runs: r.Runs, Slips: r.Slips}
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
			add(line, "published claim %q: unknown key %q; valid keys: id, kind, about, said, paraphrase, figures, conditions, metric, ratio, expect, from, tolerance, less, atmost, zero, positive, repetitions, untestable, needs, slips, words", name, k)
		}
		c := Claim{ID: rc.ID, Kind: rc.Kind, About: rc.About, Said: rc.Said, Paraphrase: rc.Paraphrase, Figures: rc.Figures, Conditions: rc.Conditions,
			Metric: rc.Metric, Untestable: rc.Untestable, Needs: rc.Needs, Slips: rc.Slips, Repetitions: rc.Repeat, Line: line}
		if c.Said == "" {
			add(line, "published claim %q: said is missing: quote the source's words (or paraphrase them with paraphrase: true)", name)
		}
		for _, m := range rc.Ratio {
			c.Ratio = append(c.Ratio, selectorOf(m))
		}
		for _, m := range rc.Less {
			c.Less = append(c.Less, selectorOf(m))
		}
		for _, m := range rc.AtMost {
			c.AtMost = append(c.AtMost, selectorOf(m))
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
		for _, has := range []bool{len(c.Ratio) > 0, len(c.Less) > 0, len(c.AtMost) > 0, c.Zero != nil, c.Positive != nil} {
			if has {
				checks++
			}
		}
		checkKind(name, line, c, checks, pub.Runs, add)
		if rc.Repeat != 0 && checks == 1 && rc.Repeat < c.MinRepetitions() {
			add(line, "published claim %q: repetitions %d is below the %d a %s check needs (a confidence interval needs two)", name, rc.Repeat, c.MinRepetitions(), c.Check())
		}
		if rc.Repeat != 0 && checks == 0 {
			add(line, "published claim %q: repetitions belongs to a claim that checks something here (kind direct or analog)", name)
		}
		if (len(c.Ratio) > 0 && len(c.Ratio) != 2) || (len(c.Less) > 0 && len(c.Less) != 2) || (len(c.AtMost) > 0 && len(c.AtMost) != 2) {
			add(line, "published claim %q: ratio, less and atmost name two cells, [{numerator}, {denominator}] or [{lower}, {higher}]", name)
		}
		if checks == 1 {
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

// checkKind reports a claim whose kind is missing or unknown, or does not
// fit what the claim gives: a direct or analog claim checks exactly one
// thing and names the product it is about, a direct one the product that
// runs here (a claim about another product is an analog); an untestable
// claim gives its reason and a not-run claim what it needs, and neither
// checks anything.
func checkKind(name string, line int, c Claim, checks int, runs string, add func(int, string, ...any)) {
	kinds := strings.Join(Kinds, ", ")
	switch c.Kind {
	case "":
		add(line, "published claim %q has no kind: give kind: one of %s (docs/PLANS.md, \"The published: block\")", name, kinds)
	case Direct, Analog:
		what := map[string]string{Direct: "a direct claim", Analog: "an analog claim"}[c.Kind]
		if checks != 1 {
			add(line, "published claim %q: %s gives exactly one of ratio, less, atmost, zero or positive (got %d)", name, what, checks)
		}
		if c.Untestable != "" || c.Needs != "" {
			add(line, "published claim %q: %s is checked here: untestable and needs belong to kind untestable and not-run", name, what)
		}
		switch {
		case c.About == "":
			add(line, "published claim %q: %s names the product the source's claim is about (about: YugabyteDB)", name, what)
		case runs == "":
			add(line, "published claim %q: %s needs the block's runs: (the product the plan's cells run here, e.g. runs: PostgreSQL)", name, what)
		case c.Kind == Direct && !runsProduct(runs, c.About):
			add(line, "published claim %q: kind direct, but the claim is about %s and the cells run %s: a claim checked on another product is kind: analog", name, c.About, runs)
		}
	case Untestable, NotRun:
		switch {
		case c.Kind == Untestable && strings.TrimSpace(c.Untestable) == "":
			add(line, "published claim %q: kind untestable needs untestable: REASON (why this machine cannot check it)", name)
		case c.Kind == NotRun && strings.TrimSpace(c.Needs) == "":
			add(line, "published claim %q: kind not-run needs needs: WHAT (what it needs to run here: a cell, a longer run)", name)
		}
		if checks > 0 {
			add(line, "published claim %q: kind %s checks nothing here: drop ratio, less, atmost, zero and positive, or make it direct or analog", name, c.Kind)
		}
		if c.Kind == Untestable && c.Needs != "" || c.Kind == NotRun && c.Untestable != "" {
			add(line, "published claim %q: untestable: goes with kind untestable, needs: with kind not-run", name)
		}
	default:
		add(line, "published claim %q: kind %q is not one of %s", name, c.Kind, kinds)
	}
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
// cell's workload). A cell without some of the keys has "" for them (a
// selector's "" names the cells without the key: E3's client-ids cells
// have no sequence-cache, and keep their row); a cell with none of them
// has no value.
func Values(cells []Cell, keys []string) []Selector {
	var out []Selector
	seen := map[string]bool{}
	for _, c := range cells {
		s := Selector{}
		some := false
		for _, k := range keys {
			v, has := c.Params[k]
			if k == "workload" {
				v, has = c.Workload, true
			}
			some = some || has
			s[k] = v
		}
		if some && !seen[s.String()] {
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
			if !anyCellHas(cells, k) {
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

func anyCellHas(cells []Cell, key string) bool {
	for _, c := range cells {
		if _, ok := c.Params[key]; ok || key == "workload" {
			return true
		}
	}
	return false
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

// RunsProduct reports whether product is one the plan's cells run: the
// block's runs, or one of the products it lists ("VoltDB, Cassandra": a
// plan whose cells run both products the source compared).
func (p Published) RunsProduct(product string) bool { return runsProduct(p.Runs, product) }

func runsProduct(runs, product string) bool {
	if strings.EqualFold(strings.TrimSpace(runs), strings.TrimSpace(product)) {
		return true
	}
	for _, r := range strings.Split(runs, ",") {
		if strings.EqualFold(strings.TrimSpace(r), strings.TrimSpace(product)) {
			return true
		}
	}
	return false
}
