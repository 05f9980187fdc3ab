package cassandra

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/target"
)

var _ target.Copier = (*Conn)(nil)

// CopyFrom implements target.Copier, CQL's way to load fast: one prepared
// INSERT per row, up to Config.LoadWindow of them in flight at once on this
// Conn (each to a replica of its row's partition), at the write
// consistency. It returns len(rows) when every row was written; at the
// first failure it stops sending, waits for the rows in flight and returns
// the error (rows already written stay: an INSERT is an upsert, so the
// batch can be sent again whole).
func (c *Conn) CopyFrom(ctx context.Context, table string, columns []string, rows [][]any) (int64, error) {
	if c.closed {
		return 0, ErrConnClosed
	}
	if len(rows) == 0 {
		return 0, nil
	}
	key := table + "(" + strings.Join(columns, ",") + ")"
	if c.copyKey != key {
		c.copyKey, c.copySQL = key, dialect.CQL.InsertRows(table, columns, 1)
	}
	stmt := c.copySQL
	s, err := c.session(ctx, true)
	if err != nil {
		return 0, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		next    atomic.Int64
		written atomic.Int64
		once    sync.Once
		first   error
		wg      sync.WaitGroup
	)
	workers := min(c.window, len(rows))
	wg.Add(workers)
	for range workers {
		go func() {
			defer wg.Done()
			q := s.Query(stmt).Consistency(c.load).Idempotent(true) // one per goroutine, rebound per row
			for ctx.Err() == nil {
				i := next.Add(1) - 1
				if i >= int64(len(rows)) {
					return
				}
				row := rows[i]
				if len(row) != len(columns) {
					once.Do(func() {
						first = fmt.Errorf("row %d has %d values for %d columns of %s", i, len(row), len(columns), table)
						cancel()
					})
					return
				}
				if err := q.Bind(row...).ExecContext(ctx); err != nil {
					once.Do(func() { first = err; cancel() })
					return
				}
				written.Add(1)
			}
		}()
	}
	wg.Wait()
	if first != nil {
		return written.Load(), first
	}
	if err := ctx.Err(); err != nil && written.Load() < int64(len(rows)) {
		return written.Load(), err
	}
	return written.Load(), nil
}
