package commitloop

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

var ctx = context.Background()

var (
	pgEnv     = workload.Env{Dialect: dialect.Postgres, Capabilities: target.Capabilities{Transactions: true, CopyFrom: true, MultiRowInsert: true}}
	sqliteEnv = workload.Env{Dialect: dialect.SQLite, Capabilities: target.Capabilities{Transactions: true, MultiRowInsert: true, Embedded: true}}
	mysqlEnv  = workload.Env{Dialect: dialect.MySQL, Capabilities: target.Capabilities{Transactions: true, MultiRowInsert: true}}
)

// recConn records statements and answers queries with fixed rows.
type recConn struct {
	execs   []call
	queries []string
	answer  map[string][][][]byte // query -> rows of raw columns
	fail    error                 // every Exec fails with it
}

type call struct {
	sql  string
	args []any
}

func (c *recConn) Exec(ctx context.Context, sql string, args ...any) (int64, error) {
	c.execs = append(c.execs, call{sql, append([]any(nil), args...)})
	if c.fail != nil {
		return 0, c.fail
	}
	return 1, nil
}

func (c *recConn) Query(ctx context.Context, sql string, args []any, fn func([][]byte) error) (int, error) {
	c.queries = append(c.queries, sql)
	rows, ok := c.answer[sql]
	if !ok {
		return 0, fmt.Errorf("unexpected query %q", sql)
	}
	for _, r := range rows {
		if err := fn(r); err != nil {
			return 0, err
		}
	}
	return len(rows), nil
}

func (c *recConn) Close() error { return nil }

func bound(t *testing.T, env workload.Env, props ...string) *Workload {
	t.Helper()
	w, err := New(nil, props)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Bind(env); err != nil {
		t.Fatal(err)
	}
	return w
}

// One job: every operation is one INSERT of the next i, 1, 2, 3, ...; with
// three jobs worker w inserts (j = w+1, i).
func TestStatements(t *testing.T) {
	w := bound(t, pgEnv)
	if l := w.Limits(); l.Operations != 10000 || l.Threads != 1 {
		t.Errorf("default Limits %+v, want 10000 operations on 1 thread", l)
	}
	c := &recConn{}
	wk := w.NewWorker(0, rand.New(rand.NewSource(1)))
	for i := 1; i <= 3; i++ {
		if op := wk.Next(); op != OpInsert {
			t.Fatalf("Next = %d", op)
		}
		if err := wk.Exec(ctx, c, nil); err != nil {
			t.Fatal(err)
		}
	}
	want := fmt.Sprint([]call{{"INSERT INTO commit_loop (i) VALUES ($1)", []any{int64(1)}},
		{"INSERT INTO commit_loop (i) VALUES ($1)", []any{int64(2)}}, {"INSERT INTO commit_loop (i) VALUES ($1)", []any{int64(3)}}})
	if got := fmt.Sprint(c.execs); got != want {
		t.Errorf("statements\n got %s\nwant %s", got, want)
	}
	if got := w.Schema()[0].Create; got != "CREATE TABLE commit_loop (i INTEGER PRIMARY KEY, t TIMESTAMP DEFAULT clock_timestamp())" {
		t.Errorf("DDL %s", got)
	}

	w3 := bound(t, sqliteEnv, "jobs=3", "rows=50", "table=demo")
	if l := w3.Limits(); l.Operations != 150 || l.Threads != 3 {
		t.Errorf("jobs=3 Limits %+v, want 150 operations on 3 threads", l)
	}
	c = &recConn{}
	wk = w3.NewWorker(2, nil)
	wk.Next()
	wk.Next()
	if err := wk.Exec(ctx, c, nil); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(c.execs); got != fmt.Sprint([]call{{"INSERT INTO demo (j, i) VALUES (?, ?)", []any{int64(3), int64(2)}}}) {
		t.Errorf("job 3's second row: %s", got)
	}
	if !strings.Contains(w3.Schema()[0].Create, "PRIMARY KEY (j, i)") {
		t.Errorf("jobs=3 DDL %s", w3.Schema()[0].Create)
	}
}

// in-server: one operation per job, a DO block of rows commits; a further
// operation (a --time run) inserts the next rows values of i.
func TestInServer(t *testing.T) {
	w := bound(t, pgEnv, "in-server=true", "jobs=2", "rows=100")
	if l := w.Limits(); l.Operations != 2 || l.Threads != 2 {
		t.Errorf("Limits %+v, want one operation per job", l)
	}
	c := &recConn{}
	wk := w.NewWorker(1, nil)
	for k := 0; k < 2; k++ {
		if op := wk.Next(); op != OpLoop {
			t.Fatalf("Next = %d, want LOOP", op)
		}
		if err := wk.Exec(ctx, c, nil); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{
		"DO $$ BEGIN FOR i IN 1..100 LOOP INSERT INTO commit_loop (j, i) VALUES (2, i); COMMIT; END LOOP; END $$",
		"DO $$ BEGIN FOR i IN 101..200 LOOP INSERT INTO commit_loop (j, i) VALUES (2, i); COMMIT; END LOOP; END $$",
	}
	for i, cl := range c.execs {
		if cl.sql != want[i] || len(cl.args) != 0 {
			t.Errorf("block %d: %q %v, want %q", i, cl.sql, cl.args, want[i])
		}
	}
}

// in-server needs a server-side loop that commits: SQLite and MySQL fail at
// Bind, naming the dialects that have one.
func TestInServerRefused(t *testing.T) {
	for _, env := range []workload.Env{sqliteEnv, mysqlEnv} {
		w, err := New(nil, []string{"in-server=true"})
		if err != nil {
			t.Fatal(err)
		}
		err = w.Bind(env)
		if err == nil || !strings.Contains(err.Error(), "dialects with one: postgres") || !strings.Contains(err.Error(), env.Dialect.Name) {
			t.Errorf("%s: Bind = %v", env.Dialect.Name, err)
		}
	}
}

// Option validation reports every problem at once; --operations must match
// what the loop runs.
func TestOptionErrors(t *testing.T) {
	cases := []struct {
		name  string
		props []string
		files []string
		want  []string
	}{
		{"several at once", []string{"rows=0", "jobs=x", "in-server=maybe"}, nil,
			[]string{`rows="0": must be between 1`, `jobs="x": not an integer`, `in-server="maybe"`}},
		{"unknown option", []string{"pairs=5"}, nil, []string{`unknown option "pairs"`, "in-server, jobs, rows, table"}},
		{"bad table", []string{"table=a-b"}, nil, []string{`table="a-b"`}},
		{"property file", nil, []string{"x.properties"}, []string{"takes no property files"}},
		{"operations differ from jobs × rows", []string{"jobs=3", "rows=10", "operationcount=20"}, nil,
			[]string{"exactly 30 operations", "jobs=3 × rows=10"}},
		{"operations differ in-server", []string{"in-server=true", "jobs=2", "operationcount=30"}, nil,
			[]string{"exactly 2 operations"}},
	}
	for _, c := range cases {
		_, err := New(c.files, c.props)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not mention %q", c.name, err, w)
			}
		}
	}
	// matching --operations, and underscores for dashes, are fine
	if _, err := New(nil, []string{"jobs=3", "rows=10", "operationcount=30", "in_server=false"}); err != nil {
		t.Errorf("matching operationcount: %v", err)
	}
}

// A worker beyond jobs fails clearly; the first row's failure tells how to
// empty the table and keeps the driver's error for classification.
func TestWorkerErrors(t *testing.T) {
	w := bound(t, pgEnv)
	wk := w.NewWorker(1, nil)
	wk.Next()
	if err := wk.Exec(ctx, &recConn{}, nil); err == nil || !strings.Contains(err.Error(), "needs exactly 1 threads") {
		t.Errorf("worker 2 of 1 job: %v", err)
	}
	dup := errors.New("duplicate key")
	wk = w.NewWorker(0, nil)
	wk.Next()
	err := wk.Exec(ctx, &recConn{fail: dup}, nil)
	if !errors.Is(err, dup) || !strings.Contains(err.Error(), "candor cleanup commit-loop") {
		t.Errorf("first row failing: %v", err)
	}
	wk.Next()
	if err := wk.Exec(ctx, &recConn{fail: dup}, nil); err != dup {
		t.Errorf("second row failing: %v, want the driver's error unchanged", err)
	}
}

// PostRun parses the server's figures, overall and per job, and leaves out a
// rate the server could not compute (NULL).
func TestPostRun(t *testing.T) {
	w := bound(t, pgEnv, "jobs=3")
	st := w.Statements()
	c := &recConn{answer: map[string][][][]byte{
		st.Rate: {{[]byte("6000"), []byte("10.5"), []byte("571.4285714")}},
		st.RatePerJob: {
			{[]byte("1"), []byte("2000"), []byte("10"), []byte("200")},
			{[]byte("2"), []byte("2000"), []byte("10.5"), []byte("190.47619")},
			{[]byte("3"), []byte("1"), []byte("0"), nil}, // one row: no span, no rate
		},
	}}
	got, err := w.PostRun(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{
		"rows": 6000, "server_span_s": 10.5, "server_rows_per_s": 571.4285714,
		"rows_job_1": 2000, "server_span_s_job_1": 10, "server_rows_per_s_job_1": 200,
		"rows_job_2": 2000, "server_span_s_job_2": 10.5, "server_rows_per_s_job_2": 190.47619,
		"rows_job_3": 1, "server_span_s_job_3": 0,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("PostRun\n got %v\nwant %v", got, want)
	}

	// one job: the overall figures are also job 1's
	w1 := bound(t, sqliteEnv)
	c = &recConn{answer: map[string][][][]byte{w1.Statements().Rate: {{[]byte("10"), []byte("2"), []byte("5.0")}}}}
	got, err = w1.PostRun(ctx, c)
	if err != nil || got["server_rows_per_s"] != 5 || got["server_rows_per_s_job_1"] != 5 || len(c.queries) != 1 {
		t.Errorf("one job: %v %v after %d queries", got, err, len(c.queries))
	}

	// a figure that is not a number is an error, not a zero
	c = &recConn{answer: map[string][][][]byte{w1.Statements().Rate: {{[]byte("10"), []byte("\x00\x01"), []byte("5")}}}}
	if _, err := w1.PostRun(ctx, c); err == nil {
		t.Error("binary span accepted")
	}
}

// Registered under commit-loop with its four options.
func TestRegistered(t *testing.T) {
	e, _, err := workload.Lookup("commit-loop")
	if err != nil || len(e.Options) != 4 {
		t.Fatalf("Lookup: %+v %v", e, err)
	}
	w, err := e.New("", nil, []string{"rows=5"})
	if err != nil || w.Limits().Operations != 5 {
		t.Errorf("New: %v %v", w, err)
	}
	if start, count := w.LoadRange(); count != 0 || start != 0 {
		t.Errorf("LoadRange = %d, %d; want nothing to load", start, count)
	}
}
