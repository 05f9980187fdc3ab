package mysql

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strings"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"
)

func TestFastArgs(t *testing.T) {
	for _, c := range []struct {
		args []any
		want bool
	}{
		{[]any{int64(1), "x", []byte("y"), nil, 1.5, true, 3, int32(4)}, true},
		{[]any{uint64(1)}, false}, // the driver's path converts what is not listed
		{[]any{strings.Repeat("x", fastArgsMax)}, false},
	} {
		if got := fastArgs(c.args); got != c.want {
			t.Errorf("fastArgs(%.40v) = %t, want %t", c.args, got, c.want)
		}
	}
}

func TestLenEnc(t *testing.T) {
	for _, n := range []uint64{0, 250, 251, 65535, 65536, 1<<24 - 1, 1 << 24, 1 << 40} {
		b := appendLenEnc([]byte{}, n)
		got, k := lenEnc(b)
		if got != n || k != len(b) {
			t.Errorf("%d: encoded %x, read back %d in %d bytes", n, b, got, k)
		}
	}
	for _, b := range [][]byte{nil, {0xfb}, {0xff}, {0xfc, 1}, {0xfe, 1, 2}} {
		if _, k := lenEnc(b); k != 0 {
			t.Errorf("lenEnc(%x) read %d bytes, want none", b, k)
		}
	}
}

func TestServerError(t *testing.T) {
	err := serverError(append([]byte{0xff, 0x26, 0x04, '#', '2', '3', '0', '0', '0'}, "Duplicate entry '1' for key 'PRIMARY'"...))
	var me *gomysql.MySQLError
	if !errors.As(err, &me) || me.Number != 1062 || string(me.SQLState[:]) != "23000" || me.Message != "Duplicate entry '1' for key 'PRIMARY'" {
		t.Errorf("decoded %#v", err)
	}
	if Classify(err) != "constraint" {
		t.Errorf("a duplicate key from the fast path classifies as %q", Classify(err))
	}
}

// greeting builds a HandshakeV10 payload offering caps.
func greeting(caps uint32) []byte {
	p := append([]byte{10}, "10.11.19-MariaDB\x00"...)
	p = append(p, 1, 0, 0, 0)        // connection id
	p = append(p, "12345678\x00"...) // scramble, filler
	p = binary.LittleEndian.AppendUint16(p, uint16(caps))
	p = append(p, 45, 2, 0) // character set, status
	p = binary.LittleEndian.AppendUint16(p, uint16(caps>>16))
	return append(p, 21, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
}

func TestGreetingCapabilities(t *testing.T) {
	for _, c := range []struct {
		caps uint32
		want bool
	}{{1<<24 | 1<<9, true}, {1 << 9, false}} {
		p := greeting(c.caps)
		wire := append([]byte{byte(len(p)), byte(len(p) >> 8), 0, 0}, p...)
		server, client := net.Pipe()
		go func() { server.Write(wire[:5]); server.Write(wire[5:]); server.Close() }()
		g := &greetConn{Conn: client}
		if _, err := io.ReadAll(g); err != nil {
			t.Fatal(err)
		}
		if got := g.deprecatesEOF(); got != c.want {
			t.Errorf("capabilities %#x: deprecatesEOF %t, want %t", c.caps, got, c.want)
		}
	}
	if (&greetConn{}).deprecatesEOF() {
		t.Error("no greeting read, and yet CLIENT_DEPRECATE_EOF")
	}
}

// scripted is a server end that answers each command with the next reply,
// and keeps the commands.
type scripted struct {
	net.Conn
	replies  [][][]byte // per command, its packets' payloads
	commands [][]byte
}

func (s *scripted) serve(t *testing.T) {
	for _, reply := range s.replies {
		var h [4]byte
		if _, err := io.ReadFull(s.Conn, h[:]); err != nil {
			t.Error(err)
			return
		}
		cmd := make([]byte, int(h[0])|int(h[1])<<8|int(h[2])<<16)
		if _, err := io.ReadFull(s.Conn, cmd); err != nil {
			t.Error(err)
			return
		}
		s.commands = append(s.commands, cmd)
		var out []byte
		for i, p := range reply {
			out = append(out, byte(len(p)), byte(len(p)>>8), byte(len(p)>>16), byte(i+1))
			out = append(out, p...)
		}
		if _, err := s.Conn.Write(out); err != nil {
			t.Error(err)
			return
		}
	}
}

// TestFastPathProtocol: the commands the fast path sends and how it reads
// OK packets, result sets with and without their metadata, and errors.
func TestFastPathProtocol(t *testing.T) {
	prepareOK := []byte{0, 7, 0, 0, 0, 1, 0, 2, 0, 0, 0, 0} // statement 7, 1 column, 2 parameters
	def := []byte("\x03def\x00\x00\x00\x01c\x00\x0c\x08\x00\x78\x00\x00\x00\xfe\x00\x00\x00\x00\x00")
	eof := []byte{0xfe, 0, 0, 2, 0, 0, 0}
	row := []byte{0, 0, 3, 'a', 'b', 'c'}
	server, client := net.Pipe()
	s := &scripted{Conn: server, replies: [][][]byte{
		{prepareOK, def, def, def},                         // COM_STMT_PREPARE: 2 parameters, 1 column
		{{1, 1}, def, row, row, eof},                       // a result set with its metadata
		{{1, 0}, row, eof},                                 // ... without (MariaDB's cache)
		{{0, 3, 0, 2, 0, 0, 0}},                            // an OK packet: 3 rows affected
		{append([]byte{0xff, 0x26, 0x04}, "#23000dup"...)}, // an error
	}}
	done := make(chan struct{})
	go func() { s.serve(t); close(done) }()
	f := newFastPath(client)
	for i, want := range []int64{0, 0, 3} {
		args := []any{int64(5), "x"}
		if i == 2 {
			args = []any{nil, "x"} // a NULL: the types change and are sent again
		}
		n, err := f.exec("SELECT c FROM t WHERE id=? AND k=?", args)
		if err != nil || n != want {
			t.Fatalf("execution %d: %d, %v; want %d", i+1, n, err, want)
		}
	}
	_, err := f.exec("SELECT c FROM t WHERE id=? AND k=?", []any{int64(5), "x"})
	var me *gomysql.MySQLError
	if !errors.As(err, &me) || me.Number != 1062 || f.broken != nil {
		t.Errorf("error packet: %v (broken: %v), want error 1062 and the session usable", err, f.broken)
	}
	client.Close()
	<-done
	if len(s.commands) != 5 || !bytes.Equal(s.commands[0], append([]byte{0x16}, "SELECT c FROM t WHERE id=? AND k=?"...)) {
		t.Fatalf("commands %q", s.commands)
	}
	head := []byte{0x17, 7, 0, 0, 0, 0, 1, 0, 0, 0}
	first := append(append([]byte{}, head...), 0, 1, 8, 0, 0xfe, 0, 5, 0, 0, 0, 0, 0, 0, 0, 1, 'x')
	again := append(append([]byte{}, head...), 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 1, 'x')
	withNull := append(append([]byte{}, head...), 1, 1, 6, 0, 0xfe, 0, 1, 'x')
	for i, want := range [][]byte{first, again, withNull} {
		if !bytes.Equal(s.commands[i+1], want) {
			t.Errorf("execution %d sent %x, want %x", i+1, s.commands[i+1], want)
		}
	}
	// The socket is gone: the fast path reports the session lost from then on.
	if _, err := f.exec("SELECT 1", nil); err == nil || f.broken == nil {
		t.Errorf("on a closed socket: %v", err)
	}
}

// TestFastPathMoreResults: a reply of several results (a procedure's, say)
// is read to its end, following the status flags of its OK packets, and the
// affected rows are the last result's.
func TestFastPathMoreResults(t *testing.T) {
	prepareOK := []byte{0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0} // statement 9, no columns, no parameters
	server, client := net.Pipe()
	s := &scripted{Conn: server, replies: [][][]byte{
		{prepareOK},
		{
			{0, 1, 0, 0x08, 0, 0, 0},                   // OK, 1 row, more results follow
			{1, 1}, {3, 'd', 'e', 'f'}, {0, 0, 1, 'x'}, // a result set ...
			{0xfe, 0, 0, 0x0a, 0, 0, 0}, //          ... whose closing OK says more follow
			{0, 4, 0, 0x02, 0, 0, 0},    // the last OK: 4 rows
		},
		{{0, 9, 0, 0x02, 0, 0, 0}},
	}}
	done := make(chan struct{})
	go func() { s.serve(t); close(done) }()
	f := newFastPath(client)
	for _, want := range []int64{4, 9} {
		if n, err := f.exec("CALL p()", nil); err != nil || n != want {
			t.Errorf("%d, %v; want %d", n, err, want)
		}
	}
	client.Close()
	<-done
}
