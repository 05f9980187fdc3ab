package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/candor-bench/candor/internal/result"
)

// fixture returns the absolute path of a result checked in for the report
// package's golden tests.
func fixture(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "report", "testdata", "results", name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatal(err)
	}
	return p
}

// scaled writes a copy of a result with every throughput multiplied by thr
// and every latency by lat: a clearly different synthetic result, with an
// id of its own. Its counts stay and its measured time shrinks, so that it
// keeps the laws of a result (throughput = count / duration).
func scaled(t *testing.T, src, dst string, thr, lat float64) string {
	t.Helper()
	r, err := result.Read(src)
	if err != nil {
		t.Fatal(err)
	}
	r.ID = result.NewID(r.Started)
	for i := range r.Phases { // another run: another start (identical measurements are one run)
		r.Phases[i].Started = r.Phases[i].Started.Add(time.Millisecond)
	}
	ns := func(v int64) int64 { return int64(float64(v) * lat) }
	for i := range r.Phases {
		p := &r.Phases[i]
		p.Throughput *= thr
		p.DurationSec /= thr
		for j := range p.Ops {
			o := &p.Ops[j]
			o.Throughput *= thr
			// The latency histogram is scaled, and the summary derived
			// from it, so that the result keeps its histograms law.
			if enc := o.Histograms["latency"]; enc != "" {
				h, err := result.DecodeHistogram(enc)
				if err != nil {
					t.Fatal(err)
				}
				out := hdr.New(h.LowestTrackableValue(), h.HighestTrackableValue(), int(h.SignificantFigures()))
				for _, b := range h.Distribution() {
					if b.Count > 0 {
						if err := out.RecordValues(max(ns(b.To), 1), b.Count); err != nil {
							t.Fatal(err)
						}
					}
				}
				if o.Histograms["latency"], err = result.EncodeHistogram(out); err != nil {
					t.Fatal(err)
				}
				o.Latency = result.Summarize(out)
			} else if s := o.Latency; s != nil {
				s.Mean *= lat
				s.Min, s.P50, s.P90, s.P95, s.P99, s.P999, s.Max = ns(s.Min), ns(s.P50), ns(s.P90), ns(s.P95), ns(s.P99), ns(s.P999), ns(s.Max)
			}
		}
	}
	if err := result.Write(dst, r); err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestReportCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	at := func(name string) string { return filepath.Join(dir, name) }
	all := filepath.Dir(fixture(t, "ycsb-a-pg-t1.json"))
	// a result written with -o res/c-t1 (no .json) beside a JSON file that
	// is not a result
	good, _ := os.ReadFile(fixture(t, "ycsb-a-pg-t4.json"))
	writeFile(t, dir, "res/c-t1", string(good))
	writeFile(t, dir, "res/junk.json", "{not json")
	cases := []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr []string
		files  []string
	}{
		// text on stdout by default
		{"text", []string{"report", all}, ExitOK, []string{"Workload ycsb/a", "Throughput and latency per operation", "Effect of data size"}, nil, nil},
		// format from -o's extension; Markdown writes its charts beside it
		{"markdown file", []string{"report", all, "-o", at("r.md")}, ExitOK, nil, []string{"report: " + at("r.md"), "chart file"}, []string{"r.md", "r-fig1.svg"}},
		{"html file", []string{"report", all, "-o", at("r.html")}, ExitOK, nil, []string{"report: " + at("r.html") + " (html"}, []string{"r.html"}},
		// --format on stdout
		{"md stdout", []string{"report", fixture(t, "ycsb-a-pg-t4.json"), "--format", "markdown"}, ExitOK, []string{"# candor report", "| target |"}, nil, nil},
		// a directory: results found by content, other JSON skipped with a warning
		{"skips non-results", []string{"report", filepath.Join(dir, "res")}, ExitOK, []string{"Workload ycsb/a", "c-t1"},
			[]string{"candor report: skipped " + filepath.Join(dir, "res", "junk.json") + ": not a candor result (not valid JSON)"}, nil},
		// bad format
		{"bad format", []string{"report", all, "--format", "pdf"}, ExitUsage, nil, []string{"--format", "pdf", "html"}, nil},
		// no path
		{"no args", []string{"report"}, ExitUsage, nil, []string{"at least one result"}, nil},
		// missing path
		{"missing", []string{"report", filepath.Join(dir, "nope.json")}, ExitUsage, nil, []string{"nope.json"}, nil},
		// a bad file names itself
		{"bad file", []string{"report", writeFile(t, dir, "bad.json", `{"schema": "candor.result/v1", "phases": 3}`)}, ExitUsage, nil, []string{"bad.json", "not a candor result"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := runAbs(t, dir, c.args...)
			if code != c.code {
				t.Fatalf("exit %d, want %d\nstderr: %s", code, c.code, stderr)
			}
			for _, w := range c.stdout {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%.2000s", w, stdout)
				}
			}
			for _, w := range c.stderr {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			for _, f := range c.files {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
					t.Errorf("%s not written: %v", f, err)
				}
			}
			if strings.Contains(stderr, "panic") || strings.Contains(stderr, "internal error") {
				t.Errorf("crash on bad input:\n%s", stderr)
			}
		})
	}
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCompareCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	t16 := fixture(t, "ycsb-a-pg-t16.json")
	// B: the same configuration, 50% more throughput, 40% less latency
	faster := scaled(t, t16, filepath.Join(dir, "faster.json"), 1.5, 0.6)
	same := scaled(t, t16, filepath.Join(dir, "same.json"), 1.0, 1.0)
	// directories of single runs: repetitions of one configuration
	repA := filepath.Join(dir, "repA")
	scaled(t, fixture(t, "ycsb-a-sqlite-t1-r1.json"), filepath.Join(repA, "r1.json"), 1, 1)
	scaled(t, fixture(t, "ycsb-a-sqlite-t1-r2.json"), filepath.Join(repA, "r2.json"), 1, 1)
	repB := filepath.Join(dir, "repB")
	scaled(t, fixture(t, "ycsb-a-sqlite-t1-r1.json"), filepath.Join(repB, "r1.json"), 0.5, 2)
	scaled(t, fixture(t, "ycsb-a-sqlite-t1-r2.json"), filepath.Join(repB, "r2.json"), 0.5, 2)
	mixed := filepath.Join(dir, "mixed")
	scaled(t, t16, filepath.Join(mixed, "a.json"), 1, 1)
	scaled(t, fixture(t, "ycsb-a-pg-t4.json"), filepath.Join(mixed, "b.json"), 1, 1)

	cases := []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr []string
	}{
		// a clearly different result: significant, B faster on throughput
		// and on every latency percentile
		{"significant", []string{"compare", t16, faster}, ExitOK,
			[]string{"Welch's t test", "B is faster (p", "total ops/s", "+50.0%", "-40.0%", "95% CI of Δ", "A and B ran the same workload"}, nil},
		// the same numbers: no significant difference
		{"identical", []string{"compare", t16, same}, ExitOK, []string{"no significant difference (p=1.000)"}, nil},
		// single runs on each side
		{"single runs", []string{"compare", fixture(t, "ycsb-a-sqlite-t1-r1.json"), fixture(t, "ycsb-a-sqlite-t1-r2.json")}, ExitOK,
			[]string{"uncertainty unknown: single runs, use --repeat"}, nil},
		// directories of repetitions: two runs a side, B slower
		{"directories", []string{"compare", repA, repB}, ExitOK, []string{"2 runs in 2 files", "B is slower"}, nil},
		// different data size: refused, every difference listed
		{"different options", []string{"compare", t16, fixture(t, "ycsb-a-pg-t16-100k.json")}, ExitUsage, nil,
			[]string{"not comparable", "option recordcount: A 1000, B 100000", "option insertcount", "--force"}},
		// different threads: refused
		{"different threads", []string{"compare", fixture(t, "ycsb-a-pg-t4.json"), t16}, ExitUsage, nil, []string{"threads: A 4, B 16"}},
		// another product whose isolation differs: refused for the setting,
		// the product listed as what is compared
		{"different product", []string{"compare", fixture(t, "ycsb-a-pg-t1.json"), fixture(t, "ycsb-a-sqlite-t1-r1.json")}, ExitUsage, nil,
			[]string{"setting transaction_isolation: A read committed, B serializable", "target product: A PostgreSQL, B SQLite"}},
		// --force compares anyway, with a warning
		{"force", []string{"compare", t16, fixture(t, "ycsb-a-pg-t16-100k.json"), "--force"}, ExitOK,
			[]string{"WARNING", "recordcount", "B is slower"}, nil},
		// the same options, but B ran on a table prepared with more rows
		{"reused table", []string{"compare", fixture(t, "sysbench/rw-pg-t16.json"), reusedTable(t, dir)}, ExitUsage, nil,
			[]string{"reused tables: A (none), B sbtest1: rows=1000000 rand-type=special"}},
		// another workload
		{"other workload", []string{"compare", t16, fixture(t, "sysbench/rw-pg-t16.json")}, ExitUsage, nil, []string{"workload: A ycsb/a, B sysbench/oltp_read_write"}},
		// a side that mixes configurations
		{"mixed side", []string{"compare", mixed, t16}, ExitUsage, nil, []string{"A: not repetitions of one configuration", "threads"}},
		// usage errors
		{"one arg", []string{"compare", t16}, ExitUsage, nil, []string{"exactly two"}},
		{"missing", []string{"compare", t16, filepath.Join(dir, "nope.json")}, ExitUsage, nil, []string{"B:", "nope.json"}},
		{"bad file", []string{"compare", writeFile(t, dir, "bad.json", "{"), t16}, ExitUsage, nil, []string{"A:", "bad.json"}},
		// Markdown and HTML, from -o's extension or --format
		{"markdown", []string{"compare", t16, faster, "-o", filepath.Join(dir, "cmp.md")}, ExitOK, nil, []string{"compare: " + filepath.Join(dir, "cmp.md") + " (md)"}},
		{"html stdout", []string{"compare", t16, faster, "--format", "html"}, ExitOK, []string{"<title>candor compare: B against A</title>", "<td>total ops/s</td>", "B is faster"}, nil},
		{"markdown stdout", []string{"compare", t16, faster, "--format", "md"}, ExitOK, []string{"# candor compare: B against A", "| total ops/s | 14170 |"}, nil},
		{"bad compare format", []string{"compare", t16, faster, "--format", "pdf"}, ExitUsage, nil, []string{"--format", "pdf"}},
		// a side with a failed repetition: left out, and said so
		{"failed repetition", []string{"compare", t16, failedRep(t, t16, dir)}, ExitOK, []string{"WARNING: B: 1 of 2 runs excluded", "#2 failed: error rate 5.0%"},
			[]string{"candor compare: WARNING B: 1 of 2 runs excluded"}},
		// a load-only result has nothing to compare
		{"load only", []string{"compare", loadOnly(t, dir), t16}, ExitUsage, nil, []string{"no complete run phase"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := runAbs(t, dir, c.args...)
			if code != c.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, c.code, stdout, stderr)
			}
			flat := strings.Join(strings.Fields(stdout), " ") // text wraps lines
			for _, w := range c.stdout {
				if !strings.Contains(stdout, w) && !strings.Contains(flat, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
			for _, w := range c.stderr {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			for i, l := range strings.Split(stdout, "\n") {
				if n := len([]rune(l)); n > 100 && !slices.Contains(c.args, "--format") {
					t.Errorf("stdout line %d has %d columns: %q", i+1, n, l)
				}
			}
			if strings.Contains(stderr, "panic") || strings.Contains(stderr, "internal error") {
				t.Errorf("crash:\n%s", stderr)
			}
		})
	}
}

// reusedTable is the sysbench fixture as if its run had used a table
// prepared with 1,000,000 rows.
func reusedTable(t *testing.T, dir string) string {
	r, err := result.Read(fixture(t, "sysbench/rw-pg-t16.json"))
	if err != nil {
		t.Fatal(err)
	}
	r.ID = result.NewID(r.Started) // another run: another id and another start
	for i := range r.Phases {
		r.Phases[i].Started = r.Phases[i].Started.Add(time.Millisecond)
	}
	r.Workload.ReusedTables = []string{"sbtest1: rows=1000000 rand-type=special rand-spec-iter=12 rand-spec-pct=1 rand-spec-res=75"}
	p := filepath.Join(dir, "reused.json")
	if err := result.Write(p, r); err != nil {
		t.Fatal(err)
	}
	return p
}

// failedRep is a copy of src whose second repetition failed and ended it.
func failedRep(t *testing.T, src, dir string) string {
	r, err := result.Read(src)
	if err != nil {
		t.Fatal(err)
	}
	r.ID = result.NewID(r.Started) // another run
	r.Status, r.Error = result.StatusFailed, "error rate 5.0% above --max-error-rate 1%"
	// the failure ended the run: repetition 3 never ran
	var kept []result.Phase
	for _, p := range r.Phases {
		if p.Repetition == 2 {
			p.Status = result.StatusFailed
		}
		if p.Repetition != 3 {
			kept = append(kept, p)
		}
	}
	r.Phases = kept
	p := filepath.Join(dir, "failed-rep.json")
	if err := result.Write(p, r); err != nil {
		t.Fatal(err)
	}
	return p
}

func loadOnly(t *testing.T, dir string) string {
	r, err := result.Read(fixture(t, "ycsb-a-pg-t1.json"))
	if err != nil {
		t.Fatal(err)
	}
	r.ID = result.NewID(r.Started) // another run
	r.Phases = r.Phases[:1]
	p := filepath.Join(dir, "load-only.json")
	if err := result.Write(p, r); err != nil {
		t.Fatal(err)
	}
	return p
}
