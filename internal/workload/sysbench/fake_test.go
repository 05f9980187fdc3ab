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
	query    bool // Query (rows) rather than Exec
	sql      string
	args     []any
	prepared bool // ExecPrepared (target.Preparer) rather than Exec
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

// prepConn adds target.Preparer to a fakeConn: an ExecPrepared is
// recorded and answered as an Exec.
type prepConn struct{ *fakeConn }

func (c prepConn) ExecPrepared(ctx context.Context, sql string) (int64, error) {
	n, err := c.Exec(ctx, sql)
	c.calls[len(c.calls)-1].prepared = true
	return n, err
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
	_ target.Conn        = (*fakeConn)(nil)
	_ target.Copier      = (*copyConn)(nil)
	_ target.Preparer    = prepConn{}
	_ target.TableLoader = (*tableLoadConn)(nil)
)

func (c *fakeConn) fail() error {
	c.n++
	if c.failAt > 0 && c.n == c.failAt {
		return c.failErr
	}
	return nil
}

func (c *fakeConn) Exec(ctx context.Context, sql string, args ...any) (int64, error) {
	c.calls = append(c.calls, call{sql: sql, args: append([]any(nil), args...)})
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
	c.calls = append(c.calls, call{query: true, sql: sql, args: append([]any(nil), args...)})
	if err := c.fail(); err != nil {
		return 0, err
	}
	if fn == nil {
		return 1, nil
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

// tableLoadConn adds target.TableLoader to a fakeConn: each LoadTable is
// recorded as a copyCall.
type tableLoadConn struct {
	*fakeConn
	copies   []copyCall
	progress []int64 // the last progress report of each LoadTable
}

func (c *tableLoadConn) LoadTable(ctx context.Context, table string, columns []string, n int64,
	row func(i int64, dst []any) []any, progress func(int64)) (int64, error) {
	cp := copyCall{table: table, columns: append([]string(nil), columns...)}
	var dst []any
	for i := int64(0); i < n; i++ {
		dst = row(i, dst)
		cp.rows = append(cp.rows, append([]any(nil), dst...))
		if progress != nil && i%2 == 1 {
			progress(i + 1)
		}
	}
	c.copies = append(c.copies, cp)
	if progress != nil {
		progress(n)
	}
	c.progress = append(c.progress, n)
	return n, nil
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
	// mariadbEnv loads a whole table in one go (target.TableLoader).
	mariadbEnv = workload.Env{Dialect: dialect.MySQL, Capabilities: target.Capabilities{
		Transactions: true, MultiRowInsert: true, MaxBindParams: 65535, TableLoad: true}}
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
