package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/candor-bench/candor/internal/target/targettest"
)

// The fast path renders integer, string, byte and NULL arguments itself and
// returns text for every column but bytea; other arguments, and bytes for a
// bytea parameter, go through pgx. Both give the same answers.
func TestFastPath(t *testing.T) {
	tgt := openTarget(t, testURL(t))
	ctx := context.Background()
	c := targettest.Connect(t, tgt).(*Conn)
	one := func(q string, args ...any) []byte {
		t.Helper()
		var got []byte
		n, err := c.Query(ctx, q, args, func(cols [][]byte) error {
			got = append([]byte(nil), cols[0]...)
			if cols[0] == nil {
				got = nil
			}
			return nil
		})
		if err != nil || n != 1 {
			t.Fatalf("%s %v: %d rows, %v", q, args, n, err)
		}
		return got
	}
	cases := []struct {
		q    string
		args []any
		want string
		fast bool
	}{
		{"SELECT 41 + $1::int", []any{1}, "42", true}, // int column as text
		{"SELECT $1::bigint * 2", []any{int64(-4611686018427387904)}, "-9223372036854775808", true},
		{"SELECT $1::text || '!'", []any{"tab\there"}, "tab\there!", true},
		{"SELECT $1::varchar", []any{[]byte("bytes for text")}, "bytes for text", true},
		{"SELECT octet_length($1::bytea)::text", []any{[]byte{0, 1, 2, '\\'}}, "4", false}, // bytea parameter: pgx
		{"SELECT ($1::float8 / 2)::text", []any{3.0}, "1.5", false},                        // float argument: pgx
		{"SELECT length($1::text)", []any{"é"}, "1", true},
	}
	for _, tc := range cases {
		before := len(c.fast)
		got := string(one(tc.q, tc.args...))
		if got != tc.want {
			t.Errorf("%s %v = %q, want %q", tc.q, tc.args, got, tc.want)
		}
		if fast := c.tookFastPath(tc.q, tc.args); fast != tc.fast {
			t.Errorf("%s: fast path %v, want %v (cache %d -> %d)", tc.q, fast, tc.fast, before, len(c.fast))
		}
	}
	// NULL in, NULL out; bytea out as raw bytes.
	if got := one("SELECT $1::text", nil); got != nil {
		t.Errorf("NULL argument came back as %q", got)
	}
	if got := one("SELECT decode('00ff5c', 'hex') || $1::bytea", "x"); string(got) != "\x00\xff\\x" {
		t.Errorf("bytea column = %q, want its raw bytes", got)
	}
	// Exec reports rows affected on the fast path.
	table := targettest.TableName("fastpath")
	if _, err := c.Exec(ctx, "CREATE TABLE "+table+" (id int primary key, v text)"); err != nil {
		t.Fatal(err)
	}
	defer c.Exec(context.Background(), "DROP TABLE "+table)
	if n, err := c.Exec(ctx, "INSERT INTO "+table+" SELECT g, 'x' FROM generate_series(1, $1::int) g", 5); err != nil || n != 5 {
		t.Fatalf("insert: %d rows, %v", n, err)
	}
	if n, err := c.Exec(ctx, "UPDATE "+table+" SET v = $1 WHERE id <= $2", "y", 3); err != nil || n != 3 {
		t.Fatalf("update: %d rows, %v", n, err)
	}
	// An error from fn stops the query; the session goes on.
	stop := errors.New("stop")
	n, err := c.Query(ctx, "SELECT id FROM "+table+" WHERE id > $1 ORDER BY id", []any{0}, func([][]byte) error { return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Fatalf("fn error: %d rows, %v", n, err)
	}
	if got := one("SELECT count(*)::text FROM "+table+" WHERE v = $1", "y"); string(got) != "3" {
		t.Fatalf("after a stopped query: %q", got)
	}
	// More distinct statements than the cache holds: it is emptied, not grown.
	for i := 0; i < maxFastStmts+10; i++ {
		if got := one(fmt.Sprintf("SELECT $1::int + %d", i), 1); string(got) != fmt.Sprint(i+1) {
			t.Fatalf("statement %d = %q", i, got)
		}
	}
	if len(c.fast) > maxFastStmts {
		t.Errorf("fast-path cache holds %d statements, bound %d", len(c.fast), maxFastStmts)
	}
	// The statement found last, and one the emptied cache dropped, run
	// again, in turn and twice in a row (the one-statement cache).
	for _, i := range []int{maxFastStmts + 9, 0, 0, maxFastStmts + 9, maxFastStmts + 9, 0} {
		if got := one(fmt.Sprintf("SELECT $1::int + %d", i), 2); string(got) != fmt.Sprint(i+2) {
			t.Fatalf("statement %d again = %q", i, got)
		}
	}
}

// On the fast path a prepared statement runs as Bind, Execute and Sync: the
// session knows the result's columns from preparing it, so it sends no
// Describe and the server sends no RowDescription each time, as pgx does
// for the statements it caches (libpq describes every execution).
func TestFastPathSendsNoDescribe(t *testing.T) {
	tgt := openTarget(t, testURL(t))
	ctx := context.Background()
	c := targettest.Connect(t, tgt).(*Conn)
	q := "SELECT $1::int * 2, decode('ff', 'hex')"
	run := func() {
		t.Helper()
		var got [2]string
		if _, err := c.Query(ctx, q, []any{21}, func(cols [][]byte) error {
			got[0], got[1] = string(cols[0]), string(cols[1])
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if got != [2]string{"42", "\xff"} {
			t.Fatalf("%s = %q, want 42 as text and the bytea raw", q, got)
		}
	}
	run() // prepares
	var trace strings.Builder
	fe := c.pc.PgConn().Frontend()
	fe.Trace(&trace, pgproto3.TracerOptions{SuppressTimestamps: true})
	run()
	fe.Untrace()
	for _, want := range []string{"Bind", "Execute", "DataRow"} {
		if !strings.Contains(trace.String(), want) {
			t.Errorf("no %s in the trace:\n%s", want, trace.String())
		}
	}
	for _, unwanted := range []string{"Describe", "RowDescription", "Parse"} {
		if strings.Contains(trace.String(), unwanted) {
			t.Errorf("%s sent for a prepared statement:\n%s", unwanted, trace.String())
		}
	}
}

// tookFastPath reports whether q with args ran on the fast path: q is
// prepared there and args render.
func (c *Conn) tookFastPath(q string, args []any) bool {
	d, ok := c.fast[q]
	return ok && c.fastParams(d, args)
}

// A statement without arguments goes as plain text (the simple query
// protocol): nothing is prepared in the session, whether it returns rows
// (Query) or not (Exec), and every column but bytea comes back as text. sysbench's
// --db-ps-mode=disable relies on it.
func TestNoArgumentsArePlainText(t *testing.T) {
	tgt := openTarget(t, testURL(t))
	ctx := context.Background()
	c := targettest.Connect(t, tgt).(*Conn)
	for i := 0; i < 3; i++ {
		var got string
		if _, err := c.Query(ctx, fmt.Sprintf("SELECT %d + 1", 40+i), nil, func(cols [][]byte) error { got = string(cols[0]); return nil }); err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprint(41 + i); got != want {
			t.Errorf("SELECT %d + 1 = %q, want %q as text", 40+i, got, want)
		}
		if _, err := c.Exec(ctx, fmt.Sprintf("SELECT %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	// bytea comes back as its raw bytes, as on the other paths.
	var raw []byte
	if _, err := c.Query(ctx, "SELECT decode('00ff5c', 'hex'), NULL::bytea", nil, func(cols [][]byte) error {
		raw = append([]byte(nil), cols[0]...)
		if cols[1] != nil {
			t.Errorf("NULL bytea came back as %q", cols[1])
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if string(raw) != "\x00\xff\\" {
		t.Errorf("bytea without arguments = %q, want its raw bytes", raw)
	}
	var prepared string
	if _, err := c.Query(ctx, "SELECT count(*)::text FROM pg_prepared_statements", nil, func(cols [][]byte) error { prepared = string(cols[0]); return nil }); err != nil {
		t.Fatal(err)
	}
	if prepared != "0" {
		t.Errorf("%s statements prepared in the session after statements without arguments, want 0", prepared)
	}
}

// ExecPrepared runs a statement without arguments as a prepared statement,
// as sysbench runs its BEGIN and COMMIT: prepared once per session, then
// executed with Bind (pgx describes the portal of a statement that returns
// no rows, as libpq does), and the rows affected come back as from Exec.
func TestExecPrepared(t *testing.T) {
	tgt := openTarget(t, testURL(t))
	ctx := context.Background()
	c := targettest.Connect(t, tgt).(*Conn)
	if _, err := c.Exec(ctx, "CREATE TEMPORARY TABLE prep (x int); INSERT INTO prep VALUES (1), (2), (3)"); err != nil {
		t.Fatal(err)
	}
	run := func(q string) int64 {
		t.Helper()
		n, err := c.ExecPrepared(ctx, q)
		if err != nil {
			t.Fatalf("ExecPrepared(%q): %v", q, err)
		}
		return n
	}
	run("BEGIN")
	run("COMMIT")
	var trace strings.Builder
	fe := c.pc.PgConn().Frontend()
	fe.Trace(&trace, pgproto3.TracerOptions{SuppressTimestamps: true})
	run("BEGIN")
	n := run("UPDATE prep SET x = x + 1")
	run("COMMIT")
	fe.Untrace()
	if n != 3 {
		t.Errorf("UPDATE of 3 rows reported %d", n)
	}
	if got := strings.Count(trace.String(), "F\tBind"); got != 3 {
		t.Errorf("%d Binds for 3 prepared executions:\n%s", got, trace.String())
	}
	if strings.Contains(trace.String(), "F\tQuery") {
		t.Errorf("a simple Query sent by ExecPrepared:\n%s", trace.String())
	}
	if got := strings.Count(trace.String(), "F\tParse"); got != 1 {
		t.Errorf("%d Parses, want 1 (BEGIN and COMMIT prepared before):\n%s", got, trace.String())
	}
}
