package published

import (
	"fmt"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func parse(t *testing.T, text string) (*Published, []string) {
	t.Helper()
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(text), &n); err != nil {
		t.Fatal(err)
	}
	var problems []string
	p := Parse(n.Content[0], func(line int, f string, a ...any) {
		problems = append(problems, strings.TrimSpace(strings.ReplaceAll(sprintf(f, a...), "\n", " ")))
	})
	return p, problems
}

// A claim reads with its check; from: gives the published ratio; the
// problems of a bad block are all reported, each naming the fix.
func TestParse(t *testing.T) {
	p, problems := parse(t, `source: {title: a post}
claims:
  - id: r
    said: twice as fast
    figures: [2 vs 1]
    metric: throughput
    ratio: [{target: a}, {target: b, jobs: 1}]
    from: [1555, 735]
  - id: u
    said: scales
    figures: [3 nodes]
    untestable: a 3-node cluster
tables:
  - {rows: [target], columns: [jobs], metrics: [throughput]}
`)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	c := p.Claims[0]
	if c.Kind() != "ratio" || c.Expect < 2.115 || c.Expect > 2.116 || c.Tolerance != DefaultTolerance || c.Ratio[1].String() != "jobs=1, target=b" {
		t.Errorf("claim %+v", c)
	}
	if p.Claims[1].Kind() != "untestable" || len(p.Tables) != 1 {
		t.Errorf("%+v", p)
	}
	_, problems = parse(t, `claims:
  - id: x
    figures: [1]
    metric: speed
    ratio: [{target: a}]
    less: [{target: a}, {target: b}]
tables:
  - {rows: [target], metrics: [speed]}
`)
	want := []string{"source is missing", "said is missing", "exactly one of ratio, less, zero, positive or untestable (got 2)", "ratio and less name two cells",
		`metric "speed" is not one of`, "a ratio needs expect", `published table 1: metric "speed"`}
	all := strings.Join(problems, "\n")
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("no problem %q in:\n%s", w, all)
		}
	}
}

// Selectors match cells by their parameters as the plan writes them;
// Check names each selector that matches no cell.
func TestSelectorsAndCheck(t *testing.T) {
	cells := []Cell{{Workload: "commit-loop", Params: map[string]string{"target": "a", "jobs": "1"}}, {Workload: "commit-loop", Params: map[string]string{"target": "b", "jobs": "3"}}}
	if n := len(MatchCells(cells, Selector{"workload": "commit-loop", "jobs": "1"})); n != 1 {
		t.Errorf("matched %d", n)
	}
	if v := Values(cells, []string{"target"}); len(v) != 2 || v[1]["target"] != "b" {
		t.Errorf("values %v", v)
	}
	p := &Published{Claims: []Claim{{ID: "c", Less: []Selector{{"target": "a"}, {"target": "z"}}}}, Tables: []Table{{Rows: []string{"nodes"}}}}
	var problems []string
	p.Check(cells, 9, func(line int, f string, a ...any) { problems = append(problems, sprintf(f, a...)) })
	if len(problems) != 2 || !strings.Contains(problems[1], `claim "c": no cell of the plan has target=z`) || !strings.Contains(problems[0], `parameter "nodes"`) {
		t.Errorf("problems %q", problems)
	}
}

func sprintf(f string, a ...any) string { return fmt.Sprintf(f, a...) }
