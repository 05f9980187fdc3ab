package sysbench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An option file's UTF-8 byte order mark is not part of the first name, and
// a binary file is refused.
func TestOptionFileInput(t *testing.T) {
	dir := t.TempDir()
	bom := filepath.Join(dir, "bom")
	os.WriteFile(bom, []byte("\xef\xbb\xbftable-size=77\n"), 0o644)
	w, err := New(OLTPReadWrite, []string{bom}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if w.Config().TableSize != 77 {
		t.Errorf("table-size %d, want 77", w.Config().TableSize)
	}
	bin := filepath.Join(dir, "bin")
	os.WriteFile(bin, []byte("\x00\x00garbage"), 0o644)
	if _, err := New(OLTPReadWrite, []string{bin}, nil); err == nil || !strings.Contains(err.Error(), "not a property file") {
		t.Errorf("binary file: %v", err)
	}
}
