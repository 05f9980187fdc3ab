package sysbenchlua

import (
	"context"
	"math/rand"
	"strings"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

// build makes a bound workload of one script (props besides file=).
func build(t *testing.T, text string, props ...string) (*Workload, error) {
	t.Helper()
	w, err := New(nil, append([]string{"file=t.lua"}, props...))
	if err != nil {
		return nil, err
	}
	if err := w.SetScripts([]workload.Script{{Name: "t.lua", Text: text}}); err != nil {
		return nil, err
	}
	d := dialect.Dialect{Name: "mysql", Placeholder: dialect.Question}
	return w, w.Bind(workload.Env{Dialect: d, Threads: 2})
}

func TestStringFormat(t *testing.T) {
	cases := []struct{ expr, want string }{
		{`string.format("sbtest%u", 3)`, "sbtest3"}, // %u, which Go's fmt lacks
		{`string.format("%d", 2.9)`, "2"},           // integers truncate
		{`string.format("%5.2f|%-4s|", 3.14159, "ab")`, " 3.14|ab  |"},
		{`string.format("%s %s", 1, true)`, "1 true"}, // tostring
		{`string.format("%x %X %o %c", 255, 255, 8, 65)`, "ff FF 10 A"},
		{`string.format("%q", 'a"b')`, `"a\"b"`},
		{`string.format("100%%")`, "100%"},
		{`("%d-%s"):format(7, "x")`, "7-x"}, // the string metatable's format
	}
	w, err := build(t, "function event() end")
	if err != nil {
		t.Fatal(err)
	}
	st, err := w.newState(stateMain, 0, rand.New(rand.NewSource(1)))
	if err != nil {
		t.Fatal(err)
	}
	defer st.L.Close()
	for _, c := range cases {
		if err := st.L.DoString("r = " + c.expr); err != nil {
			t.Errorf("%s: %v", c.expr, err)
			continue
		}
		if got := lua.LVAsString(st.L.GetGlobal("r")); got != c.want {
			t.Errorf("%s = %q, want %q", c.expr, got, c.want)
		}
	}
}

func TestPlaceholdersAndInterpolation(t *testing.T) {
	pg := dialect.Dialect{Name: "postgres", Placeholder: dialect.Dollar}
	my := dialect.Dialect{Name: "mysql", Placeholder: dialect.Question}
	if got := placeholders(pg, "SELECT c FROM t WHERE id=? AND c='?' AND k BETWEEN ? AND ?"); got != "SELECT c FROM t WHERE id=$1 AND c='?' AND k BETWEEN $2 AND $3" {
		t.Errorf("pg: %s", got)
	}
	if got := placeholders(my, "SELECT ?"); got != "SELECT ?" {
		t.Errorf("mysql: %s", got)
	}
	got, err := my.AppendInterpolated(nil, "UPDATE t SET c=? WHERE id=? AND x=? AND f=?", []any{"ab-1", int64(5), nil, 2.5})
	if err != nil || string(got) != "UPDATE t SET c='ab-1' WHERE id=5 AND x=NULL AND f=2.5" {
		t.Errorf("interpolate: %q %v", got, err)
	}
	if _, err := my.AppendInterpolated(nil, "SELECT ?", []any{"it's"}); err == nil {
		t.Error("a quote written in unescaped was accepted")
	}
}

func TestReturnsRows(t *testing.T) {
	for sql, want := range map[string]bool{
		"SELECT 1":                              true,
		"  (select 1)":                          true,
		"with x as (select 1) select *":         true,
		"SHOW TABLES":                           true,
		"INSERT INTO t VALUES (1) RETURNING id": true,
		"UPDATE t SET returning_count=1":        false,
		"BEGIN":                                 false,
		"INSERT INTO t VALUES ('RETURNING')":    false,
		"DELETE FROM t":                         false,
	} {
		if got := returnsRows(sql); got != want {
			t.Errorf("returnsRows(%q) = %v", sql, got)
		}
	}
}

func TestScriptInput(t *testing.T) {
	const opts = `sysbench.cmdline.options = {n = {"N", 5}, b = {"B", false}, s = {"S", "x"}, l = {"L", {"a", "b"}}}
function event() end`
	cases := []struct {
		name, text string
		props      []string
		want       string // "" accepted
	}{
		{"a syntax error names file:line", "function event()\n  local = 3\nend\n", nil, "t.lua:2: syntax error"},
		{"ffi is refused with its line", "local x = 1\nlocal ffi = require('ffi')\n", nil, "t.lua:2: the script uses LuaJIT's ffi"},
		{"ffi without require", "function event() ffi.C.usleep(1) end", nil, "LuaJIT's ffi"},
		{"an error at load names the function", "error('at load')", nil, "t.lua:1: at load"},
		{"thread_run is the runner's", "function thread_run() end\nfunction event() end", nil, "thread_run"},
		{"no event()", "x = 1", nil, "cannot find the event() function"},
		{"declared options take values of their type", opts, []string{"n=7", "b=on", "s=y", "l=c,d"}, ""},
		{"an undeclared option", opts, []string{"m=1"}, "unknown option --m"},
		{"a number expected", opts, []string{"n=seven"}, "--n=seven: not a number"},
		{"a boolean expected", opts, []string{"b=maybe"}, "not a boolean"},
		{"no options declared: any is taken", "function event() end", []string{"anything=1"}, ""},
		{"a bad general option", "function event() end", []string{"rand-type=zipf"}, "valid values"},
	}
	for _, c := range cases {
		_, err := build(t, c.text, c.props...)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
}

// recConn records what a worker's script sends; it stands for no database
// behaviour beyond "ran, affected n rows".
type recConn struct{ sent []string }

func (c *recConn) Exec(_ context.Context, sql string, args ...any) (int64, error) {
	c.sent = append(c.sent, sql)
	return 1, nil
}
func (c *recConn) Query(_ context.Context, sql string, args []any, fn func([][]byte) error) (int, error) {
	c.sent = append(c.sent, sql)
	if fn != nil {
		fn([][]byte{[]byte("1"), nil})
	}
	return 1, nil
}
func (c *recConn) Close() error { return nil }

type counts [3]int64

func (n *counts) Add(counter int, v int64) { n[counter] += v }

// A worker's options, rand functions and statements as a script sees
// them: sysbench.opt typed, statements counted by sysbench's rules, a
// result set read, the per-worker tid.
func TestWorkerAPI(t *testing.T) {
	w, err := build(t, `
sysbench.cmdline.options = {n = {"N", 5}, flag = {"F", false}, names = {"L", {"a"}}}
function thread_init(tid)
   con = sysbench.sql.driver():connect()
   st = con:prepare("UPDATE t SET c = ? WHERE id = ?")
   p1 = st:bind_create(sysbench.sql.type.CHAR, 3)
   p2 = st:bind_create(sysbench.sql.type.INT)
   st:bind_param(p1, p2)
   assert(sysbench.tid == tid)
end
function event(tid)
   assert(sysbench.opt.n == 9 and sysbench.opt.flag == true and sysbench.opt.names[2] == "y", "opt")
   assert(sysbench.opt.threads == 2 and sysbench.opt.db_driver == "mysql")
   local u = sysbench.rand.uniform(3, 4)
   assert(u == 3 or u == 4)
   assert(#sysbench.rand.string("@@##") == 4)
   assert(sysbench.rand.varstring(2, 2):match("^[0-9a-z][0-9a-z]$"))
   local row = con:query("SELECT a, b FROM t"):fetch_row()
   assert(row[1] == "1" and row[2] == nil, "row")
   assert(select("#", con:query_row("SELECT a, b FROM t")) == 2)
   p1:set("abcdef"); p2:set(7.9)
   st:execute()
   con:query("BEGIN")
end`, "n=9", "flag=on", "names=x,y")
	if err != nil {
		t.Fatal(err)
	}
	wk := w.NewWorker(1, rand.New(rand.NewSource(1)))
	c := &recConn{}
	var n counts
	if err := wk.Exec(context.Background(), c, &spanCounter{&n}); err != nil {
		t.Fatal(err)
	}
	if want := "SELECT a, b FROM t|SELECT a, b FROM t|UPDATE t SET c = ? WHERE id = ?|BEGIN"; strings.Join(c.sent, "|") != want {
		t.Errorf("sent %q", c.sent)
	}
	if n != (counts{2, 2, 0}) { // the recording session says every Exec changed a row
		t.Errorf("reads, writes, other = %v", n)
	}
}

// spanCounter is the Span the runner passes: it counts.
type spanCounter struct{ n *counts }

func (s *spanCounter) Span(workload.OpID, time.Time, time.Time, error) {}
func (s *spanCounter) Add(counter int, v int64)                        { s.n.Add(counter, v) }

var _ target.Conn = (*recConn)(nil)
