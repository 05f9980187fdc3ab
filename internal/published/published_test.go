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
	p, problems := parse(t, `source: {title: a post, author: A. Writer, date: "May 25, 2010"}
runs: PostgreSQL
claims:
  - id: r
    kind: direct
    about: postgresql
    said: twice as fast
    figures: [2 vs 1]
    metric: throughput
    ratio: [{target: a}, {target: b, jobs: 1}]
    from: [1555, 735]
  - id: u
    kind: untestable
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
	if c.Kind != Direct || c.Check() != "ratio" || c.Expect < 2.115 || c.Expect > 2.116 || c.Tolerance != DefaultTolerance || c.Ratio[1].String() != "jobs=1, target=b" {
		t.Errorf("claim %+v", c)
	}
	if p.Claims[1].Kind != Untestable || p.Claims[1].Check() != "" || len(p.Tables) != 1 || p.Source.Author != "A. Writer" || p.Source.Date != "May 25, 2010" {
		t.Errorf("%+v", p)
	}
	_, problems = parse(t, `claims:
  - id: x
    kind: analog
    figures: [1]
    metric: speed
    ratio: [{target: a}]
    less: [{target: a}, {target: b}]
tables:
  - {rows: [target], metrics: [speed]}
`)
	want := []string{"source needs its title and author", "said is missing", "an analog claim gives exactly one of ratio, less, atmost, zero or positive (got 2)", "ratio, less and atmost name two cells",
		`metric "speed" is not one of`, "a ratio needs expect", `published table 1: metric "speed"`}
	all := strings.Join(problems, "\n")
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("no problem %q in:\n%s", w, all)
		}
	}
}

// Every claim has a kind, and the kind fits what the claim gives: a claim
// without one, a direct claim about a product the cells do not run (an
// analog called direct), an untestable claim without its reason and a
// not-run claim without what it needs are each refused, naming the claim
// and the fix.
func TestClaimKinds(t *testing.T) {
	head := "source: {title: T, author: A}\nruns: PostgreSQL\nclaims:\n"
	cases := []struct {
		name, claim, want string
	}{
		{"no kind", "  - {id: c, said: s, figures: [1], about: PostgreSQL, metric: lost, zero: {target: a}}", `published claim "c" has no kind: give kind: one of direct, analog, untestable, not-run`},
		{"unknown kind", "  - {id: c, kind: proxy, said: s, figures: [1], about: PostgreSQL, metric: lost, zero: {target: a}}", `published claim "c": kind "proxy" is not one of direct, analog, untestable, not-run`},
		{"an analog called direct", "  - {id: c, kind: direct, about: YugabyteDB, said: s, figures: [1], metric: lost, zero: {target: a}}",
			`published claim "c": kind direct, but the claim is about YugabyteDB and the cells run PostgreSQL: a claim checked on another product is kind: analog`},
		{"direct without about", "  - {id: c, kind: direct, said: s, figures: [1], metric: lost, zero: {target: a}}", `a direct claim names the product the source's claim is about`},
		{"untestable without a reason", "  - {id: c, kind: untestable, said: s, figures: [1]}", `published claim "c": kind untestable needs untestable: REASON`},
		{"not-run without needs", "  - {id: c, kind: not-run, said: s, figures: [1]}", `published claim "c": kind not-run needs needs: WHAT`},
		{"untestable that checks", "  - {id: c, kind: untestable, untestable: r, said: s, figures: [1], metric: lost, zero: {target: a}}", `kind untestable checks nothing here`},
		{"analog without a check", "  - {id: c, kind: analog, about: TiDB, said: s, figures: [1], metric: lost}", `an analog claim gives exactly one of ratio, less, atmost, zero or positive (got 0)`},
	}
	for _, c := range cases {
		_, problems := parse(t, head+c.claim+"\n")
		if all := strings.Join(problems, "\n"); len(problems) != 1 || !strings.Contains(all, c.want) {
			t.Errorf("%s: want the one problem %q, got:\n%s", c.name, c.want, all)
		}
	}
	// The four kinds, each right, read without a problem.
	p, problems := parse(t, head+`  - {id: d, kind: direct, about: postgresql, said: s, figures: [1], metric: lost, zero: {target: a}}
  - {id: a, kind: analog, about: TiDB, said: s, paraphrase: true, figures: [1], metric: throughput, less: [{threads: 1}, {threads: 2}], slips: [23.95 ms for two thread counts]}
  - {id: u, kind: untestable, untestable: two products, said: s, figures: [1]}
  - {id: n, kind: not-run, needs: a 10-minute cell, said: s, figures: [1]}
`)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	if k := []string{p.Claims[0].Kind, p.Claims[1].Kind, p.Claims[2].Kind, p.Claims[3].Kind}; strings.Join(k, " ") != "direct analog untestable not-run" ||
		!p.Claims[1].Paraphrase || len(p.Claims[1].Slips) != 1 || p.Claims[3].Needs != "a 10-minute cell" {
		t.Errorf("claims %+v", p.Claims)
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

// A claim states the repetitions it needs: read as given, at least the
// two a confidence interval needs for a ratio or an order, and only on a
// claim that checks something here.
func TestParseRepetitions(t *testing.T) {
	p, problems := parse(t, `source: {title: a post, author: A. Writer}
runs: PostgreSQL
claims:
  - {id: r, kind: direct, about: PostgreSQL, said: x, figures: [1], metric: throughput, less: [{target: a}, {target: b}], repetitions: 5}
  - {id: z, kind: direct, about: PostgreSQL, said: x, figures: [1], metric: lost, positive: {target: a}}
`)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	if p.Claims[0].Repetitions != 5 || p.Claims[0].NeedsRepetitions() != 5 || p.Claims[1].NeedsRepetitions() != 1 {
		t.Errorf("repetitions %+v", p.Claims)
	}
	_, problems = parse(t, `source: {title: a post, author: A. Writer}
runs: PostgreSQL
claims:
  - {id: r, kind: direct, about: PostgreSQL, said: x, figures: [1], metric: throughput, less: [{target: a}, {target: b}], repetitions: 1}
  - {id: u, kind: untestable, said: x, figures: [1], untestable: a cluster, repetitions: 3}
`)
	got := strings.Join(problems, "\n")
	for _, want := range []string{`"r": repetitions 1 is below the 2 a less check needs`, `"u": repetitions belongs to a claim that checks something here`} {
		if !strings.Contains(got, want) {
			t.Errorf("problems lack %q:\n%s", want, got)
		}
	}
}

// TestRunsProducts: a plan whose cells run the two products a source
// compared names both in runs; a direct claim is about either, and one
// about a third product is not direct.
func TestRunsProducts(t *testing.T) {
	p := Published{Runs: "VoltDB, Cassandra"}
	for product, want := range map[string]bool{"VoltDB": true, "cassandra": true, " Cassandra ": true,
		"VoltDB, Cassandra": true, "PostgreSQL": false, "Volt": false, "": false} {
		if got := p.RunsProduct(product); got != want {
			t.Errorf("runs %q, about %q: %v, want %v", p.Runs, product, got, want)
		}
	}
	if !(Published{Runs: "PostgreSQL"}).RunsProduct("postgresql") || (Published{Runs: "PostgreSQL"}).RunsProduct("MySQL") {
		t.Error("one product in runs: case-insensitive equality")
	}
}
