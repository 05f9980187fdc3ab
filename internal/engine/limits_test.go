package engine

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/runner"

	_ "github.com/candor-bench/candor/internal/target/fake"
	_ "github.com/candor-bench/candor/internal/target/sqlite"
	_ "github.com/candor-bench/candor/internal/workload/ycsb"
)

// silent is a Display that prints nothing.
type silent struct{}

func (silent) Start(*runner.Runner, Started) {}
func (silent) Summary(Finished) error        { return nil }

// runSpec runs spec with no output.
func runSpec(t *testing.T, spec Spec) error {
	t.Helper()
	_, err := Run(context.Background(), &Env{Stdout: io.Discard, Stderr: io.Discard, Display: silent{}}, spec)
	return err
}

// More threads than the process may open files is refused before any
// connection, saying the limit and how to raise it.
func TestThreadsAboveFileLimit(t *testing.T) {
	old := fileLimit
	fileLimit = func() (uint64, bool) { return 1024, true }
	defer func() { fileLimit = old }()
	dir := t.TempDir()
	spec := NewSpec(PhaseRun, "ycsb/c")
	threads, ops := 100000, int64(10)
	spec.Targets, spec.Threads, spec.Operations, spec.Quiet = []string{"sqlite://" + filepath.Join(dir, "x.db")}, &threads, &ops, true
	spec.Out = filepath.Join(dir, "r.json")
	err := runSpec(t, spec)
	if Code(err) != ExitUsage || !strings.Contains(err.Error(), "ulimit -n") || !strings.Contains(err.Error(), "--threads 100000") {
		t.Errorf("exit %d: %v", Code(err), err)
	}
	// Within the limit, and the null target (no files), run.
	threads = 2000
	spec.Targets = []string{"null://"}
	if err := runSpec(t, spec); err != nil {
		t.Errorf("null target: exit %d: %v", Code(err), err)
	}
}
