package tpcc

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

// tableConn is a session of a target that loads whole tables: it keeps
// the rows each LoadTable commits. fail names a table whose first load
// fails: after half its rows, or, with failAfterCommit, after its commit
// (an acknowledgement lost with the connection).
type tableConn struct {
	rows            map[string][][]any
	loads           map[string]int
	execs           []string
	fail            string
	failAfterCommit bool
	failed          bool
}

func (c *tableConn) Exec(_ context.Context, sql string, _ ...any) (int64, error) {
	c.execs = append(c.execs, sql)
	return 0, nil
}

func (c *tableConn) Query(_ context.Context, sql string, _ []any, fn func([][]byte) error) (int, error) {
	table, ok := strings.CutPrefix(sql, "SELECT 1 FROM ")
	if strings.HasPrefix(sql, "ANALYZE TABLE") {
		return 0, nil
	}
	if !ok {
		return 0, fmt.Errorf("unexpected query %q", sql)
	}
	if len(c.rows[strings.TrimSuffix(table, " LIMIT 1")]) == 0 {
		return 0, nil
	}
	return 1, fn([][]byte{[]byte("1")})
}

func (c *tableConn) Close() error { return nil }

func (c *tableConn) LoadTable(_ context.Context, table string, columns []string, n int64,
	row func(i int64, dst []any) []any, progress func(int64)) (int64, error) {
	c.loads[table]++
	var got [][]any
	for i := int64(0); i < n; i++ {
		if table == c.fail && !c.failed && !c.failAfterCommit && i == n/2 {
			c.failed = true
			return 0, errors.New("connection lost")
		}
		vals := row(i, nil)
		if len(vals) != len(columns) {
			return 0, fmt.Errorf("%s row %d: %d values for %d columns", table, i, len(vals), len(columns))
		}
		got = append(got, vals)
		progress(i + 1)
	}
	if len(c.rows[table]) > 0 {
		return 0, fmt.Errorf("%s: loaded twice", table)
	}
	c.rows[table] = got
	if table == c.fail && !c.failed {
		c.failed = true
		return 0, errors.New("connection lost at commit")
	}
	return n, nil
}

// tableLoadBound is a workload of W warehouses bound to a MySQL target
// with TableLoad.
func tableLoadBound(t *testing.T, warehouses int) *Workload {
	t.Helper()
	w, err := New(nil, []string{fmt.Sprintf("warehouses=%d", warehouses)})
	if err != nil {
		t.Fatal(err)
	}
	caps := target.Capabilities{Transactions: true, MultiRowInsert: true, TableLoad: true}
	if err := w.Bind(workload.Env{Dialect: dialect.MySQL, Capabilities: caps}); err != nil {
		t.Fatal(err)
	}
	return w
}

// loadAll loads every batch as the runner would, each retried once on
// failure, and returns the progress reports that exceeded their batch.
func loadAll(t *testing.T, w *Workload, c *tableConn) {
	t.Helper()
	_, count := w.LoadRange()
	r := rand.New(rand.NewSource(1))
	l := w.NewLoader(0, r)
	var over []string
	var from, to int64
	l.(workload.ProgressLoader).SetProgress(func(n int64) {
		if n > to-from {
			over = append(over, fmt.Sprintf("%d of batch %d..%d", n, from, to))
		}
	})
	for from = 0; from < count; from = to {
		to = w.LoadBatchEnd(from)
		if to <= from {
			t.Fatalf("batch at %d ends at %d", from, to)
		}
		r.Seed(from)
		err := l.LoadBatch(context.Background(), c, from, to)
		if err != nil {
			err = l.LoadBatch(context.Background(), c, from, to)
		}
		if err != nil {
			t.Fatalf("batch %d..%d: %v", from, to, err)
		}
	}
	if from != count {
		t.Fatalf("batches end at %d, want %d", from, count)
	}
	if len(over) > 0 {
		t.Errorf("progress past the batch: %v", over)
	}
}

// With TableLoad each table is sent once, whole, at the spec's
// cardinalities with unique keys; the order lines agree with the orders'
// line counts even when the order lines' load fails and is retried, and a
// table whose failed attempt committed is not sent again.
func TestTableLoad(t *testing.T) {
	for _, c := range []struct {
		fail        string
		afterCommit bool
	}{{"order_line", false}, {"orders", true}, {"customer", false}} {
		t.Run(c.fail, func(t *testing.T) {
			w := tableLoadBound(t, 2)
			conn := &tableConn{rows: map[string][][]any{}, loads: map[string]int{}, fail: c.fail, failAfterCommit: c.afterCommit}
			loadAll(t, w, conn)
			if !conn.failed {
				t.Fatal("no load failed: the test proves nothing about retries")
			}
			want := map[string]int{"warehouse": 2, "district": 20, "customer": 60000, "history": 60000,
				"new_order": 18000, "orders": 60000, "item": 100000, "stock": 200000}
			keys := map[string]int{"warehouse": 1, "district": 2, "customer": 3, "new_order": 3, "orders": 3,
				"order_line": 4, "item": 1, "stock": 2}
			for table, rows := range conn.rows {
				if n, ok := want[table]; ok && len(rows) != n {
					t.Errorf("%s: %d rows, want %d", table, len(rows), n)
				}
				seen := map[string]bool{}
				for _, row := range rows {
					k := fmt.Sprint(row[:keys[table]]...)
					if keys[table] > 0 && seen[k] {
						t.Fatalf("%s: key %s twice", table, k)
					}
					seen[k] = true
				}
			}
			for table, n := range conn.loads {
				retried := table == c.fail && !c.afterCommit
				if n != 1 && !(retried && n == 2) {
					t.Errorf("%s sent %d times", table, n)
				}
			}
			// Every order's lines: numbered 1..o_ol_cnt; undelivered
			// orders are the new orders.
			lines := map[string]int64{}
			for _, row := range conn.rows["order_line"] {
				k := fmt.Sprint(row[:3]...)
				lines[k]++
				if row[3] != lines[k] {
					t.Fatalf("order %s: line %v, want %d", k, row[3], lines[k])
				}
			}
			var total int64
			newOrders := map[string]bool{}
			for _, row := range conn.rows["new_order"] {
				newOrders[fmt.Sprint(row...)] = true
			}
			for _, row := range conn.rows["orders"] {
				k := fmt.Sprint(row[:3]...)
				if lines[k] != row[6] {
					t.Fatalf("order %s: %d lines, o_ol_cnt %v", k, lines[k], row[6])
				}
				if (row[5] == nil) != newOrders[k] {
					t.Fatalf("order %s: carrier %v, in new_order %v", k, row[5], newOrders[k])
				}
				total += lines[k]
			}
			if int64(len(conn.rows["order_line"])) != total || total < 580000 || total > 620000 {
				t.Errorf("%d order lines for %d in the orders' counts (about 600,000)", len(conn.rows["order_line"]), total)
			}
			var indexes int
			for _, q := range conn.execs {
				if strings.HasPrefix(q, "CREATE INDEX") {
					indexes++
				}
			}
			if indexes != 2 {
				t.Errorf("%d CREATE INDEX, want 2 (customer, orders): %v", indexes, conn.execs)
			}
		})
	}
}

// A table already holding rows is refused, not skipped or loaded into.
func TestTableLoadRefusesFullTable(t *testing.T) {
	w := tableLoadBound(t, 1)
	conn := &tableConn{rows: map[string][][]any{"item": {{1}}}, loads: map[string]int{}}
	p := w.pieces[2]
	l := w.NewLoader(0, rand.New(rand.NewSource(1)))
	err := l.LoadBatch(context.Background(), conn, p.start, p.start+p.size)
	if err == nil || !strings.Contains(err.Error(), "table item is not empty") {
		t.Fatalf("load into a full item table: %v", err)
	}
}

// Each load defines the indexes of its tables anew (E3 loads the same
// workload again into new tables), and PostLoad leaves them.
func TestTableLoadIndexesPerLoad(t *testing.T) {
	w := tableLoadBound(t, 1)
	p := w.pieces[5] // orders
	if w.st.Tables[w.pieces[5].tables[0]].Name != "orders" {
		t.Fatalf("piece 5 is %v", w.pieces[5].tables)
	}
	for load := 1; load <= 2; load++ {
		conn := &tableConn{rows: map[string][][]any{}, loads: map[string]int{}}
		l := w.NewLoader(0, rand.New(rand.NewSource(1)))
		if err := l.LoadBatch(context.Background(), conn, p.start, p.start+p.size); err != nil {
			t.Fatal(err)
		}
		if err := w.PostLoad(context.Background(), conn); err != nil {
			t.Fatal(err)
		}
		var ix []string
		for _, q := range conn.execs {
			if strings.HasPrefix(q, "CREATE INDEX") {
				ix = append(ix, q)
			}
		}
		if len(ix) != 2 || !strings.Contains(ix[0], "orders_customer") || !strings.Contains(ix[1], "customer_last") {
			t.Errorf("load %d: indexes %v, want orders' before its rows, customer's after the load", load, ix)
		}
	}
}
