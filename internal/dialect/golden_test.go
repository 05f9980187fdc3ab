package dialect

import (
	"os"
	"testing"
)

// golden compares got with the golden file at path, or writes it with
// -update.
func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run `go test ./internal/dialect -update` to create it)", err)
	}
	if got != string(want) {
		t.Errorf("SQL differs from %s (run with -update if the change is intended)\n--- got\n%s--- want\n%s", path, got, want)
	}
}
