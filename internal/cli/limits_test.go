package cli

import (
	"fmt"
	"testing"

	"github.com/candor-bench/candor/internal/target"
)

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
