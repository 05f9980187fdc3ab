package cli

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/measure"
	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/result/resulttest"
)

// runCLI runs candor in-process in dir and returns exit code, stdout, stderr.
// It changes the process's working directory for the command: a test that
// uses it cannot run in parallel, and Go runs it before every parallel
// test. The package's tests use it for quick commands only; a test whose
// commands take time gives them absolute paths (runAbs, runAt, on) or runs
// them in a child process in dir (runChild), and runs in parallel.
func runCLI(t *testing.T, dir string, sig <-chan os.Signal, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	env := &Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }, Signals: sig, Args: append([]string{"candor"}, args...)}
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	began := time.Now().Add(-time.Second) // file times may be coarse
	code := Main(env, args)
	resulttest.CheckFilesSince(t, dir, began) // every result the command wrote breaks no law
	return code, out.String(), errb.String()
}

// runAbs runs candor in-process without changing directory, for commands
// whose every path is absolute, and checks every result the command wrote
// under dir by the laws, as runCLI does. Tests that use it alone may run in
// parallel (t.Parallel): Go starts them once every test that changes
// directory (runCLI) has ended.
func runAbs(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	return runAbsSig(t, dir, nil, args...)
}

// on is args with --target url after them: a test's commands on a SQLite
// file of its own rather than the default candor.db of the working
// directory, so that the test may run in parallel.
func on(url string, args ...string) []string {
	return append(args, "--target", url)
}

// runAbsSig is runAbs with the signals candor receives read from sig
// (Env.Signals) rather than the process's: a test that interrupts its own
// run this way may run in parallel.
func runAbsSig(t *testing.T, dir string, sig <-chan os.Signal, args ...string) (int, string, string) {
	t.Helper()
	var out, errb lockedBuffer
	began := time.Now().Add(-time.Second) // file times may be coarse
	code := mainAbs(sig, &out, &errb, args...)
	resulttest.CheckFilesSince(t, dir, began)
	return code, out.String(), errb.String()
}

func TestBadInputExitCodes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.properties")
	os.WriteFile(bad, []byte("recordcount=100\nreadproportion=abc\n"), 0o644)
	cases := []struct {
		name string
		args []string
		code int
		want []string // substrings of stderr
	}{
		// unknown workload lists the valid ones
		{"unknown workload", []string{"run", "tpcz"}, ExitUsage, []string{"unknown workload", "ycsb/a"}},
		{"no workload", []string{"run"}, ExitUsage, []string{"name a workload", "candor run ycsb/a"}},
		// an on/off option's value written with a space becomes an argument
		{"on/off value after a space", []string{"prepare", "sysbench", "--auto-inc", "off", "--target", "null://"}, ExitUsage, []string{`unexpected argument "off"`, "--auto-inc=off"}},
		{"two workloads", []string{"cleanup", "ycsb", "kv-basic"}, ExitUsage, []string{`unexpected argument "kv-basic"`}},
		// unknown flag names the command's help
		{"unknown option", []string{"run", "ycsb/a", "--thread", "4"}, ExitUsage, []string{"unknown flag", "--help"}},
		// zero threads
		{"threads 0", []string{"run", "ycsb/a", "--threads", "0", "--target", "null://"}, ExitUsage, []string{"--threads must be at least 1"}},
		// a bad distribution name lists the valid ones
		{"bad distribution", []string{"run", "ycsb/a", "-p", "requestdistribution=zipf", "--target", "null://"}, ExitUsage, []string{"requestdistribution", "zipfian"}},
		// proportions summing to zero
		{"zero proportions", []string{"run", "ycsb", "-p", "readproportion=0", "-p", "updateproportion=0", "--target", "null://"}, ExitUsage, []string{"proportion"}},
		// malformed value in a property file names file:line
		{"malformed property file", []string{"run", "ycsb", "-P", bad, "--target", "null://"}, ExitUsage, []string{"readproportion"}},
		// missing property file
		{"missing property file", []string{"run", "ycsb", "-P", filepath.Join(dir, "nope"), "--target", "null://"}, ExitUsage, []string{"nope"}},
		// recordcount < insertstart + insertcount
		{"insert range", []string{"load", "ycsb", "-p", "recordcount=10", "-p", "insertstart=5", "-p", "insertcount=10", "--target", "null://"}, ExitUsage, []string{"Invalid combination of insertstart, insertcount and recordcount"}},
		// unknown URL scheme lists the valid ones
		{"bad scheme", []string{"run", "ycsb/a", "--target", "oracle://x"}, ExitUsage, []string{"unknown scheme", "postgres://"}},
		// unknown driver parameter
		{"bad null param", []string{"run", "ycsb/a", "--target", "null://?latencyy=1ms"}, ExitUsage, []string{"unknown parameter"}},
		// unreachable target (closed port), short timeout, password redacted
		{"unreachable", []string{"run", "ycsb/a", "--target", "postgres://u:s3cret@127.0.0.1:1/db", "--connect-timeout", "2s"}, ExitUnreachable, []string{"unreachable", "xxxxx"}},
		// bad format
		{"bad format", []string{"run", "ycsb/a", "--format", "xml", "--target", "null://"}, ExitUsage, []string{"--format"}},
		// bad list argument
		{"bad list", []string{"list", "tables"}, ExitUsage, []string{"cannot list"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runAbs(t, dir, c.args...)
			if code != c.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, c.code, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if strings.Contains(stderr, "s3cret") {
				t.Errorf("password leaked: %s", stderr)
			}
			if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic") {
				t.Errorf("stack trace on bad input:\n%s", stderr)
			}
			if n := strings.Count(strings.TrimSpace(stderr), "\n"); n > 3 {
				t.Errorf("expected one clear message, got %d lines:\n%s", n+1, stderr)
			}
		})
	}
}

// TestRunOnSQLiteWritesResult: with no --target, candor runs on SQLite in
// the working directory and names the result as given. Its commands run as
// child processes in dir (runChild), so that the test runs in parallel.
func TestRunOnSQLiteWritesResult(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	code, stdout, stderr := runChild(t, dir, "run", "ycsb/a", "--threads", "2", "--operations", "2000", "-o", "r.json", "--report-interval", "200ms")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, w := range []string{"READ", "UPDATE", "p99.9", "service time (closed loop)"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("summary lacks %q:\n%s", w, stdout)
		}
	}
	if !strings.Contains(stderr, "[load]") || !strings.Contains(stderr, "result: r.json") {
		t.Errorf("status output lacks load progress or result path:\n%s", stderr)
	}
	res, err := result.Read(filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != result.StatusComplete || len(res.Phases) != 2 || res.Phases[0].Name != "load" || res.Phases[1].Name != "run" {
		t.Fatalf("status %s phases %d", res.Status, len(res.Phases))
	}
	if res.Phases[0].Rows != 1000 {
		t.Errorf("loaded %d rows, want recordcount 1000", res.Phases[0].Rows)
	}
	var n int64
	for _, o := range res.Phases[1].Ops {
		n += o.Count + o.Aborts
	}
	if n != 2000 {
		t.Errorf("run ops %d, want 2000", n)
	}
	if res.Target.Product != "SQLite" || res.Target.Settings["journal_mode"] == "" {
		t.Errorf("fingerprint %+v", res.Target)
	}
	if res.Provenance.GoVersion == "" || res.Provenance.Cores == 0 || res.Workload.Seed == 0 {
		t.Errorf("provenance or seed missing: %+v seed %d", res.Provenance, res.Workload.Seed)
	}
	// The machine's load over each measured phase, in the provenance: one
	// entry per phase, by index and name, with the steal share where the
	// kernel counts it (result.LawLoad holds: Read checked it).
	if _, ok := measure.LoadAvg(); ok {
		load := res.Provenance.Load
		if len(load) != 2 || load[0].PhaseIndex != 0 || load[0].Phase != "load" || load[1].PhaseIndex != 1 || load[1].Phase != "run" {
			t.Errorf("provenance.load %+v, want the load and the run phase", load)
		}
		stat, _ := os.ReadFile("/proc/stat")
		line, _, _ := strings.Cut(string(stat), "\n")
		if _, _, _, known := measure.ParseCPULine(line); known {
			for _, l := range load {
				if l.Steal == nil || *l.Steal < 0 || *l.Steal > 1 {
					t.Errorf("phase %s: steal %v, want a share", l.Phase, l.Steal)
				}
			}
		}
	}
	// The side file holds the header and every interval.
	side, err := result.Recover(filepath.Join(dir, "r.intervals.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(side.Phases) != 2 {
		t.Errorf("side file phases %d, want 2", len(side.Phases))
	}

	// A second run reuses the loaded table (no load phase) and prints YCSB lines.
	code, stdout, stderr = runChild(t, dir, "run", "ycsb/a", "--operations", "500", "-o", "r2.json", "--format", "ycsb", "-q")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, w := range []string{"[OVERALL], RunTime(ms), ", "[OVERALL], Throughput(ops/sec), ", "[READ], 99thPercentileLatency(us), ", "[UPDATE], Return=OK, "} {
		if !strings.Contains(stdout, w) {
			t.Errorf("ycsb output lacks %q:\n%s", w, stdout)
		}
	}
	res2, err := result.Read(filepath.Join(dir, "r2.json"))
	if err != nil || len(res2.Phases) != 1 {
		t.Fatalf("second run: %v, phases %d (want only the run)", err, len(res2.Phases))
	}

	// cleanup drops the table; a second cleanup has nothing to drop.
	if code, _, stderr = runChild(t, dir, "cleanup", "ycsb"); code != 0 || !strings.Contains(stderr, "dropped table usertable") {
		t.Fatalf("cleanup exit %d: %s", code, stderr)
	}
	if code, _, stderr = runChild(t, dir, "run", "ycsb/a", "--load", "never", "--operations", "10"); code != ExitUnsupported {
		t.Fatalf("run --load=never on a dropped table: exit %d, want %d: %s", code, ExitUnsupported, stderr)
	}
}

func TestInterruptWritesPartialResult(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "i.json")
	sig := make(chan os.Signal, 1)
	// The signal comes once the run phase has written two intervals: on a
	// busy machine the run may start late, and a fixed delay would
	// interrupt it before it measured anything.
	signalled := make(chan time.Time, 1)
	go func() {
		for range 600 {
			if b, _ := os.ReadFile(result.IntervalsPath(out)); bytes.Count(b, []byte(`"phase":"run"`)) >= 2 {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		signalled <- time.Now()
		sig <- syscall.SIGINT
	}()
	code, _, stderr := runAbsSig(t, dir, sig, "run", "ycsb/c", "--target", "null://?latency=200us", "--time", "1m", "-o", out, "--report-interval", "250ms")
	if code != ExitInterrupted {
		t.Fatalf("exit %d, want %d\n%s", code, ExitInterrupted, stderr)
	}
	// A bound that tells an end from a hang (the run was given a minute),
	// not a speed: a loaded machine took 2.7 s.
	if d := time.Since(<-signalled); d > 20*time.Second {
		t.Fatalf("took %v after the signal; an interrupted run must end well before its 1 m", d)
	}
	res, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != result.StatusInterrupted || len(res.Phases) == 0 {
		t.Fatalf("partial result: status %s phases %+v", res.Status, res.Phases)
	}
	if last := res.Phases[len(res.Phases)-1]; last.Name != "run" || len(last.Ops) == 0 || last.Ops[0].Count == 0 {
		t.Fatalf("partial result: the run phase measured nothing: %+v", last)
	}
}

// One stop delivered as two signals microseconds apart (timeout -s INT
// signals candor, then its process group) ends the run and writes the
// result; it is not the second Ctrl-C that quits at once.
func TestDoubleSignalOfOneStopWritesResult(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sig := make(chan os.Signal, 2)
	time.AfterFunc(1500*time.Millisecond, func() { sig <- syscall.SIGINT; sig <- syscall.SIGINT })
	code, _, stderr := runAbsSig(t, dir, sig, "run", "ycsb/c", "--target", "null://?latency=200us", "--time", "1m", "-o", filepath.Join(dir, "i.json"), "--report-interval", "250ms")
	if code != ExitInterrupted {
		t.Fatalf("exit %d, want %d\n%s", code, ExitInterrupted, stderr)
	}
	res, err := result.Read(filepath.Join(dir, "i.json"))
	if err != nil {
		t.Fatalf("no result after one stop sent as two signals: %v", err)
	}
	if res.Status != result.StatusInterrupted {
		t.Fatalf("status %s, want interrupted", res.Status)
	}
}

func TestRepeatKeepsEveryRunAndSummarises(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := "sqlite://" + filepath.Join(dir, "candor.db")
	code, stdout, stderr := runAt(t, dir, "run", "ycsb/c", "--target", db, "--operations", "500", "--repeat", "3", "-o", "rep.json", "-q")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	res, err := result.Read(filepath.Join(dir, "rep.json"))
	if err != nil {
		t.Fatal(err)
	}
	var reps []int
	seeds := map[int64]bool{}
	for _, p := range res.Phases {
		if p.Name == "run" {
			reps = append(reps, p.Repetition)
			seeds[p.Seed] = true
		}
	}
	if len(reps) != 3 || reps[0] != 1 || reps[2] != 3 || len(seeds) != 3 {
		t.Fatalf("run phases %v with %d seeds: want repetitions 1..3, each with its own seed", reps, len(seeds))
	}
	r := res.Repetitions
	if r == nil || r.N != 3 || r.Throughput.N != 3 || r.Throughput.CI95Low > r.Throughput.Mean || r.Throughput.CI95High < r.Throughput.Mean {
		t.Fatalf("repetition summary %+v", r)
	}
	if !strings.Contains(stdout, "over 3 repetitions") {
		t.Errorf("summary lacks the repetition table:\n%s", stdout)
	}
	if code, _, _ := runAt(t, dir, "run", "ycsb/c", "--repeat", "0", "--target", "null://"); code != ExitUsage {
		t.Errorf("--repeat 0: exit %d, want %d", code, ExitUsage)
	}
}

func TestIsolationOptions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := "sqlite://" + filepath.Join(dir, "candor.db")
	// an unknown level is bad input
	if code, _, stderr := runAt(t, dir, "run", "ycsb/c", "--target", db, "--isolation", "snapshot", "--operations", "10"); code != ExitUsage || !strings.Contains(stderr, "read-committed") {
		t.Errorf("unknown level: exit %d, want %d listing the valid levels:\n%s", code, ExitUsage, stderr)
	}
	// a level SQLite cannot provide is unsupported, before anything is created
	if code, _, stderr := runAt(t, dir, "run", "ycsb/c", "--target", db, "--isolation", "read-committed", "--operations", "10"); code != ExitUnsupported {
		t.Errorf("read-committed on SQLite: exit %d, want %d:\n%s", code, ExitUnsupported, stderr)
	}
	// serializable works and is recorded
	code, _, stderr := runAt(t, dir, "run", "ycsb/c", "--target", db, "--isolation", "serializable", "--operations", "10", "-o", "iso.json", "-q")
	if code != 0 {
		t.Fatalf("serializable on SQLite: exit %d: %s", code, stderr)
	}
	res, err := result.Read(filepath.Join(dir, "iso.json"))
	if err != nil || res.Run.Isolation != "serializable" || res.Target.Settings["transaction_isolation"] != "serializable" {
		t.Fatalf("isolation not recorded: %v %+v %v", err, res.Run, res.Target.Settings)
	}
}

func TestOtherDataOptionsReload(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := "sqlite://" + filepath.Join(dir, "candor.db")
	// Load 1000 records of 100-byte fields, then run with 50-byte fields: the
	// table holds other data, so the run reloads it (as --load auto).
	if code, _, stderr := runAt(t, dir, "load", "ycsb", "--target", db, "-q"); code != 0 {
		t.Fatalf("load: %d %s", code, stderr)
	}
	code, _, stderr := runAt(t, dir, "run", "ycsb/c", "--target", db, "-p", "fieldlength=50", "-p", "recordcount=3000", "--operations", "100", "-o", "r.json")
	if code != 0 || !strings.Contains(stderr, "holds data loaded with other options") {
		t.Fatalf("run with another recordcount: exit %d\n%s", code, stderr)
	}
	if n := countRows(t, db, "usertable"); n != 3000 {
		t.Fatalf("%d rows after the reload, want 3000", n)
	}
	// The same options again: reused, no reload.
	code, _, stderr = runAt(t, dir, "run", "ycsb/c", "--target", db, "-p", "fieldlength=50", "-p", "recordcount=3000", "--operations", "100", "-o", "r2.json")
	if code != 0 || strings.Contains(stderr, "reloading") || strings.Contains(stderr, "[load]") {
		t.Fatalf("same options should reuse the table: exit %d\n%s", code, stderr)
	}
	// load into a table of other data is refused; --load never too.
	if code, _, stderr = runAt(t, dir, "load", "ycsb", "--target", db, "-q"); code != ExitUnsupported {
		t.Errorf("load over other data: exit %d, want %d\n%s", code, ExitUnsupported, stderr)
	}
	if code, _, stderr = runAt(t, dir, "run", "ycsb/c", "--target", db, "--load", "never", "--operations", "10", "-q"); code != ExitUnsupported {
		t.Errorf("--load never over other data: exit %d, want %d\n%s", code, ExitUnsupported, stderr)
	}
}

// A secret in a target URL never reaches a message, whichever driver
// refuses the URL.
func TestBadURLMessageHidesSecrets(t *testing.T) {
	t.Parallel()
	for _, url := range []string{"null://?token=PW3SECRET", "null://?latency=x&password=PW3SECRET", "mysql://u:PW3SECRET@127.0.0.1:1/db?password=PW3SECRET"} {
		code, stdout, stderr := runAbs(t, t.TempDir(), "run", "ycsb/a", "--target", url, "--operations", "1")
		if code != ExitUsage {
			t.Errorf("%s: exit %d, want %d: %s", url, code, ExitUsage, stderr)
		}
		if strings.Contains(stdout+stderr, "PW3SECRET") {
			t.Errorf("%s: the secret reached the output: %s", url, stderr)
		}
	}
}

// parallelTests is how many parallel tests run at once when go test is not
// told otherwise (TestMain).
const parallelTests = 8

// TestMain fails the package when a test left files in the package's own
// directory: a command given a relative path while another test had
// changed directory (runCLI), or a run without -o from a test that does
// not change directory (runAbs, runAt), writes there.
//
// Unless -test.parallel (go test -parallel) is given, the parallel tests
// run parallelTests at a time rather than one per CPU: they spend their
// time waiting on timed runs (--time, --rate) and on the servers, not on
// the CPU, so one per CPU leaves a 2-core machine mostly idle.
func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		flag.Set("test.parallel", strconv.Itoa(parallelTests))
	}
	code := m.Run()
	for _, stray := range []string{"results", "candor.db", "reruns"} {
		if _, err := os.Stat(stray); err == nil {
			fmt.Fprintf(os.Stderr, "a test left %s in internal/cli: give its commands absolute paths or -o (runAt)\n", stray)
			os.RemoveAll(stray)
			code = 1
		}
	}
	os.Exit(code)
}
