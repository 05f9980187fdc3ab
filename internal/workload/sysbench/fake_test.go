package sysbench

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

// call is one statement a fakeConn received.
type call struct {
	query bool // Query (rows) rather than Exec
	sql   string
	args  []any
}

// fakeConn records every statement and answers with chosen outcomes: Query
// returns one row; Exec affects affected(sql) rows (1 unless told
// otherwise; controlRows for BEGIN, COMMIT, ROLLBACK, 0 for DDL); statement
// number failAt (1-based, counting every call) fails with failErr.
type fakeConn struct {
	calls       []call
	affected    func(sql string, args []any) int64
	controlRows int64
	failAt      int
	failErr     error
	n           int
}

// copyConn adds target.Copier to a fakeConn.
type copyConn struct {
	*fakeConn
	copies []copyCall
}

type copyCall struct {
	table   string
	columns []string
	rows    [][]any
}

var (
	_ target.Conn   = (*fakeConn)(nil)
	_ target.Copier = (*copyConn)(nil)
)

func (c *fakeConn) fail() error {
	c.n++
	if c.failAt > 0 && c.n == c.failAt {
		return c.failErr
	}
	return nil
}

func (c *fakeConn) Exec(ctx context.Context, sql string, args ...any) (int64, error) {
	c.calls = append(c.calls, call{false, sql, append([]any(nil), args...)})
	if err := c.fail(); err != nil {
		return 0, err
	}
	switch {
	case sql == "BEGIN" || sql == "COMMIT" || sql == "ROLLBACK":
		return c.controlRows, nil
	case strings.HasPrefix(sql, "CREATE"), strings.HasPrefix(sql, "ALTER"):
		return 0, nil
	case strings.HasPrefix(sql, "INSERT INTO sbtest") && strings.Contains(sql, "VALUES(") && len(args) > 0:
		// a load INSERT: one row per group of parameters
		return int64(strings.Count(sql, "(") - 1), nil
	}
	if c.affected != nil {
		return c.affected(sql, args), nil
	}
	return 1, nil
}

func (c *fakeConn) Query(ctx context.Context, sql string, args []any, fn func(cols [][]byte) error) (int, error) {
	c.calls = append(c.calls, call{true, sql, append([]any(nil), args...)})
	if err := c.fail(); err != nil {
		return 0, err
	}
	return 1, fn([][]byte{[]byte("x")})
}

func (c *fakeConn) Close() error { return nil }

func (c *copyConn) CopyFrom(ctx context.Context, table string, columns []string, rows [][]any) (int64, error) {
	cp := copyCall{table: table, columns: append([]string(nil), columns...)}
	for _, r := range rows {
		cp.rows = append(cp.rows, append([]any(nil), r...))
	}
	c.copies = append(c.copies, cp)
	return int64(len(rows)), nil
}

// counts is a Span that is also a workload.Counter, as the runner's is.
type counts [3]int64

func (c *counts) Span(workload.OpID, time.Time, time.Time, error) {}
func (c *counts) Add(counter int, n int64)                        { c[counter] += n }

// rwo formats counts as sysbench's r/w/o.
func (c counts) String() string { return fmt.Sprintf("%d/%d/%d", c[0], c[1], c[2]) }

// pgEnv is a PostgreSQL target with COPY; sqliteEnv an embedded SQLite one.
var (
	pgEnv = workload.Env{Dialect: dialect.Postgres, Capabilities: target.Capabilities{
		Transactions: true, CopyFrom: true, MultiRowInsert: true, MaxBindParams: 65535}}
	sqliteEnv = workload.Env{Dialect: dialect.SQLite, Capabilities: target.Capabilities{
		Transactions: true, MultiRowInsert: true, MaxBindParams: 32766, Embedded: true}}
)

// bound builds test with props and binds it to env, failing the test on error.
func bound(t testing.TB, env workload.Env, test string, props ...string) *Workload {
	t.Helper()
	w, err := New(test, nil, props)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Bind(env); err != nil {
		t.Fatal(err)
	}
	return w
}

func newRand(seed int64) *rand.Rand { return rand.New(rand.NewSource(seed)) }

var ctx = context.Background()
