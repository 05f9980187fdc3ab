package cli

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/candor-bench/candor/internal/report"
	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/workload"
)

func samplePhase(t *testing.T) *result.Phase {
	h := hdr.New(1, 3_600_000_000_000, 3)
	for i := int64(1); i <= 1000; i++ {
		h.RecordValue(i * 10_000) // 10 µs .. 10 ms
	}
	enc, err := result.EncodeHistogram(h)
	if err != nil {
		t.Fatal(err)
	}
	return &result.Phase{
		Name: "run", DurationSec: 10, Reconnects: 2,
		Ops: []result.OpResult{{Name: "TRANSACTION", Count: 1000, Retries: 5, Latency: result.Summarize(h),
			Histograms: map[string]string{"latency": enc}}},
		Counters: map[string]int64{"reads": 14000, "writes": 4000, "other": 2000},
		Workers:  []result.WorkerStats{{Ops: 480, BusySec: 9.9}, {Ops: 520, BusySec: 9.7}},
	}
}

func TestSysbenchReportLayout(t *testing.T) {
	var b bytes.Buffer
	report.WriteSysbench(&b, samplePhase(t), 95, false)
	out := b.String()
	want := []string{
		"SQL statistics:\n    queries performed:\n",
		"        read:                            14000\n",
		"        write:                           4000\n",
		"        other:                           2000\n",
		"        total:                           20000\n",
		// %-6d then the rate, as sysbench 1.0.20
		"    transactions:                        1000   (100.00 per sec.)\n",
		"    queries:                             20000  (2000.00 per sec.)\n",
		"    ignored errors:                      5      (0.50 per sec.)\n",
		"    reconnects:                          2      (0.20 per sec.)\n",
		"    total time:                          10.0000s\n",
		"    total number of events:              1000\n",
		"Latency (ms):\n",
		"    events (avg/stddev):           500.0000/20.00\n",
		"    execution time (avg/stddev):   9.8000/0.10\n",
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("report lacks %q:\n%s", w, out)
		}
	}
	// Latency figures are right-aligned to column 53, percentile labelled.
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "         min:") || strings.HasPrefix(l, "         sum:") || strings.Contains(l, "95th percentile:") {
			if len(l) != 53 {
				t.Errorf("latency line %q is %d wide, want %d", l, len(l), 53)
			}
		}
	}
	if !strings.Contains(out, "         95th percentile:") {
		t.Errorf("percentile label missing:\n%s", out)
	}
}

func TestSysbenchIntervalLine(t *testing.T) {
	p := samplePhase(t)
	iv := result.Interval{ElapsedSec: 10, LengthSec: 10, Reconnects: 1,
		Ops:      []result.IntervalOp{{Count: 1000, Errors: 5, Histogram: p.Ops[0].Histograms["latency"]}},
		Counters: p.Counters}
	got := report.SysbenchIntervalLine(iv, 4, 95)
	want := "[ 10s ] thds: 4 tps: 100.00 qps: 2000.00 (r/w/o: 1400.00/400.00/200.00) lat (ms,95%): 9.50 err/s: 0.50 reconn/s: 0.10"
	if got != want {
		t.Errorf("interval line\n got %s\nwant %s", got, want)
	}
}

// --histogram prints sysbench's block (sb_histogram_print) before the SQL
// statistics: values put into sysbench's 1024 log buckets from 0.001 ms to
// 100 s, each shown at its bucket's value (1 ms → bucket 384 = 1.007 ms,
// 2 ms → 422 = 1.996 ms, 5 ms → 473 = 4.999 ms), bars scaled to 40 stars.
func TestSysbenchHistogram(t *testing.T) {
	h := hdr.New(1, 3_600_000_000_000, 3)
	h.RecordValues(1_000_500, 1000)
	h.RecordValues(2_001_000, 500)
	h.RecordValues(5_002_000, 10)
	enc, err := result.EncodeHistogram(h)
	if err != nil {
		t.Fatal(err)
	}
	p := samplePhase(t)
	p.Ops[0].Latency = result.Summarize(h)
	p.Ops[0].Histograms = map[string]string{"latency": enc}
	var b bytes.Buffer
	report.WriteSysbench(&b, p, 95, true)
	want := "Latency histogram (values are in milliseconds)\n" +
		"       value  ------------- distribution ------------- count\n" +
		"       1.007 |" + strings.Repeat("*", 40) + " 1000\n" +
		"       1.996 |" + strings.Repeat("*", 20) + strings.Repeat(" ", 20) + " 500\n" +
		"       4.999 |" + strings.Repeat(" ", 40) + " 10\n" +
		" \n" +
		"SQL statistics:\n"
	if out := b.String(); !strings.HasPrefix(out, want) {
		t.Errorf("histogram block\n got:\n%s\nwant it to begin:\n%s", out, want)
	}
	b.Reset()
	report.WriteSysbench(&b, p, 95, false)
	if strings.Contains(b.String(), "Latency histogram") {
		t.Error("histogram printed without --histogram")
	}
}

// --percentile=0 turns the percentile off as in sysbench: the report says
// so and the interval line shows 0.00.
func TestSysbenchPercentileOff(t *testing.T) {
	p := samplePhase(t)
	var b bytes.Buffer
	report.WriteSysbench(&b, p, 0, false)
	if out := b.String(); !strings.Contains(out, "\n         percentile stats:               disabled\n") || strings.Contains(out, "th percentile") {
		t.Errorf("report with --percentile=0:\n%s", out)
	}
	iv := result.Interval{ElapsedSec: 1, LengthSec: 1, Ops: []result.IntervalOp{{Count: 10, Histogram: p.Ops[0].Histograms["latency"]}}}
	if got := report.SysbenchIntervalLine(iv, 1, 0); !strings.Contains(got, " lat (ms,0%): 0.00 ") {
		t.Errorf("interval line with --percentile=0: %s", got)
	}
}

func TestWorkloadOptionsDoNotClashWithRunnerFlags(t *testing.T) {
	// Every workload option must become a flag of its own: a name that is
	// already a runner flag would silently be taken by the runner.
	env := &Env{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, Getenv: func(string) string { return "" }}
	runner := NewRoot(env)
	cmd, _, err := runner.Find([]string{"run"})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range workload.Entries() {
		for _, o := range e.Options {
			f := cmd.Flags().Lookup(o.Name)
			if f == nil || !strings.HasPrefix(f.Usage, "(") {
				t.Errorf("%s option --%s is not offered as its own flag (clash with a runner flag?)", e.Name, o.Name)
			}
		}
	}
}

// As sysbench, --format sysbench prints interval lines only when
// --report-interval is given.
func TestSysbenchFormatIntervalLinesOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, quiet, _ := runAt(t, dir, "run", "ycsb/c", "--target", "null://?latency=1ms", "--time", "1200ms", "--format", "sysbench", "-o", "a.json")
	if strings.Contains(quiet, "thds:") || strings.Contains(quiet, "Report intermediate results") {
		t.Errorf("interval lines without --report-interval:\n%s", quiet)
	}
	_, asked, _ := runAt(t, dir, "run", "ycsb/c", "--target", "null://?latency=1ms", "--time", "1200ms", "--format", "sysbench", "--report-interval", "500ms", "-o", "b.json")
	if !strings.Contains(asked, "thds: 1 tps:") || !strings.Contains(asked, "Report intermediate results every 0.5 second(s)") {
		t.Errorf("no interval lines with --report-interval 500ms:\n%s", asked)
	}
}

// The header names the target rate (--rate) and the seed the workload draws
// from: --rand-seed when given, as sysbench prints it, else candor's run seed;
// with --rate the interval lines have sysbench's queue line after them.
func TestSysbenchFormatHeader(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := "sqlite://" + filepath.Join(dir, "sb.db")
	code, out, stderr := runAt(t, dir, "run", "sysbench/oltp_point_select", "--target", db, "--tables", "1", "--table-size", "100",
		"--time", "300ms", "--rate", "50", "--rand-seed", "7", "--seed", "11", "--report-interval", "100ms", "--format", "sysbench", "-o", "a.json")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, stderr)
	}
	want := "Number of threads: 1\nTarget transaction rate: 50/sec\nReport intermediate results every 0.1 second(s)\n" +
		"Initializing random number generator from seed (7).\n"
	if !strings.Contains(out, want) {
		t.Errorf("header with --rate 50 --rand-seed 7 lacks\n%s\ngot:\n%s", want, out)
	}
	// With --rate each interval line is followed by sysbench's queue line.
	queue := regexp.MustCompile(`(?m)^\[ 0s \] thds: 1 tps: .*\n\[ 0s \] queue length: \d+, concurrency: [01]$`)
	if !queue.MatchString(out) {
		t.Errorf("no queue line after an interval line with --rate:\n%s", out)
	}
	_, out, _ = runAt(t, dir, "run", "sysbench/oltp_point_select", "--target", db, "--tables", "1", "--table-size", "100",
		"--time", "300ms", "--seed", "11", "--report-interval", "100ms", "--format", "sysbench", "-o", "b.json")
	if !strings.Contains(out, "Number of threads: 1\nReport intermediate results every 0.1 second(s)\nInitializing random number generator from seed (11).\n") {
		t.Errorf("header without --rate and --rand-seed: want no rate line and the run seed 11, got:\n%s", out)
	}
	if strings.Contains(out, "queue length") || !strings.Contains(out, "thds: 1 tps:") {
		t.Errorf("closed loop: want interval lines and no queue line, got:\n%s", out)
	}
}
