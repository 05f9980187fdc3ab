package report

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/candor-bench/candor/internal/result"
)

var update = flag.Bool("update", false, "regenerate the fixtures under testdata/results and the golden reports")

const fixtureDir = "testdata/results"

// TestFixtures regenerates the checked-in result files with -update and
// otherwise checks that the generator still produces them byte for byte.
func TestFixtures(t *testing.T) {
	names := make([]string, 0)
	fx := fixtures()
	for n := range fx {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		path := filepath.Join(fixtureDir, n)
		r := fx[n].build(t)
		for _, v := range result.Check(r) {
			t.Errorf("fixture %s breaks a law of a result: %s", n, v)
		}
		if *update {
			if err := result.Write(path, r); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := result.Read(path)
		if err != nil {
			t.Fatalf("%v (regenerate with go test ./internal/report -run Fixtures -update)", err)
		}
		if got.ID != r.ID || len(got.Phases) != len(r.Phases) {
			t.Errorf("%s differs from its generator; rerun with -update", path)
		}
	}
	if *update {
		// Files Load must skip: another JSON document and an interval side file.
		os.WriteFile(filepath.Join(fixtureDir, "notes.json"), []byte(`{"note": "not a candor result; report skips it"}`+"\n"), 0o644)
		os.WriteFile(filepath.Join(fixtureDir, "ycsb-a-pg-t1.intervals.jsonl"), []byte(`{"kind":"header","header":{}}`+"\n"), 0o644)
	}
}

func loadFixtures(t testing.TB) *Model {
	in, err := Load(fixtureDir)
	if err != nil {
		t.Fatal(err)
	}
	return Build(in)
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (create with -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the rendered report (rerun with -update after checking the change):\n%s", path, firstDiff(string(want), string(got)))
	}
}

func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d:\nwant %q\ngot  %q", i+1, w, g)
		}
	}
	return ""
}

// timeLike finds wall-clock times of the rendering (fixed result times are
// fine: they come from the files).
var renderTime = regexp.MustCompile(`(?i)generated (at|on)`)

func TestReportGoldenText(t *testing.T) {
	m := loadFixtures(t)
	var b bytes.Buffer
	if err := Text(&b, m); err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(b.String(), "\n") {
		if n := utf8.RuneCountInString(l); n > TextWidth {
			t.Errorf("line %d has %d columns: %q", i+1, n, l)
		}
	}
	if renderTime.Match(b.Bytes()) {
		t.Error("the text report names its rendering time")
	}
	golden(t, "report.txt", b.Bytes())
}

func TestReportGoldenMarkdown(t *testing.T) {
	m := loadFixtures(t)
	var b bytes.Buffer
	figs := 0
	err := Markdown(&b, m, func(n int, svg []byte) (string, error) {
		figs++
		if !bytes.Contains(svg, []byte("<svg")) {
			t.Errorf("figure %d is not SVG", n)
		}
		return fmt.Sprintf("report-fig%d.svg", n), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := len(buildDocument(m).Figures); figs != want || figs == 0 {
		t.Errorf("%d figures written, want %d", figs, want)
	}
	if renderTime.Match(b.Bytes()) {
		t.Error("the Markdown report names its rendering time")
	}
	golden(t, "report.md", b.Bytes())

	// Without a place for the figures, the report says how to get them.
	b.Reset()
	if err := Markdown(&b, m, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "charts are left out") || strings.Contains(b.String(), "![") {
		t.Error("Markdown on a stream must leave the charts out and say so")
	}
}

func TestReportWriteFileMarkdown(t *testing.T) {
	m := loadFixtures(t)
	dir := t.TempDir()
	files, err := WriteFile(filepath.Join(dir, "name.md"), m, "md")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 2 || files[0] != filepath.Join(dir, "name.md") || files[1] != filepath.Join(dir, "name-fig1.svg") {
		t.Fatalf("files %v", files)
	}
	md, _ := os.ReadFile(files[0])
	if !strings.Contains(string(md), "](name-fig1.svg)") {
		t.Error("the Markdown does not link name-fig1.svg by relative name")
	}
	for _, f := range files[1:] {
		if st, err := os.Stat(f); err != nil || st.Size() < 1000 {
			t.Errorf("figure %s missing or empty: %v", f, err)
		}
	}
}

func TestReportHTMLStructure(t *testing.T) {
	m := loadFixtures(t)
	var b bytes.Buffer
	if err := HTML(&b, m); err != nil {
		t.Fatal(err)
	}
	h := b.String()
	d := buildDocument(m)
	// one chart section per figure: per workload variant the thread curves
	// (when several thread counts) and a spectrum per operation, and one
	// time series per input
	if n := strings.Count(h, `<section class="figure"`); n != len(d.Figures) {
		t.Errorf("%d figure sections, want %d", n, len(d.Figures))
	}
	if n := strings.Count(h, "<svg"); n != len(d.Figures) {
		t.Errorf("%d inline SVGs, want %d", n, len(d.Figures))
	}
	titles := map[string]int{}
	for _, f := range d.Figures {
		switch {
		case strings.HasPrefix(f.Title, "Throughput and p99 latency against threads"):
			titles["threads"]++
		case strings.HasPrefix(f.Title, "Latency percentile spectrum"):
			titles["spectrum"]++
		default:
			titles["time"]++
		}
	}
	// ycsb/a at recordcount 1000 has 1, 4 and 16 threads (curves, spectra
	// of READ and UPDATE); at 100000 only 16 threads (spectra only);
	// sysbench has 8 and 16 threads (curves, spectrum of TRANSACTION);
	// commit-loop one job count (its LOOP has too few latencies for a
	// spectrum: they are listed instead).
	if titles["threads"] != 2 || titles["spectrum"] != 5 || titles["time"] != len(m.Inputs) {
		t.Errorf("figures by kind %v (inputs %d)", titles, len(m.Inputs))
	}
	for _, bad := range []string{"<script", "<link", "@import", "url(", "<img", "<iframe"} {
		if strings.Contains(strings.ToLower(h), bad) {
			t.Errorf("the HTML contains %q: it must be self-contained and script-free", bad)
		}
	}
	urls := regexp.MustCompile(`https?://[^\s"'<>)]*`).FindAllString(h, -1)
	for _, u := range urls {
		if u != "http://www.w3.org/2000/svg" && !strings.HasPrefix(u, "postgres://") {
			t.Errorf("external reference %q", u)
		}
	}
	if !strings.HasPrefix(h, "<!DOCTYPE html>") || !strings.Contains(h, "</html>") || !strings.Contains(h, "<style>") {
		t.Error("not a complete HTML document with inline CSS")
	}
	for _, want := range []string{"Effect of data size", "Inputs and provenance", "Errors and retries", "Transactions and queries per second"} {
		if !strings.Contains(h, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
}

func TestReportModel(t *testing.T) {
	m := loadFixtures(t)
	if len(m.Inputs) != 11 {
		t.Fatalf("%d inputs, want the 11 fixtures (notes.json and the side file skipped)", len(m.Inputs))
	}
	var ycsb, sb *Workload
	for _, w := range m.Workloads {
		switch w.Name {
		case "ycsb/a":
			ycsb = w
		case "sysbench/oltp_read_write":
			sb = w
		}
	}
	if ycsb == nil || sb == nil {
		t.Fatalf("workloads %v", m.Workloads)
	}
	// recordcount and insertcount vary; the variants are ordered by size
	if len(ycsb.Variants) != 2 || ycsb.Variants[0].Label != "insertcount=1000, recordcount=1000" {
		t.Fatalf("variants %+v", ycsb.Variants)
	}
	small := ycsb.Variants[0]
	var sqlite1 *Cell
	for _, c := range small.Runs {
		if c.Series.Product == "SQLite" && c.Threads == 1 {
			sqlite1 = c
		}
	}
	// two result files of one configuration pool into one cell of two runs
	if sqlite1 == nil || sqlite1.N() != 2 || sqlite1.Throughput.N != 2 {
		t.Fatalf("SQLite 1-thread cell %+v", sqlite1)
	}
	// --repeat 3 in one file: three runs
	if c := small.Runs[0]; c.Series.Product != "PostgreSQL" || c.Threads != 1 || c.N() != 3 || len(c.Ops) != 2 {
		t.Errorf("first cell %s %d threads n=%d", c.Series.Label, c.Threads, c.N())
	}
	if len(small.Loads) != 1 || small.Loads[0].Rows.Mean != 1000 {
		t.Errorf("loads %+v", small.Loads)
	}
	// sysbench: tps and qps from the counters, errors summed
	c := sb.Variants[0].Runs[0]
	if c.QPS == nil || c.QPS.Mean < 19*c.Throughput.Mean || c.QPS.Mean > 21*c.Throughput.Mean {
		t.Errorf("sysbench qps %+v vs tps %v", c.QPS, c.Throughput.Mean)
	}
	if o := sb.Variants[0].Runs[1].Ops[0]; o.Retries != 80 || o.Aborts != 4 || o.Errors["retryable"] != 84 {
		t.Errorf("sysbench errors %+v", o)
	}
	// data size: 1000 → 100000 rows at 16 threads on PostgreSQL
	if len(m.SizeEffects) != 1 {
		t.Fatalf("size effects %+v", m.SizeEffects)
	}
	e := m.SizeEffects[0]
	if e.Threads != 16 || e.UpdateOp != "UPDATE" || e.ThroughputPct > -25 || e.ThroughputPct < -35 || e.UpdateMeanPct < 10 {
		t.Errorf("size effect %+v", e)
	}
	// spectrum: monotone, from the minimum to 99.999
	sp := small.Runs[0].Ops[0].Spectrum()
	if len(sp) != 51 || sp[0].Percentile != 0 || sp[50].Percentile < 99.9989 {
		t.Fatalf("spectrum %v", sp)
	}
	for i := 1; i < len(sp); i++ {
		if sp[i].Ns < sp[i-1].Ns {
			t.Fatalf("spectrum not monotone at %v", sp[i])
		}
	}
}

func TestReportLoadErrors(t *testing.T) {
	dir := t.TempDir()
	good, _ := os.ReadFile(filepath.Join(fixtureDir, "ycsb-a-pg-t4.json"))
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ok := write("ok/a.json", string(good))
	write("ok/other.json", `{"name": "package.json-like"}`)
	write("ok/a.intervals.jsonl", "torn")
	write("ok/.hidden/b.json", "garbage")
	if in, err := Load(filepath.Join(dir, "ok")); err != nil || len(in) != 1 || in[0].Path != ok {
		t.Fatalf("Load(dir) = %v, %v", in, err)
	}
	cases := []struct {
		name, path string
		want       []string
		schema     bool
	}{
		// a truncated result names the file
		{"truncated", write("bad1/r.json", string(good[:len(good)/2])), []string{"bad1/r.json"}, true},
		// the directory form names the bad file too
		{"bad in dir", filepath.Join(dir, "bad1"), []string{"bad1/r.json"}, true},
		// invalid JSON named directly is an error; in a directory it is
		// skipped (TestReportSkipsWithWarning), which leaves none here
		{"invalid json", write("bad2/x.json", "{not json"), []string{"x.json", "invalid character"}, true},
		{"invalid json in dir", filepath.Join(dir, "bad2"), []string{"no candor result files"}, false},
		// an explicit file that is some other JSON
		{"other json", filepath.Join(dir, "ok/other.json"), []string{"other.json", "schema"}, true},
		// another major version
		{"v2", write("v2.json", `{"schema": "candor.result/v2"}`), []string{"v2.json", "candor.result/v2"}, true},
		// missing path
		{"missing", filepath.Join(dir, "nope"), []string{"nope"}, false},
		// a directory without results
		{"empty", filepath.Dir(write("empty/readme.txt", "")), []string{"no candor result files"}, false},
	}
	for _, c := range cases {
		_, err := Load(c.path)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", c.name, err, w)
			}
		}
		if c.schema && !errors.Is(err, result.ErrSchema) {
			t.Errorf("%s: error %v does not wrap result.ErrSchema", c.name, err)
		}
	}
}

// A directory with JSON files that are not results (invalid JSON, another
// document) reports the results it holds and warns once per skipped file;
// a result written without the .json extension (run -o res/c-t1) is found by
// its content, and so is a candor result under any name, while other files
// (a report, an SVG, a side file) are passed over silently.
func TestReportSkipsWithWarning(t *testing.T) {
	dir := t.TempDir()
	good, _ := os.ReadFile(filepath.Join(fixtureDir, "ycsb-a-pg-t4.json"))
	for name, content := range map[string]string{
		"res/c-t1":                  string(good),
		"res/broken.json":           "{not json",
		"res/package.json":          `{"name": "x"}`,
		"res/report.html":           "<html>" + string(good),
		"res/c-t1.intervals.jsonl":  `{"kind":"header","header":{"schema":"candor.result/v1"}}`,
		"res/sub/fig1.svg":          "<svg/>",
		"res/sub/notes-without-ext": "plain text",
		// another run: another id and another start (a copy whose id alone
		// differs is the same run, refused by Distinct)
		"res/sub/ycsb-a-pg-t4.json": strings.Replace(strings.Replace(string(good), `"id": "`, `"id": "another-run-`, 1),
			`"started": "2025-03-14T09:00:00.05Z"`, `"started": "2025-03-14T09:00:00.06Z"`, 1),
		"res/.hidden/ignored.json": "{not json",
	} {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var warnings []string
	in, err := LoadWarn(func(s string) { warnings = append(warnings, s) }, filepath.Join(dir, "res"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, x := range in {
		got = append(got, strings.TrimPrefix(x.Path, dir+"/"))
	}
	if strings.Join(got, " ") != "res/c-t1 res/sub/ycsb-a-pg-t4.json" {
		t.Errorf("inputs %v, want res/c-t1 and res/sub/ycsb-a-pg-t4.json", got)
	}
	if len(warnings) != 2 || !strings.Contains(warnings[0], "broken.json: not a candor result (not valid JSON)") ||
		!strings.Contains(warnings[1], "package.json: not a candor result") {
		t.Errorf("warnings %q, want one line each for broken.json and package.json", warnings)
	}
}

// Degenerate inputs render without panicking: no phases, an interrupted
// result with intervals only, zero throughput.
func TestReportDegenerate(t *testing.T) {
	r := fixtures()["ycsb-a-pg-t4.json"].build(t)
	empty := *r
	empty.Phases = nil
	intr := *r
	intr.Status = result.StatusInterrupted
	intr.Phases = append([]result.Phase(nil), r.Phases...)
	for i := range intr.Phases {
		intr.Phases[i].Status = result.StatusInterrupted
		intr.Phases[i].Ops = nil
	}
	zero := *r
	zero.Phases = []result.Phase{{Name: "run", Status: result.StatusComplete, Intervals: []result.Interval{{Ops: []result.IntervalOp{{Name: "READ"}}}}}}
	m := Build([]Input{{"empty.json", &empty}, {"intr.json", &intr}, {"zero.json", &zero}})
	for _, f := range []func() error{
		func() error { return Text(&bytes.Buffer{}, m) },
		func() error { return HTML(&bytes.Buffer{}, m) },
		func() error {
			return Markdown(&bytes.Buffer{}, m, func(int, []byte) (string, error) { return "x.svg", nil })
		},
	} {
		if err := f(); err != nil {
			t.Error(err)
		}
	}
	var b bytes.Buffer
	Text(&b, m)
	if !strings.Contains(b.String(), "status interrupted") {
		t.Errorf("no warning about the interrupted input:\n%s", b.String())
	}
}

// A corrupt histogram or a result that names one file twice neither
// crashes the report nor counts twice.
func TestReportCorruptHistogramAndDuplicates(t *testing.T) {
	r := fixtures()["ycsb-a-pg-t4.json"].build(t)
	for i := range r.Phases {
		for j := range r.Phases[i].Ops {
			r.Phases[i].Ops[j].Histograms["latency"] = "HISTFAAAAB942pNpmSzMwMDAxAABzAwMAAAA//8=" // truncated
		}
	}
	var b bytes.Buffer
	if err := HTML(&b, Build([]Input{{"corrupt.json", r}})); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "no latency histograms recorded") && !strings.Contains(b.String(), "could not be drawn") {
		t.Error("a corrupt histogram must leave an explained empty chart")
	}
	in, err := Load(filepath.Join(fixtureDir, "ycsb-a-pg-t4.json"), fixtureDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(in) != 11 {
		t.Errorf("%d inputs: a file named directly and through its directory counts once", len(in))
	}
}

func TestSystemTextShowsAutogroups(t *testing.T) {
	p := result.Provenance{OS: "linux", Arch: "amd64", Kernel: "6.1.0-18-amd64"}
	if got, want := systemText(p), "linux/amd64 6.1.0-18-amd64"; got != want {
		t.Errorf("without a recorded setting: %q, want %q", got, want)
	}
	p.SchedAutogroup = "on"
	if got, want := systemText(p), "linux/amd64 6.1.0-18-amd64, autogroups on"; got != want {
		t.Errorf("with autogroups on: %q, want %q", got, want)
	}
}

// The same server reached with and without connection-only URL parameters
// is one target; the text report's Targets table neither breaks a word in
// the middle nor shows a second "#2" target.
func TestOneTargetAcrossConnectionParameters(t *testing.T) {
	mk := func(seed uint64, url string) *result.Result {
		s := fixtures()["ycsb-a-pg-t4.json"]
		s.seed, s.product, s.version, s.url = seed, "MariaDB", "10.11.19", url
		r := s.build(t)
		r.Target.Driver = "mysql"
		r.Target.VersionString = "10.11.19-MariaDB-0+deb12u1-log Debian 12 with a long build description"
		return r
	}
	a := mk(11, "mysql://bench@127.0.0.1:3306/sbtest")
	b := mk(12, "mysql://bench:xxxxx@127.0.0.1/sbtest?tls=false&timeout=5s")
	m := Build([]Input{{"a.json", a}, {"b.json", b}})
	if len(m.Series) != 1 {
		t.Fatalf("%d targets, want one: %+v", len(m.Series), m.Series)
	}
	var buf bytes.Buffer
	if err := Text(&buf, m); err != nil {
		t.Fatal(err)
	}
	txt := buf.String()
	if strings.Contains(txt, "#2") && strings.Contains(txt, "MariaDB 10.11.19 #2") {
		t.Errorf("a second target for the same server:\n%s", txt)
	}
	_, targets, _ := strings.Cut(txt, "Targets:")
	targets, _, _ = strings.Cut(targets, "Settings of")
	words := map[string]bool{}
	for _, w := range strings.Fields(a.Target.VersionString + " MariaDB 10.11.19") {
		words[w] = true
	}
	for _, l := range strings.Split(targets, "\n") {
		for _, f := range strings.Fields(l) {
			if strings.HasPrefix(f, "10.11") && !words[f] && !strings.HasSuffix(f, "...") {
				t.Errorf("version broken mid-word: %q in\n%s", f, targets)
			}
		}
	}
	if !strings.Contains(targets, "#1–#2") {
		t.Errorf("targets table:\n%s", targets)
	}
	for _, c := range []struct{ in, want string }{
		{"postgres://u:xxxxx@DB1/bench?sslmode=disable", "postgres://db1:5432/bench"},
		{"postgresql://db1:5432/bench", "postgres://db1:5432/bench"},
		{"mysql://root@[::1]/x", "mysql://[::1]:3306/x"},
		{"sqlite://candor.db", "sqlite://candor.db"},
		{"null://?latency=1ms", "null://?latency=1ms"},
	} {
		if got := Endpoint(c.in); got != c.want {
			t.Errorf("Endpoint(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// A repetition that did not complete is never pooled with the complete
// ones: the cell's figures are over the complete repetitions, its n says
// "2 of 3", and the report says which one was left out and why; compare
// warns the same way, and refuses a side with no complete run.
func TestFailedRepetitionsAreExcluded(t *testing.T) {
	r := fixtures()["ycsb-a-pg-t4.json"].build(t) // 3 repetitions
	r.Status = result.StatusFailed
	r.Error = "error rate 79.1% above --max-error-rate 1%"
	bad := &r.Phases[len(r.Phases)-1]
	bad.Status = result.StatusFailed
	bad.Throughput *= 100 // a wild figure that must not reach the mean
	m := Build([]Input{{"t4.json", r}})
	c := m.Workloads[0].Variants[0].Runs[0]
	want := (r.Phases[0].Throughput + r.Phases[1].Throughput) / 2
	if c.N() != 2 || math.Abs(c.Throughput.Mean-want) > 1e-9 {
		t.Errorf("n %d, mean %.1f; want the 2 complete repetitions, mean %.1f", c.N(), c.Throughput.Mean, want)
	}
	var b bytes.Buffer
	if err := Text(&b, m); err != nil {
		t.Fatal(err)
	}
	txt := b.String()
	for _, w := range []string{"2 of 3", "1 of 3 repetitions excluded (#3 failed: error rate 79.1% above --max-error-rate 1%)",
		"3 runs (1 failed)", "status failed: error rate 79.1%"} {
		if !strings.Contains(strings.Join(strings.Fields(txt), " "), w) {
			t.Errorf("text report lacks %q:\n%s", w, txt)
		}
	}
	if strings.Count(txt, "error rate 79.1%") != 2 { // the warning and the exclusion, not once more per phase
		t.Errorf("the reason appears %d times, want 2 (warning and exclusion list):\n%s", strings.Count(txt, "error rate 79.1%"), txt)
	}

	good := fixtures()["ycsb-a-pg-t4.json"].build(t)
	a, err := NewSide("A", []Input{{"good.json", good}})
	if err != nil {
		t.Fatal(err)
	}
	bs, err := NewSide("B", []Input{{"t4.json", r}})
	if err != nil {
		t.Fatal(err)
	}
	if len(bs.Phases) != 2 || !strings.Contains(bs.ExclusionText(), "1 of 3 runs excluded (t4.json #3 failed: error rate 79.1%") {
		t.Errorf("side B: %d phases, %q", len(bs.Phases), bs.ExclusionText())
	}
	b.Reset()
	Compare(a, bs).WriteText(&b)
	if !strings.Contains(b.String(), "WARNING: B: 1 of 3 runs excluded") {
		t.Errorf("compare does not warn:\n%s", b.String())
	}
	for i := range r.Phases {
		r.Phases[i].Status = result.StatusFailed
	}
	if _, err := NewSide("B", []Input{{"t4.json", r}}); err == nil || !strings.Contains(err.Error(), "not complete: t4.json #1 failed") {
		t.Errorf("a side with only failed runs: %v", err)
	}
}

// "Runs over time" draws no line and no legend entry for an operation the
// run never ran (all its intervals at zero), and shades the warm-up with a
// legend entry saying it is not measured.
func TestTimeSeriesSkipsIdleOpsAndShadesWarmup(t *testing.T) {
	r := fixtures()["ycsb-a-pg-t4.json"].build(t)
	for pi := range r.Phases {
		for ii := range r.Phases[pi].Intervals {
			iv := &r.Phases[pi].Intervals[ii]
			iv.Ops = append(iv.Ops, result.IntervalOp{Name: "SCAN"})
		}
	}
	svg, err := drawTimeSeries(r)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(svg, []byte(">SCAN<")) {
		t.Error("a legend entry for SCAN, which never ran")
	}
	if !bytes.Contains(svg, []byte(">READ<")) {
		t.Error("no legend entry for READ")
	}
	if bytes.Contains(svg, []byte("warm-up")) {
		t.Error("a warm-up shown for phases without one")
	}
	r.Phases[0].WarmupSec = 3
	svg, err = drawTimeSeries(r)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(svg, []byte(">warm-up (not measured)<")) || !bytes.Contains(svg, []byte("fill-opacity")) {
		t.Errorf("no shaded warm-up:\n%.3000s", svg)
	}
}

// svgText is one horizontal text of a chart: its anchor and its string.
type svgText struct {
	x, y float64
	s    string
}

var svgTextRE = regexp.MustCompile(`<text x="([-\d.]+)" y="([-\d.]+)" transform="scale\(1, -1\)"[^>]*>([^<]*)</text>`)

func svgTexts(svg []byte) []svgText {
	var out []svgText
	for _, m := range svgTextRE.FindAllSubmatch(svg, -1) {
		var t svgText
		fmt.Sscan(string(m[1]), &t.x)
		fmt.Sscan(string(m[2]), &t.y)
		t.s = string(m[3])
		out = append(out, t)
	}
	return out
}

// In the thread-sweep figures no text overlaps a legend entry: long target
// labels (a setting and a host) once ran into the panel titles.
func TestThreadCurveLegendOverlapsNothing(t *testing.T) {
	m := loadFixtures(t)
	for _, s := range m.Series {
		s.Label += " [synchronous_commit=off] @127.0.0.1:5432"
	}
	for _, w := range m.Workloads {
		for _, v := range w.Variants {
			if threadCount(v.Runs) < 2 {
				continue
			}
			svg, err := drawThreadCurves(v)
			if err != nil {
				t.Fatal(err)
			}
			texts := svgTexts(svg)
			var legend, other []svgText
			for _, x := range texts {
				if strings.Contains(x.s, "@127.0.0.1:5432") {
					legend = append(legend, x)
				} else {
					other = append(other, x)
				}
			}
			if len(legend) == 0 {
				t.Fatalf("no legend found in %d texts", len(texts))
			}
			// Text boxes from the baseline: ascent 0.8 em, descent 0.25 em,
			// 0.55 em per character (the anchor is the left end), at the
			// legend's 8 pt and up to 11 pt for the other texts, and 2 pt of
			// clearance around each.
			box := func(x svgText, size float64) [4]float64 {
				up := -x.y // the texts are drawn under scale(1, -1)
				return [4]float64{x.x - 2, up - 0.25*size - 2, x.x + 0.55*size*float64(len(x.s)) + 2, up + 0.8*size + 2}
			}
			for _, l := range legend {
				lb := box(l, 8)
				for _, o := range other {
					ob := box(o, 11)
					if lb[0] < ob[2] && ob[0] < lb[2] && lb[1] < ob[3] && ob[1] < lb[3] {
						t.Errorf("%s: %q at (%.0f, %.0f) runs into the legend entry %q at (%.0f, %.0f)", w.Name, o.s, o.x, o.y, l.s, l.x, l.y)
					}
				}
			}
		}
	}
}

// The report leads commit-loop's section with rows per second, client and
// server, over the repetitions.
func TestReportShowsCommitRates(t *testing.T) {
	r := fixtures()["ycsb-a-pg-t4.json"].build(t)
	r.Workload.Name = "commit-loop"
	for i := range r.Phases {
		p := &r.Phases[i]
		p.DurationSec = 6
		p.Derived = map[string]float64{"rows": 10000, "server_rows_per_s": 1600 + 10*float64(i)}
	}
	var b bytes.Buffer
	if err := Text(&b, Build([]Input{{"cl.json", r}})); err != nil {
		t.Fatal(err)
	}
	txt := b.String()
	i := strings.Index(txt, "Commit rate: rows per second, client and server")
	if i < 0 || i > strings.Index(txt, "Throughput and latency per operation") {
		t.Fatalf("no commit rate table before the operations table:\n%s", txt)
	}
	// client 10000/6 s; server 1600, 1610, 1620: mean 1610
	if !regexp.MustCompile(`PostgreSQL 15\.18\s+4\s+1667 ±0\.0%\s+1610 ±\d+(\.\d)?%\s+3`).MatchString(txt) {
		t.Errorf("commit rate row:\n%s", txt[i:])
	}
}

// compare puts commit-loop's client and server rows per second beside the
// total when the results have them.
func TestCompareCommitRates(t *testing.T) {
	side := func(name string, server float64) *Side {
		r := fixtures()["ycsb-a-pg-t4.json"].build(t)
		for i := range r.Phases {
			r.Phases[i].DurationSec = 5
			r.Phases[i].Derived = map[string]float64{"rows": 10000, "server_rows_per_s": server + float64(i)}
		}
		s, err := NewSide(name, []Input{{name + ".json", r}})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	var b bytes.Buffer
	Compare(side("A", 1000), side("B", 2000)).WriteText(&b)
	flat := strings.Join(strings.Fields(b.String()), " ")
	for _, w := range []string{"client rows/s 2000 2000 +0.0%", "server rows/s 1001 2001 +99.9%"} {
		if !strings.Contains(flat, w) {
			t.Errorf("compare lacks %q:\n%s", w, b.String())
		}
	}
}

// A run of one interval draws its time axis from 0 s, not from a negative
// time around the lone point.
func TestTimeSeriesAxisStartsAtZero(t *testing.T) {
	r := fixtures()["ycsb-a-pg-t4.json"].build(t)
	r.Phases = r.Phases[:1]
	r.Phases[0].Intervals = r.Phases[0].Intervals[:1]
	r.Phases[0].Intervals[0].ElapsedSec = 0.45
	svg, err := drawTimeSeries(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range svgTexts(svg) {
		if strings.HasPrefix(x.s, "-") {
			t.Errorf("negative tick label %q", x.s)
		}
	}
}

// A phase's own failure reason (result.Phase's Failure, which the error
// budget adds) is what the report and compare show for it.
func TestPhaseReasonReadsFailure(t *testing.T) {
	r := fixtures()["ycsb-a-pg-t4.json"].build(t)
	p := &r.Phases[0]
	p.Status = result.StatusFailed
	p.Failure = "error rate 3.0% of 1,000 operations above --max-error-rate 1%"
	if got := phaseFailure(r, 0); got != "error rate 3.0% of 1,000 operations above --max-error-rate 1%" {
		t.Errorf("phaseFailure = %q", got)
	}
}
