// Package drvconn is the target.Conn of the drivers built on a
// database/sql/driver connection (MySQL wire, SQLite): one driver.Conn,
// prepared statements cached by SQL text, rows read into reused buffers.
//
// It exists to keep database/sql out of the statement path. database/sql
// locks the connection on every call, takes a mutex and an RWMutex per row,
// converts every column through convertAssign and starts a goroutine per
// query under a cancellable context; on result-heavy queries that was 25–30%
// of candor's client CPU. Here a call goes straight to the driver, and the
// rows' values are rendered to text the way database/sql renders them into
// sql.RawBytes, so results read the same as before.
package drvconn

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/candor-bench/candor/internal/cacheline"
	"github.com/candor-bench/candor/internal/target"
)

// ErrConnDone is returned by Exec and Query once the Conn is closed or its
// driver reported the session lost (driver.ErrBadConn). It wraps
// driver.ErrBadConn, so drivers' classifiers see a lost connection.
var ErrConnDone = fmt.Errorf("drvconn: the session is closed or lost: %w", driver.ErrBadConn)

// Options shape a Conn.
type Options struct {
	// MaxStmts bounds the statement cache; when full it is emptied, not grown.
	MaxStmts int
	// PrepareQueries prepares statements without arguments too (SQLite);
	// otherwise they are sent as plain text through the connection, so several
	// ;-separated statements may go at once (MySQL).
	PrepareQueries bool
	// CloseDrains says the driver's Rows.Close reads the rest of a result
	// off the wire without decoding it (go-sql-driver), so Query with a nil
	// fn closes the rows at once instead of stepping through them. Without
	// it a nil fn still steps through every row: SQLite's Close would
	// abandon the statement before it ran to its end.
	CloseDrains bool
}

// Conn is one session. It is used by one goroutine at a time; Close may be
// called more than once.
type Conn struct {
	_       cacheline.Pad // see package cacheline
	dc      driver.Conn
	opts    Options
	execer  driver.ExecerContext     // nil when the driver has none
	queryer driver.QueryerContext    // nil when the driver has none
	checker driver.NamedValueChecker // the connection's; nil when none
	stmts   map[string]driver.Stmt   // prepared statements by SQL text
	args    []driver.NamedValue      // reused argument list
	dest    []driver.Value           // reused row of driver values
	cols    [][]byte                 // reused row handed to fn
	bufs    [][]byte                 // reused text buffers, one per column
	names   []string                 // the last Query's column names (target.ColumnNamer)
	broken  bool                     // the driver returned driver.ErrBadConn
	closed  bool
	once    sync.Once
	closeE  error
	_       cacheline.Pad
}

var (
	_ target.Conn        = (*Conn)(nil)
	_ target.Preparer    = (*Conn)(nil)
	_ target.ColumnNamer = (*Conn)(nil)
)

// ResultColumns implements target.ColumnNamer.
func (c *Conn) ResultColumns() []string { return c.names }

// New wraps a driver connection; the Conn owns it until Close.
func New(dc driver.Conn, opts Options) *Conn {
	c := &Conn{dc: dc, opts: opts, stmts: map[string]driver.Stmt{}}
	c.execer, _ = dc.(driver.ExecerContext)
	c.queryer, _ = dc.(driver.QueryerContext)
	c.checker, _ = dc.(driver.NamedValueChecker)
	return c
}

// Cached is the number of statements in the cache (for tests).
func (c *Conn) Cached() int { return len(c.stmts) }

// fail records that err, returned by the driver, means the session is gone,
// and returns err.
func (c *Conn) fail(err error) error {
	if errors.Is(err, driver.ErrBadConn) {
		c.broken = true
	}
	return err
}

func (c *Conn) stmt(ctx context.Context, query string) (driver.Stmt, error) {
	if s, ok := c.stmts[query]; ok {
		return s, nil
	}
	if len(c.stmts) >= c.opts.MaxStmts {
		if err := c.closeStmts(); err != nil {
			return nil, err
		}
	}
	var (
		s   driver.Stmt
		err error
	)
	if p, ok := c.dc.(driver.ConnPrepareContext); ok {
		s, err = p.PrepareContext(ctx, query)
	} else {
		s, err = c.dc.Prepare(query)
	}
	if err != nil {
		return nil, err
	}
	c.stmts[query] = s
	return s, nil
}

// closeStmts empties the cache, closing every statement; it returns the
// first error.
func (c *Conn) closeStmts() error {
	var first error
	for k, s := range c.stmts {
		if err := s.Close(); err != nil && first == nil {
			first = err
		}
		delete(c.stmts, k)
	}
	return first
}

// namedValues converts args as database/sql does: the statement's
// NamedValueChecker, else the connection's, else (or when it answers
// driver.ErrSkip) driver.DefaultParameterConverter; ordinals count from 1.
// The list is reused by the next call. sql.NamedArg is not supported.
func (c *Conn) namedValues(s driver.Stmt, args []any) ([]driver.NamedValue, error) {
	check, ok := s.(driver.NamedValueChecker)
	if !ok {
		check = c.checker
	}
	nv := c.args[:0]
	for i, a := range args {
		nv = append(nv, driver.NamedValue{Ordinal: len(nv) + 1, Value: a})
		v := &nv[len(nv)-1]
		err := driver.ErrSkip
		if check != nil {
			err = check.CheckNamedValue(v)
		}
		if errors.Is(err, driver.ErrSkip) {
			v.Value, err = driver.DefaultParameterConverter.ConvertValue(v.Value)
		}
		switch {
		case errors.Is(err, driver.ErrRemoveArgument):
			nv = nv[:len(nv)-1]
		case err != nil:
			c.args = nv
			return nil, fmt.Errorf("converting argument %d of type %T: %w", i+1, a, err)
		}
	}
	c.args = nv
	if want := s.NumInput(); want >= 0 && want != len(nv) {
		return nil, fmt.Errorf("expected %d arguments, got %d", want, len(nv))
	}
	return nv, nil
}

// Exec implements target.Conn: the driver's affected-rows figure (for
// several ;-separated statements, the last one's).
func (c *Conn) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	return c.exec(ctx, query, args, c.opts.PrepareQueries)
}

// ExecPrepared implements target.Preparer: query is prepared (and cached)
// even without arguments.
func (c *Conn) ExecPrepared(ctx context.Context, query string) (int64, error) {
	return c.exec(ctx, query, nil, true)
}

// exec runs query and returns the rows it affected. A statement without
// arguments goes to the connection as plain text unless prepare is set;
// otherwise its cached prepared statement runs.
func (c *Conn) exec(ctx context.Context, query string, args []any, prepare bool) (int64, error) {
	if c.closed || c.broken {
		return 0, ErrConnDone
	}
	var res driver.Result
	err := driver.ErrSkip
	if len(args) == 0 && !prepare && c.execer != nil {
		res, err = c.execer.ExecContext(ctx, query, nil)
	}
	if errors.Is(err, driver.ErrSkip) {
		res, err = c.execStmt(ctx, query, args)
	}
	if err != nil {
		return 0, c.fail(err)
	}
	return res.RowsAffected()
}

// execStmt runs query's cached prepared statement with args.
func (c *Conn) execStmt(ctx context.Context, query string, args []any) (driver.Result, error) {
	s, nv, err := c.prepared(ctx, query, args)
	if err != nil {
		return nil, err
	}
	se, ok := s.(driver.StmtExecContext)
	if !ok {
		return nil, errors.New("drvconn: the driver's statements lack ExecContext")
	}
	return se.ExecContext(ctx, nv)
}

// prepared returns query's cached statement and args converted for it.
func (c *Conn) prepared(ctx context.Context, query string, args []any) (driver.Stmt, []driver.NamedValue, error) {
	s, err := c.stmt(ctx, query)
	if err != nil {
		return nil, nil, err
	}
	nv, err := c.namedValues(s, args)
	if err != nil {
		return nil, nil, err
	}
	return s, nv, nil
}

func (c *Conn) query(ctx context.Context, query string, args []any) (driver.Rows, error) {
	if len(args) == 0 && !c.opts.PrepareQueries && c.queryer != nil {
		rows, err := c.queryer.QueryContext(ctx, query, nil)
		if !errors.Is(err, driver.ErrSkip) {
			return rows, err
		}
	}
	s, nv, err := c.prepared(ctx, query, args)
	if err != nil {
		return nil, err
	}
	sq, ok := s.(driver.StmtQueryContext)
	if !ok {
		return nil, errors.New("drvconn: the driver's statements lack QueryContext")
	}
	return sq.QueryContext(ctx, nv)
}

// Query implements target.Conn. Values are the text database/sql would scan
// into sql.RawBytes (see text), valid only during fn; nil is SQL NULL. When
// ctx can be cancelled it is checked before each row, as database/sql does,
// for drivers that watch it only while a statement starts (SQLite).
func (c *Conn) Query(ctx context.Context, query string, args []any, fn func(cols [][]byte) error) (int, error) {
	if c.closed || c.broken {
		return 0, ErrConnDone
	}
	rows, err := c.query(ctx, query, args)
	if err != nil {
		return 0, c.fail(err)
	}
	c.names = rows.Columns()
	n, err := c.read(ctx, rows, fn)
	if cerr := c.fail(rows.Close()); err == nil {
		err = cerr
	}
	return n, err
}

// read calls fn for every row of rows and returns the rows it read; with a
// nil fn it discards the rows and returns 0 (see target.Conn). It does not
// close rows.
func (c *Conn) read(ctx context.Context, rows driver.Rows, fn func(cols [][]byte) error) (int, error) {
	if fn == nil && c.opts.CloseDrains {
		// go-sql-driver boxes every column of every row into a
		// driver.Value (an allocation each); its Close skips the packets.
		return 0, nil
	}
	ncol := len(rows.Columns())
	if len(c.bufs) < ncol {
		c.dest = make([]driver.Value, ncol)
		c.cols = make([][]byte, ncol)
		c.bufs = append(c.bufs, make([][]byte, ncol-len(c.bufs))...)
	}
	dest, cols := c.dest[:ncol], c.cols[:ncol]
	defer clear(dest) // hold no driver values past the call
	done := ctx.Done()
	n := 0
	for {
		if done != nil {
			select {
			case <-done:
				return n, ctx.Err()
			default:
			}
		}
		if err := rows.Next(dest); err != nil {
			if err == io.EOF {
				return n, nil
			}
			return n, c.fail(err)
		}
		if fn == nil {
			continue
		}
		for i, v := range dest {
			b, err := text(c.bufs[i][:0], v)
			if err != nil {
				return n, fmt.Errorf("drvconn: column %d: %w", i+1, err)
			}
			switch v.(type) {
			case nil, []byte:
			default:
				c.bufs[i] = b // keep the grown buffer
			}
			cols[i] = b
		}
		n++
		if err := fn(cols); err != nil {
			return n, err
		}
	}
}

// empty is the value of a zero-length column that is not NULL.
var empty = []byte{}

// text renders a driver value as database/sql renders it into sql.RawBytes,
// appending to buf (which a []byte value does not use): nil stays nil (SQL
// NULL); []byte as is; strings as their bytes; integers in decimal;
// float64 and float32 in the shortest 'g' form of their size (1.5, 1e+20);
// bools as true/false; time.Time in RFC 3339 with nanoseconds. Unlike
// database/sql, a zero-length string or []byte is never nil: it is an empty
// value, not NULL.
func text(buf []byte, v driver.Value) ([]byte, error) {
	var b []byte
	switch v := v.(type) {
	case nil:
		return nil, nil
	case []byte:
		b = v
	case string:
		b = append(buf, v...)
	case int64:
		b = strconv.AppendInt(buf, v, 10)
	case uint64:
		b = strconv.AppendUint(buf, v, 10)
	case float64:
		b = strconv.AppendFloat(buf, v, 'g', -1, 64)
	case float32:
		b = strconv.AppendFloat(buf, float64(v), 'g', -1, 32)
	case bool:
		b = strconv.AppendBool(buf, v)
	case time.Time:
		b = v.AppendFormat(buf, time.RFC3339Nano)
	default:
		return nil, fmt.Errorf("unsupported driver value type %T", v)
	}
	if b == nil {
		b = empty
	}
	return b, nil
}

// Close implements target.Conn: it closes the cached statements and the
// driver connection and returns the first error, or nil when the driver had
// already reported the session lost (it is gone either way). Safe to call
// more than once.
func (c *Conn) Close() error {
	c.once.Do(func() {
		c.closed = true
		err := c.fail(c.closeStmts())
		if cerr := c.fail(c.dc.Close()); err == nil {
			err = cerr
		}
		if c.broken {
			err = nil
		}
		c.closeE = err
	})
	return c.closeE
}
