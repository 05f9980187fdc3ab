// Package dbtest holds what the CLI's and the engine's integration tests
// both do to a target beside candor: connect once, count rows, run a
// statement, look a table and its mark up; and an output buffer read while
// a run still writes it.
package dbtest

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/candor-bench/candor/internal/tables"
	"github.com/candor-bench/candor/internal/target"
)

// LockedBuffer is an output read while a command still writes it.
type LockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *LockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *LockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// WithConn opens url, connects once and calls fn.
func WithConn(t testing.TB, url string, fn func(ctx context.Context, tgt target.Target, c target.Conn)) {
	t.Helper()
	ctx := context.Background()
	tgt, err := target.Open(ctx, url, target.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tgt.Close()
	c, err := tgt.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fn(ctx, tgt, c)
}

// CountRows is the number of rows of table on url.
func CountRows(t testing.TB, url, table string) int64 {
	t.Helper()
	var n int64
	WithConn(t, url, func(ctx context.Context, _ target.Target, c target.Conn) {
		// CHAR(20): MySQL has no CAST ... AS TEXT; trimmed for the padding.
		if _, err := c.Query(ctx, "SELECT CAST(COUNT(*) AS CHAR(20)) FROM "+table, nil, func(cols [][]byte) error {
			var err error
			n, err = strconv.ParseInt(strings.TrimSpace(string(cols[0])), 10, 64)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	})
	return n
}

// Exists says whether table exists on url.
func Exists(t testing.TB, url, table string) bool {
	t.Helper()
	var ok bool
	WithConn(t, url, func(ctx context.Context, tgt target.Target, c target.Conn) {
		var err error
		if ok, _, err = target.TableState(ctx, c, tgt.Dialect(), table); err != nil {
			t.Fatal(err)
		}
	})
	return ok
}

// ExecSQL runs sql on url, failing the test on an error.
func ExecSQL(t testing.TB, url, sql string) {
	t.Helper()
	WithConn(t, url, func(ctx context.Context, _ target.Target, c target.Conn) {
		if _, err := c.Exec(ctx, sql); err != nil {
			t.Fatal(fmt.Errorf("%s: %w", sql, err))
		}
	})
}

// MarkOf is the mark candor left on table on url.
func MarkOf(t testing.TB, url, table string) tables.Mark {
	t.Helper()
	var m tables.Mark
	WithConn(t, url, func(ctx context.Context, tgt target.Target, c target.Conn) {
		raw, ok, err := target.TableOwner(ctx, c, tgt.Dialect(), table)
		if err != nil || !ok {
			t.Fatalf("mark of %s: %v %v", table, ok, err)
		}
		m = tables.Parse(raw)
	})
	return m
}
