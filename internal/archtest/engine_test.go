package archtest

import (
	"os/exec"
	"strings"
	"testing"
)

// The engine has no knowledge of flags or cobra (docs/ARCHITECTURE.md: the CLI
// parses a command line into a Spec; plans and rerun build Specs).
func TestEngineKnowsNoFlags(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", mod+"internal/engine").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range strings.Fields(string(out)) {
		if strings.Contains(d, "spf13/cobra") || strings.Contains(d, "spf13/pflag") {
			t.Errorf("internal/engine imports %s", d)
		}
	}
}

// Plans run through the engine without the CLI: planrun reads a cell's
// command line with runflags (pflag), never with cobra, and neither knows
// the CLI.
func TestPlansRunWithoutTheCLI(t *testing.T) {
	for _, pkg := range []string{"internal/planrun", "internal/runflags"} {
		out, err := exec.Command("go", "list", "-deps", mod+pkg).Output()
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range strings.Fields(string(out)) {
			if strings.Contains(d, "spf13/cobra") || d == mod+"internal/cli" {
				t.Errorf("%s imports %s", pkg, d)
			}
		}
	}
}
