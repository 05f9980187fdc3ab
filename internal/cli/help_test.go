package cli

import (
	"regexp"
	"strings"
	"testing"
)

// Help describes what candor runs today, shows each workload's options
// under its name (typed, one default each) and the runner flags alone
// otherwise.
func TestHelpLayout(t *testing.T) {
	dir := t.TempDir()
	help := func(args ...string) string {
		t.Helper()
		code, out, stderr := runCLI(t, dir, nil, args...)
		if code != ExitOK {
			t.Fatalf("candor %s: exit %d: %s", strings.Join(args, " "), code, stderr)
		}
		return out
	}
	root := help("--help")
	if strings.Contains(root, "today") || !strings.Contains(root, "sysbench") || !strings.Contains(root, "KV-1..3") {
		t.Errorf("candor --help does not describe what candor runs:\n%s", root)
	}

	run := help("run", "--help")
	for _, not := range []string{"--tables", "--pairs", "(sysbench)", "(default 0s)"} {
		if strings.Contains(run, not) {
			t.Errorf("run --help shows %q:\n%s", not, run)
		}
	}
	if !strings.Contains(run, "candor run WORKLOAD --help") || !strings.Contains(run, "candor list workloads -v") {
		t.Errorf("run --help does not say how to see a workload's options:\n%s", run)
	}
	timeLine := regexp.MustCompile(`(?m)^\s+--time .*$`).FindString(run)
	if strings.Count(timeLine, "default") != 1 {
		t.Errorf("--time shows %d defaults: %q", strings.Count(timeLine, "default"), timeLine)
	}

	kv := help("run", "kv-basic", "--help")
	for _, want := range []string{"--threads int", "Options of kv-basic", "--pairs int", "(default 500000)", "--value-size int"} {
		if !strings.Contains(kv, want) {
			t.Errorf("run kv-basic --help lacks %q:\n%s", want, kv)
		}
	}
	if strings.Contains(kv, "--tables") {
		t.Errorf("run kv-basic --help shows sysbench's options:\n%s", kv)
	}
	sb := help("prepare", "sysbench/oltp_read_write", "--help")
	for _, want := range []string{"--tables int", "--rand-pareto-h float", "--auto-inc ", "(default on)"} {
		if !strings.Contains(sb, want) {
			t.Errorf("prepare sysbench/oltp_read_write --help lacks %q:\n%s", want, sb)
		}
	}
	if h := help("help", "cleanup", "kv-ints"); !strings.Contains(h, "--columns int") {
		t.Errorf("help cleanup kv-ints lacks kv-ints' options:\n%s", h)
	}

	list := help("list", "workloads", "-v")
	for _, want := range []string{"OPTIONS OF sysbench", "--table-size int", "OPTIONS OF kv-basic", "--pairs int", "OPTIONS OF commit-loop", "--in-server", "OPTIONS OF ycsb"} {
		if !strings.Contains(list, want) {
			t.Errorf("list workloads -v lacks %q", want)
		}
	}
}

// Typed workload options refuse a value of the wrong type as the command
// line is read; sysbench's on/off and underscore spellings still work.
func TestTypedWorkloadOptions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	code, _, stderr := runAt(t, dir, "run", "kv-basic", "--pairs", "lots", "--target", "null://")
	if code != ExitUsage || !strings.Contains(stderr, `invalid argument "lots" for "--pairs"`) || !strings.Contains(stderr, "not an integer") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
	code, _, stderr = runAt(t, dir, "run", "sysbench/oltp_point_select", "--table_size=100", "--auto-inc=off", "--create_secondary", "--target", "sqlite://"+dir+"/sb.db", "--time", "200ms", "-q", "-o", "r.json")
	if code != ExitOK {
		t.Errorf("sysbench spellings: exit %d, stderr:\n%s", code, stderr)
	}
}
