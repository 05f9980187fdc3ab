package workload

import (
	"context"
	"fmt"

	"github.com/candor-bench/candor/internal/target"
)

// RowWriter writes load batches into one table: with COPY when the
// connection offers it (target.Copier), else as one multi-row INSERT whose
// text is cached by row count. It checks that every row was written. A
// loader keeps one RowWriter per table; it is not safe for concurrent use.
type RowWriter struct {
	Table   string
	Columns []string
	// Insert returns the multi-row INSERT of n rows (bind parameters row by
	// row, in Columns order).
	Insert func(n int) string
	n      int
	sql    string
}

// Write writes one batch: rows holds one []any per row (for COPY) and args
// the same values flat (for INSERT); they may share storage. A batch written
// by INSERT must fit the target's bind-parameter limit; the caller sizes it.
func (w *RowWriter) Write(ctx context.Context, c target.Conn, rows [][]any, args []any) error {
	var n int64
	var err error
	how := "COPY"
	if cp, ok := c.(target.Copier); ok {
		n, err = cp.CopyFrom(ctx, w.Table, w.Columns, rows)
	} else {
		how = "INSERT"
		if len(rows) != w.n || w.sql == "" {
			w.n, w.sql = len(rows), w.Insert(len(rows))
		}
		n, err = c.Exec(ctx, w.sql, args...)
	}
	if err != nil {
		return err
	}
	if n != int64(len(rows)) {
		return fmt.Errorf("%s of %d rows into %s wrote %d: %w", how, len(rows), w.Table, n, target.ErrUnexpectedRows)
	}
	return nil
}
