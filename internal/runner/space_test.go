package runner

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/target/fake"
	"github.com/candor-bench/candor/internal/target/sqlite"
)

var _ LocalStorage = (*sqlite.Target)(nil)

// localTarget is the fake target with its data in dir, and reusable bytes
// in its files.
type localTarget struct {
	*fake.Target
	dir      string
	reusable int64
}

func (t localTarget) LocalSpace(context.Context) (string, int64, error) {
	return t.dir, t.reusable, nil
}

// rowsOf declares rows of the given size.
type rowsOf struct {
	opWorkload
	bytes int64
}

func (w *rowsOf) ApproxRowBytes() int64 { return w.bytes }

// A load the disk cannot hold is refused before it starts; a large one
// says how much it will write, and its progress line the size so far
// (issue 26, item 17).
func TestLoadSizeAgainstTheDisk(t *testing.T) {
	dir := t.TempDir()
	free, err := freeDiskBytes(dir)
	if err != nil {
		t.Skipf("free disk space unknown here: %v", err)
	}
	// 1,005 rows, each larger than the disk's free space / 1,000.
	ft := fake.New(fake.Config{})
	r := newRunner(ft, Config{Threads: 2})
	r.Target = localTarget{Target: ft, dir: dir}
	r.Workload = &rowsOf{bytes: free/1000 + 1}
	if _, err := r.Load(context.Background()); !errors.Is(err, ErrDiskSpace) || !strings.Contains(err.Error(), dir) {
		t.Fatalf("load larger than the disk: %v, want ErrDiskSpace naming %s", err, dir)
	}
	if ft.Statements() != 0 {
		t.Errorf("%d statements ran before the refusal", ft.Statements())
	}
	// The same with the room inside the database's files: it fits, and
	// as it is over 1 GiB its size is told.
	var status bytes.Buffer
	r.Target = localTarget{Target: ft, dir: dir, reusable: 1 << 50}
	r.Workload = &rowsOf{bytes: 2 << 20}
	r.Status = &status
	r.Config.ReportInterval = time.Hour // only the final progress line
	p, err := r.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(status.String(), "about 2.0 GiB to write (1,005 rows of about 2.0 MiB") ||
		!strings.Contains(status.String(), "~2.0 GiB of ~2.0 GiB") || p.LoadBytes != 1005<<21 {
		t.Errorf("load bytes %d, status:\n%s", p.LoadBytes, status.String())
	}
}

// SQLite's reusable bytes are its free pages.
func TestSQLiteLocalSpace(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	tgt, err := sqlite.Open(ctx, "sqlite://"+filepath.Join(dir, "s.db"), target.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tgt.Close()
	c, err := tgt.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, q := range []string{"CREATE TABLE t(v TEXT)", "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 1000) INSERT INTO t SELECT printf('%.1000c', 'x') FROM n", "DROP TABLE t"} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	d, reusable, err := tgt.(LocalStorage).LocalSpace(ctx)
	if err != nil || d != dir || reusable < 1_000_000 {
		t.Errorf("LocalSpace = %s, %d, %v; want %s and the dropped table's megabyte", d, reusable, err, dir)
	}
}
