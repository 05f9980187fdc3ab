package voltdb

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/target/blockconn"
)

// ErrConnClosed is returned by a Conn's calls after Close.
var ErrConnClosed = errors.New("voltdb connection is closed")

// ErrConnLost wraps an I/O failure of a session: the call's outcome is
// unknown when the request had been sent (NotSent tells), and the session
// is gone.
var ErrConnLost = errors.New("voltdb connection lost")

// LoginError is a login the server refused.
type LoginError struct{ Result int8 }

func (e *LoginError) Error() string { return loginError(e.Result).Error() }

// StatusError is a call the server answered with a status other than
// SUCCESS: its status, the server's message, and whether it carried a
// constraint-failure exception.
type StatusError struct {
	Proc       string
	Status     int8
	Message    string
	Constraint bool
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("voltdb %s: %s (status %d): %s", e.Proc, StatusName(e.Status), e.Status, e.Message)
}

// notSentError marks a failure before any byte of the call was written.
type notSentError struct{ err error }

func (e *notSentError) Error() string { return e.err.Error() }
func (e *notSentError) Unwrap() error { return e.err }

// Conn is one session: one TCP connection to one node, logged in. It is
// used by one goroutine at a time. After its connection is lost, the next
// call connects again (to the same node first), so a worker that keeps
// its Conn goes on once the node is back.
type Conn struct {
	t      *Target
	node   string
	nc     net.Conn
	rd     *bufio.Reader
	build  string
	handle int64
	wbuf   []byte
	rbuf   []byte
	closed bool
	procs  map[string]copyPlan // CopyFrom's plan per table and columns
}

var _ target.Conn = (*Conn)(nil)

// dial connects to node and logs in, bounded by the connect timeout.
func dial(ctx context.Context, t *Target, node string) (*Conn, error) {
	c := &Conn{t: t, node: node}
	if err := c.connect(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Conn) connect(ctx context.Context) error {
	timeout := c.t.opts.ConnectTimeout
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	d := &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}
	nc, err := blockconn.Dial(ctx, d, "tcp", c.node)
	if err != nil {
		return fmt.Errorf("connecting to %s: %w", c.node, err)
	}
	if dl, ok := ctx.Deadline(); ok {
		nc.SetDeadline(dl)
	}
	rd := bufio.NewReaderSize(nc, 64<<10)
	if _, err := nc.Write(loginMessage(c.t.cfg.User, c.t.cfg.Password)); err != nil {
		nc.Close()
		return fmt.Errorf("logging in to %s: %w", c.node, err)
	}
	body, err := readMessage(rd, nil)
	if err != nil {
		nc.Close()
		return fmt.Errorf("logging in to %s: %w", c.node, err)
	}
	r, err := parseLoginReply(body)
	if err != nil {
		nc.Close()
		return fmt.Errorf("logging in to %s: %w", c.node, err)
	}
	if r.Result != 0 {
		nc.Close()
		return fmt.Errorf("logging in to %s: %w", c.node, &LoginError{Result: r.Result})
	}
	nc.SetDeadline(time.Time{})
	c.nc, c.rd, c.build = nc, rd, r.Build
	return nil
}

// readMessage reads one length-prefixed message into buf (grown as
// needed) and returns its body.
func readMessage(rd *bufio.Reader, buf []byte) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(rd, hdr[:]); err != nil {
		return nil, err
	}
	n := int(int32(binary.BigEndian.Uint32(hdr[:])))
	if n < 1 || n > maxMessage {
		return nil, fmt.Errorf("%w: message length %d", errProtocol, n)
	}
	if cap(buf) < n {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err := io.ReadFull(rd, buf); err != nil {
		return nil, err
	}
	return buf, nil
}

// drop closes the session's connection after a failure; the next call
// connects again.
func (c *Conn) drop() {
	if c.nc != nil {
		c.nc.Close()
		c.nc, c.rd = nil, nil
	}
}

// call is one procedure call of a pipelined batch.
type call struct {
	proc   string
	params []any
}

// callAll sends calls in one write and reads their responses (placed in
// the calls' order). It returns the responses of every call when all
// succeeded; otherwise the failure of the first call that failed: a StatusError (the server answered), or an error wrapping
// ErrConnLost (the connection failed; the session is dropped), or a
// notSentError when nothing was written.
func (c *Conn) callAll(ctx context.Context, calls []call) ([]Response, error) {
	if c.closed {
		return nil, &notSentError{ErrConnClosed}
	}
	if err := ctx.Err(); err != nil {
		return nil, &notSentError{err}
	}
	if c.nc == nil {
		if err := c.connect(ctx); err != nil {
			return nil, &notSentError{fmt.Errorf("%w: %w", ErrConnLost, err)}
		}
	}
	first := c.handle + 1
	buf := c.wbuf[:0]
	for _, cl := range calls {
		c.handle++
		msg, err := invocation(buf[len(buf):], cl.proc, c.handle, cl.params)
		if err != nil {
			c.handle = first - 1
			return nil, &notSentError{err}
		}
		buf = append(buf, msg...)
	}
	c.wbuf = buf
	if dl, ok := ctx.Deadline(); ok {
		c.nc.SetDeadline(dl)
		defer func() {
			if c.nc != nil {
				c.nc.SetDeadline(time.Time{})
			}
		}()
	}
	if ctx.Done() != nil {
		nc := c.nc
		stop := context.AfterFunc(ctx, func() { nc.SetDeadline(time.Unix(1, 0)) })
		defer stop()
	}
	if _, err := c.nc.Write(buf); err != nil {
		c.drop()
		return nil, c.ioError(ctx, err)
	}
	// Calls to different partitions may be answered in any order: each
	// response is placed by its handle.
	out := make([]Response, len(calls))
	got := 0
	for got < len(calls) {
		body, err := readMessage(c.rd, c.rbuf)
		if err != nil {
			c.drop()
			return nil, c.ioError(ctx, err)
		}
		c.rbuf = body[:0]
		r, err := parseResponse(body)
		i := int(r.Handle - first)
		if err == nil && (i < 0 || i >= len(calls) || out[i].Handle != 0) {
			err = fmt.Errorf("%w: a response for call %d, which is not in flight", errProtocol, r.Handle)
		}
		if err != nil {
			c.drop()
			return nil, fmt.Errorf("%w: %w", ErrConnLost, err)
		}
		out[i] = r
		got++
	}
	var firstErr error
	for i, r := range out {
		if r.Status != StatusSuccess {
			msg := r.StatusString
			if msg == "" {
				msg = r.AppStatusString
			}
			firstErr = &StatusError{Proc: calls[i].proc, Status: r.Status, Message: strings.TrimSpace(msg), Constraint: r.ExceptionType == exceptionConstraint}
			break
		}
	}
	if firstErr != nil {
		return nil, firstErr
	}
	return out, nil
}

// ioError wraps a failed read or write: the context's error when it ended
// the call (its deadline set the connection's), else ErrConnLost.
func (c *Conn) ioError(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return fmt.Errorf("voltdb call on %s: %w (%v)", c.node, cerr, err)
	}
	return fmt.Errorf("%w: %s: %w", ErrConnLost, c.node, err)
}

// Call calls procedure proc with params and returns its result tables.
func (c *Conn) Call(ctx context.Context, proc string, params ...any) ([]Table, error) {
	rs, err := c.callAll(ctx, []call{{proc, params}})
	if err != nil {
		return nil, err
	}
	return rs[0].Tables, nil
}

// calls turns a statement and its arguments into procedure calls: an EXEC
// statement into its procedure's call (and its row filter), other SQL into
// @AdHoc calls, one per statement when several ;-separated statements come
// with arguments (@AdHoc binds parameters of one statement only), else one.
func calls(sql string, args []any) ([]call, *filter, error) {
	if p, ok, err := parseExec(sql, args); ok || err != nil {
		return []call{p.call}, p.filter, err
	}
	if len(args) == 0 {
		return []call{{"@AdHoc", []any{sql}}}, nil, nil
	}
	stmts := splitStatements(sql)
	out := make([]call, 0, len(stmts))
	rest := args
	for _, s := range stmts {
		n := countParams(s)
		if n > len(rest) {
			return nil, nil, fmt.Errorf("voltdb: statement %q takes %d arguments, %d left of %d", s, n, len(rest), len(args))
		}
		params := make([]any, 0, n+1)
		params = append(append(params, s), rest[:n]...)
		out = append(out, call{"@AdHoc", params})
		rest = rest[n:]
	}
	if len(rest) > 0 {
		return nil, nil, fmt.Errorf("voltdb: %d arguments given, the statements take %d", len(args), len(args)-len(rest))
	}
	return out, nil, nil
}

// Exec implements target.Conn: the rows the statements modified (@AdHoc's
// modified-tuples count of each).
func (c *Conn) Exec(ctx context.Context, sql string, args ...any) (int64, error) {
	cs, _, err := calls(sql, args)
	if err != nil {
		return 0, &notSentError{err}
	}
	rs, err := c.callAll(ctx, cs)
	if err != nil {
		return 0, err
	}
	var n int64
	for _, r := range rs {
		for _, t := range r.Tables {
			n += modified(t)
		}
	}
	return n, nil
}

// modified is the modified-tuples count of a DML statement's result: its
// one BIGINT of one row; 0 for any other table.
func modified(t Table) int64 {
	if len(t.Types) != 1 || t.Types[0] != typeBigint || len(t.Rows) != 1 || t.Rows[0][0] == nil {
		return 0
	}
	var n int64
	for _, ch := range t.Rows[0][0] {
		if ch == '-' {
			return 0
		}
		n = n*10 + int64(ch-'0')
	}
	return n
}

// Query implements target.Conn: the rows of every result table in order.
func (c *Conn) Query(ctx context.Context, sql string, args []any, fn func(cols [][]byte) error) (int, error) {
	cs, f, err := calls(sql, args)
	if err != nil {
		return 0, &notSentError{err}
	}
	rs, err := c.callAll(ctx, cs)
	if err != nil || fn == nil {
		return 0, err
	}
	n := 0
	for _, r := range rs {
		for _, t := range r.Tables {
			keep := f.column(t)
			for _, row := range t.Rows {
				if keep >= 0 && !strings.EqualFold(string(row[keep]), f.value) {
					continue
				}
				if keep == -2 {
					continue // the filter's column is not in this table
				}
				n++
				if err := fn(row); err != nil {
					return n, err
				}
			}
		}
	}
	return n, nil
}

// Close implements target.Conn.
func (c *Conn) Close() error {
	c.closed = true
	c.drop()
	return nil
}

// Build is the server's build string from the login ("10.1.1 ...").
func (c *Conn) Build() string { return c.build }

// copyWindow is how many UPSERTs of a CopyFrom go out before their answers
// are read: enough to keep a node's sites busy, few enough that a batch's
// bytes stay small.
const copyWindow = 128

// CopyFrom implements target.Copier, as VoltDB has no bulk-load protocol
// over the client port: one UPSERT per row, copyWindow of them in flight
// on the session at a time. When columns are all of the table's columns in
// their order and the table has a primary key, each row is a call of the
// UPSERT procedure VoltDB generates for the table (<TABLE>.upsert, planned
// once by the server), else an @AdHoc UPSERT. Each row is a transaction of
// its own, so a failed CopyFrom may have written some rows; being UPSERTs,
// a retry of the whole batch writes the same rows again instead of failing
// on the ones already there (a load batch is retried whole). A table
// without a primary key, which UPSERT needs, gets INSERTs.
func (c *Conn) CopyFrom(ctx context.Context, table string, columns []string, rows [][]any) (int64, error) {
	if err := target.CheckTableName(table); err != nil {
		return 0, &notSentError{err}
	}
	if len(rows) == 0 {
		return 0, nil
	}
	proc, keyed, err := c.upsertProc(ctx, table, columns)
	if err != nil {
		return 0, fmt.Errorf("voltdb copy into %s: %w", table, err)
	}
	verb := "UPSERT"
	if !keyed {
		verb = "INSERT" // UPSERT needs a primary key
	}
	sql := verb + " INTO " + table + " (" + strings.Join(columns, ", ") + ") VALUES (?" + strings.Repeat(", ?", len(columns)-1) + ")"
	var n int64
	batch := make([]call, 0, min(copyWindow, len(rows)))
	for start := 0; start < len(rows); start += copyWindow {
		batch = batch[:0]
		for _, r := range rows[start:min(start+copyWindow, len(rows))] {
			if len(r) != len(columns) {
				return n, &notSentError{fmt.Errorf("voltdb copy into %s: a row of %d values for %d columns", table, len(r), len(columns))}
			}
			if proc != "" {
				batch = append(batch, call{proc, r})
				continue
			}
			params := make([]any, 0, len(r)+1)
			batch = append(batch, call{"@AdHoc", append(append(params, sql), r...)})
		}
		rs, err := c.callAll(ctx, batch)
		if err != nil {
			return n, fmt.Errorf("voltdb copy into %s: %w", table, err)
		}
		for _, r := range rs {
			for _, t := range r.Tables {
				n += modified(t)
			}
		}
	}
	return n, nil
}

var _ target.Copier = (*Conn)(nil)

// upsertProc is the name of the UPSERT procedure VoltDB generated for
// table when columns are its columns in their order and it has a primary
// key (without one there is none), "" otherwise; and whether the table has
// a primary key. The answer is kept for the session.
func (c *Conn) upsertProc(ctx context.Context, table string, columns []string) (string, bool, error) {
	key := strings.ToUpper(table) + "\x00" + strings.ToUpper(strings.Join(columns, ","))
	if p, ok := c.procs[key]; ok {
		return p.proc, p.keyed, nil
	}
	name := strings.ToUpper(table)
	cols, err := c.Call(ctx, "@SystemCatalog", "COLUMNS")
	if err != nil {
		return "", false, err
	}
	byPos := map[int]string{}
	for _, t := range cols {
		tn, cn, pos := columnIndex(t, "TABLE_NAME"), columnIndex(t, "COLUMN_NAME"), columnIndex(t, "ORDINAL_POSITION")
		if tn < 0 || cn < 0 || pos < 0 {
			continue
		}
		for _, r := range t.Rows {
			if strings.EqualFold(string(r[tn]), name) {
				if p, err := strconv.Atoi(string(r[pos])); err == nil {
					byPos[p] = string(r[cn])
				}
			}
		}
	}
	proc := name + ".upsert"
	if len(byPos) != len(columns) {
		proc = ""
	}
	for i, col := range columns {
		if !strings.EqualFold(byPos[i+1], col) {
			proc = ""
		}
	}
	pk, err := c.Query(ctx, "EXEC @SystemCatalog PRIMARYKEYS WHERE TABLE_NAME = ?", []any{name}, func([][]byte) error { return nil })
	if err != nil {
		return "", false, err
	}
	if pk == 0 {
		proc = ""
	}
	if c.procs == nil {
		c.procs = map[string]copyPlan{}
	}
	c.procs[key] = copyPlan{proc, pk > 0}
	return proc, pk > 0, nil
}

// copyPlan is how CopyFrom writes the rows of one table and column list.
type copyPlan struct {
	proc  string // the generated UPSERT procedure, or ""
	keyed bool   // the table has a primary key
}
