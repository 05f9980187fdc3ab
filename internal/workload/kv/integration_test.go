package kv

import (
	"bytes"
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/target"
	_ "github.com/candor-bench/candor/internal/target/postgres"
	_ "github.com/candor-bench/candor/internal/target/sqlite"
	"github.com/candor-bench/candor/internal/target/targettest"
	"github.com/candor-bench/candor/internal/workload"
)

// Integration tests: each KV workload loads a small table on a real server,
// runs one worker for a few thousand operations on a real connection through
// a recording wrapper, and checks the table against a model replayed from
// what the worker did. PostgreSQL runs when CANDOR_TEST_POSTGRES_URL is set
// (scripts/pg-sandbox.sh), SQLite always, MySQL/MariaDB in
// mysql_integration_test.go.

func TestIntegrationPostgres(t *testing.T) {
	u := targettest.PostgresURL(t)
	integration(t, u)
}

func TestIntegrationSQLite(t *testing.T) {
	integration(t, "sqlite://"+filepath.Join(t.TempDir(), "kv.db"))
}

func integration(t *testing.T, url string) {
	if testing.Short() {
		t.Skip("integration test")
	}
	tgt, err := target.Open(context.Background(), url, target.Options{ConnectTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tgt.Close() })
	t.Run("kv-basic", func(t *testing.T) { basicIntegration(t, tgt) })
	t.Run("kv-ints", func(t *testing.T) { intsIntegration(t, tgt, false) })
	t.Run("kv-ints-batch", func(t *testing.T) { intsIntegration(t, tgt, true) })
}

// event is one statement the worker sent through recConn, with what came
// back.
type event struct {
	sql    string
	args   []any
	result []byte // a query's single value
	rows   int    // a query's rows
	err    error
}

// recConn passes statements to a real connection and records them.
type recConn struct {
	target.Conn
	mu     sync.Mutex
	events []event
}

func (c *recConn) Exec(ctx context.Context, sql string, args ...any) (int64, error) {
	n, err := c.Conn.Exec(ctx, sql, args...)
	c.mu.Lock()
	c.events = append(c.events, event{sql: sql, args: copyArgs(args), err: err})
	c.mu.Unlock()
	return n, err
}

func (c *recConn) Query(ctx context.Context, sql string, args []any, fn func([][]byte) error) (int, error) {
	var got []byte
	n, err := c.Conn.Query(ctx, sql, args, func(cols [][]byte) error {
		if len(cols) > 0 {
			got = append([]byte(nil), cols[0]...)
		}
		return fn(cols)
	})
	c.mu.Lock()
	c.events = append(c.events, event{sql: sql, args: copyArgs(args), result: got, rows: n, err: err})
	c.mu.Unlock()
	return n, err
}

func copyArgs(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		if b, ok := a.([]byte); ok {
			a = append([]byte(nil), b...) // the worker reuses its payload buffer
		}
		out[i] = a
	}
	return out
}

// prepare binds w, creates its table (dropped at the end) and loads it in
// batches of MaxLoadBatch, as the runner would.
func prepare(t *testing.T, tgt target.Target, w workload.Workload, c target.Conn) {
	t.Helper()
	ctx := context.Background()
	if err := w.Bind(workload.Env{Dialect: tgt.Dialect(), Capabilities: tgt.Capabilities()}); err != nil {
		t.Fatal(err)
	}
	tb := w.Schema()[0]
	targettest.DropAtEnd(t, tgt, tb.Name)
	if err := target.CreateOwned(ctx, c, tgt.Dialect(), tb.Name, tb.Create, w.Name()); err != nil {
		t.Fatal(err)
	}
	batch := int64(1000)
	if m := w.(interface{ MaxLoadBatch() int }).MaxLoadBatch(); m > 0 && int64(m) < batch {
		batch = int64(m)
	}
	start, count := w.LoadRange()
	l := w.NewLoader(0, newRand(1))
	for from := start; from < start+count; from += batch {
		if err := l.LoadBatch(ctx, c, from, min(from+batch, start+count)); err != nil {
			t.Fatalf("load %d..: %v", from, err)
		}
	}
}

// text casts an expression to text the way the dialect's reads do.
func text(tgt target.Target, expr string) string {
	if tgt.Dialect().Name == "mysql" {
		return "CAST(" + expr + " AS CHAR)"
	}
	return "CAST(" + expr + " AS TEXT)"
}

// one returns the single value of a query.
func one(t *testing.T, c target.Conn, sql string) string {
	t.Helper()
	rows := targettest.Rows(t, c, sql)
	if len(rows) != 1 || len(rows[0]) != 1 {
		t.Fatalf("%s: %v", sql, rows)
	}
	return rows[0][0]
}

// kv-basic: 2,000 pairs with 1000-byte payloads, 3,000 operations. Every
// key is 50 bytes, every payload value-size; each read returns the payload
// the model holds; afterwards each pair holds its last written payload, or
// its loaded one.
func basicIntegration(t *testing.T, tgt target.Target) {
	ctx := context.Background()
	c := targettest.Connect(t, tgt)
	w, err := NewBasic(nil, []string{"pairs=2000", "value-size=1000", "table=" + targettest.TableName("kvit_basic")})
	if err != nil {
		t.Fatal(err)
	}
	prepare(t, tgt, w, c)
	table := w.Config().Table
	if got := one(t, c, "SELECT "+text(tgt, "count(*)")+" FROM "+table); got != "2000" {
		t.Fatalf("%s pairs loaded, want 2000", got)
	}
	sizes := targettest.Rows(t, c, "SELECT "+text(tgt, "min(length(kv_key))")+", "+text(tgt, "max(length(kv_key))")+", "+
		text(tgt, "min(length(payload))")+", "+text(tgt, "max(length(payload))")+" FROM "+table)
	if strings.Join(sizes[0], ",") != "50,50,1000,1000" {
		t.Fatalf("key and payload lengths (min,max,min,max) = %v, want 50 and 1000", sizes[0])
	}
	model := map[string][]byte{}
	if _, err := c.Query(ctx, "SELECT kv_key, payload FROM "+table, nil, func(cols [][]byte) error {
		model[string(cols[0])] = append([]byte(nil), cols[1]...)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	rc := &recConn{Conn: c}
	wk := w.NewWorker(0, newRand(21))
	ops := map[workload.OpID]int{}
	for i := 0; i < 3000; i++ {
		ops[wk.Next()]++
		if err := wk.Exec(ctx, rc, &spanLog{}); err != nil {
			t.Fatalf("operation %d: %v", i, err)
		}
	}
	st := w.Statements()
	for i, e := range rc.events {
		switch e.sql {
		case st.Read:
			if e.rows != 1 || !bytes.Equal(e.result, model[e.args[0].(string)]) {
				t.Fatalf("event %d: read of %v returned %d rows, %d bytes, not the model's payload", i, e.args[0], e.rows, len(e.result))
			}
		case st.Write:
			p := e.args[0].([]byte)
			if len(p) != 1000 {
				t.Fatalf("event %d: payload of %d bytes", i, len(p))
			}
			model[e.args[1].(string)] = p
		default:
			t.Fatalf("event %d: unexpected %q", i, e.sql)
		}
	}
	if ops[OpBasicRead] < 1300 || ops[OpBasicWrite] < 1300 {
		t.Errorf("operations %v: not about half each", ops)
	}
	n := 0
	if _, err := c.Query(ctx, "SELECT kv_key, payload FROM "+table, nil, func(cols [][]byte) error {
		n++
		if !bytes.Equal(cols[1], model[string(cols[0])]) {
			t.Errorf("pair %s differs from the model", cols[0])
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if n != 2000 {
		t.Errorf("%d pairs after the run", n)
	}
}

// kv-ints and kv-ints-batch: 2,000 rows of 50 columns. Every read returns
// the model's value; a write follows a read exactly when that value is odd
// (on the same key, into the pair's column B, inside BEGIN/COMMIT for the
// batch variant); afterwards every row equals the model, so only columns
// whose paired read was odd changed.
func intsIntegration(t *testing.T, tgt target.Target, batch bool) {
	ctx := context.Background()
	c := targettest.Connect(t, tgt)
	props := []string{"rows=2000", "table=" + targettest.TableName("kvit_ints")}
	newW, ops := NewInts, 3000
	if batch {
		newW, ops = NewBatch, 400
	}
	w, err := newW(nil, props)
	if err != nil {
		t.Fatal(err)
	}
	prepare(t, tgt, w, c)
	st := w.Statements()
	cols := len(st.Columns) - 1
	readCol := map[string]int{}
	writeCol := map[string]int{}
	exprs := make([]string, cols)
	for i := 0; i < cols; i++ {
		readCol[st.Read[i]], writeCol[st.Write[i]] = i, i
		exprs[i] = text(tgt, st.Columns[i+1])
	}
	snapshot := func() map[string][]int64 {
		m := map[string][]int64{}
		if _, err := c.Query(ctx, "SELECT kv_key, "+strings.Join(exprs, ", ")+" FROM "+w.Config().Table, nil, func(row [][]byte) error {
			vals := make([]int64, cols)
			for i := range vals {
				v, err := strconv.ParseInt(string(row[i+1]), 10, 64)
				if err != nil {
					return err
				}
				vals[i] = v
			}
			m[string(row[0])] = vals
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return m
	}
	model := snapshot()
	if len(model) != 2000 {
		t.Fatalf("%d rows loaded, want 2000", len(model))
	}
	for k := range model {
		if len(k) != 50 {
			t.Fatalf("key %q is %d bytes", k, len(k))
		}
	}

	rc := &recConn{Conn: c}
	wk := w.NewWorker(0, newRand(31))
	log := &spanLog{}
	for i := 0; i < ops; i++ {
		wk.Next()
		if err := wk.Exec(ctx, rc, log); err != nil {
			t.Fatalf("operation %d: %v", i, err)
		}
	}

	var reads, writes int64
	pendingOdd := false // the last read was odd and its write has not come
	key := ""
	inTx := false
	for i, e := range rc.events {
		if e.err != nil {
			t.Fatalf("event %d: %v", i, e.err)
		}
		if a, ok := readCol[e.sql]; ok {
			if pendingOdd {
				t.Fatalf("event %d: read after an odd read without its write", i)
			}
			if batch && !inTx {
				t.Fatalf("event %d: read outside a transaction", i)
			}
			key = e.args[0].(string)
			v, err := strconv.ParseInt(string(e.result), 10, 64)
			if err != nil || v != model[key][a] {
				t.Fatalf("event %d: read c%d of %s = %q, model holds %d", i, a, key, e.result, model[key][a])
			}
			pendingOdd = v%2 != 0
			reads++
			continue
		}
		if b, ok := writeCol[e.sql]; ok {
			if !pendingOdd || e.args[1].(string) != key {
				t.Fatalf("event %d: write of c%d on %v not after an odd read of that key", i, b, e.args[1])
			}
			if batch && !inTx {
				t.Fatalf("event %d: write outside a transaction", i)
			}
			model[key][b] = e.args[0].(int64)
			pendingOdd = false
			writes++
			continue
		}
		switch {
		case batch && e.sql == st.Begin && !inTx:
			inTx = true
		case batch && e.sql == st.Commit && inTx && !pendingOdd:
			inTx = false
		default:
			t.Fatalf("event %d: unexpected %q (in transaction %v, odd read pending %v)", i, e.sql, inTx, pendingOdd)
		}
	}
	pairs := int64(ops * w.Config().Batch)
	if reads != pairs || log.counters[CounterReads] != reads || log.counters[CounterOddWrites] != writes {
		t.Errorf("reads %d (want %d), writes %d, counters %v", reads, pairs, writes, log.counters)
	}
	if r := float64(writes) / float64(reads); r < 0.4 || r > 0.6 {
		t.Errorf("writes/reads = %.3f, want about 0.5", r)
	}
	got := snapshot()
	for k, want := range model {
		for i := range want {
			if got[k][i] != want[i] {
				t.Fatalf("row %s column c%d = %d, model %d", k, i, got[k][i], want[i])
			}
		}
	}
}
