package postgres

import (
	"bytes"
	"context"
	"errors"
	"net"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// The wire path: one execution of a prepared statement without pgconn's
// per-statement machinery.
//
// pgconn.ExecStatement locks the connection, watches the context, arms and
// stops a 15 ms timer around every write (against a deadlock that needs a
// pipeline of statements, which a session never sends), keeps a result
// reader, and turns the command tag into a string. Re-arming a timer can
// wake another thread, and on cores shared with the server such wake-ups
// cost rate: with this path, the runner's quiet collector and blockconn's
// goyield together, oltp_point_select with 4 threads on two cores went from
// 0.94–0.98 of sysbench's rate to 1.03–1.04 (docs/BENCHMARKS.md §7, "A
// quiet client"). It also cuts candor's user CPU per statement by a third
// or more at one thread. The wire path sends the same messages (Bind, Describe for a
// statement without result columns as pgx does, Execute, Sync) through
// pgconn's Frontend and reads the replies with its Receive, into the same
// buffers; under a context that can be cancelled, or with parameters over
// maxWireParamBytes, statements go through pgconn as before. On an event
// loop's session, a statement outside a transaction block is not written
// at once: the loop sends it after its other sessions' turns
// (blockconn.Conn.SendLater), unlike pgbench, which sends each client's
// command as it reads its reply (docs/SCRIPTS.md).
//
// What pgconn would have done with the replies is done here as far as a
// session needs it: an ErrorResponse becomes the same *pgconn.PgError, a
// FATAL one (the server ends the session) or a failed read or write closes
// the connection, and a read that fails on the deadline Interrupt sets is a
// timeout, as pgconn reports it. ParameterStatus, notices and notifications
// are read and dropped: pgconn's copy of the server's parameters and its
// transaction status are not updated by a statement run here, and candor
// reads neither after connecting.

// maxWireParamBytes bounds the parameters of a statement on the wire path.
// A larger Bind goes through pgconn, whose write guards against blocking
// while the server blocks writing its replies.
const maxWireParamBytes = 64 << 10

var (
	wireDescribe = pgproto3.Describe{ObjectType: 'P'}
	wireExecute  = pgproto3.Execute{}
	wireSync     = pgproto3.Sync{}
)

// wirePath reports whether statements under ctx take the wire path: the
// context cannot be cancelled, so nothing needs watching.
func wirePath(ctx context.Context) bool { return ctx.Done() == nil }

// laterSender is the socket of an event loop's session (blockconn.Conn),
// whose next write the loop may send once its other sessions have had
// their turns.
type laterSender interface{ SendLater() bool }

// wireExec is fastExec's path under a context without a Done channel.
func (c *Conn) wireExec(d *fastStmt, fn func(cols [][]byte) error) (int, int64, error) {
	pg := c.pc.PgConn()
	if pg.IsClosed() {
		return 0, 0, pgconn.ErrConnClosed
	}
	fe := pg.Frontend()
	c.bind = pgproto3.Bind{PreparedStatement: d.Name, Parameters: c.params, ResultFormatCodes: d.formats}
	fe.SendBind(&c.bind)
	if len(d.Fields) == 0 {
		fe.SendDescribe(&wireDescribe)
	}
	fe.SendExecute(&wireExecute)
	fe.SendSync(&wireSync)
	if !c.wireInTx && pg.TxStatus() == 'I' {
		// Outside a transaction block, a loop's session leaves the send
		// to its loop (blockconn.Conn.SendLater). Inside one, the
		// statement goes at once: the session may hold locks that other
		// sessions wait for, and a later send would hold them longer
		// (a pass without this rule had tpcb-like at 16 clients at 0.95×
		// pgbench's rate, 1.00× with it).
		if ls, ok := pg.Conn().(laterSender); ok {
			ls.SendLater()
		}
	}
	if err := fe.Flush(); err != nil {
		return 0, 0, c.wireBroken(err)
	}
	var (
		n        int
		affected int64
		ferr     error
		qerr     error
	)
	for {
		msg, err := fe.Receive()
		if err != nil {
			return n, 0, c.wireBroken(err)
		}
		switch m := msg.(type) {
		case *pgproto3.DataRow:
			if ferr != nil {
				break // read and dropped after fn's error
			}
			n++
			if fn != nil {
				ferr = fn(m.Values)
			}
		case *pgproto3.CommandComplete:
			affected = rowsAffected(m.CommandTag)
		case *pgproto3.ErrorResponse:
			qerr = pgconn.ErrorResponseToPgError(m)
			if m.Severity == "FATAL" || m.SeverityUnlocalized == "FATAL" {
				c.wireClose()
				return n, 0, qerr
			}
		case *pgproto3.ReadyForQuery:
			c.wireInTx = m.TxStatus != 'I'
			if ferr != nil {
				return n, 0, ferr
			}
			if qerr != nil {
				return n, 0, qerr
			}
			return n, affected, nil
		}
	}
}

// wireBroken closes the connection after a failed read or write and
// returns err, made a timeout when it was the socket's deadline (Interrupt),
// as pgconn reports it.
func (c *Conn) wireBroken(err error) error {
	c.wireClose()
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return &wireTimeout{err: err}
	}
	return err
}

// wireClose marks the connection closed in pgconn. The socket is closed
// first, so pgconn's goodbye (a Terminate and a read for the server's EOF)
// fails at once instead of waiting on a server that may not answer.
func (c *Conn) wireClose() {
	pg := c.pc.PgConn()
	_ = pg.Conn().Close()
	_ = pg.Close(context.Background())
}

// rowsAffected is the count at the end of a command tag ("UPDATE 3",
// "INSERT 0 5"; 0 for "BEGIN"), as pgconn's CommandTag.RowsAffected reads
// it, without making the tag a string.
func rowsAffected(tag []byte) int64 {
	var n int64
	for _, b := range tag[bytes.LastIndexByte(tag, ' ')+1:] {
		if b < '0' || b > '9' {
			return 0
		}
		n = n*10 + int64(b-'0')
	}
	return n
}

// wireTimeout is a read or write on the wire path that failed on the
// socket's deadline.
type wireTimeout struct{ err error }

func (e *wireTimeout) Error() string { return "timeout: " + e.err.Error() }
func (e *wireTimeout) Unwrap() error { return e.err }
