package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/result"
)

// A secret given as a property, in any spelling of -p, never reaches a file
// candor writes (the result's command, the interval side file's header);
// the keys stay visible, and harmless values are kept.
func TestSecretPropertyNeverWritten(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	code, _, stderr := runAt(t, dir, "run", "ycsb/c", "--target", "null://", "--time", "300ms", "-q", "-o", "r.json",
		"-p", "db.passwd=S3CRETVAL1", "--property=jdbc.password=S3CRETVAL2", "-pmongodb.token=S3CRETVAL3",
		"--property", "s3.secretKey=S3CRETVAL4", "-p", "db.user=alice")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(stderr, "S3CRETVAL") {
		t.Errorf("stderr shows a secret:\n%s", stderr)
	}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.Contains(string(data), "S3CRETVAL") {
			t.Errorf("%s holds a secret", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := result.Read(filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := strings.Join(res.Command, " ")
	for _, want := range []string{"db.passwd=xxxxx", "--property=jdbc.password=xxxxx", "-pmongodb.token=xxxxx", "s3.secretKey=xxxxx", "db.user=alice"} {
		if !strings.Contains(cmd, want) {
			t.Errorf("command %q lacks %q", cmd, want)
		}
	}
}
