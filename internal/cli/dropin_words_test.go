package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// forbidden are, per drop-in, words of candor run's advice its user never
// typed: its own commands and options say the same.
var forbidden = map[string][]string{
	"sysbench": {"candor load", "candor cleanup", "candor run", "--load", "run --"},
	"pgbench":  {"candor load", "candor cleanup", "candor run", "--load", "--threads", "--operations", "--report-interval", "-p scale", "run --"},
}

func checkDropinWords(t *testing.T, dropin, what, stderr string) {
	t.Helper()
	for _, f := range forbidden[dropin] {
		if strings.Contains(stderr, f) {
			t.Errorf("candor %s, %s: the message names %q, which candor %s does not take:\n%s", dropin, what, f, dropin, stderr)
		}
	}
}

// The drop-ins' error paths tell their users what to type in their own
// terms: the test's prepare and cleanup, pgbench's -i and -c, no --load
// they never gave.
func TestDropinMessagesNameTheirOwnCommands(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := "--target=sqlite://" + filepath.Join(dir, "sb.db")
	sb := func(args ...string) (int, string) {
		t.Helper()
		code, _, stderr := runAbs(t, dir, append([]string{"sysbench", db, "--out=" + filepath.Join(dir, "r.json")}, args...)...)
		return code, stderr
	}
	code, stderr := sb("--table-size=100", "--events=10", "oltp_read_only", "run")
	if code != ExitUnsupported || !strings.Contains(stderr, "'candor sysbench [your options] oltp_read_only prepare' first") {
		t.Errorf("run before prepare: exit %d\n%s", code, stderr)
	}
	checkDropinWords(t, "sysbench", "run before prepare", stderr)
	if code, stderr := sb("--table-size=100", "oltp_read_only", "prepare"); code != 0 {
		t.Fatalf("prepare: exit %d\n%s", code, stderr)
	}
	code, stderr = sb("--table-size=100", "oltp_read_only", "prepare")
	if code != ExitUnsupported || !strings.Contains(stderr, "'candor sysbench [your options] oltp_read_only cleanup' first") {
		t.Errorf("prepare again: exit %d\n%s", code, stderr)
	}
	checkDropinWords(t, "sysbench", "prepare again", stderr)
	code, stderr = sb("--table-size=200", "--events=10", "oltp_read_only", "run")
	if code != ExitUnsupported || !strings.Contains(stderr, "oltp_read_only cleanup") {
		t.Errorf("a run with another --table-size: exit %d\n%s", code, stderr)
	}
	checkDropinWords(t, "sysbench", "a run with another --table-size", stderr)

	pg := "--target=sqlite://" + filepath.Join(dir, "pg.db")
	code, _, stderr = runAbs(t, dir, "pgbench", "-c", "2", "-t", "2", pg, "-o", filepath.Join(dir, "p.json"))
	if code != ExitUnsupported || !strings.Contains(stderr, "'candor pgbench -i -s N' first") {
		t.Errorf("pgbench before -i: exit %d\n%s", code, stderr)
	}
	checkDropinWords(t, "pgbench", "a run before -i", stderr)
	code, _, stderr = runAbs(t, dir, "pgbench", "-S", "-c", "2", "-t", "2", pg, "-o", filepath.Join(dir, "p.json"))
	checkDropinWords(t, "pgbench", "a built-in script before -i", stderr)
	if code == 0 {
		t.Errorf("select-only before -i: exit 0\n%s", stderr)
	}
}

// Every phrase of candor run's advice the drop-ins can meet (the tables'
// refusals, the sessions' limits) comes out in their terms.
func TestDropinRewording(t *testing.T) {
	for _, c := range []struct {
		dropin, in, want string
	}{
		{"sysbench", "table sbtest1 holds an unfinished load (the load that created it was interrupted, failed or killed) and --load=never: run with --load auto to reload it, or 'candor cleanup sysbench/oltp_read_write' and load again",
			"table sbtest1 holds an unfinished load (the load that created it was interrupted, failed or killed): run 'candor sysbench [your options] oltp_read_write cleanup', then prepare again"},
		{"sysbench", "table sbtest1 holds ids 1..100 where this run needs records 1..200, and --load=never: run with --load auto to reload it, or load the missing records",
			"table sbtest1 holds ids 1..100 where this run needs records 1..200: run the test's cleanup, then its prepare with the options of this run"},
		{"sysbench", "the table already holds some of these keys: run 'candor cleanup sysbench/oltp_insert' (same --target) first",
			"the table already holds some of these keys: run 'candor sysbench [your options] oltp_insert cleanup' (same connection options) first"},
		{"pgbench", "table pgbench_accounts holds an unfinished load (the load that created it was interrupted, failed or killed) and --load=never: run with --load auto to reload it, or 'candor cleanup script/pgbench' and load again",
			"table pgbench_accounts holds an unfinished load (the load that created it was interrupted, failed or killed): run 'candor pgbench -i -s N' again"},
		{"pgbench", "too many connections (FATAL: sorry); lower --threads or raise the server's max_connections",
			"too many connections (FATAL: sorry); lower -c or raise the server's max_connections"},
		{"pgbench", "--threads 5000 needs about 5001 open files (1 per connection, one connection per thread) but this process may open 1024 (ulimit -n); lower --threads to at most 1000 or raise the limit (ulimit -n 5001)",
			"-c 5000 needs about 5001 open files (1 per connection, one connection per thread) but this process may open 1024 (ulimit -n); lower -c to at most 1000 or raise the limit (ulimit -n 5001)"},
		{"pgbench", "script/pgbench: pgbench_branches is empty; initialise the tables first (candor pgbench -i -s N, or candor load script/pgbench -p scale=N)",
			"script/pgbench: pgbench_branches is empty; initialise the tables first (candor pgbench -i -s N)"},
	} {
		words := map[string][]rewording{"sysbench": sysbenchWords, "pgbench": pgbenchWords}[c.dropin]
		got := reword(c.in, words)
		if got != c.want {
			t.Errorf("%s:\n%s\nbecame\n%s\nwant\n%s", c.dropin, c.in, got, c.want)
		}
		checkDropinWords(t, c.dropin, "reworded", got)
	}
}
