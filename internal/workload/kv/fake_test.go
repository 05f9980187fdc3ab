package kv

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

func newRand(seed int64) *rand.Rand { return rand.New(rand.NewSource(seed)) }

var ctx = context.Background()

// sqliteEnv is a target with transactions, multi-row INSERT and SQLite's
// parameter limit; copyEnv adds COPY with PostgreSQL's dialect.
var (
	sqliteEnv = workload.Env{Dialect: dialect.SQLite,
		Capabilities: target.Capabilities{Transactions: true, MultiRowInsert: true, MaxBindParams: dialect.SQLite.MaxBindParams, Embedded: true}}
	copyEnv = workload.Env{Dialect: dialect.Postgres,
		Capabilities: target.Capabilities{Transactions: true, CopyFrom: true, MultiRowInsert: true, MaxBindParams: dialect.Postgres.MaxBindParams}}
	// cqlEnv is a CQL target: no transactions, no multi-row INSERT, BATCH.
	cqlEnv = workload.Env{Dialect: dialect.CQL,
		Capabilities: target.Capabilities{MaxBindParams: dialect.CQL.MaxBindParams, QueryLanguage: target.LanguageCQL}}
)

// call is one statement the fake was given.
type call struct {
	sql  string
	args []any
}

// fakeDB is an in-memory KV table that understands exactly the statements of
// one bound workload (kv-basic or kv-ints) and records every statement. It
// models no concurrency beyond a mutex.
type fakeDB struct {
	mu    sync.Mutex
	calls []call

	// kv-basic
	basic    dialect.KVBasicStatements
	payloads map[string][]byte

	// kv-ints
	ints  dialect.KVIntsStatements
	rows  map[string][]int64
	read  map[string]int // Read[a] -> a
	write map[string]int // Write[b] -> b
	// answer, when set, replaces the value a read returns (the fake
	// "returns chosen values"); it is given the key and column.
	answer func(key string, col int) int64

	inTx    bool
	copies  int
	failOn  string // a statement that fails with errFake
	failErr error
}

var errFake = errors.New("fake: injected failure")

func newBasicDB(st dialect.KVBasicStatements) *fakeDB {
	return &fakeDB{basic: st, payloads: map[string][]byte{}}
}

func newIntsDB(st dialect.KVIntsStatements) *fakeDB {
	db := &fakeDB{ints: st, rows: map[string][]int64{}, read: map[string]int{}, write: map[string]int{}}
	for i, s := range st.Read {
		db.read[s] = i
	}
	for i, s := range st.Write {
		db.write[s] = i
	}
	return db
}

// fakeConn is a target.Conn over a fakeDB; copyConn adds target.Copier.
type fakeConn struct{ db *fakeDB }
type copyConn struct{ *fakeConn }

var (
	_ target.Conn   = (*fakeConn)(nil)
	_ target.Copier = copyConn{}
)

func (c *fakeConn) Close() error { return nil }

func (c *fakeConn) Exec(ctx context.Context, sql string, args ...any) (int64, error) {
	db := c.db
	db.mu.Lock()
	defer db.mu.Unlock()
	db.calls = append(db.calls, call{sql, append([]any(nil), args...)})
	if db.failOn != "" && sql == db.failOn {
		return 0, errFake
	}
	switch {
	case db.rows != nil && (strings.HasPrefix(sql, "BEGIN BATCH ") || strings.HasPrefix(sql, "BEGIN UNLOGGED BATCH ")):
		// A CQL BATCH of Write statements, values bound two by two.
		body := strings.TrimSuffix(sql[strings.Index(sql, "BATCH ")+len("BATCH "):], "APPLY BATCH")
		writes := strings.Split(strings.TrimSuffix(body, "; "), "; ")
		if len(args) != 2*len(writes) {
			return 0, fmt.Errorf("fake: batch of %d writes with %d values", len(writes), len(args))
		}
		for i, w := range writes {
			b, ok := db.write[w]
			if !ok {
				return 0, fmt.Errorf("fake: unexpected statement %q in a batch", w)
			}
			if row, found := db.rows[args[2*i+1].(string)]; found {
				row[b] = args[2*i].(int64)
			}
		}
		return 1, nil
	case sql == "BEGIN" || sql == "BEGIN IMMEDIATE":
		if db.inTx {
			return 0, errors.New("fake: BEGIN inside a transaction")
		}
		db.inTx = true
		return 0, nil
	case sql == "COMMIT" || sql == "ROLLBACK":
		if !db.inTx {
			return 0, fmt.Errorf("fake: %s outside a transaction", sql)
		}
		db.inTx = false
		return 0, nil
	case db.payloads != nil && sql == db.basic.Write:
		key := args[1].(string)
		if _, ok := db.payloads[key]; !ok {
			return 0, nil
		}
		db.payloads[key] = append([]byte(nil), args[0].([]byte)...)
		return 1, nil
	case db.rows != nil:
		if b, ok := db.write[sql]; ok {
			row, found := db.rows[args[1].(string)]
			if !found {
				return 0, nil
			}
			row[b] = args[0].(int64)
			return 1, nil
		}
	}
	if len(args) > 0 {
		per := 2
		if db.rows != nil {
			per = len(db.ints.Columns)
		}
		if len(args)%per == 0 && sql == c.insertSQL(len(args)/per) {
			return db.insert(args, per)
		}
	}
	return 0, fmt.Errorf("fake: unexpected statement %q", sql)
}

func (c *fakeConn) insertSQL(n int) string {
	if c.db.rows != nil {
		return c.db.ints.InsertRows(n)
	}
	return c.db.basic.InsertRows(n)
}

// insert adds rows of per values (key first); a duplicate key fails the lot.
func (db *fakeDB) insert(args []any, per int) (int64, error) {
	for i := 0; i < len(args); i += per {
		key := args[i].(string)
		_, dup1 := db.payloads[key]
		_, dup2 := db.rows[key]
		if dup1 || dup2 {
			return 0, fmt.Errorf("fake: duplicate key %v", key)
		}
	}
	for i := 0; i < len(args); i += per {
		key := args[i].(string)
		if db.rows != nil {
			vals := make([]int64, per-1)
			for j := range vals {
				vals[j] = args[i+1+j].(int64)
			}
			db.rows[key] = vals
		} else {
			db.payloads[key] = append([]byte(nil), args[i+1].([]byte)...)
		}
	}
	return int64(len(args) / per), nil
}

func (c *fakeConn) Query(ctx context.Context, sql string, args []any, fn func(cols [][]byte) error) (int, error) {
	db := c.db
	db.mu.Lock()
	defer db.mu.Unlock()
	db.calls = append(db.calls, call{sql, append([]any(nil), args...)})
	if db.failOn != "" && sql == db.failOn {
		return 0, errFake
	}
	key := args[0].(string)
	if db.payloads != nil && sql == db.basic.Read {
		p, ok := db.payloads[key]
		if !ok {
			return 0, nil
		}
		return 1, fn([][]byte{p})
	}
	if a, ok := db.read[sql]; ok {
		row, found := db.rows[key]
		if !found {
			return 0, nil
		}
		v := row[a]
		if db.answer != nil {
			v = db.answer(key, a)
		}
		return 1, fn([][]byte{[]byte(strconv.FormatInt(v, 10))})
	}
	return 0, fmt.Errorf("fake: unexpected query %q", sql)
}

func (c copyConn) CopyFrom(ctx context.Context, table string, columns []string, rows [][]any) (int64, error) {
	db := c.db
	db.mu.Lock()
	defer db.mu.Unlock()
	db.copies++
	var flat []any
	for _, r := range rows {
		if len(r) != len(columns) {
			return 0, fmt.Errorf("fake: COPY row of %d values for %d columns", len(r), len(columns))
		}
		flat = append(flat, r...)
	}
	return db.insert(flat, len(columns))
}

// spanLog records spans and counters, as the runner's span recorder would.
type spanLog struct {
	spans    []workload.OpID
	failed   int
	counters map[int]int64
}

func (s *spanLog) Span(op workload.OpID, start, end time.Time, err error) {
	s.spans = append(s.spans, op)
	if err != nil {
		s.failed++
	}
}

func (s *spanLog) Add(counter int, n int64) {
	if s.counters == nil {
		s.counters = map[int]int64{}
	}
	s.counters[counter] += n
}

var _ workload.Counter = (*spanLog)(nil)

// boundBasic builds and binds kv-basic on env.
func boundBasic(t testing.TB, env workload.Env, props ...string) *Basic {
	t.Helper()
	w, err := NewBasic(nil, props)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Bind(env); err != nil {
		t.Fatal(err)
	}
	return w
}

// boundInts builds and binds kv-ints (batch=false) or kv-ints-batch.
func boundInts(t testing.TB, batch bool, env workload.Env, props ...string) *Ints {
	t.Helper()
	newW := NewInts
	if batch {
		newW = NewBatch
	}
	w, err := newW(nil, props)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Bind(env); err != nil {
		t.Fatal(err)
	}
	return w
}

// loadAll loads the workload's whole range through one loader.
func loadAll(t testing.TB, w workload.Workload, c target.Conn) {
	t.Helper()
	start, count := w.LoadRange()
	if err := w.NewLoader(0, newRand(99)).LoadBatch(ctx, c, start, start+count); err != nil {
		t.Fatal(err)
	}
}
