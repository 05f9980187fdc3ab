package cli

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/runner"
	"github.com/candor-bench/candor/internal/target"
)

// getMetrics scrapes addr with net/http (not candor's code) in the
// Prometheus text format; "" when nothing answers.
func getMetrics(addr string) string {
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

var listensRE = regexp.MustCompile(`serving live metrics on http://([^/\s]+)/metrics`)

// scrapedRun runs candor with --metrics-addr 127.0.0.1:0 and a 60 s
// --metrics-linger, finds the endpoint from the line candor prints at the
// start, scrapes it every 50 ms until the run phase shows (first: the
// first scrape that saw it) and once more when candor says it serves the
// final values (final). It checks that candor then ends at once, long
// before the linger's 60 s.
func scrapedRun(t *testing.T, dir string, args ...string) (first, final string, res *result.Result) {
	t.Helper()
	out := filepath.Join(dir, "r.json")
	stderr := &lockedBuffer{}
	env := &Env{Stdout: io.Discard, Stderr: stderr, Getenv: func(string) string { return "" },
		Args: append([]string{"candor", "run"}, args...)}
	all := append(append([]string{"run"}, args...), "--metrics-addr", "127.0.0.1:0", "--metrics-linger", "60s",
		"--report-interval", "300ms", "-o", out)
	done := make(chan int, 1)
	go func() { done <- Main(env, all) }()
	var addr string
	var code int
	ended := false
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline) && final == ""; time.Sleep(50 * time.Millisecond) {
		select {
		case code = <-done:
			t.Fatalf("candor ended (exit %d) before serving its final metrics:\n%s", code, stderr)
		default:
		}
		if addr == "" {
			if m := listensRE.FindStringSubmatch(stderr.String()); m != nil {
				addr = m[1]
			}
			continue
		}
		if strings.Contains(stderr.String(), "serving final metrics on http://"+addr+"/metrics for up to 1m0s (until scraped)") {
			final = getMetrics(addr)
			ended = true
			break
		}
		// Scraped only until the run phase shows: a scrape of the final
		// values ends candor's linger, and must be the one below.
		if first == "" {
			if b := getMetrics(addr); strings.Contains(b, `phase="run"`) {
				first = b
			}
		}
	}
	if !ended {
		t.Fatalf("candor never said it serves the final metrics:\n%s", stderr)
	}
	select {
	case code = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("candor still waits 10 s after the final scrape")
	}
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	res, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	return first, final, res
}

// phaseOf is res's phase named name (nil without one).
func phaseOf(res *result.Result, name string) *result.Phase {
	for i := range res.Phases {
		if res.Phases[i].Name == name {
			return &res.Phases[i]
		}
	}
	return nil
}

// The endpoint serves the run's final values after the run until one more
// scrape (it closed with the phase: the last intervals were never scraped),
// and they are the result file's counts: each phase's operations and
// errors by class, and the interval records. A run that loads serves the
// load metrics; one on data loaded before serves none (it showed "load
// progress 0%"). Every error class is served at 0 from the start.
func TestMetricsFinalScrapeMatchesResult(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := "sqlite://" + filepath.Join(dir, "m.db")
	// Open loops (--rate): a closed loop on SQLite would take a core from
	// the tests running beside this one.
	for i, loads := range []bool{true, false} {
		first, final, res := scrapedRun(t, dir, "ycsb/a", "--target", db, "-p", "recordcount=2000", "--threads", "2", "--rate", "1000", "--time", "1500ms")
		if (phaseOf(res, "load") != nil) != loads {
			t.Fatalf("run %d: phases %d, want a load: %v", i+1, len(res.Phases), loads)
		}
		for _, class := range target.Classes {
			if v, ok := metricValue(first, "candor_errors_total", `operation="READ"`, `phase="run"`, `class="`+string(class)+`"`); !ok || v != 0 {
				t.Errorf("run %d: errors of class %s in the first scrape: %v, %v; want 0", i+1, class, v, ok)
			}
		}
		intervals := 0
		for _, p := range res.Phases {
			intervals += len(p.Intervals)
			for _, op := range p.Ops {
				labels := []string{`operation="` + op.Name + `"`, `phase="` + p.Name + `"`}
				if v, ok := metricValue(final, "candor_operations_total", labels...); !ok || int64(v) != op.Count {
					t.Errorf("run %d: %s %s: final scrape %v (%v), result %d", i+1, p.Name, op.Name, v, ok, op.Count)
				}
				for _, class := range target.Classes {
					v, ok := metricValue(final, "candor_errors_total", append(labels, `class="`+string(class)+`"`)...)
					if !ok || int64(v) != op.Errors[string(class)] {
						t.Errorf("run %d: %s %s errors %s: final scrape %v (%v), result %d", i+1, p.Name, op.Name, class, v, ok, op.Errors[string(class)])
					}
				}
			}
		}
		if v, _ := metricValue(final, "candor_intervals_total"); int(v) != intervals {
			t.Errorf("run %d: candor_intervals_total %v, result has %d intervals", i+1, v, intervals)
		}
		_, hasLoad := metricValue(final, "candor_load_rows_planned")
		if hasLoad != loads || strings.Contains(first+final, "candor_load_rows_done") != loads {
			t.Errorf("run %d (loads: %v): load metrics served: %v\n%s", i+1, loads, hasLoad, final)
		}
		if loads {
			if v, _ := metricValue(final, "candor_load_rows_done"); v != 2000 {
				t.Errorf("candor_load_rows_done %v at the end, want 2000", v)
			}
			if v, _ := metricValue(final, "candor_operations_total", `operation="`+runner.LoadOp+`"`, `phase="load"`); v == 0 {
				t.Error("the load phase's final count is not served after the run")
			}
		}
		os.Remove(filepath.Join(dir, "r.json"))
	}
}
