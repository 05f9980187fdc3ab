package drvconn

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sqlitedrv "modernc.org/sqlite"
)

// open returns a Conn on a fresh SQLite file, closed when the test ends.
func open(t *testing.T, opts Options) *Conn {
	t.Helper()
	connector, err := sqlitedrv.NewConnector(filepath.Join(t.TempDir(), "test.db"))
	if err != nil {
		t.Fatal(err)
	}
	dc, err := connector.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	c := New(dc, opts)
	t.Cleanup(func() { c.Close() })
	return c
}

// rows runs a query and returns its rows, a NULL as nil, values copied.
func rows(t *testing.T, c *Conn, q string, args ...any) [][][]byte {
	t.Helper()
	var out [][][]byte
	_, err := c.Query(context.Background(), q, args, func(cols [][]byte) error {
		row := make([][]byte, len(cols))
		for i, v := range cols {
			if v != nil {
				row[i] = append([]byte{}, v...)
			}
		}
		out = append(out, row)
		return nil
	})
	if err != nil {
		t.Fatalf("Query(%q): %v", q, err)
	}
	return out
}

func mustExec(t *testing.T, c *Conn, q string, args ...any) int64 {
	t.Helper()
	n, err := c.Exec(context.Background(), q, args...)
	if err != nil {
		t.Fatalf("Exec(%q): %v", q, err)
	}
	return n
}

// show renders a value for messages: NULL, or the value quoted.
func show(v []byte) string {
	if v == nil {
		return "NULL"
	}
	return fmt.Sprintf("%q", v)
}

// table renders rows for comparison: each value as show renders it.
func table(rows [][][]byte) string {
	var out []string
	for _, r := range rows {
		cols := make([]string, len(r))
		for i, v := range r {
			cols[i] = show(v)
		}
		out = append(out, "["+strings.Join(cols, " ")+"]")
	}
	return strings.Join(out, " ")
}

// Values SQLite returns, as text, through a plain and a prepared query:
// what database/sql scanned into sql.RawBytes, except that empty values are
// never NULL.
func TestSQLiteValues(t *testing.T) {
	cases := []struct {
		expr string
		want []byte // nil: NULL
	}{
		{"NULL", nil},
		{"42", []byte("42")},
		{"-7", []byte("-7")},
		{"9223372036854775807", []byte("9223372036854775807")},
		{"-9223372036854775808", []byte("-9223372036854775808")},
		{"1.5", []byte("1.5")},
		{"0.1", []byte("0.1")},
		{"-2.5e-7", []byte("-2.5e-07")}, // Go's 'g' form: two exponent digits at least
		{"1e20", []byte("1e+20")},       // SQLite's own text would be 1.0e+20
		{"2.0", []byte("2")},            // a whole real has no ".0", as with database/sql
		{"'héllo'", []byte("héllo")},
		{"''", []byte{}},             // empty text is not NULL
		{"X'00FF'", []byte{0, 0xff}}, // blob bytes as stored
		{"X''", []byte{}},            // empty blob is not NULL (database/sql made it nil)
	}
	for _, prepare := range []bool{false, true} {
		c := open(t, Options{MaxStmts: 8, PrepareQueries: prepare})
		for _, tc := range cases {
			got := rows(t, c, "SELECT "+tc.expr)
			if len(got) != 1 || len(got[0]) != 1 {
				t.Fatalf("SELECT %s: %v", tc.expr, got)
			}
			v := got[0][0]
			if (v == nil) != (tc.want == nil) || string(v) != string(tc.want) {
				t.Errorf("prepare=%v: SELECT %s = %s, want %s", prepare, tc.expr, show(v), show(tc.want))
			}
		}
	}
}

// A column declared DATETIME holds text the driver turns into time.Time;
// it reads back in RFC 3339, as database/sql rendered it.
func TestSQLiteTimes(t *testing.T) {
	c := open(t, Options{MaxStmts: 8, PrepareQueries: true})
	mustExec(t, c, "CREATE TABLE t (d DATETIME, s TEXT)")
	mustExec(t, c, "INSERT INTO t VALUES ('2024-01-02 03:04:05.5', '2024-01-02 03:04:05.5'), ('not a time', NULL)")
	got := table(rows(t, c, "SELECT d, s FROM t ORDER BY rowid"))
	want := `["2024-01-02T03:04:05.5Z" "2024-01-02 03:04:05.5"] ["not a time" NULL]`
	if got != want {
		t.Errorf("rows = %s, want %s", got, want)
	}
}

// text renders each driver value type as database/sql renders it into
// sql.RawBytes.
func TestText(t *testing.T) {
	cases := []struct {
		v    driver.Value
		want string // "NULL" for nil
	}{
		{nil, "NULL"},
		{int64(-12), "-12"},
		{uint64(18446744073709551615), "18446744073709551615"}, // go-sql-driver: BIGINT UNSIGNED, text protocol
		{float64(0.1), "0.1"},
		{float64(1e100), "1e+100"},
		{float32(3.1415927), "3.1415927"}, // go-sql-driver: FLOAT, shortest float32 form
		{float32(0.1), "0.1"},             // not 0.10000000149011612
		{true, "true"},
		{false, "false"},
		{"txt", "txt"},
		{[]byte("raw"), "raw"},
		{time.Date(2024, 1, 2, 3, 4, 5, 600, time.FixedZone("", 3600)), "2024-01-02T03:04:05.0000006+01:00"},
		{time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC), "2024-01-02T03:04:05Z"},
	}
	for _, tc := range cases {
		b, err := text(nil, tc.v)
		got := "NULL"
		if b != nil {
			got = string(b)
		}
		if err != nil || got != tc.want {
			t.Errorf("text(%T %v) = %q, %v; want %q", tc.v, tc.v, got, err, tc.want)
		}
	}
	// Zero-length values are empty, not NULL.
	for _, v := range []driver.Value{"", []byte{}, []byte(nil)} {
		if b, err := text(nil, v); b == nil || len(b) != 0 || err != nil {
			t.Errorf("text(%#v) = %#v, %v; want an empty non-nil slice", v, b, err)
		}
	}
	// Types no driver returns are an error, not a guess.
	if _, err := text(nil, struct{}{}); err == nil {
		t.Error("text(struct{}{}) succeeded")
	}
	// The buffer is appended to, so it is reused.
	buf := make([]byte, 0, 16)
	if b, _ := text(buf, int64(7)); &b[0] != &buf[:1][0] {
		t.Error("text did not append to the buffer it was given")
	}
}

// The cache is emptied, not grown, past its bound; statements keep working.
func TestStatementCacheBound(t *testing.T) {
	c := open(t, Options{MaxStmts: 4})
	for i := 0; i < 10; i++ {
		q := fmt.Sprintf("SELECT ? + %d", i)
		if got := rows(t, c, q, 1); string(got[0][0]) != fmt.Sprint(i+1) {
			t.Fatalf("%s = %q", q, got)
		}
		if want := i%4 + 1; c.Cached() != want {
			t.Fatalf("after %d statements the cache holds %d, want %d", i+1, c.Cached(), want)
		}
	}
	// A cached statement is reused, not prepared again.
	rows(t, c, "SELECT ? + 9", 1)
	if c.Cached() != 2 {
		t.Errorf("cache holds %d after reusing a statement, want 2", c.Cached())
	}
}

// Without PrepareQueries, statements without arguments go to the
// connection directly (several may go at once) and only statements with
// arguments are cached; with it, every statement is.
func TestPrepareQueries(t *testing.T) {
	c := open(t, Options{MaxStmts: 8})
	mustExec(t, c, "CREATE TABLE a (x INTEGER); CREATE TABLE b (y INTEGER)")
	if n := mustExec(t, c, "INSERT INTO a VALUES (1), (2), (3)"); n != 3 {
		t.Errorf("INSERT of 3 rows reported %d", n)
	}
	rows(t, c, "SELECT count(*) FROM a")
	if c.Cached() != 0 {
		t.Errorf("plain statements were cached: %d", c.Cached())
	}
	rows(t, c, "SELECT x FROM a WHERE x > ?", 1)
	mustExec(t, c, "INSERT INTO b VALUES (?)", 1)
	if c.Cached() != 2 {
		t.Errorf("statements with arguments: cache holds %d, want 2", c.Cached())
	}

	p := open(t, Options{MaxStmts: 8, PrepareQueries: true})
	mustExec(t, p, "CREATE TABLE a (x INTEGER); CREATE TABLE b (y INTEGER)")
	mustExec(t, p, "INSERT INTO a VALUES (1)")
	if got := rows(t, p, "SELECT count(*) FROM a"); string(got[0][0]) != "1" {
		t.Errorf("count = %q", got)
	}
	if p.Cached() != 3 {
		t.Errorf("PrepareQueries: cache holds %d, want 3", p.Cached())
	}
	// The cached multi-statement text runs again.
	mustExec(t, p, "DROP TABLE a; DROP TABLE b")
	mustExec(t, p, "CREATE TABLE a (x INTEGER); CREATE TABLE b (y INTEGER)")
	if got := rows(t, p, "SELECT count(*) FROM a"); string(got[0][0]) != "0" {
		t.Errorf("count after re-creating the tables = %q", got)
	}
}

// ExecPrepared prepares a statement without arguments, which Exec would
// send as plain text, caches it and reports the rows it affected.
func TestExecPrepared(t *testing.T) {
	c := open(t, Options{MaxStmts: 8})
	mustExec(t, c, "CREATE TABLE a (x INTEGER); INSERT INTO a VALUES (1), (2)")
	ctx := context.Background()
	for i := 1; i <= 2; i++ {
		n, err := c.ExecPrepared(ctx, "UPDATE a SET x = x + 1")
		if err != nil {
			t.Fatal(err)
		}
		if n != 2 {
			t.Errorf("UPDATE of 2 rows reported %d", n)
		}
		if c.Cached() != 1 {
			t.Errorf("after %d executions the cache holds %d, want 1", i, c.Cached())
		}
	}
	if got := table(rows(t, c, "SELECT x FROM a ORDER BY x")); got != `["3"] ["4"]` {
		t.Errorf("rows after two updates: %s", got)
	}
	c.Close()
	if _, err := c.ExecPrepared(ctx, "UPDATE a SET x = 0"); !errors.Is(err, ErrConnDone) {
		t.Errorf("ExecPrepared after Close: %v, want ErrConnDone", err)
	}
}

// An error from fn stops the query after that row and comes back as is;
// the connection stays usable, for writes too (the rows were closed).
func TestFnErrorStops(t *testing.T) {
	for _, prepare := range []bool{false, true} {
		c := open(t, Options{MaxStmts: 8, PrepareQueries: prepare})
		mustExec(t, c, "CREATE TABLE t (x INTEGER)")
		mustExec(t, c, "INSERT INTO t VALUES (1), (2), (3), (4), (5)")
		stop := errors.New("stop")
		calls := 0
		n, err := c.Query(context.Background(), "SELECT x FROM t ORDER BY x", nil, func([][]byte) error {
			if calls++; calls == 3 {
				return stop
			}
			return nil
		})
		if !errors.Is(err, stop) || n != 3 || calls != 3 {
			t.Errorf("prepare=%v: n=%d calls=%d err=%v, want 3, 3, stop", prepare, n, calls, err)
		}
		if n := mustExec(t, c, "DELETE FROM t"); n != 5 {
			t.Errorf("prepare=%v: DELETE after a stopped query: %d rows", prepare, n)
		}
	}
}

// Column buffers are reused across rows and queries, and a query with more
// columns than the last one works.
func TestColumnsChange(t *testing.T) {
	c := open(t, Options{MaxStmts: 8})
	if got := rows(t, c, "SELECT 1"); len(got[0]) != 1 {
		t.Fatal(got)
	}
	got := table(rows(t, c, "SELECT 'a', 2, NULL UNION ALL SELECT 'bb', 30, 4.5"))
	if want := `["a" "2" NULL] ["bb" "30" "4.5"]`; got != want {
		t.Errorf("rows = %s, want %s", got, want)
	}
	if got := rows(t, c, "SELECT 7"); string(got[0][0]) != "7" {
		t.Errorf("fewer columns again: %q", got)
	}
}

// Arguments convert as database/sql converts them.
func TestArgs(t *testing.T) {
	c := open(t, Options{MaxStmts: 8})
	cases := []struct {
		arg  any
		want []byte // nil: NULL
	}{
		{int(5), []byte("5")},
		{int32(-3), []byte("-3")},
		{uint8(200), []byte("200")},
		{"s", []byte("s")},
		{[]byte{1, 2}, []byte{1, 2}},
		{true, []byte("1")}, // SQLite stores a bool as an integer
		{nil, nil},
		{1.25, []byte("1.25")},
	}
	for _, tc := range cases {
		got := rows(t, c, "SELECT ?", tc.arg)[0][0]
		if (got == nil) != (tc.want == nil) || string(got) != string(tc.want) {
			t.Errorf("SELECT ? with %T %v = %s, want %s", tc.arg, tc.arg, show(got), show(tc.want))
		}
	}
	// A type nothing converts is an error naming it.
	if _, err := c.Exec(context.Background(), "SELECT ?", struct{}{}); err == nil || !strings.Contains(err.Error(), "struct {}") {
		t.Errorf("Exec with a struct argument: %v", err)
	}
}

// Close ends the session once; later calls return nil again, and
// statements fail with ErrConnDone, a lost connection.
func TestCloseTwice(t *testing.T) {
	c := open(t, Options{MaxStmts: 8})
	rows(t, c, "SELECT ?", 1)
	if err := c.Close(); err != nil {
		t.Errorf("first Close: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := c.Exec(context.Background(), "SELECT 1"); !errors.Is(err, ErrConnDone) || !errors.Is(err, driver.ErrBadConn) {
		t.Errorf("Exec after Close = %v, want ErrConnDone", err)
	}
	if _, err := c.Query(context.Background(), "SELECT 1", nil, func([][]byte) error { return nil }); !errors.Is(err, ErrConnDone) {
		t.Errorf("Query after Close = %v, want ErrConnDone", err)
	}
}

// A cancellable context still cancels on SQLite: before a statement, while
// it runs, and between rows.
func TestSQLiteCancel(t *testing.T) {
	c := open(t, Options{MaxStmts: 8, PrepareQueries: true})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Exec(ctx, "SELECT 1"); !errors.Is(err, context.Canceled) {
		t.Errorf("Exec under a cancelled context = %v", err)
	}

	const long = "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT count(*) FROM (SELECT x FROM n LIMIT 1000000000)"
	for _, run := range []func(ctx context.Context) error{
		func(ctx context.Context) error { _, err := c.Exec(ctx, long); return err },
		func(ctx context.Context) error {
			_, err := c.Query(ctx, long, nil, func([][]byte) error { return nil })
			return err
		},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		t0 := time.Now()
		err := run(ctx)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(t0) > 5*time.Second {
			t.Errorf("long statement under a 100 ms deadline: %v after %v", err, time.Since(t0))
		}
	}

	ctx, cancel = context.WithCancel(context.Background())
	calls := 0
	n, err := c.Query(ctx, "SELECT x FROM (WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT x FROM n LIMIT 100)", nil,
		func([][]byte) error {
			if calls++; calls == 2 {
				cancel()
			}
			return nil
		})
	if !errors.Is(err, context.Canceled) || n != 2 {
		t.Errorf("query cancelled in its second row: n=%d err=%v, want 2, canceled", n, err)
	}
	// The connection survives.
	if got := rows(t, c, "SELECT 1"); string(got[0][0]) != "1" {
		t.Errorf("after cancellations: %q", got)
	}
}

// fakeConn is a driver connection whose statements and checks the tests
// script.
type fakeConn struct {
	execErr  error // returned by every ExecContext
	closeErr error // returned by Close
	execs    int
	closes   int
	checked  []driver.NamedValue // the arguments the last statement received
	convert  bool                // implement NamedValueChecker on the connection
	nexts    int                 // Rows.Next calls, EOF included
	rowsDone int                 // Rows.Close calls
}

func (f *fakeConn) Prepare(q string) (driver.Stmt, error) { return &fakeStmt{c: f, q: q}, nil }
func (f *fakeConn) Begin() (driver.Tx, error)             { return nil, errors.New("no transactions") }
func (f *fakeConn) Close() error                          { f.closes++; return f.closeErr }

func (f *fakeConn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	f.execs++
	if f.execErr != nil {
		return nil, f.execErr
	}
	return driver.RowsAffected(1), nil
}

type fakeStmt struct {
	c *fakeConn
	q string
}

func (s *fakeStmt) Close() error  { return nil }
func (s *fakeStmt) NumInput() int { return -1 }
func (s *fakeStmt) Exec([]driver.Value) (driver.Result, error) {
	return nil, errors.New("deprecated Exec called")
}
func (s *fakeStmt) Query([]driver.Value) (driver.Rows, error) {
	return nil, errors.New("deprecated Query called")
}

// QueryContext returns three rows of one column.
func (s *fakeStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	return &fakeRows{c: s.c, left: 3}, nil
}

type fakeRows struct {
	c    *fakeConn
	left int
}

func (r *fakeRows) Columns() []string { return []string{"x"} }
func (r *fakeRows) Close() error      { r.c.rowsDone++; return nil }
func (r *fakeRows) Next(dest []driver.Value) error {
	r.c.nexts++
	if r.left == 0 {
		return io.EOF
	}
	r.left--
	dest[0] = []byte("v")
	return nil
}

func (s *fakeStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	s.c.execs++
	s.c.checked = args
	if s.c.execErr != nil {
		return nil, s.c.execErr
	}
	return driver.RowsAffected(int64(len(args))), nil
}

// CheckNamedValue: strings starting with "skip" go to the default
// converter, "drop" is removed, "upper:" values are upper-cased, anything
// else is refused (so the default converter never sees it).
func (s *fakeStmt) CheckNamedValue(nv *driver.NamedValue) error {
	str, ok := nv.Value.(string)
	switch {
	case ok && strings.HasPrefix(str, "skip"):
		return driver.ErrSkip
	case ok && str == "drop":
		return driver.ErrRemoveArgument
	case ok && strings.HasPrefix(str, "upper:"):
		nv.Value = strings.ToUpper(str)
		return nil
	case ok:
		return nil
	}
	return fmt.Errorf("fake refuses %T", nv.Value)
}

// A nil fn discards the rows and returns 0: with CloseDrains the rows are
// closed unread (the driver's Close drains them), without it they are
// stepped through to the end first. A fn sees every row either way.
func TestNilFnDiscards(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		drains    bool
		fn        func([][]byte) error
		wantN     int
		wantNexts int
	}{
		{drains: true, fn: nil, wantN: 0, wantNexts: 0},
		{drains: false, fn: nil, wantN: 0, wantNexts: 4},
		{drains: true, fn: func([][]byte) error { return nil }, wantN: 3, wantNexts: 4},
	} {
		f := &fakeConn{}
		c := New(f, Options{MaxStmts: 8, CloseDrains: tc.drains})
		n, err := c.Query(ctx, "SELECT ?", []any{"a"}, tc.fn)
		if err != nil || n != tc.wantN || f.nexts != tc.wantNexts || f.rowsDone != 1 {
			t.Errorf("CloseDrains=%v, nil fn=%v: n=%d err=%v, %d Next and %d Close calls; want %d, nil, %d and 1",
				tc.drains, tc.fn == nil, n, err, f.nexts, f.rowsDone, tc.wantN, tc.wantNexts)
		}
	}
}

// A statement that fails with driver.ErrBadConn breaks the Conn: later
// statements fail without reaching the driver, and Close reports nothing
// (the session is gone) though the driver's Close fails.
func TestBadConnBreaks(t *testing.T) {
	f := &fakeConn{execErr: fmt.Errorf("write: %w", driver.ErrBadConn), closeErr: errors.New("already closed")}
	c := New(f, Options{MaxStmts: 8})
	if _, err := c.Exec(context.Background(), "SELECT 1"); !errors.Is(err, driver.ErrBadConn) {
		t.Fatalf("Exec = %v, want the driver's ErrBadConn", err)
	}
	if _, err := c.Exec(context.Background(), "SELECT 1"); !errors.Is(err, ErrConnDone) || f.execs != 1 {
		t.Errorf("Exec on a broken Conn = %v after %d driver calls, want ErrConnDone after 1", err, f.execs)
	}
	if err := c.Close(); err != nil || f.closes != 1 {
		t.Errorf("Close of a broken Conn = %v (driver closed %d times), want nil, 1", err, f.closes)
	}

	// Any other error leaves the Conn usable, and Close reports the
	// driver's error, every time.
	f = &fakeConn{execErr: errors.New("syntax"), closeErr: errors.New("close failed")}
	c = New(f, Options{MaxStmts: 8})
	c.Exec(context.Background(), "SELECT 1")
	c.Exec(context.Background(), "SELECT 1")
	if f.execs != 2 {
		t.Errorf("driver calls after a plain error: %d, want 2", f.execs)
	}
	for i := 0; i < 2; i++ {
		if err := c.Close(); err == nil || err.Error() != "close failed" || f.closes != 1 {
			t.Errorf("Close #%d = %v (driver closed %d times), want the driver's error, once", i+1, err, f.closes)
		}
	}
}

// Arguments go through the statement's NamedValueChecker; driver.ErrSkip
// falls back to the default converter, driver.ErrRemoveArgument drops the
// argument, ordinals count from 1.
func TestNamedValueChecker(t *testing.T) {
	f := &fakeConn{}
	c := New(f, Options{MaxStmts: 8})
	_, err := c.Exec(context.Background(), "INSERT ?", "upper:a", "drop", "skip", "b")
	if err != nil {
		t.Fatal(err)
	}
	want := []driver.NamedValue{{Ordinal: 1, Value: "UPPER:A"}, {Ordinal: 2, Value: "skip"}, {Ordinal: 3, Value: "b"}}
	if fmt.Sprint(f.checked) != fmt.Sprint(want) {
		t.Errorf("driver received %v, want %v", f.checked, want)
	}
	// The checker's refusal is final: the default converter would have
	// accepted an int.
	if _, err := c.Exec(context.Background(), "INSERT ?", 1); err == nil || !strings.Contains(err.Error(), "fake refuses int") {
		t.Errorf("Exec with a refused argument = %v", err)
	}
}

// Statements with arguments that are already driver values allocate
// nothing in the Conn: the argument list is reused.
func TestExecAllocs(t *testing.T) {
	f := &fakeConn{}
	c := New(f, Options{MaxStmts: 8})
	var a, b any = "x", "y"
	ctx := context.Background()
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := c.Exec(ctx, "INSERT ?, ?", a, b); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Exec allocates %v times per call, want 0", allocs)
	}
}
