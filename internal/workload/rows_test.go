package workload

import (
	"context"
	"errors"
	"testing"

	"github.com/candor-bench/candor/internal/target"
)

// execConn counts statements and reports `affected` rows for each.
type execConn struct {
	affected int64
	sqls     []string
}

func (c *execConn) Exec(ctx context.Context, sql string, args ...any) (int64, error) {
	c.sqls = append(c.sqls, sql)
	return c.affected, nil
}
func (c *execConn) Query(context.Context, string, []any, func([][]byte) error) (int, error) {
	return 0, nil
}
func (c *execConn) Close() error { return nil }

// copyConn also offers COPY.
type copyConn struct {
	execConn
	copied int
}

func (c *copyConn) CopyFrom(ctx context.Context, table string, cols []string, rows [][]any) (int64, error) {
	c.copied += len(rows)
	return int64(len(rows)), nil
}

func TestRowWriter(t *testing.T) {
	built := 0
	w := &RowWriter{Table: "t", Columns: []string{"a"}, Insert: func(n int) string { built++; return "INSERT n" }}
	rows := [][]any{{1}, {2}}
	args := []any{1, 2}
	ctx := context.Background()

	// INSERT: the text is built once per row count and reused.
	c := &execConn{affected: 2}
	for i := 0; i < 3; i++ {
		if err := w.Write(ctx, c, rows, args); err != nil {
			t.Fatal(err)
		}
	}
	if built != 1 || len(c.sqls) != 3 {
		t.Fatalf("built %d INSERT texts for 3 equal batches (want 1), sent %d statements", built, len(c.sqls))
	}
	// A short write is an unexpected-rows error.
	if err := w.Write(ctx, &execConn{affected: 1}, rows, args); !errors.Is(err, target.ErrUnexpectedRows) {
		t.Fatalf("short INSERT: %v, want ErrUnexpectedRows", err)
	}
	// COPY when the connection offers it: no INSERT is sent.
	cc := &copyConn{}
	if err := w.Write(ctx, cc, rows, args); err != nil || cc.copied != 2 || len(cc.sqls) != 0 {
		t.Fatalf("COPY: err %v, copied %d, statements %d", err, cc.copied, len(cc.sqls))
	}
}
