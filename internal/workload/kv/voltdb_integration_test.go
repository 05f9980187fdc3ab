package kv

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/target/targettest"
	_ "github.com/candor-bench/candor/internal/target/voltdb"
)

// VoltDB integration tests: kv-ints-batch (KV-3) runs each operation's
// pairs as one call of a SQL procedure declared with its table. The table is
// read before and after with VoltDB's own sqlcmd (scripts/voltdb-sandbox.sh
// sqlcmd), an oracle that shares no code with candor's driver, and compared
// with a model replayed from the calls the worker made.

// voltTarget opens CANDOR_TEST_VOLTDB_URL, or skips without it or without
// the sandbox's directory (CANDOR_TEST_VOLTDB_DIR) for sqlcmd.
func voltTarget(t *testing.T) (target.Target, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test")
	}
	u, dir := os.Getenv("CANDOR_TEST_VOLTDB_URL"), os.Getenv("CANDOR_TEST_VOLTDB_DIR")
	if u == "" || dir == "" {
		t.Skip("CANDOR_TEST_VOLTDB_URL and CANDOR_TEST_VOLTDB_DIR are not set (scripts/voltdb-sandbox.sh)")
	}
	tgt, err := target.Open(context.Background(), u, target.Options{ConnectTimeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tgt.Close() })
	return tgt, dir
}

// sqlcmdRows returns the rows of table (kv_key, c0..c<cols-1>) as sqlcmd
// prints them.
func sqlcmdRows(t *testing.T, dir, table string, cols int) map[string][]int64 {
	t.Helper()
	script, _ := filepath.Abs("../../../scripts/voltdb-sandbox.sh")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	names := make([]string, cols)
	for i := range names {
		names[i] = "c" + strconv.Itoa(i)
	}
	cmd := exec.CommandContext(ctx, script, "sqlcmd", dir)
	cmd.Stdin = strings.NewReader("SELECT kv_key, " + strings.Join(names, ", ") + " FROM " + table + " ORDER BY kv_key;\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("sqlcmd: %v\n%s", err, out)
	}
	m := map[string][]int64{}
	for _, line := range regexp.MustCompile(`(?m)^k\d+(?:[ \t]+-?\d+)+[ \t]*$`).FindAll(out, -1) {
		f := strings.Fields(string(line))
		if len(f) != cols+1 {
			t.Fatalf("sqlcmd row %q has %d fields, want %d", line, len(f), cols+1)
		}
		vals := make([]int64, cols)
		for i := range vals {
			if vals[i], err = strconv.ParseInt(f[i+1], 10, 64); err != nil {
				t.Fatal(err)
			}
		}
		m[f[0]] = vals
	}
	return m
}

// TestVoltDBBatchCountedBySqlcmd runs KV-3 at its published shape (50
// columns, 10 pairs) through the procedure: the table sqlcmd reads after
// the run is the one a replay of the calls on the table sqlcmd read before
// predicts, and the odd_writes counter is the replay's writes.
func TestVoltDBBatchCountedBySqlcmd(t *testing.T) {
	tgt, dir := voltTarget(t)
	ctx := context.Background()
	c := targettest.Connect(t, tgt)
	const rows, ops = 200, 300
	w, err := NewBatch(nil, []string{"rows=" + strconv.Itoa(rows), "table=" + targettest.TableName("kvvolt_batch")})
	if err != nil {
		t.Fatal(err)
	}
	prepare(t, tgt, w, c)
	if w.procCall == "" || w.Config().Atomic != "yes (one VoltDB transaction)" {
		t.Fatalf("kv-ints-batch on VoltDB: procedure %q, atomic %q", w.procCall, w.Config().Atomic)
	}
	cols := w.Config().Columns
	model := sqlcmdRows(t, dir, w.Config().Table, cols)
	if len(model) != rows {
		t.Fatalf("sqlcmd reads %d rows, the load wrote %d", len(model), rows)
	}
	rc := &recConn{Conn: c}
	wk := w.NewWorker(0, newRand(47))
	log := &spanLog{}
	for i := 0; i < ops; i++ {
		wk.Next()
		if err := wk.Exec(ctx, rc, log); err != nil {
			t.Fatalf("operation %d: %v", i, err)
		}
	}
	if len(rc.events) != ops {
		t.Fatalf("%d calls for %d operations, want one each", len(rc.events), ops)
	}
	var reads, writes int64
	per := cols + 2
	for i, e := range rc.events {
		if e.sql != w.procCall || len(e.args) != per*w.Config().Batch {
			t.Fatalf("call %d: %.60q with %d arguments", i, e.sql, len(e.args))
		}
		for p := 0; p < w.Config().Batch; p++ {
			args := e.args[p*per : (p+1)*per]
			key, a := args[cols].(string), int(args[cols+1].(int64))
			b, v := -1, int64(0)
			for j, x := range args[:cols] {
				if x != nil {
					if b >= 0 {
						t.Fatalf("call %d pair %d writes two columns", i, p)
					}
					b, v = j, x.(int64)
				}
			}
			reads++
			if model[key][a]%2 != 0 {
				model[key][b] = v
				writes++
			}
		}
	}
	if log.counters[CounterReads] != reads || log.counters[CounterOddWrites] != writes {
		t.Errorf("counters %v, the replay made %d reads and %d writes", log.counters, reads, writes)
	}
	if r := float64(writes) / float64(reads); r < 0.4 || r > 0.6 {
		t.Errorf("writes/reads = %.3f, want about 0.5", r)
	}
	got := sqlcmdRows(t, dir, w.Config().Table, cols)
	if len(got) != rows {
		t.Fatalf("sqlcmd reads %d rows after the run, want %d", len(got), rows)
	}
	for k, want := range model {
		for i := range want {
			if got[k][i] != want[i] {
				t.Fatalf("sqlcmd: row %s column c%d = %d, the replay %d", k, i, got[k][i], want[i])
			}
		}
	}
}

// TestVoltDBBatchAtomic calls the procedure with ten pairs that all write
// (every read is odd), the tenth's value too large for an INTEGER column:
// the call fails and sqlcmd finds none of the ten writes. The same call with
// a tenth value that fits writes all ten.
func TestVoltDBBatchAtomic(t *testing.T) {
	tgt, dir := voltTarget(t)
	ctx := context.Background()
	c := targettest.Connect(t, tgt)
	w, err := NewBatch(nil, []string{"rows=3", "columns=2", "table=" + targettest.TableName("kvvolt_atomic")})
	if err != nil {
		t.Fatal(err)
	}
	prepare(t, tgt, w, c)
	table := w.Config().Table
	key := string(AppendKey(nil, 1, w.Config().KeySize))
	if n, err := c.Exec(ctx, "UPDATE "+table+" SET c0 = 1, c1 = 1 WHERE kv_key = ?", key); err != nil || n != 1 {
		t.Fatalf("setting row %s: %d rows, %v", key, n, err)
	}
	call := func(last int64) (int64, error) {
		var args []any
		for p := 0; p < 10; p++ {
			v := int64(2*p + 3) // odd: c1 stays odd
			if p == 9 {
				v = last
			}
			// Pairs alternate reading c0 and c1, both odd; each writes c1
			// (c0 when the pair reads c1).
			if p%2 == 0 {
				args = append(args, nil, v, key, int64(0))
			} else {
				args = append(args, v, nil, key, int64(1))
			}
		}
		return c.Exec(ctx, w.procCall, args...)
	}
	n, err := call(1 << 40)
	t.Logf("the call with 1<<40 in its 10th pair: %v", err)
	if err == nil {
		t.Fatalf("a value above INTEGER's range in the 10th pair was accepted (%d rows)", n)
	}
	if got := sqlcmdRows(t, dir, table, 2)[key]; len(got) != 2 || got[0] != 1 || got[1] != 1 {
		t.Fatalf("after the failed call sqlcmd reads %s = %v, want [1 1] (none of the ten writes): %v", key, got, err)
	}
	if n, err := call(99); err != nil || n != 10 {
		t.Fatalf("the same call with a 10th value that fits: %d rows, %v; want 10", n, err)
	}
	// The last writes: pair 8 (p even) wrote c1 = 19, pair 9 c0 = 99.
	if got := sqlcmdRows(t, dir, table, 2)[key]; len(got) != 2 || got[0] != 99 || got[1] != 19 {
		t.Fatalf("after the call sqlcmd reads %s = %v, want [99 19]", key, got)
	}
}
