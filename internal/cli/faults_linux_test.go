package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/candor-bench/candor/internal/result"
)

// A fault command that leaves a background child: the fault is done with
// its shell's exit 0, the child is killed when the run ends and the result
// and summary say so (it was recorded cut-short, "killed", and the child
// outlived candor).
func TestFaultCommandLeavesAChild(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	code, stdout, stderr := runAbs(t, dir, "run", "ledger", "--target", "sqlite://"+filepath.Join(dir, "l.db"),
		"--time", "1s", "--fault", "at=500ms run=sleep 60 & echo $!", "-o", out)
	if code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	res, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	ev := res.Phases[len(res.Phases)-1].Faults[0]
	pid, err := strconv.Atoi(strings.TrimSpace(ev.Output))
	if err != nil {
		t.Fatalf("output %q: want the child's pid", ev.Output)
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	if ev.Status != "done" || ev.ExitStatus == nil || *ev.ExitStatus != 0 || ev.Error != "" || ev.EndS > 1.5 {
		t.Errorf("event %+v: want done at once with exit 0", ev)
	}
	if !strings.Contains(ev.Leftover, "killed them when the run ended") || !strings.Contains(stdout, ev.Leftover) {
		t.Errorf("leftover %q (summary:\n%s): want it to say the child was killed at the run's end", ev.Leftover, stdout)
	}
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
		s := string(b)
		if f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]); f[0] != "Z" {
			t.Errorf("the fault's child %d outlived the run: %s", pid, s)
		}
	}
}
