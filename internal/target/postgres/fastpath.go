package postgres

import (
	"context"
	"strconv"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// The fast path for statements with arguments.
//
// pgx's Conn.Query costs, per statement, a statement-cache lookup, a query
// builder that finds an encode plan for every argument in its type map, and
// a rows object. For the argument types workloads pass (integers, strings,
// bytes, NULL) none of that is needed: the session prepares each statement
// once with pgconn, sends the arguments in text format and asks for result
// columns in text format, except bytea columns, which come in binary format
// (their raw bytes, as pgx delivered them). That is about 2,000 fewer user
// instructions per statement (perf stat on oltp_point_select: 9.3K -> 7.3K).
// Statements with arguments of other types, or with bytes for a bytea
// parameter (whose text format would need escaping), go through pgx as
// before.
//
// An execution of a statement that returns rows is Bind, Execute and Sync
// (pgconn.ExecStatement, or the same messages on the wire path during a
// run, wire.go): the columns are known from preparing, so no
// Describe is sent and the server builds no RowDescription each time.
// libpq, and so sysbench and pgbench, describe every execution; pgx does
// not for the statements it caches (it still describes the portal of a
// statement without result columns, such as an UPDATE, and gets NoData).
// On oltp_point_select with 4 threads that saves the server 0.1–0.5 µs of
// CPU per transaction of about 19 (bench/server-cpu.sh, docs/BENCHMARKS.md
// §7).

// maxFastStmts bounds the statements one Conn prepares on the fast path;
// when full they are all deallocated and the cache starts again.
// Workloads use a few dozen distinct texts.
const maxFastStmts = 256

// fastStmt is a statement prepared on the fast path.
type fastStmt struct {
	*pgconn.StatementDescription
	formats []int16 // result formats: binary for bytea columns; nil when all text
}

// fastPath returns sql's prepared statement with args rendered into
// c.params, or nil (and no error) when the statement goes through pgx:
// without arguments, or with an argument the fast path does not render. The
// argument types are checked before anything is prepared, so a statement
// pgx runs is not prepared twice (bytes for a bytea parameter are only seen
// after preparing, and then it is).
func (c *Conn) fastPath(ctx context.Context, sql string, args []any) (*fastStmt, error) {
	if len(args) == 0 {
		return nil, nil
	}
	for _, a := range args {
		switch a.(type) {
		case nil, int, int64, int32, int16, string, []byte:
		default:
			return nil, nil
		}
	}
	d, err := c.fastDesc(ctx, sql)
	if err != nil || !c.fastParams(d, args) {
		return nil, err
	}
	return d, nil
}

// fastDesc returns sql's prepared statement, preparing it on first use.
func (c *Conn) fastDesc(ctx context.Context, sql string) (*fastStmt, error) {
	if c.last != nil && c.lastSQL == sql { // a script of one statement: the same string
		return c.last, nil
	}
	if d, ok := c.fast[sql]; ok {
		c.last, c.lastSQL = d, sql
		return d, nil
	}
	c.last, c.lastSQL = nil, ""
	pg := c.pc.PgConn()
	if len(c.fast) >= maxFastStmts {
		for k, d := range c.fast {
			if err := pg.Deallocate(ctx, d.Name); err != nil {
				return nil, err
			}
			delete(c.fast, k)
		}
	}
	if c.fast == nil {
		c.fast = map[string]*fastStmt{}
	}
	c.fastSeq++
	sd, err := pg.Prepare(ctx, "candor_"+strconv.Itoa(c.fastSeq), sql, nil)
	if err != nil {
		return nil, err
	}
	d := &fastStmt{StatementDescription: sd}
	for i, f := range sd.Fields {
		if f.DataTypeOID == pgtype.ByteaOID {
			if d.formats == nil {
				d.formats = make([]int16, len(sd.Fields))
			}
			d.formats[i] = pgtype.BinaryFormatCode
		}
	}
	c.fast[sql] = d
	return d, nil
}

// fastParams renders args in text format into c.params; it reports false
// when an argument needs pgx's encoding.
func (c *Conn) fastParams(d *fastStmt, args []any) bool {
	if len(args) != len(d.ParamOIDs) {
		return false // let pgx report the mismatch
	}
	c.buf = c.buf[:0]
	ends := c.ends[:0]
	nulls := c.nulls[:0]
	for i, a := range args {
		switch v := a.(type) {
		case nil:
		case int:
			c.buf = strconv.AppendInt(c.buf, int64(v), 10)
		case int64:
			c.buf = strconv.AppendInt(c.buf, v, 10)
		case int32:
			c.buf = strconv.AppendInt(c.buf, int64(v), 10)
		case int16:
			c.buf = strconv.AppendInt(c.buf, int64(v), 10)
		case string:
			c.buf = append(c.buf, v...)
		case []byte:
			if d.ParamOIDs[i] == pgtype.ByteaOID || v == nil {
				return false
			}
			c.buf = append(c.buf, v...)
		default:
			return false
		}
		ends = append(ends, len(c.buf))
		nulls = append(nulls, a == nil)
	}
	c.ends, c.nulls = ends, nulls
	c.params = c.params[:0]
	start := 0
	for i, end := range ends {
		if nulls[i] {
			c.params = append(c.params, nil)
		} else {
			// Full slice expressions: a parameter never aliases the next.
			c.params = append(c.params, c.buf[start:end:end])
		}
		start = end
	}
	return true
}

// fastExec runs a prepared statement with c.params, calling fn for every
// row (nil for statements without rows); it returns the rows read and the
// rows affected per the command tag. An error from fn stops the calls to fn
// (the rest of the result is read and dropped) and is returned.
//
// Under a context that can be cancelled it goes through pgconn, which
// watches the context. Otherwise (the runner's sessions, which it interrupts
// through Interrupt instead) it writes the messages and reads the replies
// itself with pgconn's own encoder and decoder (wireExec).
func (c *Conn) fastExec(ctx context.Context, d *fastStmt, fn func(cols [][]byte) error) (int, int64, error) {
	if wirePath(ctx) && len(c.buf) <= maxWireParamBytes { // c.params are slices of c.buf
		return c.wireExec(d, fn)
	}
	rr := c.pc.PgConn().ExecStatement(ctx, d.StatementDescription, c.params, nil, d.formats)
	n := 0
	var ferr error
	for rr.NextRow() {
		n++
		if fn != nil {
			if ferr = fn(rr.Values()); ferr != nil {
				break
			}
		}
	}
	tag, err := rr.Close()
	if ferr != nil {
		return n, 0, ferr
	}
	return n, tag.RowsAffected(), err
}

// fastAffected runs a prepared statement without rows with c.params and
// returns the rows it affected, per its command tag.
func (c *Conn) fastAffected(ctx context.Context, d *fastStmt) (int64, error) {
	_, affected, err := c.fastExec(ctx, d, nil)
	return affected, err
}
