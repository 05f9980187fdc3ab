package voltdb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/target"
)

func TestParseURL(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Config
	}{
		// The default client port.
		{"voltdb://db", Config{Hosts: []string{"db:21212"}}},
		// Several nodes, a user and password in the user info.
		{"voltdb://u:p%40ss@a:1,b:2", Config{Hosts: []string{"a:1", "b:2"}, User: "u", Password: "p@ss"}},
		// User and password as parameters.
		{"voltdb://127.0.0.1:21212/?user=x&password=y", Config{Hosts: []string{"127.0.0.1:21212"}, User: "x", Password: "y"}},
		{"voltdb://[::1]:5", Config{Hosts: []string{"[::1]:5"}}},
	} {
		got, err := ParseURL(c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseURL(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"voltdb://", "voltdb://a,,b", "voltdb://a:0", "voltdb://a:x", "voltdb://a/db",
		"voltdb://a?timeout=1s", "postgres://a", "voltdb://u:secret@a?bogus=1"} {
		_, err := ParseURL(bad)
		if !errors.Is(err, target.ErrBadURL) {
			t.Errorf("ParseURL(%q) = %v, want ErrBadURL", bad, err)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("ParseURL(%q) shows the password: %v", bad, err)
		}
	}
}

// Isolation levels other than serializable are refused before any
// connection (the URL's host does not exist).
func TestOpenRefusesIsolation(t *testing.T) {
	_, err := Open(context.Background(), "voltdb://nowhere.invalid", target.Options{Isolation: "repeatable-read"})
	if !errors.Is(err, target.ErrUnsupported) || !strings.Contains(err.Error(), "serializable") {
		t.Errorf("Open = %v", err)
	}
}

func TestCalls(t *testing.T) {
	// No arguments: the whole text in one @AdHoc call (DDL and its
	// PARTITION TABLE together).
	cs, f, err := calls("CREATE TABLE t (k INT); PARTITION TABLE t ON COLUMN k", nil)
	if err != nil || f != nil || len(cs) != 1 || cs[0].proc != "@AdHoc" || len(cs[0].params) != 1 {
		t.Errorf("DDL: %+v %v %v", cs, f, err)
	}
	// With arguments: one call per statement, each with its own; a ? or ;
	// inside quotes is text.
	cs, _, err = calls("INSERT INTO t VALUES (?, 'a;?'); INSERT INTO t VALUES (?, ?);", []any{1, 2, 3})
	want := []call{{"@AdHoc", []any{"INSERT INTO t VALUES (?, 'a;?')", 1}}, {"@AdHoc", []any{"INSERT INTO t VALUES (?, ?)", 2, 3}}}
	if err != nil || !reflect.DeepEqual(cs, want) {
		t.Errorf("split: %+v, %v", cs, err)
	}
	for _, args := range [][]any{{1}, {1, 2, 3, 4}} {
		if _, _, err := calls("SELECT ?; SELECT ?, ?", args); err == nil {
			t.Errorf("%d arguments for 3 placeholders: no error", len(args))
		}
	}
	// EXEC: words are strings, integers BIGINT, ? an argument; WHERE filters.
	cs, f, err = calls("EXEC @Statistics PARTITIONCOUNT 0", nil)
	if err != nil || f != nil || !reflect.DeepEqual(cs, []call{{"@Statistics", []any{"PARTITIONCOUNT", int64(0)}}}) {
		t.Errorf("EXEC: %+v %v %v", cs, f, err)
	}
	cs, f, err = calls("exec @SystemCatalog ? WHERE TABLE_NAME = ?;", []any{"TABLES", "kv"})
	if err != nil || f == nil || f.columnName != "TABLE_NAME" || f.value != "kv" || !reflect.DeepEqual(cs[0].params, []any{"TABLES"}) {
		t.Errorf("EXEC with WHERE: %+v %+v %v", cs, f, err)
	}
	for _, bad := range []string{"EXEC @P WHERE X", "EXEC @P WHERE X > ?", "EXEC @P ?"} {
		if _, _, err := calls(bad, nil); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if _, _, err := calls("EXEC @P", []any{1}); err == nil {
		t.Error("EXEC with an argument left over: no error")
	}
}

func TestFilter(t *testing.T) {
	tb := Table{Names: []string{"TABLE_NAME", "X"}, Rows: [][][]byte{{[]byte("KV"), nil}, {[]byte("OTHER"), nil}}}
	f := &filter{columnName: "table_name", value: "kv"}
	if i := f.column(tb); i != 0 {
		t.Errorf("column = %d", i)
	}
	if i := (&filter{columnName: "nope"}).column(tb); i != -2 {
		t.Errorf("a missing column = %d, want -2 (no row)", i)
	}
	if i := (*filter)(nil).column(tb); i != -1 {
		t.Errorf("no filter = %d, want -1 (every row)", i)
	}
}

func TestModified(t *testing.T) {
	one := func(typ int8, v string) Table {
		return Table{Types: []int8{typ}, Rows: [][][]byte{{[]byte(v)}}}
	}
	if n := modified(one(typeBigint, "12")); n != 12 {
		t.Errorf("modified = %d", n)
	}
	if n := modified(one(typeString, "12")); n != 0 {
		t.Errorf("a string column counted %d", n)
	}
	if n := modified(Table{Types: []int8{typeBigint}, Rows: [][][]byte{{[]byte("1")}, {[]byte("2")}}}); n != 0 {
		t.Errorf("a query's two rows counted %d", n)
	}
}

func TestClassify(t *testing.T) {
	st := func(s int8, msg string) error {
		return fmt.Errorf("op: %w", &StatusError{Proc: "@AdHoc", Status: s, Message: msg})
	}
	tg := &Target{}
	for _, c := range []struct {
		err     error
		want    target.ErrorClass
		failed  bool // the server answered: nothing committed
		notSent bool
	}{
		{st(StatusResponseUnknown, "possibly committed"), target.ClassTimeout, false, false},
		{st(StatusConnectionLost, ""), target.ClassConnection, false, false},
		{st(StatusServerUnavailable, "shutting down"), target.ClassConnection, false, false},
		{st(StatusConnectionTimeout, ""), target.ClassConnection, false, false},
		{st(StatusTxnMisrouted, ""), target.ClassRetryable, true, false},
		{st(StatusGracefulFailure, "VOLTDB ERROR: CONSTRAINT VIOLATION Constraint Type UNIQUE"), target.ClassConstraint, true, false},
		{&StatusError{Status: StatusUserAbort, Constraint: true}, target.ClassConstraint, true, false},
		{st(StatusGracefulFailure, "PROCEDURE X EXPECTS 20 PARAMS, BUT RECEIVED 2"), target.ClassOther, true, false},
		{st(StatusUnexpectedFailure, "boom"), target.ClassOther, true, false},
		{fmt.Errorf("%w: a: %w", ErrConnLost, io.EOF), target.ClassConnection, false, false},
		{&notSentError{fmt.Errorf("%w: refused", ErrConnLost)}, target.ClassConnection, false, true},
		{fmt.Errorf("x: %w", &LoginError{Result: 2}), target.ClassOther, false, false},
		{context.DeadlineExceeded, target.ClassTimeout, false, false},
		{target.ErrNotFound, target.ClassNotFound, false, false},
	} {
		if got := tg.Classify(c.err); got != c.want {
			t.Errorf("Classify(%v) = %q, want %q", c.err, got, c.want)
		}
		if _, failed := tg.ServerError(c.err); failed != c.failed {
			t.Errorf("ServerError(%v) = %v, want %v", c.err, failed, c.failed)
		}
		if ns := tg.NotSent(c.err); ns != c.notSent {
			t.Errorf("NotSent(%v) = %v, want %v", c.err, ns, c.notSent)
		}
	}
}

func TestDurability(t *testing.T) {
	for props, want := range map[[2]string]string{
		{"false", ""}:     "none",
		{"true", "async"}: "periodic",
		{"true", "sync"}:  "per-commit",
		{"", ""}:          "none",
	} {
		if got := durability(map[string]string{"commandlogenabled": props[0], "commandlogmode": props[1]}); got != want {
			t.Errorf("durability(%v) = %q, want %q", props, got, want)
		}
	}
}
