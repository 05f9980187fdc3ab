package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/result/resulttest"
)

func TestShardBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"index out of range", []string{"run", "ycsb/c", "--target", "null://", "--operations", "10", "--shard", "4/4"}, "shard index 4 is out of range; shards of 4 count from 0 to 3"},
		{"negative index", []string{"run", "ycsb/c", "--target", "null://", "--operations", "10", "--shard", "-1/4"}, "out of range"},
		{"not i/N", []string{"run", "ycsb/c", "--target", "null://", "--operations", "10", "--shard", "2"}, `--shard "2" is not i/N`},
		{"N zero", []string{"run", "ycsb/c", "--target", "null://", "--operations", "10", "--shard", "0/0"}, "N must be at least 1"},
		{"start in the past", []string{"run", "ycsb/c", "--target", "null://", "--operations", "10", "--shard", "0/2", "--start-at", "2020-01-01T00:00:00Z"}, "--start-at 2020-01-01T00:00:00Z is in the past"},
		{"start malformed", []string{"run", "ycsb/c", "--target", "null://", "--operations", "10", "--start-at", "noon"}, "neither an RFC 3339 time"},
		{"too few workers", []string{"run", "ycsb/c", "--target", "null://", "--operations", "10", "--threads", "2", "--shard", "2/3"}, "2 workers (--threads) leave shard 2 none"},
		{"run id alone", []string{"run", "ycsb/c", "--target", "null://", "--operations", "10", "--run-id", "x"}, "give --shard i/N with it"},
		{"unsplittable load", []string{"load", "kv-basic", "--target", "null://", "--shard", "1/2"}, "cannot load a part of its key space"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runAbs(t, dir, c.args...)
			if code != ExitUsage || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, ExitUsage, c.want)
			}
		})
	}
}

// Shard loads of YCSB take their slice of insertstart/insertcount; the
// tables' key marks merge the slices, and a run finds them all loaded.
func TestShardLoadsSlices(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := "sqlite://" + filepath.Join(dir, "b.db")
	for i, want := range []string{`"insertstart": 0`, `"insertstart": 34`, `"insertstart": 67`} {
		out := filepath.Join(dir, "load"+string(rune('0'+i))+".json")
		code, _, stderr := runAbs(t, dir, "load", "ycsb/c", "--target", db, "-p", "recordcount=100", "--shard", string(rune('0'+i))+"/3", "-q", "-o", out)
		if code != 0 {
			t.Fatalf("load shard %d: exit %d: %s", i, code, stderr)
		}
		b, _ := os.ReadFile(out)
		if !strings.Contains(string(b), want) {
			t.Errorf("shard %d's result lacks %s", i, want)
		}
		var r result.Result
		json.Unmarshal(b, &r)
		if r.Shard == nil || r.Shard.Index != i || r.Shard.Count != 3 || r.Shard.Clock == nil || r.Shard.Clock.Source != "local" {
			t.Errorf("shard %d: shard section %+v", i, r.Shard)
		}
		if rows := r.Phases[0].Rows; rows != []int64{34, 33, 33}[i] {
			t.Errorf("shard %d loaded %d rows", i, rows)
		}
	}
	// The run finds every record loaded: no load phase.
	out := filepath.Join(dir, "run.json")
	code, _, stderr := runAbs(t, dir, "run", "ycsb/c", "--target", db, "-p", "recordcount=100", "--load", "never", "--operations", "100", "-q", "-o", out)
	if code != 0 {
		t.Fatalf("run after the shard loads: exit %d: %s", code, stderr)
	}
}

// Shards merged by candor merge: the same counts as one process, the
// merged result reported like any other, and a result merged with itself
// or with a shard of another N refused.
func TestMergeCommand(t *testing.T) {
	t.Parallel()
	var dir string
	var files []string
	var one string
	codes, errs := make([]int, 3), make([]string, 3)
	// The shards run together, as separate processes would: one waits
	// for --start-at while the other starts. 3 ms a round trip makes each
	// shard's phase last seconds: merge refuses shards that shared less
	// than half their time. The same run in one process runs at the same
	// time, on a null:// of its own.
	shardsTogether(t, func(start string) []string {
		dir = t.TempDir()
		files = []string{filepath.Join(dir, "shard-0.json"), filepath.Join(dir, "shard-1.json")}
		one = filepath.Join(dir, "one.json")
		var wg sync.WaitGroup
		for i := range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				args := []string{"run", "ycsb/a", "--target", "null://?latency=3ms", "--threads", "4", "--operations", "4000", "--seed", "5", "-q"}
				if i < 2 {
					args = append(args, "--shard", string(rune('0'+i))+"/2", "--start-at", start, "-o", files[i])
				} else {
					args = append(args, "-o", one)
				}
				codes[i], _, errs[i] = runCLIConcurrent(dir, args...)
			}()
		}
		wg.Wait()
		return errs[:2]
	})
	for i := range 2 {
		if codes[i] != 0 {
			t.Fatalf("shard %d: exit %d: %s", i, codes[i], errs[i])
		}
	}
	if codes[2] != 0 {
		t.Fatalf("one process: %s", errs[2])
	}
	resulttest.CheckFilesSince(t, dir, time.Time{})
	merged := filepath.Join(dir, "merged.json")
	if code, _, stderr := runAbs(t, dir, append([]string{"merge", "-q", "-o", merged}, files...)...); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	m, err := result.Read(merged)
	if err != nil {
		t.Fatal(err)
	}
	o, _ := result.Read(one)
	mp, op := m.Phases[len(m.Phases)-1], o.Phases[len(o.Phases)-1]
	for i := range op.Ops {
		if mp.Ops[i].Name != op.Ops[i].Name || mp.Ops[i].Count != op.Ops[i].Count {
			t.Errorf("merged %s %d, one process %s %d", mp.Ops[i].Name, mp.Ops[i].Count, op.Ops[i].Name, op.Ops[i].Count)
		}
	}
	if m.Merged == nil || len(m.Merged.Shards) != 2 || m.Run.Threads != 4 {
		t.Errorf("merged result: %+v, threads %d", m.Merged, m.Run.Threads)
	}
	if code, stdout, stderr := runAbs(t, dir, "report", merged); code != 0 || !strings.Contains(stdout+stderr, "ycsb/a") {
		t.Errorf("report of the merged result: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, _, stderr := runAbs(t, dir, "merge", "-o", filepath.Join(dir, "x.json"), files[0], files[0]); code != ExitUsage || !strings.Contains(stderr, "cannot be merged with itself") {
		t.Errorf("merge with itself: exit %d: %s", code, stderr)
	}
	// A copy of shard 0 under another name is still the same result.
	cp := filepath.Join(dir, "copy.json")
	b, _ := os.ReadFile(files[0])
	os.WriteFile(cp, b, 0o644)
	if code, _, stderr := runAbs(t, dir, "merge", "-o", filepath.Join(dir, "x.json"), files[0], cp); code != ExitUsage || !strings.Contains(stderr, "cannot be merged with itself") {
		t.Errorf("merge with a copy of itself: exit %d: %s", code, stderr)
	}
	// N differing between shards.
	var r result.Result
	json.Unmarshal(b, &r)
	r.Shard.Count, r.Shard.Index, r.ID = 3, 1, "other"
	odd := filepath.Join(dir, "odd.json")
	result.Write(odd, &r)
	if code, _, stderr := runAbs(t, dir, "merge", "-o", filepath.Join(dir, "x.json"), files[0], odd); code != ExitUsage || !strings.Contains(stderr, "the shard count N differs") {
		t.Errorf("merge of different N: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runAbs(t, dir, append([]string{"merge", "-o", merged}, files...)...); code != ExitUsage || !strings.Contains(stderr, "exists") {
		t.Errorf("merge over an existing file: exit %d: %s", code, stderr)
	}
}

// shardsTogether calls run with an RFC 3339 --start-at a few seconds ahead
// for the shards it starts, and calls it again with a later one when a
// shard's stderr (what run returns) says it reached that time late: the
// machine was busier than the lead allowed, which is not what the tests
// that run shards check.
func shardsTogether(t *testing.T, run func(startAt string) (stderrs []string)) {
	t.Helper()
	for _, lead := range []time.Duration{5 * time.Second, 10 * time.Second, 20 * time.Second, 45 * time.Second} {
		start := time.Now().Add(lead).UTC().Format(time.RFC3339Nano)
		late := false
		for _, e := range run(start) {
			late = late || strings.Contains(e, "starting now, late")
		}
		if !late {
			return
		}
		t.Logf("a shard reached --start-at %s late (%s ahead); again with a later one", start, lead)
	}
	t.Fatal("a shard reached --start-at late four times, the last 45 s ahead")
}
