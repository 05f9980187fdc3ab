package cassandra

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math"
	"net"
	"sort"
	"strconv"
	"strings"
	"unicode"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/candor-bench/candor/internal/target"
)

// ErrConnClosed is returned by a Conn after Close.
var ErrConnClosed = errors.New("cassandra connection is closed")

// Conn is one worker's handle on the target's driver session. Statements
// with a partition key go to a replica of it; the driver prepares each
// SELECT, INSERT, UPDATE, DELETE and BATCH once per node and caches it.
// Exec runs at the write consistency, Query at the read consistency. A
// Conn is used by one goroutine at a time.
type Conn struct {
	t                 *Target
	s                 *gocql.Session // the keyspace's; nil until it exists (Target.Connect)
	read, write, load gocql.Consistency
	closed            bool
	window            int // rows in flight in CopyFrom

	copyKey, copySQL string // CopyFrom's INSERT, for the last table and columns

	// stmts holds a driver Query per statement text run on s, built once
	// with its consistency and reused with new values (Query.Bind): a
	// workload runs the same few statements over and over, and building a
	// Query per operation costs allocations the driver does not need.
	stmts  []stmt
	stmtsS *gocql.Session // the session the cached Queries belong to

	raw  []rawCol
	dest []any
	cols [][]byte
}

var _ target.Conn = (*Conn)(nil)

// Exec implements target.Conn. CQL does not report the rows a write
// touched: Exec returns 1 for INSERT, UPDATE, DELETE and BATCH (every write
// is an upsert or a tombstone) and 0 for other statements, except for a
// lightweight transaction (IF ...), where it returns 1 when it was applied
// and 0 when not.
func (c *Conn) Exec(ctx context.Context, sql string, args ...any) (int64, error) {
	if c.closed {
		return 0, ErrConnClosed
	}
	s, err := c.session(ctx, true)
	if err != nil {
		return 0, err
	}
	if isSchema(sql) {
		return 0, execSchema(ctx, s, sql)
	}
	st := c.stmt(s, sql, c.write)
	iter := st.q.Bind(args...).IterContext(ctx)
	var n int64
	if st.write {
		n = 1
	}
	if cols := iter.Columns(); len(cols) > 0 && cols[0].Name == "[applied]" {
		c.grow(len(cols))
		n = 0
		if iter.Scan(c.dest...) && string(c.raw[0].b) == "true" {
			n = 1
		}
	}
	if err := iter.Close(); err != nil {
		return 0, err
	}
	return n, nil
}

// stmt is a statement text with its driver Query.
type stmt struct {
	sql   string
	q     *gocql.Query
	write bool // isWrite(sql)
}

// maxStmts bounds Conn.stmts: past it, statements get a Query each time
// (a workload runs a handful; a long tail of ad hoc statements is not
// worth keeping).
const maxStmts = 64

// stmt returns the Query for sql on s at consistency cons, from the
// Conn's cache or built (and cached while there is room). Exec and Query
// are the only users, each with its own level, and a text is either a
// write (Exec) or a read (Query) in practice; a text run by both gets one
// entry per level.
func (c *Conn) stmt(s *gocql.Session, sql string, cons gocql.Consistency) *stmt {
	if c.stmtsS != s {
		c.stmts, c.stmtsS = c.stmts[:0], s
	}
	for i := range c.stmts {
		if st := &c.stmts[i]; st.sql == sql && st.q.GetConsistency() == cons {
			return st
		}
	}
	st := stmt{sql: sql, q: s.Query(sql).Consistency(cons), write: isWrite(sql)}
	if len(c.stmts) < maxStmts {
		c.stmts = append(c.stmts, st)
		return &c.stmts[len(c.stmts)-1]
	}
	return &st
}

// isSchema reports whether sql is a CREATE statement (a table, an index,
// a type): what execSchema sends, again after a timeout.
func isSchema(sql string) bool {
	s := strings.TrimLeftFunc(sql, unicode.IsSpace)
	return len(s) > 7 && strings.EqualFold(s[:7], "create ")
}

// isWrite reports whether sql is an INSERT, UPDATE, DELETE or BATCH.
func isWrite(sql string) bool {
	s := strings.TrimLeftFunc(sql, unicode.IsSpace)
	word := s
	if i := strings.IndexFunc(s, unicode.IsSpace); i >= 0 {
		word = s[:i]
	}
	for _, w := range [...]string{"insert", "update", "delete", "begin"} {
		if strings.EqualFold(word, w) {
			return true
		}
	}
	return false
}

// Query implements target.Conn. Values reach fn as text: text, varchar,
// ascii and blob columns as stored; integers in decimal; floating point in
// Go's shortest form; booleans as true/false; UUIDs and addresses in their
// usual notation; other types as the driver formats them into a string.
// Rows come page by page (page_size), the next page fetched while this one
// is read.
func (c *Conn) Query(ctx context.Context, sql string, args []any, fn func(cols [][]byte) error) (int, error) {
	if c.closed {
		return 0, ErrConnClosed
	}
	s, err := c.session(ctx, false)
	if err != nil {
		return 0, err
	}
	iter := c.stmt(s, sql, c.read).q.Bind(args...).IterContext(ctx)
	ncol := len(iter.Columns())
	c.grow(ncol)
	n := 0
	for iter.Scan(c.dest...) {
		if fn == nil {
			continue
		}
		n++
		for i := range c.raw {
			c.cols[i] = c.raw[i].b
		}
		if err := fn(c.cols); err != nil {
			iter.Close()
			return n, err
		}
	}
	if err := iter.Close(); err != nil {
		return n, err
	}
	return n, nil
}

// grow sizes the scan buffers for n columns.
func (c *Conn) grow(n int) {
	if len(c.raw) == n {
		return
	}
	c.raw = make([]rawCol, n)
	c.dest = make([]any, n)
	c.cols = make([][]byte, n)
	for i := range c.raw {
		c.dest[i] = &c.raw[i]
	}
}

// Close implements target.Conn. The shared session stays open until the
// target is closed.
func (c *Conn) Close() error {
	c.closed = true
	return nil
}

// rawCol receives one column's value from the driver as text (see
// Conn.Query); b is nil for NULL. Text and blobs point into the driver's
// frame, valid until the next row.
type rawCol struct {
	b   []byte
	buf []byte
}

// UnmarshalCQL implements gocql.Unmarshaler.
func (r *rawCol) UnmarshalCQL(info gocql.TypeInfo, data []byte) error {
	if data == nil {
		r.b = nil
		return nil
	}
	buf := r.buf[:0]
	switch info.Type() {
	case gocql.TypeVarchar, gocql.TypeText, gocql.TypeAscii, gocql.TypeBlob:
		r.b = data
		return nil
	case gocql.TypeInt:
		if len(data) == 4 {
			buf = strconv.AppendInt(buf, int64(int32(binary.BigEndian.Uint32(data))), 10)
		}
	case gocql.TypeBigInt, gocql.TypeCounter, gocql.TypeTimestamp:
		if len(data) == 8 {
			buf = strconv.AppendInt(buf, int64(binary.BigEndian.Uint64(data)), 10)
		}
	case gocql.TypeSmallInt:
		if len(data) == 2 {
			buf = strconv.AppendInt(buf, int64(int16(binary.BigEndian.Uint16(data))), 10)
		}
	case gocql.TypeTinyInt:
		if len(data) == 1 {
			buf = strconv.AppendInt(buf, int64(int8(data[0])), 10)
		}
	case gocql.TypeBoolean:
		if len(data) == 1 {
			buf = strconv.AppendBool(buf, data[0] != 0)
		}
	case gocql.TypeDouble:
		if len(data) == 8 {
			buf = strconv.AppendFloat(buf, math.Float64frombits(binary.BigEndian.Uint64(data)), 'g', -1, 64)
		}
	case gocql.TypeFloat:
		if len(data) == 4 {
			buf = strconv.AppendFloat(buf, float64(math.Float32frombits(binary.BigEndian.Uint32(data))), 'g', -1, 32)
		}
	case gocql.TypeUUID, gocql.TypeTimeUUID:
		if len(data) == 16 {
			var u gocql.UUID
			copy(u[:], data)
			buf = append(buf, u.String()...)
		}
	case gocql.TypeInet:
		buf = append(buf, net.IP(data).String()...)
	}
	if len(buf) == 0 {
		var s string
		if err := info.Unmarshal(data, &s); err == nil {
			buf = append(buf, s...)
		} else {
			buf = hex.AppendEncode(append(buf, "0x"...), data)
		}
	}
	r.buf = buf
	r.b = buf
	return nil
}

func sortStrings(s []string) { sort.Strings(s) }
