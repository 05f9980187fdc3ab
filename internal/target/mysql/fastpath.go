package mysql

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/candor-bench/candor/internal/target/drvconn"
)

// The fast path: prepared statements whose results are not read.
//
// go-sql-driver opens the session (handshake, authentication, session
// setup) and runs every statement whose rows candor reads. The executions
// whose rows are discarded or that return none — Exec with arguments,
// ExecPrepared, Query with arguments and no row function: every statement
// of the sysbench tests, YCSB's writes — go out as COM_STMT_EXECUTE written
// here on the session's socket, with the result read to its end here and
// not decoded. Both share the session one whole command at a time, so the
// driver finds the connection as it left it. On oltp_point_select with 16
// threads on two cores beside sysbench 1.0.20 on MariaDB, the least a Go
// client can do (bench/pgfloor, -mode wire) ran at 1.03× sysbench's rate
// and candor through go-sql-driver at 0.97× (docs/BENCHMARKS.md §7):
// go-sql-driver's statement path (its allocations, its buffers, the
// parameter types sent with every execution) costs the client and, through
// what it touches on the core the server shares, the server.
//
// What goes out is what go-sql-driver sends, but that the parameters'
// types are sent only when they change (as libmariadb sends them). The path
// is used only where the replies are known: no TLS, no compression, and a
// server that speaks CLIENT_DEPRECATE_EOF (read from its greeting; without
// it the result sets carry EOF packets this reader does not expect).
// go-sql-driver asks for that capability whenever the server offers it, and
// for MariaDB's result-metadata cache, whose extra byte in a result's
// header is recognised by the header's length. Contexts that can be
// cancelled take the driver's path, which watches them.

// fastArgs says whether every argument has a binary encoding here, and
// whether they are small enough for one packet (bigger ones take the
// driver's path, which splits them).
func fastArgs(args []any) bool {
	size := 0
	for _, a := range args {
		switch v := a.(type) {
		case nil, int64, int, int32, float64, bool:
			size += 8
		case string:
			size += 9 + len(v)
		case []byte:
			size += 9 + len(v)
		default:
			return false
		}
	}
	return size < fastArgsMax
}

// fastArgsMax bounds the arguments' encoded size on the fast path, well
// under the protocol's 16 MB packet and the server's max_allowed_packet.
const fastArgsMax = 1 << 20

// fastPath is one session's statements on the fast path.
type fastPath struct {
	sock   net.Conn
	buf    []byte
	r, w   int // unread bytes: buf[r:w]
	out    []byte
	stmts  map[string]*fastStmt
	broken error // the I/O error that ended the session
}

// fastStmt is a statement prepared on the fast path.
type fastStmt struct {
	id     uint32
	params int
	types  []byte // the parameter types last sent, 2 bytes each
}

func newFastPath(sock net.Conn) *fastPath {
	return &fastPath{sock: sock, buf: make([]byte, 16<<10), stmts: map[string]*fastStmt{}}
}

// usable says whether a statement under ctx may take the fast path.
func (f *fastPath) usable(ctx context.Context) bool { return f != nil && ctx.Done() == nil }

// exec runs query with args and reads its reply to the end, and returns
// the rows it affected (0 for a result set, whose rows are not decoded).
// Server errors are *gomysql.MySQLError, as the driver's; any other error
// ends the session's fast path, and later calls return drvconn.ErrConnDone.
func (f *fastPath) exec(query string, args []any) (int64, error) {
	if f.broken != nil {
		return 0, drvconn.ErrConnDone
	}
	st, err := f.stmt(query)
	var affected int64
	if err == nil {
		affected, err = f.execute(st, args)
	}
	var me *gomysql.MySQLError
	if err != nil && !errors.As(err, &me) {
		f.broken = err
	}
	return affected, err
}

// stmt returns query's prepared statement, preparing it the first time.
// The cache is emptied when it holds maxCachedStmts, as drvconn's is.
func (f *fastPath) stmt(query string) (*fastStmt, error) {
	if st := f.stmts[query]; st != nil {
		return st, nil
	}
	if len(f.stmts) >= maxCachedStmts {
		for q, st := range f.stmts {
			// COM_STMT_CLOSE has no reply.
			var id [4]byte
			binary.LittleEndian.PutUint32(id[:], st.id)
			if err := f.command(0x19, string(id[:])); err != nil {
				return nil, err
			}
			delete(f.stmts, q)
		}
	}
	if err := f.command(0x16, query); err != nil {
		return nil, err
	}
	p, err := f.packet()
	if err != nil {
		return nil, err
	}
	if len(p) < 9 || p[0] != 0 {
		return nil, fmt.Errorf("mysql fast path: unexpected reply to COM_STMT_PREPARE: %x", p[:min(len(p), 16)])
	}
	st := &fastStmt{id: binary.LittleEndian.Uint32(p[1:]), params: int(binary.LittleEndian.Uint16(p[7:]))}
	defs := st.params + int(binary.LittleEndian.Uint16(p[5:]))
	for range defs { // parameter and column definitions, no EOF packets
		if _, err := f.packet(); err != nil {
			return nil, err
		}
	}
	f.stmts[query] = st
	return st, nil
}

// execute sends COM_STMT_EXECUTE and reads the reply.
func (f *fastPath) execute(st *fastStmt, args []any) (int64, error) {
	if len(args) != st.params {
		return 0, fmt.Errorf("expected %d arguments, got %d", st.params, len(args))
	}
	b := append(f.out[:0], 0, 0, 0, 0, 0x17)
	b = binary.LittleEndian.AppendUint32(b, st.id)
	b = append(b, 0, 1, 0, 0, 0) // no cursor, iteration count 1
	if len(args) > 0 {
		nulls := len(b)
		for range (len(args) + 7) / 8 {
			b = append(b, 0)
		}
		types := len(b) + 1
		b = append(b, 1) // types follow; dropped below when unchanged
		for i, a := range args {
			t := byte(0)
			switch a.(type) {
			case nil:
				b[nulls+i/8] |= 1 << (i % 8)
				t = 6 // MYSQL_TYPE_NULL
			case int64, int, int32:
				t = 8 // MYSQL_TYPE_LONGLONG
			case float64:
				t = 5 // MYSQL_TYPE_DOUBLE
			case bool:
				t = 1 // MYSQL_TYPE_TINY
			default:
				t = 0xfe // MYSQL_TYPE_STRING, as go-sql-driver sends strings and bytes
			}
			b = append(b, t, 0)
		}
		if string(b[types:]) == string(st.types) {
			b = b[:types]
			b[types-1] = 0
		} else {
			st.types = append(st.types[:0], b[types:]...)
		}
		for _, a := range args {
			switch v := a.(type) {
			case int64:
				b = binary.LittleEndian.AppendUint64(b, uint64(v))
			case int:
				b = binary.LittleEndian.AppendUint64(b, uint64(v))
			case int32:
				b = binary.LittleEndian.AppendUint64(b, uint64(v))
			case float64:
				b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
			case bool:
				if v {
					b = append(b, 1)
				} else {
					b = append(b, 0)
				}
			case string:
				b = appendLenEnc(b, uint64(len(v)))
				b = append(b, v...)
			case []byte:
				b = appendLenEnc(b, uint64(len(v)))
				b = append(b, v...)
			}
		}
	}
	f.out = b
	if err := f.send(b); err != nil {
		return 0, err
	}
	return f.reply()
}

// reply reads a statement's reply to its end, result after result while the
// server says more follow.
func (f *fastPath) reply() (affected int64, err error) {
	for {
		h, err := f.packet()
		if err != nil {
			return 0, err
		}
		var status uint16
		if h[0] == 0 {
			n, st, ok := okPacket(h)
			if !ok {
				return 0, fmt.Errorf("mysql fast path: short OK packet %x", h)
			}
			affected, status = int64(n), st // the last result's, as drvconn reports
		} else {
			cols, k := lenEnc(h)
			if k == 0 || h[0] == 0xfb {
				return 0, fmt.Errorf("mysql fast path: unexpected result header %x", h[:min(len(h), 16)])
			}
			if len(h) == k || h[k] == 1 { // the column definitions follow
				for range cols {
					if _, err := f.packet(); err != nil {
						return 0, err
					}
				}
			}
			for {
				p, err := f.packet()
				if err != nil {
					return 0, err
				}
				if p[0] == 0xfe && len(p) < 0xffffff { // the closing OK packet
					_, status, _ = okPacket(p)
					break
				}
			}
		}
		if status&0x0008 == 0 { // SERVER_MORE_RESULTS_EXISTS
			return affected, nil
		}
	}
}

// okPacket reads an OK packet (its first byte 0x00, or 0xfe where it
// closes a result set): the affected rows and the status flags, which
// follow the affected rows and the last insert id; ok is false when p is
// too short to hold them.
func okPacket(p []byte) (affected uint64, status uint16, ok bool) {
	n, k := lenEnc(p[1:])
	_, m := lenEnc(p[1+k:])
	if k == 0 || m == 0 || 1+k+m+2 > len(p) {
		return 0, 0, false
	}
	return n, binary.LittleEndian.Uint16(p[1+k+m:]), true
}

// command sends command cmd with payload as one packet (sequence 0).
func (f *fastPath) command(cmd byte, payload string) error {
	f.out = append(f.out[:0], 0, 0, 0, 0, cmd)
	f.out = append(f.out, payload...)
	return f.send(f.out)
}

// send frames and sends b, whose first 4 bytes are room for the header.
func (f *fastPath) send(b []byte) error {
	size := len(b) - 4
	if size >= 0xffffff {
		return errors.New("mysql fast path: a command of 16 MB or more takes the driver's path")
	}
	b[0], b[1], b[2], b[3] = byte(size), byte(size>>8), byte(size>>16), 0
	_, err := f.sock.Write(b)
	return err
}

// packet returns the next packet's payload (a packet of 16 MB or more
// with its continuations), valid until the next call; an error packet is
// returned as *gomysql.MySQLError.
func (f *fastPath) packet() ([]byte, error) {
	var whole []byte
	for {
		for f.w-f.r < 4 {
			if err := f.fill(4); err != nil {
				return nil, err
			}
		}
		size := int(f.buf[f.r]) | int(f.buf[f.r+1])<<8 | int(f.buf[f.r+2])<<16
		if err := f.fill(4 + size); err != nil {
			return nil, err
		}
		p := f.buf[f.r+4 : f.r+4+size]
		f.r += 4 + size
		if size == 0xffffff || whole != nil {
			whole = append(whole, p...)
			if size == 0xffffff {
				continue
			}
			p = whole
		}
		if len(p) == 0 {
			return nil, errors.New("mysql fast path: empty packet")
		}
		if p[0] == 0xff {
			return nil, serverError(p)
		}
		return p, nil
	}
}

// fill reads until buf[r:] holds n bytes, growing buf when it must.
func (f *fastPath) fill(n int) error {
	if f.w-f.r >= n {
		return nil
	}
	if n > len(f.buf) {
		b := make([]byte, n)
		f.w = copy(b, f.buf[f.r:f.w])
		f.r, f.buf = 0, b
	} else if f.r+n > len(f.buf) {
		f.w = copy(f.buf, f.buf[f.r:f.w])
		f.r = 0
	}
	for f.w-f.r < n {
		k, err := f.sock.Read(f.buf[f.w:])
		f.w += k
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
	}
	return nil
}

// serverError decodes an error packet: 0xff, the error number, '#' and the
// SQLSTATE (protocol 4.1), the message.
func serverError(p []byte) error {
	if len(p) < 3 {
		return fmt.Errorf("mysql fast path: short error packet %x", p)
	}
	me := &gomysql.MySQLError{Number: binary.LittleEndian.Uint16(p[1:])}
	msg := p[3:]
	if len(msg) >= 6 && msg[0] == '#' {
		copy(me.SQLState[:], msg[1:6])
		msg = msg[6:]
	}
	me.Message = string(msg)
	return me
}

// appendLenEnc appends n as a length-encoded integer.
func appendLenEnc(b []byte, n uint64) []byte {
	switch {
	case n < 251:
		return append(b, byte(n))
	case n < 1<<16:
		return append(b, 0xfc, byte(n), byte(n>>8))
	case n < 1<<24:
		return append(b, 0xfd, byte(n), byte(n>>8), byte(n>>16))
	}
	return binary.LittleEndian.AppendUint64(append(b, 0xfe), n)
}

// lenEnc reads a length-encoded integer and returns it with its size in
// bytes (0 when b does not hold one).
func lenEnc(b []byte) (uint64, int) {
	if len(b) == 0 {
		return 0, 0
	}
	switch b[0] {
	case 0xfc:
		if len(b) >= 3 {
			return uint64(binary.LittleEndian.Uint16(b[1:])), 3
		}
	case 0xfd:
		if len(b) >= 4 {
			return uint64(b[1]) | uint64(b[2])<<8 | uint64(b[3])<<16, 4
		}
	case 0xfe:
		if len(b) >= 9 {
			return binary.LittleEndian.Uint64(b[1:]), 9
		}
	case 0xfb, 0xff:
	default:
		return uint64(b[0]), 1
	}
	return 0, 0
}

// greetConn is a session's socket that keeps the server's greeting, the
// first packet it reads, for the capabilities the server offers.
type greetConn struct {
	net.Conn
	greeting []byte
	done     bool
}

func (g *greetConn) Read(b []byte) (int, error) {
	n, err := g.Conn.Read(b)
	if !g.done {
		g.greeting = append(g.greeting, b[:n]...)
		if len(g.greeting) >= 4 {
			size := int(g.greeting[0]) | int(g.greeting[1])<<8 | int(g.greeting[2])<<16
			if len(g.greeting) >= 4+size {
				g.greeting = g.greeting[4 : 4+size]
				g.done = true
			}
		}
		if err != nil {
			g.done = true
		}
	}
	return n, err
}

// deprecatesEOF says whether the greeting offers CLIENT_DEPRECATE_EOF:
// protocol version, server version (NUL-terminated), connection id,
// 8 bytes of scramble, a filler, the capabilities' lower 16 bits, the
// character set, the status, their upper 16 bits.
func (g *greetConn) deprecatesEOF() bool {
	p := g.greeting
	if !g.done || len(p) < 1 || p[0] != 10 {
		return false
	}
	end := 1
	for end < len(p) && p[end] != 0 {
		end++
	}
	at := end + 1 + 4 + 8 + 1 // the lower capabilities
	if at+7 > len(p) {
		return false
	}
	upper := binary.LittleEndian.Uint16(p[at+5:])
	return upper&(1<<(24-16)) != 0 // CLIENT_DEPRECATE_EOF is 1<<24
}
