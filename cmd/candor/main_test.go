package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/result"
)

// buildCandor compiles the binary once per test binary run.
func buildCandor(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "candor")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

func startRun(t *testing.T, bin, dir string) *exec.Cmd {
	cmd := exec.Command(bin, "run", "ycsb/c", "--target", "null://?latency=100us", "--time", "1m",
		"--report-interval", "200ms", "-o", "r.json", "-q")
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// A SIGKILLed run leaves every completed interval on disk.
func TestSIGKILLLeavesIntervals(t *testing.T) {
	bin := buildCandor(t)
	dir := t.TempDir()
	cmd := startRun(t, bin, dir)
	time.Sleep(1500 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if _, err := os.Stat(filepath.Join(dir, "r.json")); err == nil {
		t.Fatal("a killed run cannot have written its final result")
	}
	res, err := result.Recover(filepath.Join(dir, "r.intervals.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Phases) != 1 || len(res.Phases[0].Intervals) < 4 {
		t.Fatalf("recovered %d phases; want the run with ≥ 4 intervals of 200 ms", len(res.Phases))
	}
	if res.Status != result.StatusInterrupted || res.Workload.Name != "ycsb/c" || res.Target.Driver != "null" {
		t.Fatalf("recovered header wrong: status %s workload %s driver %s", res.Status, res.Workload.Name, res.Target.Driver)
	}
	if res.Phases[0].Intervals[1].Ops[0].Count == 0 {
		t.Fatal("recovered intervals hold no operations")
	}
}

// Ctrl-C ends the run within 2 s with a result marked interrupted.
func TestSIGINTWritesInterruptedResult(t *testing.T) {
	bin := buildCandor(t)
	dir := t.TempDir()
	cmd := startRun(t, bin, dir)
	time.Sleep(1200 * time.Millisecond)
	t0 := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	if d := time.Since(t0); d > 2*time.Second {
		t.Fatalf("run ended %v after SIGINT, want < 2 s", d)
	}
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("exit: %v, want code 130", err)
	}
	res, err := result.Read(filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != result.StatusInterrupted || res.Phases[0].Ops[0].Count == 0 {
		t.Fatalf("status %s, ops %+v", res.Status, res.Phases[0].Ops)
	}
}

// A plan killed mid-cell resumes: finished cells are not repeated and the
// interrupted cell is redone.
func TestPlanResumesAfterKill(t *testing.T) {
	bin := buildCandor(t)
	dir := t.TempDir()
	planFile := filepath.Join(dir, "p.yaml")
	os.WriteFile(planFile, []byte(`name: resume
targets: {nul: "null://?latency=1ms"}
workloads: [{name: ycsb/c}]
matrix: {threads: [1, 2, 3]}
duration: 1500ms
`), 0o644)
	cmd := exec.Command(bin, "plan", "run", planFile, "-q")
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	first := filepath.Join(dir, "results", "resume", "ycsb-c_nul_t1.json")
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(first); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the first cell never finished")
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(700 * time.Millisecond) // well into the second cell
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	st1, _ := os.Stat(first)
	second := filepath.Join(dir, "results", "resume", "ycsb-c_nul_t2.json")
	if _, err := os.Stat(second); err == nil {
		t.Fatal("the second cell finished before the kill; the test needs it cut short")
	}

	out, err := exec.Command(bin, "plan", "run", planFile, "-q").CombinedOutput()
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "cell 1/3 ycsb-c_nul_t1: done already, skipped") {
		t.Errorf("the finished cell was not skipped:\n%s", out)
	}
	st1b, _ := os.Stat(first)
	if !st1b.ModTime().Equal(st1.ModTime()) {
		t.Error("the finished cell was run again")
	}
	for _, n := range []string{"t1", "t2", "t3"} {
		r, err := result.Read(filepath.Join(dir, "results", "resume", "ycsb-c_nul_"+n+".json"))
		if err != nil || r.Status != result.StatusComplete || r.Plan == nil || r.Plan.Name != "resume" || r.Plan.Params["threads"] != n[1:] {
			t.Fatalf("cell %s: %v %+v", n, err, r)
		}
	}
}

// A closed output pipe (candor run ... 2>&1 | head -3) ends the run as
// Ctrl-C does: the result is written, marked interrupted, instead of the
// process dying of SIGPIPE with only its interval file left.
func TestClosedPipeWritesResult(t *testing.T) {
	bin := buildCandor(t)
	dir := t.TempDir()
	cmd := exec.Command(bin, "run", "ycsb/c", "--target", "null://?latency=100us", "--time", "1m",
		"--report-interval", "100ms", "-o", "r.json")
	cmd.Dir = dir
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = w, w // 2>&1
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	// head -3: read three lines, then close the pipe.
	buf := make([]byte, 1)
	for lines := 0; lines < 3; {
		if _, err := r.Read(buf); err != nil {
			t.Fatalf("candor's output ended early: %v", err)
		}
		if buf[0] == '\n' {
			lines++
		}
	}
	r.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(15 * time.Second):
		cmd.Process.Kill()
		t.Fatal("candor did not end within 15 s of its output closing")
	}
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("exit: %v, want code 130 (interrupted)", err)
	}
	res, err := result.Read(filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatalf("no readable result: %v", err)
	}
	if res.Status != result.StatusInterrupted || len(res.Phases) != 1 || res.Phases[0].Ops[0].Count == 0 {
		t.Fatalf("status %s, %d phases", res.Status, len(res.Phases))
	}
}
