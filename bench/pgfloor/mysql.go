package main

import (
	"context"
	"database/sql/driver"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	neturl "net/url"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/candor-bench/candor/internal/target/blockconn"
)

// The MySQL-wire modes, for a mysql:// URL:
//
//	wire    COM_STMT_EXECUTE written and its result read by hand, on the
//	        socket of a session go-sql-driver opened and then leaves idle;
//	        the parameter's type is sent with the first execution only, as
//	        libmariadb sends it; deliberately not candor's fast path
//	        (internal/target/mysql/fastpath.go), which it is the floor for:
//	        one statement, one INT parameter, nothing general
//	driver  go-sql-driver/mysql's prepared statement (driver.Stmt
//	        QueryContext, Rows.Close), without database/sql
//	conn    candor's MySQL-wire driver (target.Conn.Query; connSession)
const mysqlQuery = "SELECT c FROM sbtest1 WHERE id=?"

// mysqlSession opens one session of mode wire or driver on url.
func mysqlSession(ctx context.Context, url, mode string, id func() int64) (session, error) {
	if mode != "wire" && mode != "driver" {
		return session{}, fmt.Errorf("unknown -mode %q for MySQL wire (wire, driver, conn)", mode)
	}
	cfg, err := mysqlConfig(url)
	if err != nil {
		return session{}, err
	}
	var sock net.Conn
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := blockconn.Dial(ctx, &net.Dialer{}, network, addr)
		sock = c
		return c, err
	}
	connector, err := gomysql.NewConnector(cfg)
	if err != nil {
		return session{}, err
	}
	dc, err := connector.Connect(ctx)
	if err != nil {
		return session{}, err
	}
	if mode == "wire" {
		w := &myWire{c: sock, buf: make([]byte, 16<<10)}
		stmt, err := w.prepare(mysqlQuery)
		if err != nil {
			sock.Close()
			return session{}, err
		}
		return session{close: func() { sock.Close() }, one: func(first bool) error {
			return w.execute(stmt, int32(id()), first)
		}}, nil
	}
	st, err := dc.Prepare(mysqlQuery)
	if err != nil {
		dc.Close()
		return session{}, err
	}
	sq, ok := st.(driver.StmtQueryContext)
	if !ok {
		dc.Close()
		return session{}, errors.New("go-sql-driver's statement has no QueryContext")
	}
	args := []driver.NamedValue{{Ordinal: 1}}
	return session{close: func() { dc.Close() }, one: func(bool) error {
		args[0].Value = id()
		rows, err := sq.QueryContext(ctx, args)
		if err != nil {
			return err
		}
		return rows.Close()
	}}, nil
}

// mysqlConfig is go-sql-driver's configuration for a mysql:// URL.
func mysqlConfig(url string) (*gomysql.Config, error) {
	u, err := neturl.Parse(url)
	if err != nil {
		return nil, err
	}
	cfg := gomysql.NewConfig()
	cfg.User = u.User.Username()
	cfg.Passwd, _ = u.User.Password()
	cfg.Net = "tcp"
	cfg.Addr = u.Host
	cfg.DBName = u.Path[1:]
	return cfg, nil
}

// myWire reads and writes MySQL protocol packets on a session whose
// handshake go-sql-driver made (it asks for CLIENT_DEPRECATE_EOF and, from
// MariaDB, for its result-metadata cache; the reading below assumes both).
type myWire struct {
	c          net.Conn
	buf        []byte
	start, end int // unread bytes of buf
	out        []byte
}

// write sends payload as one command packet (sequence 0).
func (w *myWire) write(payload []byte) error {
	w.out = append(w.out[:0], byte(len(payload)), byte(len(payload)>>8), byte(len(payload)>>16), 0)
	w.out = append(w.out, payload...)
	_, err := w.c.Write(w.out)
	return err
}

// packet returns the next packet's payload, valid until the next call.
func (w *myWire) packet() ([]byte, error) {
	for {
		if n := w.end - w.start; n >= 4 {
			size := int(w.buf[w.start]) | int(w.buf[w.start+1])<<8 | int(w.buf[w.start+2])<<16
			if 4+size > len(w.buf) {
				return nil, fmt.Errorf("a %d-byte packet does not fit the buffer", size)
			}
			if n >= 4+size {
				p := w.buf[w.start+4 : w.start+4+size]
				w.start += 4 + size
				if len(p) > 0 && p[0] == 0xff {
					return nil, fmt.Errorf("server error %d: %s", binary.LittleEndian.Uint16(p[1:]), p[3:])
				}
				return p, nil
			}
		}
		w.end = copy(w.buf, w.buf[w.start:w.end])
		w.start = 0
		k, err := w.c.Read(w.buf[w.end:])
		if k == 0 && err == nil {
			err = io.ErrNoProgress
		}
		if err != nil {
			return nil, err
		}
		w.end += k
	}
}

// prepare sends COM_STMT_PREPARE and returns the statement's id, skipping
// its parameter and column definitions.
func (w *myWire) prepare(query string) (uint32, error) {
	if err := w.write(append([]byte{0x16}, query...)); err != nil {
		return 0, err
	}
	p, err := w.packet()
	if err != nil {
		return 0, err
	}
	if len(p) < 12 || p[0] != 0 {
		return 0, fmt.Errorf("unexpected prepare response %x", p)
	}
	id := binary.LittleEndian.Uint32(p[1:])
	defs := int(binary.LittleEndian.Uint16(p[5:])) + int(binary.LittleEndian.Uint16(p[7:]))
	for range defs {
		if _, err := w.packet(); err != nil {
			return 0, err
		}
	}
	return id, nil
}

// execute runs statement stmt with one INT parameter and reads its result
// to the end: the header (column count, then whether metadata follows),
// the column definitions when they do, the binary rows (each starting with
// 0x00) and the closing OK packet (0xfe).
func (w *myWire) execute(stmt uint32, v int32, types bool) error {
	cmd := binary.LittleEndian.AppendUint32([]byte{0x17}, stmt)
	cmd = append(cmd, 0, 1, 0, 0, 0, 0) // no cursor, iteration count 1, null bitmap
	if types {
		cmd = append(cmd, 1, 3, 0) // new parameters bound: MYSQL_TYPE_LONG, signed
	} else {
		cmd = append(cmd, 0)
	}
	cmd = binary.LittleEndian.AppendUint32(cmd, uint32(v))
	if err := w.write(cmd); err != nil {
		return err
	}
	h, err := w.packet()
	if err != nil {
		return err
	}
	if len(h) < 1 || h[0] > 250 {
		return fmt.Errorf("unexpected result header %x", h)
	}
	if len(h) == 1 || h[1] == 1 { // metadata follows (always, without MariaDB's cache)
		for range int(h[0]) {
			if _, err := w.packet(); err != nil {
				return err
			}
		}
	}
	for {
		p, err := w.packet()
		if err != nil {
			return err
		}
		if len(p) > 0 && p[0] == 0xfe {
			return nil
		}
	}
}
