package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/target/drvconn"
	"github.com/candor-bench/candor/internal/target/targettest"
)

func openTarget(t *testing.T, u string) target.Target {
	t.Helper()
	tgt, err := target.Open(context.Background(), u, target.Options{})
	if err != nil {
		t.Fatalf("Open(%s): %v", u, err)
	}
	t.Cleanup(func() { tgt.Close() })
	return tgt
}

func tempURL(t *testing.T, params string) string {
	return "sqlite://" + filepath.Join(t.TempDir(), "candor.db") + params
}

func TestConformance(t *testing.T) {
	targettest.Run(t, openTarget(t, tempURL(t, "")))
}

func TestParseURL(t *testing.T) {
	cases := []struct {
		in   string
		want Config
	}{
		// relative path, defaults
		{"sqlite://candor.db", Config{"candor.db", "WAL", "NORMAL", 5000}},
		// relative path with a directory
		{"sqlite://data/candor.db", Config{"data/candor.db", "WAL", "NORMAL", 5000}},
		// absolute path: third slash
		{"sqlite:///tmp/x.db", Config{"/tmp/x.db", "WAL", "NORMAL", 5000}},
		// every parameter, any case, synchronous as a number
		{"SQLITE:///tmp/x.db?busy_timeout=250&synchronous=2&journal_mode=delete", Config{"/tmp/x.db", "DELETE", "FULL", 250}},
		// percent-escaped space
		{"sqlite:///tmp/my%20db.sqlite?synchronous=off", Config{"/tmp/my db.sqlite", "WAL", "OFF", 5000}},
	}
	for _, c := range cases {
		got, err := ParseURL(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseURL(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
	bad := map[string]string{
		"sqlite://":                       "no file path",
		"sqlite://:memory:":               "in-memory",
		"sqlite://x.db?journal_mode=fast": "journal_mode=fast",
		"sqlite://x.db?synchronous=7":     "synchronous=7",
		"sqlite://x.db?busy_timeout=-1":   "busy_timeout=-1",
		"sqlite://x.db?cache=shared":      `unknown parameter "cache"`,
		"postgres://x.db":                 "expected sqlite://PATH",
		"sqlite://file:x.db?mode=ro":      "plain file path",
		"sqlite://x%zz.db":                "bad escape",
	}
	for in, want := range bad {
		_, err := ParseURL(in)
		if !errors.Is(err, target.ErrBadURL) || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseURL(%q) = %v; want ErrBadURL mentioning %q", in, err, want)
		}
	}
}

func FuzzParseURL(f *testing.F) {
	f.Add("sqlite://candor.db?busy_timeout=5000&synchronous=NORMAL&journal_mode=WAL")
	f.Add("sqlite:///tmp/x.db")
	f.Fuzz(func(t *testing.T, s string) {
		cfg, err := ParseURL(s)
		if err == nil && (cfg.Path == "" || cfg.BusyTimeout < 0) {
			t.Errorf("ParseURL(%q) accepted %+v", s, cfg)
		}
	})
}

func TestDefaultsInEffect(t *testing.T) {
	tgt := openTarget(t, tempURL(t, ""))
	fp, err := tgt.Fingerprint(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// cache_size and page_size: SQLite's defaults (2000 KiB of 4096-byte
	// pages), which the audit reads as the page cache's size.
	want := map[string]string{"journal_mode": "wal", "synchronous": "NORMAL", "busy_timeout": "5000", "cache_size": "-2000", "page_size": "4096"}
	for k, v := range want {
		if fp.Settings[k] != v {
			t.Errorf("setting %s = %q, want %q", k, fp.Settings[k], v)
		}
	}
	if fp.Product != "SQLite" || !strings.HasPrefix(fp.Version, "3.") || fp.Driver != Name {
		t.Errorf("fingerprint %+v", fp)
	}
	t.Logf("fingerprint: %+v", fp)
	caps := tgt.Capabilities()
	if !caps.Embedded || caps.CopyFrom || caps.MaxBindParams != 32766 || tgt.Dialect() != dialect.SQLite {
		t.Errorf("capabilities %+v dialect %+v", caps, tgt.Dialect())
	}
}

// URL parameters reach every connection, and the fingerprint reports them.
func TestParametersInEffect(t *testing.T) {
	tgt := openTarget(t, tempURL(t, "?journal_mode=DELETE&synchronous=FULL&busy_timeout=123"))
	for i := 0; i < 2; i++ { // on a fresh connection each time
		fp, err := tgt.Fingerprint(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"journal_mode": "delete", "synchronous": "FULL", "busy_timeout": "123"}
		for k, v := range want {
			if fp.Settings[k] != v {
				t.Errorf("setting %s = %q, want %q", k, fp.Settings[k], v)
			}
		}
	}
	c := targettest.Connect(t, tgt)
	if got := targettest.Rows(t, c, "PRAGMA busy_timeout"); got[0][0] != "123" {
		t.Errorf("busy_timeout on a worker connection = %v", got)
	}
}

// sqlite://candor.db is relative to the working directory.
func TestRelativePath(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	tgt := openTarget(t, "sqlite://candor.db")
	tgt.Close()
	if _, err := os.Stat(filepath.Join(dir, "candor.db")); err != nil {
		t.Errorf("database file not created in the working directory: %v", err)
	}
}

func TestMissingDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "no", "such")
	_, err := Open(context.Background(), "sqlite://"+dir+"/candor.db", target.Options{})
	if !errors.Is(err, target.ErrBadURL) || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("Open(missing dir) = %v; want ErrBadURL naming %s", err, dir)
	}
}

// A write lock held by one connection makes another fail with SQLITE_BUSY
// when it may not wait (busy_timeout=0): retryable.
func TestBusyIsRetryable(t *testing.T) {
	tgt := openTarget(t, tempURL(t, "?busy_timeout=0"))
	ctx := context.Background()
	a, b := targettest.Connect(t, tgt), targettest.Connect(t, tgt)
	if _, err := a.Exec(ctx, "CREATE TABLE kv (k INTEGER PRIMARY KEY, v TEXT)"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Exec(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	_, err := b.Exec(ctx, "INSERT INTO kv (k, v) VALUES (?, ?)", 1, "x")
	if err == nil {
		t.Fatal("insert succeeded while another connection held the write lock")
	}
	if got := tgt.Classify(err); got != target.ClassRetryable {
		t.Errorf("Classify(%v) = %q, want retryable", err, got)
	}
	if _, err := a.Exec(ctx, "COMMIT"); err != nil {
		t.Fatal(err)
	}
	if n, err := b.Exec(ctx, "INSERT INTO kv (k, v) VALUES (?, ?)", 1, "x"); err != nil || n != 1 {
		t.Errorf("insert after the lock was released: %d, %v", n, err)
	}
}

// With the default busy_timeout, concurrent writers on separate connections
// wait for each other instead of failing.
func TestConcurrentWriters(t *testing.T) {
	tgt := openTarget(t, tempURL(t, ""))
	ctx := context.Background()
	setup := targettest.Connect(t, tgt)
	y := dialect.YCSB(tgt.Dialect(), "usertable", 1)
	if err := target.CreateOwned(ctx, setup, tgt.Dialect(), "usertable", y.CreateTable, "test"); err != nil {
		t.Fatal(err)
	}
	const workers, each = 4, 50
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		c := targettest.Connect(t, tgt)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				if _, err := c.Exec(ctx, y.Insert, fmt.Sprintf("user%d_%d", w, i), "v"); err != nil {
					errs <- err
					return
				}
				if _, err := c.Query(ctx, y.Read, []any{fmt.Sprintf("user%d_%d", w, i)}, func([][]byte) error { return nil }); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("writer: %v (class %s)", err, tgt.Classify(err))
	}
	if got := targettest.Rows(t, setup, "SELECT count(*) FROM usertable"); got[0][0] != fmt.Sprint(workers*each) {
		t.Errorf("rows = %v, want %d", got, workers*each)
	}
}

func TestClosedConnIsConnectionClass(t *testing.T) {
	tgt := openTarget(t, tempURL(t, ""))
	c, err := tgt.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	_, err = c.Exec(context.Background(), "SELECT 1")
	if got := tgt.Classify(err); got != target.ClassConnection {
		t.Errorf("Classify(%v) = %q, want connection", err, got)
	}
}

// The statement cache is emptied, not grown, past its bound; statements keep
// working.
func TestStatementCacheBound(t *testing.T) {
	tgt := openTarget(t, tempURL(t, ""))
	c := targettest.Connect(t, tgt).(*drvconn.Conn)
	for i := 0; i < maxCachedStmts+10; i++ {
		q := fmt.Sprintf("SELECT ? + %d", i)
		if got := targettest.Rows(t, c, q, 1); got[0][0] != fmt.Sprint(i+1) {
			t.Fatalf("%s = %v", q, got)
		}
	}
	if c.Cached() > maxCachedStmts {
		t.Errorf("cache holds %d statements, bound %d", c.Cached(), maxCachedStmts)
	}
}

// SQLite is always serializable: that level (or none) is accepted and
// recorded; any other is refused naming the one that works.
func TestIsolation(t *testing.T) {
	for _, level := range []string{"", "serializable"} {
		tgt, err := Open(context.Background(), tempURL(t, ""), target.Options{Isolation: level})
		if err != nil {
			t.Fatalf("Open(isolation %q): %v", level, err)
		}
		fp, err := tgt.Fingerprint(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if fp.Settings["transaction_isolation"] != "serializable" {
			t.Errorf("isolation %q: fingerprint records %q", level, fp.Settings["transaction_isolation"])
		}
		tgt.Close()
	}
	for level, want := range map[string]string{
		"read-committed":   `"serializable"`,
		"read-uncommitted": `"serializable"`,
		"repeatable-read":  `"serializable"`,
		"snapshot":         "valid levels",
	} {
		_, err := Open(context.Background(), tempURL(t, ""), target.Options{Isolation: level})
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), level) {
			t.Errorf("Open(isolation %s) = %v, want an error naming %s and %s", level, err, level, want)
		}
	}
}

// TestCloseTruncatesWAL: after a load's worth of writes, closing the target
// leaves no write-ahead log of any size beside the file, even while a
// session the process forgot to close still holds the database open.
func TestCloseTruncatesWAL(t *testing.T) {
	path := filepath.Join(t.TempDir(), "candor.db")
	tgt, err := target.Open(context.Background(), "sqlite://"+path, target.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := tgt.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	if _, err := c.Exec(ctx, "CREATE TABLE w (id INTEGER PRIMARY KEY, v TEXT)"); err != nil {
		t.Fatal(err)
	}
	pad := strings.Repeat("x", 1000)
	for i := 0; i < 20; i++ {
		if _, err := c.Exec(ctx, "BEGIN"); err != nil {
			t.Fatal(err)
		}
		for j := 0; j < 200; j++ {
			if _, err := c.Exec(ctx, "INSERT INTO w (v) VALUES (?)", pad); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := c.Exec(ctx, "COMMIT"); err != nil {
			t.Fatal(err)
		}
	}
	st, err := os.Stat(path + "-wal")
	if err != nil || st.Size() < 1<<20 {
		t.Fatalf("the test's writes should leave a WAL of over 1 MB before Close: %v %v", st, err)
	}
	if err := tgt.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if st, err := os.Stat(path + "-wal"); err == nil && st.Size() > 0 {
		t.Errorf("after Close the WAL holds %d bytes, want it truncated", st.Size())
	}
	if rows := targettest.Rows(t, c, "SELECT count(*) FROM w"); rows[0][0] != "4000" {
		t.Errorf("rows after the checkpoint: %v, want 4000", rows)
	}
}
