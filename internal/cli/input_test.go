package cli

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// A misspelled property runs (as YCSB ignores unknown keys) with one line on
// stderr naming it and the key it is a typo of; a binary -P file is refused.
func TestPropertyInputWarnings(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := runCLI(t, dir, nil, "run", "ycsb/c", "--target", "null://", "--operations", "10", "-q", "-o", "r.json", "-p", "recordcont=5000")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var lines []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.Contains(l, "recordcont") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 1 || !strings.Contains(lines[0], "did you mean recordcount?") {
		t.Errorf("stderr:\n%s\nwant one line naming recordcont with its close match", stderr)
	}

	garbage := filepath.Join(dir, "garbage")
	os.WriteFile(garbage, []byte("\x00\x01\x02binary\xff\xfe"), 0o644)
	code, _, stderr = runCLI(t, dir, nil, "run", "ycsb/c", "--target", "null://", "--operations", "10", "-q", "-P", garbage)
	if code != ExitUsage || !strings.Contains(stderr, "not a property file") {
		t.Errorf("garbage -P: exit %d, stderr:\n%s", code, stderr)
	}
}

// commandPaths lists every command of the tree under c, c included, as the
// words that select it.
func commandPaths(c *cobra.Command, prefix []string) [][]string {
	out := [][]string{prefix}
	for _, sub := range c.Commands() {
		out = append(out, commandPaths(sub, append(append([]string(nil), prefix...), sub.Name()))...)
	}
	return out
}

// Every bad use of every command — an unknown subcommand, an unknown flag,
// missing or extra arguments — exits with ExitUsage and one line saying what
// is wrong, never ExitInternal (which says "a bug in candor").
func TestBadUsageEverywhere(t *testing.T) {
	dir := t.TempDir()
	paths := commandPaths(NewRoot(&Env{Stdout: io.Discard, Stderr: io.Discard, Getenv: os.Getenv}), nil)
	if len(paths) < 15 {
		t.Fatalf("only %d commands found", len(paths))
	}
	oneLine := func(t *testing.T, args []string, stderr string) {
		t.Helper()
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		if len(lines) != 1 || !strings.HasPrefix(lines[0], "candor: ") {
			t.Errorf("candor %s: want one line of error, got:\n%s", strings.Join(args, " "), stderr)
		}
	}
	for _, p := range paths {
		name := strings.Join(append([]string{"candor"}, p...), " ")
		t.Run(name, func(t *testing.T) {
			cases := [][]string{
				append(append([]string(nil), p...), "--no-such-flag"),
				append(append([]string(nil), p...), "x1", "x2", "x3", "x4", "x5", "x6", "x7"),
			}
			if len(p) == 0 {
				cases = append(cases, []string{"frobnicate"})
			}
			for _, args := range cases {
				code, _, stderr := runCLI(t, dir, nil, args...)
				if code != ExitUsage {
					t.Errorf("candor %s: exit %d, want %d; stderr:\n%s", strings.Join(args, " "), code, ExitUsage, stderr)
					continue
				}
				oneLine(t, args, stderr)
			}
			// Without arguments a command either does its job (list,
			// version) or says what it needs.
			if len(p) > 0 {
				code, _, stderr := runCLI(t, dir, nil, p...)
				switch code {
				case ExitOK:
				case ExitUsage:
					oneLine(t, p, stderr)
				default:
					t.Errorf("%s: exit %d; stderr:\n%s", name, code, stderr)
				}
			}
		})
	}
}
