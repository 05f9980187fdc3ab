// Package sqlconn is the target.Conn of the drivers built on database/sql
// (MySQL wire, SQLite): one dedicated *sql.Conn, prepared statements cached
// by SQL text, rows scanned into sql.RawBytes without copying.
package sqlconn

import (
	"context"
	"database/sql"
	"errors"
	"sync"

	"github.com/candor-bench/candor/internal/target"
)

// Options shape a Conn.
type Options struct {
	// MaxStmts bounds the statement cache; when full it is emptied, not grown.
	MaxStmts int
	// PrepareQueries prepares statements without arguments too (SQLite);
	// otherwise they are sent as plain text, so several ;-separated
	// statements may go at once (MySQL).
	PrepareQueries bool
	// ConnDoneIsClosed treats sql.ErrConnDone on Close as success: a session
	// the server or a cancelled operation already ended (MySQL).
	ConnDoneIsClosed bool
}

// Conn is one session. It is used by one goroutine at a time.
type Conn struct {
	c      *sql.Conn
	opts   Options
	stmts  map[string]*sql.Stmt
	dest   []any // reused Scan destinations, one *sql.RawBytes per column
	raw    [][]byte
	once   sync.Once
	closeE error
}

var _ target.Conn = (*Conn)(nil)

// New wraps a dedicated connection; the Conn owns it until Close.
func New(c *sql.Conn, opts Options) *Conn {
	return &Conn{c: c, opts: opts, stmts: map[string]*sql.Stmt{}}
}

// Cached is the number of statements in the cache (for tests).
func (c *Conn) Cached() int { return len(c.stmts) }

func (c *Conn) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if s, ok := c.stmts[query]; ok {
		return s, nil
	}
	if len(c.stmts) >= c.opts.MaxStmts {
		c.closeStmts()
	}
	s, err := c.c.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	c.stmts[query] = s
	return s, nil
}

func (c *Conn) closeStmts() {
	for k, s := range c.stmts {
		s.Close()
		delete(c.stmts, k)
	}
}

// Exec implements target.Conn: the driver's affected-rows figure (for
// several ;-separated statements, the last one's).
func (c *Conn) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	var (
		res sql.Result
		err error
	)
	if len(args) == 0 {
		res, err = c.c.ExecContext(ctx, query)
	} else {
		var s *sql.Stmt
		if s, err = c.stmt(ctx, query); err != nil {
			return 0, err
		}
		res, err = s.ExecContext(ctx, args...)
	}
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// Query implements target.Conn. Values are the driver's text rendering of
// each column, valid only during fn.
func (c *Conn) Query(ctx context.Context, query string, args []any, fn func(cols [][]byte) error) (int, error) {
	var (
		rows *sql.Rows
		err  error
	)
	if len(args) == 0 && !c.opts.PrepareQueries {
		rows, err = c.c.QueryContext(ctx, query)
	} else {
		var s *sql.Stmt
		if s, err = c.stmt(ctx, query); err != nil {
			return 0, err
		}
		rows, err = s.QueryContext(ctx, args...)
	}
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return 0, err
	}
	if len(c.dest) != len(cols) {
		c.dest = make([]any, len(cols))
		for i := range c.dest {
			c.dest[i] = new(sql.RawBytes)
		}
		c.raw = make([][]byte, len(cols))
	}
	n := 0
	for rows.Next() {
		if err := rows.Scan(c.dest...); err != nil {
			return n, err
		}
		for i, d := range c.dest {
			c.raw[i] = *d.(*sql.RawBytes)
		}
		n++
		if err := fn(c.raw); err != nil {
			return n, err
		}
	}
	if err := rows.Err(); err != nil {
		return n, err
	}
	return n, rows.Close()
}

// Close implements target.Conn: it closes the cached statements and ends
// the session. Safe to call more than once.
func (c *Conn) Close() error {
	c.once.Do(func() {
		c.closeStmts()
		err := c.c.Close()
		if c.opts.ConnDoneIsClosed && errors.Is(err, sql.ErrConnDone) {
			err = nil
		}
		c.closeE = err
	})
	return c.closeE
}
