package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
