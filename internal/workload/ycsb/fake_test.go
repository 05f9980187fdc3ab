package ycsb

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

// fakeDB is an in-memory YCSB table that understands exactly the statements
// dialect.YCSB produces and records every statement it is given.
type fakeDB struct {
	mu      sync.Mutex
	st      dialect.YCSBStatements
	rows    map[string][]string // key -> FIELD0..
	calls   []fakeCall
	copies  int
	failure error // when set, every statement fails with it
}

type fakeCall struct {
	sql  string
	args []any
}

func newFakeDB(st dialect.YCSBStatements) *fakeDB {
	return &fakeDB{st: st, rows: map[string][]string{}}
}

// fakeConn is a target.Conn over a fakeDB; copyConn adds target.Copier.
type fakeConn struct{ db *fakeDB }

type copyConn struct{ *fakeConn }

var (
	_ target.Conn   = (*fakeConn)(nil)
	_ target.Copier = copyConn{}
)

var updateField = regexp.MustCompile(`FIELD(\d+) = `)

func (c *fakeConn) Exec(ctx context.Context, sql string, args ...any) (int64, error) {
	db := c.db
	db.mu.Lock()
	defer db.mu.Unlock()
	db.calls = append(db.calls, fakeCall{sql, append([]any(nil), args...)})
	if db.failure != nil {
		return 0, db.failure
	}
	switch {
	case strings.HasPrefix(sql, "INSERT"):
		per := len(db.st.Columns)
		if len(args) == 0 || len(args)%per != 0 || sql != db.st.InsertRows(len(args)/per) {
			return 0, fmt.Errorf("fake: INSERT with %d args does not match %q", len(args), sql)
		}
		return db.insert(args, per)
	case strings.HasPrefix(sql, "UPDATE"):
		m := updateField.FindAllStringSubmatch(sql, -1)
		if len(m) == 0 || len(args) != len(m)+1 {
			return 0, fmt.Errorf("fake: UPDATE %q with %d args", sql, len(args))
		}
		row, ok := db.rows[args[len(m)].(string)]
		if !ok {
			return 0, nil
		}
		for i, f := range m {
			n, _ := strconv.Atoi(f[1])
			row[n] = args[i].(string)
		}
		return 1, nil
	}
	return 0, fmt.Errorf("fake: unexpected statement %q", sql)
}

// insert adds rows of per values (key first); a duplicate key fails the lot.
func (db *fakeDB) insert(args []any, per int) (int64, error) {
	for i := 0; i < len(args); i += per {
		if _, dup := db.rows[args[i].(string)]; dup {
			return 0, fmt.Errorf("fake: duplicate key %v", args[i])
		}
	}
	for i := 0; i < len(args); i += per {
		vals := make([]string, per-1)
		for j := range vals {
			vals[j] = args[i+1+j].(string)
		}
		db.rows[args[i].(string)] = vals
	}
	return int64(len(args) / per), nil
}

func (c *fakeConn) Query(ctx context.Context, sql string, args []any, fn func(cols [][]byte) error) (int, error) {
	db := c.db
	db.mu.Lock()
	defer db.mu.Unlock()
	db.calls = append(db.calls, fakeCall{sql, append([]any(nil), args...)})
	if db.failure != nil {
		return 0, db.failure
	}
	emit := func(key string) error {
		cols := [][]byte{[]byte(key)}
		for _, v := range db.rows[key] {
			cols = append(cols, []byte(v))
		}
		return fn(cols)
	}
	switch sql {
	case db.st.Read:
		key := args[0].(string)
		if _, ok := db.rows[key]; !ok {
			return 0, nil
		}
		return 1, emit(key)
	case db.st.Scan:
		start, limit := args[0].(string), args[1].(int64)
		keys := make([]string, 0, len(db.rows))
		for k := range db.rows {
			if k >= start {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		n := 0
		for _, k := range keys {
			if int64(n) >= limit {
				break
			}
			if err := emit(k); err != nil {
				return n, err
			}
			n++
		}
		return n, nil
	}
	return 0, fmt.Errorf("fake: unexpected query %q", sql)
}

func (c *fakeConn) Close() error { return nil }

func (c copyConn) CopyFrom(ctx context.Context, table string, columns []string, rows [][]any) (int64, error) {
	db := c.db
	db.mu.Lock()
	defer db.mu.Unlock()
	db.copies++
	if fmt.Sprint(columns) != fmt.Sprint(db.st.Columns) {
		return 0, fmt.Errorf("fake: COPY columns %v", columns)
	}
	var flat []any
	for _, r := range rows {
		if len(r) != len(columns) {
			return 0, fmt.Errorf("fake: COPY row of %d values", len(r))
		}
		flat = append(flat, r...)
	}
	return db.insert(flat, len(columns))
}

// span is one recorded Span call.
type span struct {
	op         workload.OpID
	start, end time.Time
	err        error
}

type spanLog []span

func (s *spanLog) Span(op workload.OpID, start, end time.Time, err error) {
	*s = append(*s, span{op, start, end, err})
}

// sqliteEnv is a target with multi-row INSERT and SQLite's parameter limit.
var sqliteEnv = workload.Env{
	Dialect:      dialect.SQLite,
	Capabilities: target.Capabilities{MultiRowInsert: true, MaxBindParams: dialect.SQLite.MaxBindParams, Embedded: true},
}

// bound builds and binds a workload, failing the test on error.
func bound(t testing.TB, variant string, props ...string) *Workload {
	t.Helper()
	w, err := New(variant, nil, props)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Bind(sqliteEnv); err != nil {
		t.Fatal(err)
	}
	return w
}

// loaded returns a fake table holding the workload's load range.
func loaded(t testing.TB, w *Workload) (*fakeDB, *fakeConn) {
	t.Helper()
	db := newFakeDB(w.stmts)
	c := &fakeConn{db}
	start, count := w.LoadRange()
	l := w.NewLoader(0, newRand(99))
	if err := l.LoadBatch(context.Background(), c, start, start+count); err != nil {
		t.Fatal(err)
	}
	db.calls = nil
	return db, c
}
