package archtest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// executableMagic holds the first bytes of the executable formats a Go build
// writes: ELF, Mach-O (32- and 64-bit, both byte orders) and PE.
var executableMagic = [][]byte{
	{0x7f, 'E', 'L', 'F'},
	{0xfe, 0xed, 0xfa, 0xce}, {0xce, 0xfa, 0xed, 0xfe},
	{0xfe, 0xed, 0xfa, 0xcf}, {0xcf, 0xfa, 0xed, 0xfe},
	{'M', 'Z'},
}

// TestNoBuiltBinaryTracked fails when git tracks an executable: the
// repository holds sources, and a stale build at the root (./candor) is run
// by whoever types its name. Outside a git checkout (a source archive) there
// is nothing to check.
func TestNoBuiltBinaryTracked(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		t.Skipf("not a git checkout (git ls-files: %v)", err)
	}
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if name == "" {
			continue
		}
		f, err := os.Open(filepath.Join(root, name))
		if err != nil {
			continue // deleted in the work tree, not yet committed
		}
		head := make([]byte, 4)
		n, _ := f.Read(head)
		f.Close()
		for _, m := range executableMagic {
			if n >= len(m) && bytes.Equal(head[:len(m)], m) {
				t.Errorf("%s is a built executable tracked by git: remove it (git rm --cached %s) and ignore it in .gitignore", name, name)
				break
			}
		}
	}
}
