package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/target"
)

// More threads than the process may open files is refused before any
// connection, saying the limit and how to raise it.
func TestThreadsAboveFileLimit(t *testing.T) {
	old := fileLimit
	fileLimit = func() (uint64, bool) { return 1024, true }
	defer func() { fileLimit = old }()
	dir := t.TempDir()
	code, _, stderr := runCLI(t, dir, nil, "run", "ycsb/c", "--target", "sqlite://"+filepath.Join(dir, "x.db"), "--threads", "100000", "--operations", "10", "-q")
	if code != ExitUsage || !strings.Contains(stderr, "ulimit -n") || !strings.Contains(stderr, "--threads 100000") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
	// Within the limit, and the null target (no files), run.
	if code, _, stderr := runCLI(t, dir, nil, "run", "ycsb/c", "--target", "null://", "--threads", "2000", "--operations", "10", "-q", "-o", "r.json"); code != ExitOK {
		t.Errorf("null target: exit %d: %s", code, stderr)
	}
}

// A phase that could not open its sessions exits with the target's code,
// which its message ("target unreachable") names.
func TestUnreachableRunIsExit3(t *testing.T) {
	err := withCode(ExitRunFailed, fmt.Errorf("95 of 500 sessions open: %w", target.ErrUnreachable))
	if c := ExitCode(err); c != ExitUnreachable {
		t.Errorf("exit %d, want %d", c, ExitUnreachable)
	}
	if c := ExitCode(withCode(ExitRunFailed, fmt.Errorf("a batch failed"))); c != ExitRunFailed {
		t.Errorf("a failed batch: exit %d, want %d", c, ExitRunFailed)
	}
}
