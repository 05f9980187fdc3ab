package scripts

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// tb is what the sandbox helpers need of a test: *testing.T, or a flow
// that runs beside another in one test (see flow).
type tb interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// errAbort ends a flow's goroutine after its Fatalf.
var errAbort = errors.New("flow aborted")

// flow runs checks in a goroutine of its own: Fatalf reports through the
// test's Errorf (safe from any goroutine) and ends only the flow, since
// FailNow must not be called outside the test's goroutine.
type flow struct {
	t    *testing.T
	name string
}

func (f flow) Helper() { f.t.Helper() }
func (f flow) Errorf(format string, args ...any) {
	f.t.Helper()
	f.t.Errorf(f.name+": "+format, args...)
}
func (f flow) Fatalf(format string, args ...any) {
	f.t.Helper()
	f.t.Errorf(f.name+": "+format, args...)
	panic(errAbort)
}

// voltSandbox runs voltdb-sandbox.sh with args and returns its stdout and
// stderr; a non-nil error carries the exit status.
func voltSandbox(t tb, stdin string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	cmd := exec.Command("bash", append([]string{"./voltdb-sandbox.sh"}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	return o.String(), e.String(), err
}

// exitCode returns err's exit status, 0 for nil, -1 for other errors.
func exitCode(err error) int {
	var ee *exec.ExitError
	if err == nil {
		return 0
	}
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

// The options a start refuses before anything is installed or started:
// each with one message naming the problem, exit status 1.
func TestVoltDBSandboxRefusesBadOptions(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	full := t.TempDir()
	os.WriteFile(filepath.Join(full, "something"), nil, 0o644)
	dir := filepath.Join(t.TempDir(), "sb")
	for _, c := range []struct {
		args []string
		want string
	}{
		// The Community Edition's initialize refuses a command log: say so
		// before starting anything.
		{[]string{"start", dir, "--commandlog", "sync"}, "Community Edition has no command log"},
		{[]string{"start", dir, "--commandlog=async"}, "Community Edition has no command log"},
		{[]string{"start", dir, "--commandlog", "fast"}, "want off"},
		// k extra copies need more than k nodes.
		{[]string{"start", dir, "--nodes", "2", "--kfactor", "2"}, "--kfactor 2: want a whole number from 0 to 1"},
		{[]string{"start", dir, "--nodes", "0"}, "--nodes 0: want a whole number from 1 to 9"},
		{[]string{"start", dir, "--sites", "x"}, "--sites x"},
		{[]string{"start", dir, "--memory-limit", "1.5"}, "--memory-limit 1.5"},
		{[]string{"start", dir, "--snapshot", "-1"}, "--snapshot -1"},
		{[]string{"start", dir, "--nodes"}, "--nodes needs a value"},
		{[]string{"start", dir, "--tls"}, "unknown option --tls"},
		// A directory with something in it is not a place for a sandbox,
		// and stop never removes a directory it did not make.
		{[]string{"start", full}, "exists and is not empty"},
		{[]string{"stop", full}, "refusing to remove it"},
		{[]string{"kill", full, "1"}, "no sandbox in"},
	} {
		_, stderr, err := voltSandbox(t, "", c.args...)
		if code := exitCode(err); code != 1 {
			t.Errorf("%v: exit %d, want 1\n%s", c.args, code, stderr)
		}
		if !strings.Contains(stderr, c.want) {
			t.Errorf("%v: stderr lacks %q:\n%s", c.args, c.want, stderr)
		}
		if strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: want one line of message:\n%s", c.args, stderr)
		}
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("a refused start left %s behind", dir)
	}
	if _, err := os.Stat(filepath.Join(full, "something")); err != nil {
		t.Errorf("stop removed a directory it did not create: %v", err)
	}
}

// needVoltDB skips a test that starts real VoltDB nodes under -short or
// without Java; otherwise the sandbox must work (it installs the rest).
func needVoltDB(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts VoltDB nodes (-short)")
	}
	for _, tool := range []string{"bash", "java", "setsid"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s", tool)
		}
	}
}

// sqlcmd runs SQL through the sandbox's sqlcmd (VoltDB's own client, not
// candor's) against node and returns its output; it fails the test when a
// statement failed.
func sqlcmd(t tb, dir string, node int, sql string) string {
	t.Helper()
	out, stderr, err := voltSandbox(t, sql, "sqlcmd", dir, strconv.Itoa(node))
	if err != nil {
		t.Fatalf("sqlcmd on node %d: %v\n%s\n%s\nSQL: %s", node, err, out, stderr, sql)
	}
	return out
}

// countRows returns SELECT COUNT(*) FROM table as sqlcmd prints it (a
// header, a rule, the number).
func countRows(t tb, dir string, node int, table string) int {
	t.Helper()
	out := sqlcmd(t, dir, node, "SELECT COUNT(*) FROM "+table+";\n")
	m := regexp.MustCompile(`(?m)^-+\s*\n\s*(\d+)\s*$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no count in sqlcmd's output:\n%s", out)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// pidOf reads node's pid file.
func pidOf(t tb, dir string, node int) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "node"+strconv.Itoa(node), "pid"))
	if err != nil {
		t.Fatalf("node %d's pid: %v", node, err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("node %d's pid file: %v", node, err)
	}
	return pid
}

// running tells whether any thread of process pid is alive (a JVM whose
// main thread ended shows Z for the process while its other threads run;
// a reaped or zombie process has none).
func running(pid int) bool {
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/stat")
	for _, f := range tasks {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		s := string(b)
		if i := strings.LastIndex(s, ") "); i >= 0 && !strings.HasPrefix(s[i+2:], "Z") {
			return true
		}
	}
	return false
}

// gone waits for pid to end, bounded at a minute (a hang, not speed).
func gone(pid int) bool {
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if !running(pid) {
			return true
		}
	}
	return false
}

// nativeLibs lists the native engines node's JVM maps, from its
// /proc/PID/maps.
func nativeLibs(t tb, pid int) []string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/maps")
	if err != nil {
		t.Fatalf("maps of %d: %v", pid, err)
	}
	seen := map[string]bool{}
	var libs []string
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) >= 6 && strings.Contains(f[5], "libvoltdb-") && !seen[f[5]] {
			seen[f[5]] = true
			libs = append(libs, f[5])
		}
	}
	return libs
}

// TestVoltDBSandbox runs the one-node and the three-node flows at once, in
// one test: they mostly wait on the JVMs, and one test holds one of go
// test's -parallel slots (2 on 2 cores) beside the other long tests of this
// package, where two would hold both.
func TestVoltDBSandbox(t *testing.T) {
	needVoltDB(t)
	t.Parallel()
	flows := []struct {
		name string
		run  func(t tb, dir string)
	}{
		{"one node", oneNodeFlow},
		{"three nodes k=1", threeNodesFlow},
	}
	done := make(chan struct{})
	for _, fl := range flows {
		dir := filepath.Join(t.TempDir(), "volt")
		t.Cleanup(func() { voltSandbox(t, "", "stop", dir) })
		go func() {
			defer func() {
				if r := recover(); r != nil && r != errAbort {
					t.Errorf("%s: panic: %v", fl.name, r)
				}
				done <- struct{}{}
			}()
			fl.run(flow{t, fl.name}, dir)
		}()
	}
	for range flows {
		<-done
	}
}

// oneNodeFlow starts one node, writes and reads through VoltDB's own
// sqlcmd, kills it (its native engine must not stay behind), starts it
// again (restart without NODE) and stops it: no process and no file of it
// are left.
func oneNodeFlow(t tb, dir string) {
	stdout, stderr, err := voltSandbox(t, "", "start", dir)
	if err != nil {
		t.Fatalf("start: %v\n%s", err, stderr)
	}
	if !regexp.MustCompile(`^voltdb://127\.0\.0\.1:\d+\n$`).MatchString(stdout) {
		t.Fatalf("start's stdout %q: want the URL alone", stdout)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "url")); string(b) != stdout {
		t.Errorf("DIR/url %q, stdout %q", b, stdout)
	}
	pid := pidOf(t, dir, 1)
	port := strings.TrimPrefix(strings.TrimSpace(stdout), "voltdb://127.0.0.1:")

	out := sqlcmd(t, dir, 1, "CREATE TABLE SBX (K VARCHAR(50 BYTES) NOT NULL, V VARBINARY(100), PRIMARY KEY (K));\n"+
		"PARTITION TABLE SBX ON COLUMN K;\n"+
		"INSERT INTO SBX VALUES ('a', x'01');\nINSERT INTO SBX VALUES ('b', x'02');\nINSERT INTO SBX VALUES ('c', x'03');\n"+
		"exec @SystemInformation DEPLOYMENT;\n")
	for _, want := range []string{"hostcount           1", "kfactor             0", "sitesperhost        2", "commandlogenabled   false"} {
		if !strings.Contains(out, want) {
			t.Errorf("@SystemInformation DEPLOYMENT lacks %q:\n%s", want, out)
		}
	}
	if n := countRows(t, dir, 1, "SBX"); n != 3 {
		t.Errorf("COUNT(*) = %d after 3 inserts", n)
	}
	st, _, err := voltSandbox(t, "", "status", dir)
	if err != nil || !strings.Contains(st, "node 1 running pid "+strconv.Itoa(pid)+" port "+port) {
		t.Errorf("status: %v\n%s", err, st)
	}

	// The native engine lives in the node's own tmp directory, not /tmp.
	libs := nativeLibs(t, pid)
	tmp := filepath.Join(dir, "node1", "tmp") + "/"
	if len(libs) == 0 {
		t.Errorf("node 1 maps no libvoltdb")
	}
	for _, l := range libs {
		if !strings.HasPrefix(l, tmp) {
			t.Errorf("node 1 maps %s, outside %s", l, tmp)
		}
	}
	if _, stderr, err := voltSandbox(t, "", "kill", dir, "1"); err != nil {
		t.Fatalf("kill: %v\n%s", err, stderr)
	}
	if !gone(pid) {
		t.Fatalf("node 1 (pid %d) still runs after kill", pid)
	}
	for _, l := range libs {
		if _, err := os.Stat(l); !os.IsNotExist(err) {
			t.Errorf("a killed node's %s is still there (%v)", l, err)
		}
	}
	if st, _, err := voltSandbox(t, "", "status", dir); exitCode(err) != 3 || !strings.Contains(st, "node 1 down") {
		t.Errorf("status after kill: exit %d, want 3\n%s", exitCode(err), st)
	}

	// restart without NODE starts every node that is down.
	if _, stderr, err := voltSandbox(t, "", "restart", dir); err != nil {
		t.Fatalf("restart: %v\n%s", err, stderr)
	}
	if _, stderr, err := voltSandbox(t, "", "restart", dir); exitCode(err) != 1 || !strings.Contains(stderr, "nothing to restart") {
		t.Errorf("restart with every node up: exit %d\n%s", exitCode(err), stderr)
	}
	pid2 := pidOf(t, dir, 1)
	if pid2 == pid {
		t.Errorf("restart kept pid %d", pid)
	}
	// Without a command log (none in the Community Edition) or a snapshot,
	// a k=0 node that crashed comes back empty: the table made after its
	// initialize is gone, and the server answers that itself.
	out, _, err = voltSandbox(t, "SELECT COUNT(*) FROM SBX;\n", "sqlcmd", dir, "1")
	if exitCode(err) != 255 || !strings.Contains(out+"", "SELECT COUNT") {
		t.Errorf("sqlcmd after restart: exit %d (want 255, object not found)\n%s", exitCode(err), out)
	}
	sqlcmd(t, dir, 1, "exec @SystemInformation OVERVIEW;\n")
	libs = nativeLibs(t, pid2)

	if _, stderr, err := voltSandbox(t, "", "stop", dir); err != nil {
		t.Fatalf("stop: %v\n%s", err, stderr)
	}
	if !gone(pid2) {
		t.Errorf("node 1 (pid %d) still runs after stop", pid2)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("stop left %s (%v)", dir, err)
	}
	for _, l := range libs {
		if _, err := os.Stat(l); !os.IsNotExist(err) {
			t.Errorf("stop left %s", l)
		}
	}
}

// threeNodesFlow starts 3 nodes with k=1, kills one: the
// others go on answering and writing; the killed node rejoins with restart
// and then serves every row, as VoltDB's own sqlcmd reads them through it.
func threeNodesFlow(t tb, dir string) {
	stdout, stderr, err := voltSandbox(t, "", "start", dir, "--nodes", "3", "--kfactor", "1", "--memory-limit", "2")
	if err != nil {
		t.Fatalf("start: %v\n%s", err, stderr)
	}
	if !regexp.MustCompile(`^voltdb://127\.0\.0\.1:\d+,127\.0\.0\.1:\d+,127\.0\.0\.1:\d+\n$`).MatchString(stdout) {
		t.Fatalf("start's stdout %q: want a 3-node URL alone", stdout)
	}
	var sql strings.Builder
	sql.WriteString("CREATE TABLE SBX (K INTEGER NOT NULL, PRIMARY KEY (K));\nPARTITION TABLE SBX ON COLUMN K;\n")
	for k := 0; k < 30; k++ {
		sql.WriteString("INSERT INTO SBX VALUES (" + strconv.Itoa(k) + ");\n")
	}
	sql.WriteString("exec @SystemInformation DEPLOYMENT;\n")
	out := sqlcmd(t, dir, 1, sql.String())
	for _, want := range []string{"hostcount           3", "kfactor             1"} {
		if !strings.Contains(out, want) {
			t.Errorf("@SystemInformation DEPLOYMENT lacks %q", want)
		}
	}
	pid2 := pidOf(t, dir, 2)
	if _, stderr, err := voltSandbox(t, "", "kill", dir, "2"); err != nil {
		t.Fatalf("kill 2: %v\n%s", err, stderr)
	}
	if !gone(pid2) {
		t.Fatalf("node 2 still runs after kill")
	}
	// Every partition has a copy on node 1 or 3: all rows answer, and
	// writes to every partition go on.
	if n := countRows(t, dir, 1, "SBX"); n != 30 {
		t.Errorf("with node 2 down, COUNT(*) = %d, want 30", n)
	}
	sql.Reset()
	for k := 30; k < 40; k++ {
		sql.WriteString("INSERT INTO SBX VALUES (" + strconv.Itoa(k) + ");\n")
	}
	sqlcmd(t, dir, 3, sql.String())
	if _, stderr, err := voltSandbox(t, "", "restart", dir, "2"); err != nil {
		t.Fatalf("restart 2: %v\n%s", err, stderr)
	}
	log, _ := os.ReadFile(filepath.Join(dir, "node2", "volt.log"))
	if !strings.Contains(string(log), "Node rejoin completed") {
		t.Errorf("node 2's log does not say it rejoined")
	}
	if n := countRows(t, dir, 2, "SBX"); n != 40 {
		t.Errorf("through the rejoined node 2, COUNT(*) = %d, want 40", n)
	}
	if st, _, err := voltSandbox(t, "", "status", dir); err != nil {
		t.Errorf("status after rejoin: %v\n%s", err, st)
	}
	pids := []int{pidOf(t, dir, 1), pidOf(t, dir, 2), pidOf(t, dir, 3)}
	if _, stderr, err := voltSandbox(t, "", "stop", dir); err != nil {
		t.Fatalf("stop: %v\n%s", err, stderr)
	}
	for i, pid := range pids {
		if !gone(pid) {
			t.Errorf("node %d (pid %d) still runs after stop", i+1, pid)
		}
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("stop left %s", dir)
	}
}
