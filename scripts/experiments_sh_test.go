package scripts

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fakeCandor is a stand-in for the candor binary that experiments.sh runs:
// `plan run` writes the PostgreSQL server's pid (from the sandbox's
// postmaster.pid) to $FAKE_LOG, prints "running" and, when FAKE_HANG is
// set, waits; `plan cells` and `report` succeed. The sandbox under test is
// the script's own: a real PostgreSQL.
const fakeCandor = `#!/usr/bin/env bash
case "$1 $2" in
"plan run")
	head -1 "$TMPDIR/candor-experiments-pg/data/postmaster.pid" >>"$FAKE_LOG"
	echo running
	[ -z "${FAKE_HANG:-}" ] || sleep 300
	exit "${FAKE_RC:-0}" ;;
esac
exit 0
`

// alive says whether pid runs (a zombie, which no one reaped in a
// container without an init, has ended).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// runExperiments runs scripts/experiments.sh on a tiny plan with the fake
// binary; interrupt sends SIGINT to its process group (Ctrl-C) once the
// plan runs. It returns the pids of the PostgreSQL servers the plan saw.
func runExperiments(t *testing.T, tmp, bin, log string, env []string, interrupt bool) []int {
	t.Helper()
	plan := filepath.Join(tmp, "tiny.yaml")
	os.WriteFile(plan, []byte("name: tiny\noutput: results/tiny\ntargets:\n  pg: ${PG_URL}\n"), 0o644)
	cmd := exec.Command("bash", "experiments.sh", plan)
	cmd.Env = append(append(os.Environ(), "TMPDIR="+tmp, "CANDOR="+bin, "SITE="+filepath.Join(tmp, "site"), "FAKE_LOG="+log, "PG_URL="), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if interrupt && sc.Text() == "running" {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
		}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(3 * time.Minute):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		t.Fatalf("experiments.sh did not end (a hang): %s", strings.Join(lines, "\n"))
	}
	b, _ := os.ReadFile(log)
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		n, _ := strconv.Atoi(f)
		pids = append(pids, n)
	}
	os.Remove(log)
	return pids
}

// experiments.sh stops the PostgreSQL it started when it ends — after a
// plan that succeeded, after one that failed, and on Ctrl-C — so that the
// next run starts its own and resumes (issue: it ended with exec, so its
// trap never ran and the next make experiments wrote NOT-RUN).
func TestExperimentsScriptStopsItsSandbox(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts PostgreSQL sandboxes")
	}
	if _, err := exec.LookPath("initdb"); err != nil {
		if out, _ := exec.Command("bash", "-c", "ls /usr/lib/postgresql/*/bin/initdb").Output(); len(out) == 0 {
			t.Skip("PostgreSQL is not installed")
		}
	}
	// The postgres user must reach the sandbox: t.TempDir's parent is private.
	tmp, err := os.MkdirTemp("", "candor-experiments-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	os.Chmod(tmp, 0o755)
	bin := filepath.Join(tmp, "candor")
	os.WriteFile(bin, []byte(fakeCandor), 0o755)
	log := filepath.Join(tmp, "pids")
	for i, c := range []struct {
		name      string
		env       []string
		interrupt bool
	}{
		{"done", nil, false},
		{"failed", []string{"FAKE_RC=4"}, false},
		{"interrupted", []string{"FAKE_HANG=1"}, true},
		{"done again", nil, false},
	} {
		pids := runExperiments(t, tmp, bin, log, c.env, c.interrupt)
		if len(pids) != 1 || pids[0] <= 0 {
			t.Fatalf("run %d (%s): the plan saw PostgreSQL pids %v, want one: the script could not start its sandbox", i+1, c.name, pids)
		}
		if alive(pids[0]) {
			syscall.Kill(pids[0], syscall.SIGTERM)
			t.Fatalf("run %d (%s): PostgreSQL (pid %d) is still running after experiments.sh ended", i+1, c.name, pids[0])
		}
		if _, err := os.Stat(filepath.Join(tmp, "candor-experiments-pg")); err == nil {
			t.Fatalf("run %d (%s): the sandbox's directory is left behind", i+1, c.name)
		}
	}
}

// fakeCandorVolt records the URL experiments.sh exported for VOLT1_URL and
// the pid of the sandbox's node 1 while the plan runs.
const fakeCandorVolt = `#!/usr/bin/env bash
case "$1 $2" in
"plan run")
	echo "$VOLT1_URL" >>"$FAKE_LOG"
	cat "$TMPDIR"/candor-experiments-volt1/node1/pid >>"$FAKE_LOG" 2>/dev/null ;;
esac
exit 0
`

// experiments.sh starts a VoltDB sandbox for a plan naming ${VOLT1_URL}
// (as E5 does), exports its URL, and stops it when it ends.
func TestExperimentsScriptStartsAndStopsVoltDB(t *testing.T) {
	needVoltDB(t)
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "candor")
	os.WriteFile(bin, []byte(fakeCandorVolt), 0o755)
	log := filepath.Join(tmp, "log")
	plan := filepath.Join(tmp, "volt.yaml")
	os.WriteFile(plan, []byte("name: volt\noutput: results/volt\ntargets:\n  v: ${VOLT1_URL}\n"), 0o644)
	cmd := exec.Command("bash", "experiments.sh", plan)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "CANDOR="+bin, "SITE="+filepath.Join(tmp, "site"), "FAKE_LOG="+log,
		"PG_URL=postgres://unused", "VOLT1_URL=")
	done := make(chan []byte, 1)
	go func() { out, _ := cmd.CombinedOutput(); done <- out }()
	var out []byte
	select {
	case out = <-done:
	case <-time.After(10 * time.Minute):
		cmd.Process.Kill()
		t.Fatal("experiments.sh did not end (a hang)")
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatalf("the plan did not run: %v\n%s", err, out)
	}
	f := strings.Fields(string(b))
	if len(f) < 1 || !strings.HasPrefix(f[0], "voltdb://127.0.0.1:") {
		t.Fatalf("the plan saw VOLT1_URL %q, want the sandbox's voltdb:// URL\n%s", b, out)
	}
	if len(f) == 2 {
		if pid, _ := strconv.Atoi(f[1]); pid > 0 && alive(pid) {
			t.Errorf("VoltDB node 1 (pid %d) still runs after experiments.sh ended", pid)
		}
	}
	if _, err := os.Stat(filepath.Join(tmp, "candor-experiments-volt1", "node1")); err == nil {
		if pids, _ := exec.Command("pgrep", "-f", filepath.Join(tmp, "candor-experiments-volt1")).Output(); len(pids) > 0 {
			t.Errorf("processes of the sandbox still run after experiments.sh ended: %s", pids)
		}
	}
}
