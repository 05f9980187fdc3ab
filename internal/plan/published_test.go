package plan

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/published"
)

var spaces = regexp.MustCompile(`\s+`)

func normalized(s string) string { return strings.TrimSpace(spaces.ReplaceAllString(s, " ")) }

// Every checked-in plan names its source by title and author and the copy
// of its text under experiments/sources/; every claim has a kind; every
// said: not marked a paraphrase occurs verbatim (whitespace aside) in that
// text; every direct claim is about the product the plan runs.
func TestExperimentClaimsQuoteTheirSources(t *testing.T) {
	files, _ := filepath.Glob("../../experiments/*.yaml")
	if len(files) == 0 {
		t.Fatal("no plan under experiments/")
	}
	quoted := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile(`(?m)^\s+kind: `).Match(data) {
			// A plan whose owner has not yet given its claims kinds
			// (plan.Read refuses it, naming each claim).
			t.Logf("%s: no claim has a kind yet: not checked here", f)
			continue
		}
		p, err := ReadUnexpanded(f, func(string) string { return "" })
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		src := p.Published.Source
		if src.Title == "" || src.Author == "" || src.File == "" {
			t.Errorf("%s: source %+v: give its title, author and file", f, src)
			continue
		}
		text, err := os.ReadFile(filepath.Join("../../experiments/sources", src.File))
		if err != nil {
			t.Errorf("%s: the source's text: %v", f, err)
			continue
		}
		body := normalized(string(text))
		if !strings.Contains(body, normalized(src.Title)) && !strings.HasPrefix(src.Title, "(untitled)") {
			t.Errorf("%s: title %q is not the text's", f, src.Title)
		}
		for _, c := range p.Published.Claims {
			if c.Kind == "" {
				t.Errorf("%s claim %s: no kind", f, c.ID)
			}
			if c.Kind == published.Direct && !p.Published.RunsProduct(c.About) {
				t.Errorf("%s claim %s: direct, about %s, runs %s", f, c.ID, c.About, p.Published.Runs)
			}
			if c.Paraphrase {
				continue
			}
			quoted++
			if !strings.Contains(body, normalized(c.Said)) {
				t.Errorf("%s claim %s: said %q does not occur in %s: quote it verbatim or mark it paraphrase: true", f, c.ID, c.Said, src.File)
			}
		}
	}
	if quoted == 0 {
		t.Error("no quotation checked")
	}
}

// A plan that calls an analog direct, or leaves a claim without a kind, is
// refused when it is read, at the claim's line, naming the fix.
func TestPlanRefusesAnAnalogCalledDirect(t *testing.T) {
	src := `name: p
targets: {pg: postgres://u@h/db}
workloads: [{name: ycsb/a}]
matrix: {recordcount: [10, 20]}
duration: 1s
published:
  source: {title: T, author: A}
  runs: PostgreSQL
  claims:
    - id: falls
      kind: direct
      about: CockroachDB
      said: it falls
      figures: [51%]
      metric: throughput
      less: [{recordcount: 20}, {recordcount: 10}]
    - id: bare
      said: s
      figures: [1]
      untestable: two products
`
	_, err := Parse("p.yaml", []byte(src), env(nil))
	for _, want := range []string{`line 10: published claim "falls": kind direct, but the claim is about CockroachDB and the cells run PostgreSQL: a claim checked on another product is kind: analog`,
		`line 17: published claim "bare" has no kind: give kind: one of direct, analog, untestable, not-run`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	fixed := strings.Replace(strings.Replace(src, "kind: direct", "kind: analog", 1), "    - id: bare\n", "    - id: bare\n      kind: untestable\n", 1)
	if _, err := Parse("p.yaml", []byte(fixed), env(nil)); err != nil {
		t.Errorf("the fixed plan: %v", err)
	}
}

// Every checked-in claim that checks something states the repetitions it
// needs, at least the two a confidence interval needs, and its plan gives
// each side of it that many: repetitions × the cells it pools, or for a
// load metric the loads its cells make (a cell loads when its data differ
// from the cell before it). Every published table's caption says what was
// measured here; E1's names the record counts of its matrix, not only the
// source's 1M and 450M rows.
func TestExperimentClaimsGetTheirRepetitions(t *testing.T) {
	files, _ := filepath.Glob("../../experiments/*.yaml")
	for _, f := range files {
		p, err := ReadUnexpanded(f, func(string) string { return "" })
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		cells := p.Cells()
		loads := map[string]bool{}
		for i, c := range cells {
			if i == 0 || c.DataKey != cells[i-1].DataKey {
				loads[c.ID] = true
			}
		}
		for _, c := range p.Published.Claims {
			if c.Check() == "" {
				continue
			}
			if c.Repetitions < 2 && c.Check() != "positive" && c.Check() != "zero" || c.Repetitions < 1 {
				t.Errorf("%s claim %s: repetitions %d: state how many each side needs", f, c.ID, c.Repetitions)
			}
			for _, sel := range c.Selectors() {
				n := 0
				for _, pc := range p.PublishedCells() {
					if !sel.Matches(pc.Workload, pc.Params) {
						continue
					}
					switch {
					case strings.HasPrefix(c.Metric, "load-"):
						if loads[pc.ID] {
							n++
						}
					default:
						n += p.Repetitions
					}
				}
				if n < c.Repetitions {
					t.Errorf("%s claim %s: the plan gives {%s} %d, the claim needs %d", f, c.ID, sel, n, c.Repetitions)
				}
			}
		}
		for _, tb := range p.Published.Tables {
			if !strings.Contains(tb.Caption, "measured here") {
				t.Errorf("%s: caption %q does not say what was measured here", f, tb.Caption)
			}
			if p.Name == "e1-ycsb-data-size" {
				for _, want := range []string{"10,000", "200,000", "PostgreSQL"} {
					if !strings.Contains(tb.Caption, want) {
						t.Errorf("E1's caption %q lacks %q", tb.Caption, want)
					}
				}
			}
		}
	}
}
