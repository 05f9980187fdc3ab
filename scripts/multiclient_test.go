package scripts

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// buildCandor builds the candor binary once for the test.
func buildCandor(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "candor")
	cmd := exec.Command("go", "build", "-o", bin, "../cmd/candor")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

type counts struct {
	ops       map[string]int64
	done      int64
	threads   int
	shards    int
	clockSrcs []string
}

func readCounts(t *testing.T, file string) counts {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Run    struct{ Threads int }
		Phases []struct {
			Name       string
			Operations int64 `json:"operations_done"`
			Ops        []struct {
				Name  string
				Count int64
			} `json:"operations"`
		}
		Merged *struct {
			Shards []struct {
				Clock *struct{ Source string }
			}
		}
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	c := counts{ops: map[string]int64{}, threads: r.Run.Threads}
	for _, p := range r.Phases {
		if p.Name != "run" {
			continue
		}
		c.done += p.Operations
		for _, o := range p.Ops {
			c.ops[o.Name] += o.Count
		}
	}
	if r.Merged != nil {
		c.shards = len(r.Merged.Shards)
		for _, s := range r.Merged.Shards {
			if s.Clock != nil {
				c.clockSrcs = append(c.clockSrcs, s.Clock.Source)
			}
		}
	}
	return c
}

// TestMultiClient runs scripts/multi-client.sh as the Kubernetes Job runs
// its pods: N processes of one run, started together, merged. With fixed
// seeds the merged operation counts are those of one process with the same
// workers and operations.
func TestMultiClient(t *testing.T) {
	if testing.Short() {
		t.Skip("builds candor and runs several processes")
	}
	candor := buildCandor(t)
	dir := t.TempDir()
	targets := []struct {
		name, url, clock string
		extra            []string
	}{
		{"null", "null://", "local", nil},
		{"sqlite", "sqlite://" + filepath.Join(dir, "bench.db"), "local", []string{"-p", "recordcount=2000"}},
	}
	if u := os.Getenv("CANDOR_TEST_POSTGRES_URL"); u != "" {
		targets = append(targets, struct {
			name, url, clock string
			extra            []string
		}{"postgres", u, "server", []string{"-p", "recordcount=2000", "-p", "table=shardtest"}})
	}
	for _, tg := range targets {
		t.Run(tg.name, func(t *testing.T) {
			args := append([]string{"ycsb/c", "--target", tg.url, "--threads", "6", "--operations", "6000", "--seed", "11"}, tg.extra...)
			out := filepath.Join(dir, tg.name)
			cmd := exec.Command("bash", append([]string{"multi-client.sh", "3", out}, args...)...)
			// The shards that find the table unloaded queue on its lock
			// while one loads it: the shared start must leave them time,
			// or they run one after another and merge refuses them (their
			// runs of a few milliseconds did not measure the same time).
			startIn := "3"
			if tg.extra != nil {
				startIn = "8"
			}
			cmd.Env = append(os.Environ(), "CANDOR="+candor, "START_IN="+startIn)
			if b, err := cmd.CombinedOutput(); err != nil {
				logs, _ := filepath.Glob(filepath.Join(out, "*.log"))
				for _, l := range logs {
					lb, _ := os.ReadFile(l)
					t.Logf("%s:\n%s", l, lb)
				}
				t.Fatalf("multi-client.sh: %v\n%s", err, b)
			}
			merged := readCounts(t, filepath.Join(out, "run.json"))
			one := filepath.Join(dir, tg.name+"-one.json")
			if b, err := exec.Command(candor, append([]string{"run", "-q", "-o", one}, args...)...).CombinedOutput(); err != nil {
				t.Fatalf("one process: %v\n%s", err, b)
			}
			single := readCounts(t, one)
			if merged.done != 6000 || fmt.Sprint(merged.ops) != fmt.Sprint(single.ops) || merged.threads != 6 {
				t.Errorf("merged %+v, one process %+v: want the same operations", merged, single)
			}
			if merged.shards != 3 || strings.Join(merged.clockSrcs, ",") != strings.Repeat(tg.clock+",", 2)+tg.clock {
				t.Errorf("merged shards %d, clocks %v, want 3 shards with %s clocks", merged.shards, merged.clockSrcs, tg.clock)
			}
		})
	}
}
