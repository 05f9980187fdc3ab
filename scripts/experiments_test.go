package scripts

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/candor-bench/candor/internal/plan"
	"github.com/candor-bench/candor/internal/published"
)

// Every checked-in plan carries a published: block whose claims name cells
// the plan has (plan.Read refuses a selector that names none), and each
// claim says what is checked here or why it cannot be.
func TestExperimentPlansCarryTheirClaims(t *testing.T) {
	files, _ := filepath.Glob("../experiments/*.yaml")
	for _, f := range files {
		if data, _ := os.ReadFile(f); !regexp.MustCompile(`(?m)^\s+kind: `).Match(data) {
			t.Logf("%s: no claim has a kind yet: not checked here", f)
			continue
		}
		p, err := plan.ReadUnexpanded(f, func(string) string { return "" })
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if p.Published == nil || len(p.Published.Claims) == 0 {
			t.Errorf("%s: no published: block with claims", f)
			continue
		}
		cells := p.PublishedCells()
		for _, c := range p.Published.Claims {
			if c.Kind == "" || c.Said == "" || len(c.Figures) == 0 || (c.Check() == "") != (c.Kind == published.Untestable || c.Kind == published.NotRun) {
				t.Errorf("%s claim %s: kind %q, check %q, said %q, figures %q", f, c.ID, c.Kind, c.Check(), c.Said, c.Figures)
			}
			for _, s := range c.Selectors() {
				if len(published.MatchCells(cells, s)) == 0 {
					t.Errorf("%s claim %s: {%s} names no cell", f, c.ID, s)
				}
			}
		}
	}
}

// A plan whose claim names a cell the matrix does not make is refused when
// it is read, at the claim's own line.
func TestPublishedClaimNamingNoCellIsRefused(t *testing.T) {
	data := []byte(`name: x
targets: {pg: postgres://u@h/db}
workloads: [{name: ycsb/a}]
matrix: {recordcount: [10, 20]}
duration: 1s
published:
  source: {title: a post, author: A}
  runs: PostgreSQL
  claims:
    - id: falls
      kind: analog
      about: CockroachDB
      said: it falls
      figures: [1 vs 2]
      metric: throughput
      less: [{recordcount: 30}, {recordcount: 10}]
`)
	_, err := plan.Parse("x.yaml", data, func(string) string { return "" })
	if err == nil || !strings.Contains(err.Error(), `line 10: published claim "falls": no cell of the plan has recordcount=30`) {
		t.Fatalf("got %v", err)
	}
}

// scalePlan rewrites a plan file for a run of seconds: sizes (recordcount,
// table-size, rows, pairs) divided by 100, in the workloads' options, the
// matrix and the claims' selectors alike; 500 ms runs, 2 repetitions, no
// warm-up (4 s around a fault, with an error budget for the writes in
// flight at the kill); the faults' times scaled as the duration is; matrix
// axes cut to the values the claims name (else their first two); workload
// entries no claim names dropped. The output goes to out.
func scalePlan(t *testing.T, file, out string) []byte {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	root := doc.Content[0]
	sizes := map[string]bool{"recordcount": true, "table-size": true, "rows": true, "pairs": true}
	scale := func(n *yaml.Node) {
		if v, err := strconv.Atoi(n.Value); err == nil {
			n.Value = strconv.Itoa(max(10, v/100))
		}
	}
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				if sizes[k.Value] {
					if v.Kind == yaml.ScalarNode {
						scale(v)
					}
					for _, x := range v.Content {
						scale(x)
					}
				}
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(root)
	p, err := plan.ParseUnexpanded(file, data, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]map[string]bool{}
	var sels []published.Selector
	for _, c := range p.Published.Claims {
		for _, s := range c.Selectors() {
			sels = append(sels, s)
			for k, v := range s {
				if named[k] == nil {
					named[k] = map[string]bool{}
				}
				named[k][v] = true
			}
		}
	}
	factor := 0.0
	set := func(key, value string) {
		for i := 0; i+1 < len(root.Content); i += 2 {
			if root.Content[i].Value == key {
				if key == "duration" {
					if d, err := time.ParseDuration(root.Content[i+1].Value); err == nil {
						rd, _ := time.ParseDuration(value)
						factor = float64(rd) / float64(d)
					}
				}
				root.Content[i+1] = &yaml.Node{Kind: yaml.ScalarNode, Value: value}
				return
			}
		}
		root.Content = append(root.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, &yaml.Node{Kind: yaml.ScalarNode, Value: value})
	}
	run := "500ms"
	if findNode(root, "faults") != nil {
		// A fail-over needs time around it: 4 s runs, an error budget
		// for the writes in flight at the kill, and no bound on the time
		// without a session (a scaled fail-over is a larger share of 4 s).
		run = "4s"
		args := findNode(root, "args")
		for _, a := range []string{"--max-error-rate", "20%", "--max-unavailable", "0"} {
			args.Content = append(args.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: a})
		}
	}
	set("duration", run)
	set("warmup", "0s")
	set("output", filepath.Join(filepath.Dir(out), "results", p.Name))
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i].Value, root.Content[i+1]
		switch k {
		case "repetitions":
			if v.Value != "1" { // a plan whose repetitions are an axis (fresh clusters) keeps 1
				v.Value = "2"
			}
		case "matrix":
			for j := 0; j+1 < len(v.Content); j += 2 {
				axis, vals := v.Content[j].Value, v.Content[j+1]
				if axis == "variants" {
					continue // each variant is a setup the claims compare (E3's three id strategies)
				}
				var keep []*yaml.Node
				for _, x := range vals.Content {
					if named[axis][x.Value] || (sizes[axis] && len(named[axis]) > 0) {
						keep = append(keep, x)
					}
				}
				if len(named[axis]) == 0 {
					keep = vals.Content[:min(2, len(vals.Content))]
				}
				vals.Content = keep
			}
		case "workloads":
			// The entries the claims name by workload when some do (E1's
			// YCSB A of A–F), else those no selector's options exclude.
			byName := map[string]bool{}
			for _, s := range sels {
				if w, ok := s["workload"]; ok {
					byName[w] = true
				}
			}
			var keep []*yaml.Node
			for _, w := range v.Content {
				var rw struct {
					Name    string         `yaml:"name"`
					Options map[string]any `yaml:"options"`
				}
				w.Decode(&rw)
				if len(byName) > 0 && !byName[rw.Name] {
					continue
				}
				for _, s := range sels {
					ok := true
					for k, want := range s {
						got, has := rw.Options[k]
						if k == "workload" {
							got, has = rw.Name, true
						}
						if has && fmt.Sprint(got) != want {
							ok = false
						}
					}
					if ok {
						keep = append(keep, w)
						break
					}
				}
			}
			v.Content = keep
		case "faults":
			for _, f := range v.Content {
				for j := 0; j+1 < len(f.Content); j += 2 {
					if f.Content[j].Value == "at" {
						d, _ := time.ParseDuration(f.Content[j+1].Value)
						f.Content[j+1].Value = time.Duration(float64(d) * factor).Round(time.Millisecond).String()
					}
				}
			}
		}
	}
	outData, err := yaml.Marshal(&doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, outData, 0o644); err != nil {
		t.Fatal(err)
	}
	return outData
}

// A scaled-down run of every checked-in plan (sizes / 100, 500 ms runs, on
// the test suite's PostgreSQL and the clusters E4 and E6 start themselves)
// gives a site whose index has one verdict per claim: plans whose targets
// cannot start here (E5 needs a 3-node Cassandra) are rows "cannot be
// tested here" with the reason. The plans run in parallel, each its own
// candor process; the site stays under 5 MB.
func TestExperimentsSiteScaledDown(t *testing.T) {
	pgURL := os.Getenv("CANDOR_TEST_POSTGRES_URL")
	if pgURL == "" {
		t.Skip("CANDOR_TEST_POSTGRES_URL not set (make test sets it)")
	}
	if testing.Short() {
		t.Skip("-short: skipping the scaled-down run of every plan")
	}
	t.Parallel()
	repo, _ := filepath.Abs("..")
	dir := t.TempDir()
	bin := buildCandor(t)
	files, _ := filepath.Glob(filepath.Join(repo, "experiments", "*.yaml"))
	claims := 0
	var wg sync.WaitGroup
	var mu sync.Mutex
	logs := map[string]string{}
	start := time.Now()
	var planArgs []string
	for _, f := range files {
		if data, _ := os.ReadFile(f); !regexp.MustCompile(`(?m)^\s+kind: `).Match(data) {
			t.Logf("%s: no claim has a kind yet: not run here", f)
			continue
		}
		scaled := filepath.Join(dir, filepath.Base(f))
		scalePlan(t, f, scaled)
		p, err := plan.ReadUnexpanded(scaled, func(string) string { return "x://" })
		if err != nil {
			t.Fatalf("scaled %s: %v", f, err)
		}
		claims += len(p.Published.Claims)
		planArgs = append(planArgs, "--plan", scaled)
		if strings.Contains(p.Name, "e5") {
			os.MkdirAll(p.Output, 0o755)
			os.WriteFile(filepath.Join(p.Output, "NOT-RUN"), []byte("needs a 3-node Cassandra (CASS3_URL): the test suite starts one node\n"), 0o644)
			continue
		}
		wg.Add(1)
		go func(name, scaled string) {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, "plan", "run", "-q", scaled)
			cmd.Dir = repo
			cmd.Env = append(os.Environ(), "PG_URL="+pgURL)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			err := cmd.Run()
			if err != nil {
				os.WriteFile(filepath.Join(filepath.Dir(scaled), "results", name, "NOT-RUN"), []byte(fmt.Sprintf("candor plan run failed: %v\n", err)), 0o644)
			}
			mu.Lock()
			logs[name] = fmt.Sprintf("%v (%s)\n%s", err, time.Since(start).Round(time.Second), out.String())
			mu.Unlock()
		}(p.Name, scaled)
	}
	wg.Wait()
	for name, l := range logs {
		t.Logf("plan %s: %s", name, tail(strings.Split(strings.TrimSpace(l), "\n"), 8))
	}
	site := filepath.Join(dir, "site")
	results, _ := filepath.Glob(filepath.Join(dir, "results", "*"))
	args := append(append([]string{"report", "--site", site}, planArgs...), results...)
	var stderr bytes.Buffer
	report := exec.Command(bin, args...)
	report.Stderr = &stderr
	if err := report.Run(); err != nil {
		t.Fatalf("report --site: %v: %s", err, stderr.String())
	}
	t.Logf("%s", stderr.String())
	index, err := os.ReadFile(filepath.Join(site, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	rows := regexp.MustCompile(`<tr class="(ok|no|na|open)">`).FindAllString(string(index), -1)
	if len(rows) != claims {
		t.Errorf("index has %d verdict rows, want one per claim: %d", len(rows), claims)
	}
	for _, must := range []string{"1.68", "2.14", "untestable here", "e4-commit-loop/report.html"} {
		if !strings.Contains(string(index), must) {
			t.Errorf("index lacks %q", must)
		}
	}
	if bytes.Contains(index, []byte("href=\"/")) || bytes.Contains(index, []byte("http://")) {
		t.Errorf("index has an absolute link: the site must open from disk")
	}
	var size int64
	filepath.Walk(site, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			size += fi.Size()
		}
		return nil
	})
	if size > 5<<20 {
		t.Errorf("site is %.1f MB, want under 5 MB", float64(size)/(1<<20))
	}
	if keep := os.Getenv("CANDOR_KEEP_SITE"); keep != "" {
		exec.Command("cp", "-r", site, keep).Run()
	}
	t.Logf("site: %d claims, %.2f MB, %s in all", claims, float64(size)/(1<<20), time.Since(start).Round(time.Second))
}

func findNode(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// E5 in its checkable form: the replicated rows order RF=2 below RF=1 on
// the same 3 nodes (not 3 nodes with 2 copies ÷ 1 node), KV-3/KV-2 on one
// node is a row, and no claim is untestable: Cassandra's and VoltDB's rows
// are runnable (make experiments starts one- and three-node sandboxes of
// both on loopback).
func TestE5IsCheckableHere(t *testing.T) {
	p, err := plan.ReadUnexpanded("../experiments/e5-kv.yaml", func(string) string { return "x://" })
	if err != nil {
		t.Fatal(err)
	}
	claims := map[string]published.Claim{}
	for _, c := range p.Published.Claims {
		claims[c.ID] = c
		if c.Untestable != "" {
			t.Errorf("claim %s is untestable (%q): Cassandra runs here", c.ID, c.Untestable)
		}
		if c.Kind == "" {
			t.Errorf("claim %s has no kind", c.ID)
		}
	}
	for _, id := range []string{"nosql-kv1-replicated", "nosql-kv2-replicated"} {
		c := claims[id]
		if len(c.Less) != 2 || c.Less[0]["target"] != "cass-3nodes-rf2" || c.Less[1]["target"] != "cass-3nodes-rf1" {
			t.Errorf("claim %s: want less: RF=2 below RF=1 on the same 3 nodes, got less %v ratio %v", id, c.Less, c.Ratio)
		}
	}
	// 4-1..4-4: VoltDB above Cassandra, per benchmark, on one node and on 3
	// nodes with two copies (k=1 against RF=2), as orderings.
	for id, want := range map[string][2]string{
		"newsql-2.2x":                      {"kv-basic", "1node"},
		"newsql-over-nosql-kv2-1node":      {"kv-ints", "1node"},
		"newsql-over-nosql-kv3-1node":      {"kv-ints-batch", "1node"},
		"newsql-over-nosql-kv1-replicated": {"kv-basic", "replicated"},
		"newsql-over-nosql-kv2-replicated": {"kv-ints", "replicated"},
		"newsql-over-nosql-kv3-replicated": {"kv-ints-batch", "replicated"},
	} {
		c := claims[id]
		cass, volt := "cass-1node", "volt-1node"
		if want[1] == "replicated" {
			cass, volt = "cass-3nodes-rf2", "volt-3nodes-k1"
		}
		if c.Kind != "direct" || c.About != "VoltDB" || len(c.Less) != 2 ||
			c.Less[0]["workload"] != want[0] || c.Less[0]["target"] != cass ||
			c.Less[1]["workload"] != want[0] || c.Less[1]["target"] != volt {
			t.Errorf("claim %s: want a direct ordering %s on %s below %s, got %+v", id, want[0], cass, volt, c)
		}
	}
	if c := claims["newsql-kv1-replicated"]; len(c.Less) != 2 || c.Less[0]["target"] != "volt-3nodes-k1" || c.Less[1]["target"] != "volt-3nodes-k0" {
		t.Errorf("claim newsql-kv1-replicated: want k=1 below k=0 on 3 nodes, got %+v", c.Less)
	}
	kv3 := claims["nosql-kv3-over-kv2"]
	if len(kv3.Ratio) != 2 || kv3.Ratio[0]["workload"] != "kv-ints-batch" || kv3.Ratio[1]["workload"] != "kv-ints" ||
		kv3.Ratio[0]["target"] != "cass-1node" || kv3.Ratio[1]["target"] != "cass-1node" {
		t.Fatalf("no KV-3/KV-2 row on one node: %+v", kv3)
	}
	if lo := kv3.Expect / (1 + kv3.Tolerance); !(lo > 0.1) || math.Abs(kv3.Expect-13300.0/24200) > 0.001 {
		t.Errorf("KV-3/KV-2: expect %.3f, band from %.3f: want 0.55 with a band well above 0.1", kv3.Expect, lo)
	}
}
