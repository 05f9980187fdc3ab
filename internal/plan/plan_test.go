package plan

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

const good = `name: sysbench threads
description: E2 scaled down
targets:
  pg: postgres://bench:${PGPW}@127.0.0.1:5432/db
  maria: mysql://bench@127.0.0.1:3306/db
workloads:
  - name: sysbench/oltp_read_write
    options: {tables: 1, table-size: 10000}
  - name: ycsb/a
    targets: [pg]
matrix:
  threads: [4, 16]
  recordcount: [1000, 100000]
repetitions: 2
warmup: 5s
duration: 30s
`

func TestParseAndExpand(t *testing.T) {
	p, err := Parse("plans/e2.yaml", []byte(good), env(map[string]string{"PGPW": "s3cret"}))
	if err != nil {
		t.Fatal(err)
	}
	if p.Targets["pg"] != "postgres://bench:s3cret@127.0.0.1:5432/db" {
		t.Errorf("env reference not expanded: %q", p.Targets["pg"])
	}
	if p.Output != "plans/results/sysbench-threads" || p.Repetitions != 2 || p.Duration.Seconds() != 30 {
		t.Errorf("plan %+v", p)
	}
	cells := p.Cells()
	// sysbench: 2 targets × 2 threads × 2 recordcounts = 8; ycsb: 1 target × 4 = 4
	if len(cells) != 12 {
		t.Fatalf("%d cells, want 12", len(cells))
	}
	ids := map[string]bool{}
	for _, c := range cells {
		if ids[c.ID] {
			t.Errorf("duplicate cell id %s", c.ID)
		}
		ids[c.ID] = true
		if !strings.HasPrefix(c.Result, "plans/results/sysbench-threads/") {
			t.Errorf("result %s outside the output directory", c.Result)
		}
	}
	first := cells[0]
	want := "sysbench/oltp_read_write --target postgres://bench:s3cret@127.0.0.1:5432/db --threads 4 --repeat 2 -o plans/results/sysbench-threads/sysbench-oltp_read_write_pg_t4_recordcount-1000.json --time 30s --warmup 5s -p recordcount=1000 -p table-size=10000 -p tables=1"
	if got := strings.Join(first.Args, " "); got != want {
		t.Errorf("first cell args\n got %s\nwant %s", got, want)
	}
	// cells needing the same data share a key; a new recordcount changes it
	if cells[0].DataKey != cells[2].DataKey || cells[0].DataKey == cells[1].DataKey {
		t.Errorf("data keys: %q %q %q", cells[0].DataKey, cells[1].DataKey, cells[2].DataKey)
	}
}

func TestTargetAxis(t *testing.T) {
	src := `name: x
targets: {a: "null://", b: "null://?latency=1ms"}
workloads: [{name: ycsb/c}]
matrix: {target: [b, a], threads: [1, 2]}
operations: 100
`
	p, err := Parse("x.yaml", []byte(src), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	cells := p.Cells()
	if len(cells) != 4 || cells[0].Target != "b" || cells[3].Target != "a" || cells[1].Params["threads"] != "2" {
		t.Fatalf("cells %+v", cells)
	}
}

func TestValidationListsEveryProblemWithLines(t *testing.T) {
	src := `name: ""
targets:
  pg: postgres://${NOPE}@h/db
  bad: not-a-url
workloads:
  - options: {x: 1}
    colour: red
matrix:
  threads: [0, four]
  target: [nowhere]
repetitions: -1
warmup: soon
frobnicate: true
`
	_, err := Parse("bad.yaml", []byte(src), env(nil))
	var pe *Error
	if !errors.As(err, &pe) || !errors.Is(err, ErrPlan) {
		t.Fatalf("want a plan error, got %v", err)
	}
	msg := err.Error()
	for _, want := range []string{
		"line 1: name is missing",
		"line 3: target \"pg\" uses ${NOPE}",
		"line 4: target \"bad\"",
		"line 6: workload 1 has no name",
		"unknown key \"colour\"",
		"line 9: matrix threads: \"0\"",
		"matrix threads: \"four\"",
		"line 10: matrix target: \"nowhere\"",
		"line 11: repetitions must be at least 1",
		"line 12: warmup \"soon\"",
		"line 13: unknown key \"frobnicate\"",
		"give duration",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
}

func TestMalformedYAML(t *testing.T) {
	_, err := Parse("m.yaml", []byte("name: [unclosed\n"), env(nil))
	if err == nil || !strings.Contains(err.Error(), "line ") {
		t.Fatalf("malformed YAML: %v, want a message with a line", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(good))
	f.Add([]byte("name: x\ntargets: {a: 'null://'}\nworkloads: [{name: ycsb}]\nduration: 1s\n"))
	f.Add([]byte("matrix: {threads: [1, 2]}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse("fuzz.yaml", data, env(nil))
		if err != nil {
			if p != nil {
				t.Fatal("a plan returned with an error")
			}
			return
		}
		for _, c := range p.Cells() {
			if c.ID == "" || len(c.Args) == 0 {
				t.Fatalf("empty cell from %q", data)
			}
		}
	})
}

// Cells differing only in a workload option (not a matrix axis) get
// different names, and the name carries the option that differs; without a
// threads axis no --threads is passed, so a workload that sizes its own
// workers (commit-loop's jobs) keeps them.
func TestCellIdentityIncludesEveryOption(t *testing.T) {
	src := `name: ids
targets: {on: "null://", off: "null://?latency=1ms"}
workloads:
  - name: commit-loop
    options: {rows: 100}
  - name: commit-loop
    options: {rows: 100, jobs: 3}
  - name: sysbench/oltp_read_only
    options: {tables: 1}
  - name: sysbench/oltp_read_only
    options: {tables: 1, range-selects: "off"}
matrix:
  target: [on, off]
duration: 1s
`
	p, err := Parse("ids.yaml", []byte(src), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	seen := map[string]bool{}
	for _, c := range p.Cells() {
		ids = append(ids, c.ID)
		if seen[c.ID] {
			t.Errorf("duplicate cell name %s", c.ID)
		}
		seen[c.ID] = true
		if strings.Contains(strings.Join(c.Args, " "), "--threads") {
			t.Errorf("cell %s passes --threads without a threads axis: %v", c.ID, c.Args)
		}
	}
	want := "commit-loop_on commit-loop_off commit-loop_on_jobs-3 commit-loop_off_jobs-3 " +
		"sysbench-oltp_read_only_on sysbench-oltp_read_only_off sysbench-oltp_read_only_on_range-selects-off sysbench-oltp_read_only_off_range-selects-off"
	if got := strings.Join(ids, " "); got != want {
		t.Errorf("cell names\n got %s\nwant %s", got, want)
	}
}

// Entries differing only in their property files, and names that would be
// too long, end in a hash of the cell's identity; two entries that are the
// same runs are a problem of the plan.
func TestCellNamesHashAndDuplicates(t *testing.T) {
	src := `name: h
targets: {a: "null://"}
workloads:
  - name: ycsb
    property-files: [wa]
  - name: ycsb
    property-files: [wb]
  - name: ycsb/c
    options: {table: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa, fieldlength: 10}
  - name: ycsb/c
operations: 10
`
	p, err := Parse("h.yaml", []byte(src), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	cells := p.Cells()
	seen := map[string]bool{}
	for _, c := range cells {
		if seen[c.ID] || len(c.ID) > MaxIDLength+9 {
			t.Errorf("cell name %q duplicate or too long", c.ID)
		}
		seen[c.ID] = true
	}
	if !regexp.MustCompile(`^ycsb_a_[0-9a-f]{8}$`).MatchString(cells[0].ID) || !regexp.MustCompile(`^ycsb-c_a_[0-9a-f]{8}$`).MatchString(cells[2].ID) {
		t.Errorf("names %s, %s: want a hash suffix", cells[0].ID, cells[2].ID)
	}
	if cells[3].ID != "ycsb-c_a" {
		t.Errorf("short name %q, want ycsb-c_a", cells[3].ID)
	}

	dup := "name: d\ntargets: {a: \"null://\"}\nworkloads:\n  - name: ycsb/c\n  - name: ycsb/c\noperations: 10\n"
	if _, err := Parse("d.yaml", []byte(dup), env(nil)); err == nil || !strings.Contains(err.Error(), "entries 1 and 2 are the same runs") {
		t.Errorf("duplicate entries: %v", err)
	}
	twice := "name: d\ntargets: {a: \"null://\"}\nworkloads: [{name: ycsb/c}]\nmatrix: {threads: [2, 2]}\noperations: 10\n"
	if _, err := Parse("d.yaml", []byte(twice), env(nil)); err == nil || !strings.Contains(err.Error(), "comes twice") {
		t.Errorf("a value listed twice: %v", err)
	}
}

// ParseUnexpanded lists a plan whose variables are unset, keeping ${VAR} in
// the URLs; Parse reports an unset variable once, however many targets use
// it, and not also as "not a URL".
func TestUnsetVariables(t *testing.T) {
	src := `name: e
targets:
  on: ${PG_URL}
  off: ${PG_URL}&synchronous_commit=off
  my: mysql://u:${MYPW}@h/db
workloads: [{name: ycsb/c}]
operations: 10
`
	p, err := ParseUnexpanded("e.yaml", []byte(src), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(p.Unset, ",") != "MYPW,PG_URL" || p.Targets["off"] != "${PG_URL}&synchronous_commit=off" {
		t.Errorf("unset %v, targets %v", p.Unset, p.Targets)
	}
	if len(p.Cells()) != 3 {
		t.Errorf("%d cells, want 3", len(p.Cells()))
	}
	_, err = Parse("e.yaml", []byte(src), env(nil))
	var pe *Error
	if !errors.As(err, &pe) || len(pe.Problems) != 2 {
		t.Fatalf("want two problems (one per variable), got %v", err)
	}
	if !strings.Contains(pe.Problems[0], `line 3: targets "on", "off" use ${PG_URL}`) || strings.Contains(err.Error(), "not a URL") {
		t.Errorf("problems:\n%s", err)
	}
}

// A plan-wide setting (here the duration) is part of every cell's identity
// but not of its name: the same cell of a changed plan keeps its name and
// gets another identity, so its old result is not taken for it.
func TestIdentityFollowsPlanSettings(t *testing.T) {
	src := "name: i\ntargets: {a: \"null://\"}\nworkloads: [{name: ycsb/c}]\nduration: %s\n"
	p1, err1 := Parse("i.yaml", []byte(fmt.Sprintf(src, "1s")), env(nil))
	p2, err2 := Parse("i.yaml", []byte(fmt.Sprintf(src, "2s")), env(nil))
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	c1, c2 := p1.Cells()[0], p2.Cells()[0]
	if c1.ID != c2.ID || c1.Identity == c2.Identity || len(c1.Identity) != 8 {
		t.Errorf("names %s, %s (want equal); identities %s, %s (want different)", c1.ID, c2.ID, c1.Identity, c2.Identity)
	}
}

// A claim's selector that names no cell is reported beside the claim's
// other problems (Parse returns every problem at once), not only once the
// rest of the published: block is right; a plan whose own cells are wrong
// gets no selector check (its cells would not be the ones meant).
func TestPublishedSelectorReportedWithOtherProblems(t *testing.T) {
	src := `name: p
targets:
  pg: postgres://bench@127.0.0.1:5432/db
workloads:
  - name: ycsb/a
matrix:
  threads: [1, 4]
duration: 10s
published:
  source: {title: T, author: A, url: https://example.com}
  runs: PostgreSQL
  claims:
    - id: c1
      kind: direct
      about: PostgreSQL
      metric: speed
      less: [{threads: 1}, {threads: 64}]
`
	_, err := Parse("pub.yaml", []byte(src), env(nil))
	if err == nil {
		t.Fatal("a plan with a bad claim parsed")
	}
	for _, want := range []string{`claim "c1": said is missing`, `metric "speed" is not one of`, `line 13: published claim "c1": no cell of the plan has threads=64`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%s", want, err)
		}
	}
	// The same claim once said and metric are right: the selector alone.
	fixed := strings.Replace(src, "metric: speed", "said: s\n      metric: throughput", 1)
	_, err = Parse("pub.yaml", []byte(fixed), env(nil))
	if err == nil || strings.Count(err.Error(), "line ") != 1 || !strings.Contains(err.Error(), "no cell of the plan has threads=64") {
		t.Errorf("want the one selector problem, got %v", err)
	}
	// A plan whose matrix is wrong: no selector check on cells that are not
	// the ones meant.
	badMatrix := strings.Replace(src, "threads: [1, 4]", "threads: [1, four]", 1)
	_, err = Parse("pub.yaml", []byte(badMatrix), env(nil))
	if err == nil || strings.Contains(err.Error(), "no cell of the plan") || !strings.Contains(err.Error(), `matrix threads: "four"`) {
		t.Errorf("a bad matrix: %v", err)
	}
}
