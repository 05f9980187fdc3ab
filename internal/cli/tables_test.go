package cli

import (
	"context"
	"github.com/candor-bench/candor/internal/testutil/dbtest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/target"
)

// Beside candor, the tests use their own connections (internal/testutil/dbtest).
type lockedBuffer = dbtest.LockedBuffer

var (
	withConn  = dbtest.WithConn
	countRows = dbtest.CountRows
	exists    = dbtest.Exists
	execSQL   = dbtest.ExecSQL
	markOf    = dbtest.MarkOf
)

// mainAbs runs the CLI without changing directory, for commands given
// absolute paths only (--target, -o), so several may run at once.
func mainAbs(sig <-chan os.Signal, stdout, stderr *lockedBuffer, args ...string) int {
	env := &Env{Stdout: stdout, Stderr: stderr, Getenv: func(string) string { return "" }, Signals: sig, Args: append([]string{"candor"}, args...)}
	return Main(env, args)
}

// Item 10: an --out that cannot be written is refused before anything
// runs or is created.
func TestOutCheckedBeforeTheRun(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "adir"), 0o755)
	os.WriteFile(filepath.Join(dir, "afile"), nil, 0o644)
	for _, c := range []struct{ out, want string }{
		{"adir", "is a directory"},
		{"afile/r.json", "cannot create directory afile"},
	} {
		code, _, stderr := runCLI(t, dir, nil, "run", "ycsb/c", "--time", "1s", "-q", "-o", c.out)
		if code != ExitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("-o %s: exit %d\n%s", c.out, code, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "candor.db")); err == nil {
		t.Error("the refused runs opened the database")
	}
}

// Item 10: a result that cannot be written at the end still prints the
// summary, keeps the side file and exits ExitResultNotWritten.
func TestResultNotWritten(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	var stdout, stderr lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- mainAbs(nil, &stdout, &stderr, "run", "ycsb/c", "--target", "sqlite://"+filepath.Join(dir, "c.db"), "-p", "recordcount=100",
			"--rate", "1000", "--time", "1500ms", "-o", out) // an open loop: a closed one would take a core from the other tests
	}()
	side := result.IntervalsPath(out)
	for end := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(side); err == nil {
			break
		}
		if time.Now().After(end) {
			t.Fatal("no side file")
		}
	}
	// Something takes the result's path during the run: the rename fails.
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	code := <-done
	if code != ExitResultNotWritten {
		t.Fatalf("exit %d, want %d\n%s", code, ExitResultNotWritten, stderr.String())
	}
	if !strings.Contains(stdout.String(), "ycsb/c run: complete") || !strings.Contains(stderr.String(), "could not be written") {
		t.Errorf("no summary or no reason:\n%s\n%s", stdout.String(), stderr.String())
	}
	if rec, err := result.Recover(side); err != nil || len(rec.Phases) == 0 {
		t.Errorf("the side file does not hold the run: %v", err)
	}
}

// Item 15: sysbench's "Dropping table" line is printed only before a drop
// candor does, not before refusing a table it did not create.
func TestSysbenchCleanupForeignSaysNoDrop(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	url := "sqlite://" + filepath.Join(dir, "s.db")
	withConn(t, url, func(ctx context.Context, _ target.Target, c target.Conn) {
		if _, err := c.Exec(ctx, "CREATE TABLE sbtest1 (id INTEGER PRIMARY KEY)"); err != nil {
			t.Fatal(err)
		}
	})
	code, stdout, stderr := runAbs(t, dir, "cleanup", "sysbench", "--target", url, "--format", "sysbench")
	if code != ExitUnsupported {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if strings.Contains(stdout, "Dropping table 'sbtest1'") {
		t.Errorf("said it drops a table it refuses to drop:\n%s", stdout)
	}
}
