package scripts

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// tourBlock is the README's tour: the first ```sh block after its heading.
func tourBlock(t *testing.T, readme string) string {
	t.Helper()
	_, after, ok := strings.Cut(readme, "## A five-minute tour")
	if !ok {
		t.Fatal("README.md has no tour")
	}
	_, block, ok := strings.Cut(after, "```sh\n")
	if !ok {
		t.Fatal("the tour has no sh block")
	}
	block, _, _ = strings.Cut(block, "```")
	return block
}

// TestReadmeTour runs the README's tour as written, every step, in a copy
// of the repository's files (what a clean clone holds: git ls-files), with
// bash -e: a command that fails fails the test, naming it. It starts its
// own PostgreSQL (step 2) and stops it (step 9, and at the end whatever
// happened). It needs PostgreSQL installed, as make test provides
// (CANDOR_TEST_POSTGRES_URL set), and is skipped with -short.
func TestReadmeTour(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the tour takes minutes")
	}
	if os.Getenv("CANDOR_TEST_POSTGRES_URL") == "" {
		t.Skip("CANDOR_TEST_POSTGRES_URL unset: no PostgreSQL on this machine (scripts/test.sh sets it)")
	}
	t.Parallel()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	block := tourBlock(t, string(readme))

	// The clean clone: the tracked files as they are in the working tree.
	ls, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		t.Skipf("git ls-files: %v (not a git checkout)", err)
	}
	clone := t.TempDir()
	for _, f := range strings.Split(strings.TrimRight(string(ls), "\x00"), "\x00") {
		src := filepath.Join(root, f)
		st, err := os.Lstat(src)
		if err != nil || !st.Mode().IsRegular() {
			continue // deleted in the working tree, or a link
		}
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(clone, f)
		os.MkdirAll(filepath.Dir(dst), 0o755)
		if err := os.WriteFile(dst, data, st.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	// A short temporary directory: the sandbox's socket lives in it.
	tmp, err := os.MkdirTemp("", "ct")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(tmp, 0o755) // the server may run as user postgres
	t.Cleanup(func() {
		exec.Command(filepath.Join(clone, "scripts", "pg-sandbox.sh"), "stop", filepath.Join(tmp, "candor-tour-pg")).Run()
		os.RemoveAll(tmp)
	})

	// Each command is echoed before it runs (set -x), so a failure names it.
	// PS4 stamps each with the seconds since the tour began (the README's
	// times are read from the log: go test -v -run TestReadmeTour).
	script := "set -euo pipefail\nPS4='+ ${SECONDS}s '\nset -x\n" + block
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = clone
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err = cmd.Run()
	took := time.Since(start).Round(time.Second)
	if err != nil {
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		last := ""
		for _, l := range lines {
			if strings.HasPrefix(l, "+ ") {
				last = l
			}
		}
		t.Fatalf("the tour failed after %s at %q: %v\n%s", took, last, err, tail(lines, 60))
	}
	var steps []string
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(l, "+ ") && (strings.Contains(l, " candor ") || strings.Contains(l, " make ")) {
			steps = append(steps, l)
		}
	}
	t.Logf("the tour ran in %s; its commands began at:\n%s", took, strings.Join(steps, "\n"))
	for _, f := range []string{"results/a-sqlite.json", "results/a-pg.json", "results/a-pg-t2.json", "results/c-merged.json", "e3.html"} {
		if _, err := os.Stat(filepath.Join(clone, f)); err != nil {
			t.Errorf("the tour left no %s", f)
		}
	}
	text := out.String()
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`A and B differ only in the target`),                   // step 5: comparable
		regexp.MustCompile(`compared with --force although A and B differ`),       // step 5, --force: a warning,
		regexp.MustCompile(`threads +4 +2 +yes`),                                  // and the differences listed
		regexp.MustCompile(`Fairness audit: 0 error\(s\)`),                        // step 6
		regexp.MustCompile(`verdict: (reproduced|no significant|not reproduced)`), // step 6: rerun
	} {
		if !want.MatchString(text) {
			t.Errorf("the tour's output lacks %s", want)
		}
	}
}

func tail(lines []string, n int) string {
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// The tour block parses as bash (a cheap check that runs everywhere).
func TestReadmeTourParses(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("bash", "-n", "-c", tourBlock(t, string(readme))).CombinedOutput(); err != nil {
		t.Errorf("the tour is not valid bash: %v\n%s", err, out)
	}
}

// Each serializable run of the tour retries its serialization failures
// (--retries, as a user would): without it a loaded machine pushed YCSB A at
// 4 threads to 1.8% failures, over the 1% error budget, and the tour failed.
func TestReadmeTourSerializableRunsRetry(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(tourBlock(t, string(readme)), "\n") {
		if !strings.HasPrefix(line, "candor run ") || !strings.Contains(line, "--isolation serializable") {
			continue
		}
		n++
		if !regexp.MustCompile(`--retries [1-9]`).MatchString(line) {
			t.Errorf("a serializable run of the tour has no --retries: %s", line)
		}
	}
	if n == 0 {
		t.Error("the tour has no serializable run")
	}
}
