package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/workload"
)

func TestReadScripts(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "tx.sql")
	os.WriteFile(good, []byte("\\set aid random(1, 100)\nSELECT 1;\n"), 0o644)
	bin := filepath.Join(dir, "bin.sql")
	os.WriteFile(bin, []byte{'S', 0, 1, 2}, 0o644)

	got, err := readScripts([]string{good}, nil)
	if err != nil || len(got) != 1 || got[0].Name != good || !strings.Contains(got[0].Text, "random(1, 100)") {
		t.Fatalf("readScripts(good) = %+v, %v", got, err)
	}
	if got[0].SHA256 != scriptHash(got[0].Text) || len(got[0].SHA256) != 64 {
		t.Fatalf("hash %q", got[0].SHA256)
	}

	// A recorded script wins over the file of the same name (a rerun runs
	// what the result ran), and must match its hash.
	rec := workload.Script{Name: good, Text: "SELECT 2;\n"}
	rec.SHA256 = scriptHash(rec.Text)
	got, err = readScripts([]string{good}, []workload.Script{rec})
	if err != nil || got[0].Text != "SELECT 2;\n" {
		t.Fatalf("recorded script not used: %+v, %v", got, err)
	}
	rec.Text = "SELECT 3;\n"
	if _, err := readScripts([]string{good}, []workload.Script{rec}); err == nil || !strings.Contains(err.Error(), "does not match its hash") {
		t.Fatalf("edited script accepted: %v", err)
	}

	for name, want := range map[string]string{
		bin:                            "not a text file",
		filepath.Join(dir, "none.sql"): "existing script file",
		dir:                            "is a directory",
	} {
		_, err := readScripts([]string{name}, nil)
		if err == nil || !strings.Contains(err.Error(), want) || Code(err) != ExitUsage {
			t.Errorf("readScripts(%s) = %v (exit %d), want %q, exit %d", name, err, Code(err), want, ExitUsage)
		}
	}
}
