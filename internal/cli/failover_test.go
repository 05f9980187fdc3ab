package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/ledger"
	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/result/resulttest"
	"github.com/candor-bench/candor/internal/testutil/oracle"
)

// serverIDs reads the write ids of a ledger table straight from a server,
// with the test's own connection (oracle.IDs).
func serverIDs(t *testing.T, url, table string) map[int64]int {
	t.Helper()
	return oracle.IDs(t, url, table)
}

func runPhaseOf(t *testing.T, path string) *result.Phase {
	t.Helper()
	res, err := result.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := len(res.Phases) - 1; i >= 0; i-- {
		if res.Phases[i].Name == phaseRun {
			return &res.Phases[i]
		}
	}
	t.Fatalf("%s has no run phase", path)
	return nil
}

// TestHelperCandorProcess is candor itself when run by a test as a child
// process (CANDOR_TEST_HELPER=1), with the arguments after "--".
func TestHelperCandorProcess(t *testing.T) {
	if os.Getenv("CANDOR_TEST_HELPER") != "1" {
		t.Skip("run as candor by other tests")
	}
	args := os.Args
	for i, a := range args {
		if a == "--" {
			args = args[i+1:]
			break
		}
	}
	env := &Env{Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Args: append([]string{"candor"}, args...)}
	os.Exit(Main(env, args))
}

// runChild runs candor as a child process (TestHelperCandorProcess) with
// dir as its working directory, for a command whose relative paths are the
// point of the test, while other tests run in parallel (runCLI's change of
// directory is the whole process's). It checks every result the command
// wrote under dir by the laws, as runCLI does.
func runChild(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^TestHelperCandorProcess$", "--"}, args...)...)
	// Under -race a process waits a second at its exit unless told not to.
	cmd.Env = append(os.Environ(), "CANDOR_TEST_HELPER=1", "GORACE="+os.Getenv("GORACE")+" atexit_sleep_ms=0")
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = &out, &errb
	began := time.Now().Add(-time.Second) // file times may be coarse
	if err := cmd.Run(); err != nil {
		if _, exited := err.(*exec.ExitError); !exited {
			t.Fatal(err)
		}
	}
	resulttest.CheckFilesSince(t, dir, began)
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

// candor SIGKILLed mid-run leaves no result file; candor ledger verify on
// what is left gives the accounting of every recorded write, the same as
// one made independently from the ledger files and the table.
func TestLedgerVerifyAfterCandorKilled(t *testing.T) {
	url := os.Getenv("CANDOR_TEST_POSTGRES_URL")
	if url == "" {
		t.Skip("CANDOR_TEST_POSTGRES_URL unset: no PostgreSQL on this machine (scripts/test.sh sets it)")
	}
	t.Parallel()
	work := t.TempDir()
	out := filepath.Join(work, "killed.json")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperCandorProcess$", "--", "run", "ledger", "--target", url,
		"-p", "table=candor_ledger_killed", "--threads", "3", "--time", "60s", "-q", "-o", out)
	cmd.Env = append(os.Environ(), "CANDOR_TEST_HELPER=1")
	cmd.Dir = work
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill it once it has written for a while.
	deadline := time.Now().Add(30 * time.Second)
	for {
		m, _ := filepath.Glob(filepath.Join(work, "killed.ledger", "*.cdl"))
		st, err := os.Stat(filepath.Join(work, "killed.ledger", "ledger-w00000.cdl"))
		if len(m) == 3 && err == nil && st.Size() > 64<<10 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("candor wrote no ledger within 30 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if _, err := os.Stat(out); err == nil {
		t.Fatalf("a SIGKILLed candor wrote its result file")
	}
	code, stdout, stderr := runAbs(t, work, "ledger", "verify", out)
	if code != 0 {
		t.Fatalf("verify: exit %d\n%s\n%s", code, stdout, stderr)
	}
	p := runPhaseOf(t, out)
	// The run made no accounting; verify's is its verification's alone.
	v := p.Ledger.LatestVerified()
	if p.Ledger.Accounting != nil || v == nil {
		t.Fatalf("want no accounting of the run's and a verified verification: %+v", p.Ledger)
	}
	a := v.Accounting
	// The independent accounting of the recorded writes.
	records, _, err := ledger.ReadDir(filepath.Join(work, "killed.ledger"))
	if err != nil {
		t.Fatal(err)
	}
	present := serverIDs(t, url, "candor_ledger_killed")
	final := map[int64]ledger.Outcome{}
	for _, r := range records {
		if o, ok := final[r.ID]; !ok || r.Outcome == ledger.Acknowledged || (o == ledger.Failed && r.Outcome == ledger.Unknown) {
			final[r.ID] = r.Outcome
		}
	}
	var acked, lost, unknown, unrecorded int
	for id, o := range final {
		switch {
		case o == ledger.Acknowledged:
			acked++
			if present[id] == 0 {
				lost++
			}
		case o == ledger.Unknown:
			unknown++
		}
	}
	for id := range present {
		if _, ok := final[id]; !ok {
			unrecorded++
		}
	}
	if a.Writes != len(final) || a.Acknowledged != acked || a.Lost != lost || a.Unknown != unknown || a.Unrecorded != unrecorded {
		t.Errorf("verify: %d writes, %d acknowledged, %d lost, %d unknown, %d unrecorded; independently: %d, %d, %d, %d, %d",
			a.Writes, a.Acknowledged, a.Lost, a.Unknown, a.Unrecorded, len(final), acked, lost, unknown, unrecorded)
	}
	if a.Lost != 0 || a.Writes < 100 {
		t.Errorf("accounting %+v: want writes and none lost (the server did not fail)", a)
	}
}
