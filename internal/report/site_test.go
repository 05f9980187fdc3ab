package report

import (
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/result"
)

// sitePlan is a plan with a published: block, written to dir.
func sitePlan(t *testing.T, dir, name string) *ClaimsPlan {
	t.Helper()
	f := filepath.Join(dir, name+".yaml")
	os.WriteFile(f, []byte(`name: `+name+`
targets: {pg: postgres://u@h/db, sqlite: sqlite://x.db}
workloads: [{name: ycsb/a}]
duration: 1s
published:
  source: {title: a post, author: A. Writer, date: "May 25, 2010", url: https://example.org/post}
  conditions: one VM
  runs: PostgreSQL and SQLite
  slips: [a unit switched mid-sentence]
  claims:
    - id: pg-faster
      kind: analog
      about: TiDB
      said: PostgreSQL is faster
      conditions: both in memory here
      slips: [a figure given for two sizes]
      figures: [2 vs 1 ops/s]
      metric: throughput
      ratio: [{target: pg}, {target: sqlite}]
      from: [2, 1]
    - id: cluster
      kind: untestable
      said: it scales
      paraphrase: true
      figures: [3 nodes]
      untestable: a 3-node cluster
`), 0o644)
	p, err := ReadPlan(f)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// The site: index.html with one row per claim of every plan, each of its
// kind, with its source's title, author and date, its conditions and the
// source's slips; an analog's verdict is the mechanism seen or not, never
// "reproduced"; a plan without results is listed, its claims not run here
// with the reason its NOT-RUN file gives, counted apart from the untestable
// ones; a paraphrase is printed without quotation marks; a folder per experiment with its report
// (claims first), audit, results and plan; every link relative and
// resolving to a file of the site; no script, no external resource.
func TestWriteSite(t *testing.T) {
	dir := t.TempDir()
	in, err := Load(filepath.Join(fixtureDir, "ycsb-a-pg-t1.json"), filepath.Join(fixtureDir, "ycsb-a-sqlite-t4.json"))
	if err != nil {
		t.Fatal(err)
	}
	ran := sitePlan(t, dir, "e1")
	for i, target := range []string{"pg", "sqlite"} {
		in[i].Result.Plan = &result.PlanRef{Name: "e1", File: ran.File, Cell: "c" + target, Params: map[string]string{"target": target}}
	}
	idle := sitePlan(t, dir, "e9")
	os.MkdirAll(idle.Output, 0o755)
	os.WriteFile(filepath.Join(idle.Output, NotRunFile), []byte("needs a 3-node Cassandra (CASS3_URL)\n"), 0o644)
	site := filepath.Join(dir, "site")
	s, err := WriteSite(site, in, []*ClaimsPlan{ran, idle})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Claims) != 4 || len(s.Experiments) != 2 {
		t.Fatalf("%d claims, %d experiments", len(s.Claims), len(s.Experiments))
	}
	index, _ := os.ReadFile(filepath.Join(site, "index.html"))
	page := string(index)
	if n := strings.Count(page, `<tr class="`); n != 4 {
		t.Errorf("%d claim rows, want 4", n)
	}
	for _, want := range []string{"needs a 3-node Cassandra (CASS3_URL)", "2 / 1 = 2.00", "untestable here:<br><small>a 3-node cluster", `href="e1/report.html"`, `href="e1/plan/e1.yaml"`,
		"<i>analog, about TiDB</i>", "<i>untestable</i>", "a post, by A. Writer, May 25, 2010", "conditions: both in memory here", "the source's slip: a figure given for two sizes",
		"2 untestable here", "2 not run here", "the source's slip: a unit switched mid-sentence", "not run here:<br><small>the plan did not run here: needs a 3-node Cassandra", "“PostgreSQL is faster”", "it scales (paraphrased)"} {
		if !strings.Contains(page, want) {
			t.Errorf("index lacks %q", want)
		}
	}
	if strings.Contains(page, "“it scales”") || regexp.MustCompile(`class="v">(not )?reproduced`).MatchString(page) {
		t.Errorf("a paraphrase in quotation marks, or an analog reproduced:\n%s", page)
	}
	report, _ := os.ReadFile(filepath.Join(site, "e1", "report.html"))
	// The experiment's page: each claim's kind and its words, the source
	// attributed, its slips, the verdicts in the kinds' words.
	for _, want := range []string{"pg-faster (analog)", "cluster (untestable)", "pg-faster (analog, about TiDB): “PostgreSQL is faster”", "cluster (untestable): it scales (paraphrased)",
		"source a post, by A. Writer, May 25, 2010", "the source's slip: a figure given for two sizes", "the source's slip: a unit switched mid-sentence", "untestable here: a 3-node cluster"} {
		if !strings.Contains(html.UnescapeString(string(report)), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if !strings.Contains(string(report), "Published claims") || strings.Index(string(report), "Published claims") > strings.Index(string(report), "Fairness audit") {
		t.Errorf("the experiment's report does not open with its claims")
	}
	// Every link is relative and resolves inside the site.
	for _, f := range s.Files {
		if !strings.HasSuffix(f, ".html") {
			continue
		}
		data, _ := os.ReadFile(filepath.Join(site, f))
		if strings.Contains(string(data), "<script") || regexp.MustCompile(`(src|href)="(https?:)?//`).Match(data) {
			t.Errorf("%s loads a script or an external resource", f)
		}
		for _, m := range regexp.MustCompile(`href="([^"#]+)"`).FindAllStringSubmatch(string(data), -1) {
			target := filepath.Join(site, filepath.Dir(f), m[1])
			if _, err := os.Stat(target); err != nil || filepath.IsAbs(m[1]) {
				t.Errorf("%s: link %s does not resolve in the site", f, m[1])
			}
		}
	}
	if _, err := WriteSite(site, in, nil); err == nil {
		t.Error("a site was written over an existing one")
	}
}

// The site's pages, as Chromium lays them out: no legend over a line, no
// text outside its chart.
func TestSitePagesInChromium(t *testing.T) {
	needChromium(t)
	dir := t.TempDir()
	in, err := Load(fixtureDir)
	if err != nil {
		t.Fatal(err)
	}
	site := filepath.Join(dir, "site")
	s, err := WriteSite(site, in, nil)
	if err != nil {
		t.Fatal(err)
	}
	pages := 0
	for _, f := range s.Files {
		if !strings.HasSuffix(f, ".html") {
			continue
		}
		pages++
		data, _ := os.ReadFile(filepath.Join(site, f))
		r := checkLegends(t, data)
		if len(r.Overlaps)+len(r.Spills) > 0 {
			t.Errorf("%s: texts over lines %q, outside their chart %q", f, r.Overlaps, r.Spills)
		}
	}
	if pages < 2 {
		t.Errorf("%d pages checked", pages)
	}
}
