package sysbenchlua

import (
	"context"
	"fmt"
	"io"
	"math/rand"
	"os"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/candor-bench/candor/internal/keydist"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

// stateKind tells what a Lua state serves.
type stateKind int

const (
	stateProbe  stateKind = iota // SetScripts' look at the script: no options yet
	stateMain                    // a command's (prepare, cleanup, help, custom)
	stateWorker                  // one run-phase worker's
)

// luaState is one Lua state with sysbench's API, used by one goroutine.
type luaState struct {
	w    *Workload
	L    *lua.LState
	kind stateKind
	tid  int
	r    *rand.Rand // sysbench.rand.*'s generator
	// uniqR seeds sysbench.rand.unique()'s shared sequence when this state
	// draws from it first: the runner's generator, as candor's Go sysbench
	// seeds it (not --rand-seed's).
	uniqR *rand.Rand
	out   io.Writer // print()

	// The statements' session: the runner's (a worker's Exec sets it) or,
	// for commands, one opened by connect.
	ctx     context.Context
	conn    target.Conn
	connect func() (target.Conn, error) // commands: opens a session
	opened  []target.Conn               // the sessions connect opened
	cnt     workload.Counter

	sqlErr  error  // the last statement error raised into Lua in this call
	sqlText string // its statement
	sqlPrep bool   // sent prepared

	threadRun lua.LValue // the thread_run candor puts in place (a script's own is refused)
	errfunc   *lua.LFunction
	trace     string // the traceback of the last Lua error
	sbtable   *lua.LTable
	buf       []byte
	lit       []byte // a statement with its values written in (--db-ps-mode=disable)
	mt        metatables
}

// metatables of the API's objects, one set per state.
type metatables struct {
	driver, conn, stmt, param, result *lua.LTable
}

// newState builds a Lua state as sysbench builds each of its states: the
// standard libraries, the sysbench table and its compatibility globals,
// then the script's chunk (with the command in sysbench.cmdline.command);
// sysbench.opt is set after the chunk, as sysbench sets it before calling
// into the script.
func (w *Workload) newState(kind stateKind, tid int, r *rand.Rand) (*luaState, error) {
	L := lua.NewState(lua.Options{SkipOpenLibs: false})
	st := &luaState{w: w, L: L, kind: kind, tid: tid, r: r, out: os.Stdout, ctx: context.Background()}
	L.SetField(L.GetGlobal("string"), "format", L.NewFunction(strFormat))
	L.SetGlobal("print", L.NewFunction(st.print))
	L.SetGlobal("require", L.NewFunction(st.require))
	L.SetGlobal("ffi", st.refusal("ffi", "LuaJIT's ffi (foreign function interface)"))
	L.SetGlobal("bit", st.refusal("bit", "LuaJIT's bit library"))
	st.errfunc = L.NewFunction(st.onError)
	st.installSysbench()
	st.threadRun = L.GetGlobal("thread_run")
	proto := w.protos[w.file]
	L.Push(L.NewFunctionFromProto(proto))
	if err := L.PCall(0, 0, st.errfunc); err != nil {
		L.Close()
		return nil, fmt.Errorf("%s: %s", w.file, st.errorText(err))
	}
	if kind != stateProbe {
		st.setOpt()
	}
	return st, nil
}

// print writes its arguments as Lua's print does, to the state's output.
func (st *luaState) print(L *lua.LState) int {
	n := L.GetTop()
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteByte('\t')
		}
		b.WriteString(luaToString(L, L.Get(i)))
	}
	b.WriteByte('\n')
	io.WriteString(st.out, b.String())
	return 0
}

// refusal is a table that raises, when used, why candor has no such
// library.
func (st *luaState) refusal(name, what string) *lua.LTable {
	L := st.L
	t := L.NewTable()
	mt := L.NewTable()
	L.SetField(mt, "__index", L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("%s.%s: %s is not available in candor's embedded Lua (gopher-lua, Lua 5.1); run this script with sysbench", name, L.OptString(2, "?"), what)
		return 0
	}))
	L.SetMetatable(t, mt)
	return t
}

// require loads a module: the standard libraries, the files the script
// requires (read with it and recorded in the result), never LuaJIT's ffi.
func (st *luaState) require(L *lua.LState) int {
	name := L.CheckString(1)
	loaded := L.GetField(L.GetField(L.GetGlobal("package"), "loaded"), name)
	if loaded != lua.LNil {
		L.Push(loaded)
		return 1
	}
	switch name {
	case "ffi", "bit":
		L.RaiseError("require(%q): LuaJIT's %s library is not available in candor's embedded Lua (gopher-lua, Lua 5.1); run this script with sysbench", name, name)
	}
	path, ok := st.w.modules[name]
	proto := st.w.protos[path]
	if !ok || proto == nil {
		L.RaiseError("module '%s' not found: candor finds required files when it reads the script (require(\"name\") with a literal name, as name.lua in ./, the script's directory or %s)", name, ShareDir)
	}
	L.Push(L.NewFunctionFromProto(proto))
	L.Push(lua.LString(name))
	L.Call(1, 1)
	v := L.Get(-1)
	L.Pop(1)
	if v == lua.LNil {
		v = lua.LTrue
	}
	L.SetField(L.GetField(L.GetGlobal("package"), "loaded"), name, v)
	L.Push(v)
	return 1
}

// onError is the message handler of every protected call: it keeps the
// Lua traceback of an error (a message, not sysbench's errdesc table).
func (st *luaState) onError(L *lua.LState) int {
	v := L.Get(1)
	if _, ok := v.(*lua.LTable); !ok {
		tb := L.GetField(L.GetGlobal("debug"), "traceback")
		if fn, ok := tb.(*lua.LFunction); ok {
			L.Push(fn)
			L.Push(lua.LString(lua.LVAsString(v)))
			L.Push(lua.LNumber(2))
			if L.PCall(2, 1, nil) == nil {
				st.trace = lua.LVAsString(L.Get(-1))
				L.Pop(1)
			}
		}
	}
	L.Push(v)
	return 1
}

// errorText is a protected call's error as a message.
func (st *luaState) errorText(err error) string {
	if ae, ok := err.(*lua.ApiError); ok {
		if t, ok := ae.Object.(*lua.LTable); ok {
			if m := st.L.GetField(t, "sql_errmsg"); m != lua.LNil {
				return "SQL error: " + lua.LVAsString(m)
			}
			return "error object " + luaToString(st.L, t)
		}
		return lua.LVAsString(ae.Object)
	}
	return err.Error()
}

// callGlobal calls a global function with no arguments (a command).
func (st *luaState) callGlobal(name string, args ...lua.LValue) error {
	fn, ok := st.L.GetGlobal(name).(*lua.LFunction)
	if !ok {
		return fmt.Errorf("'%s' test does not implement the '%s' command", st.w.file, name)
	}
	return st.call(name, fn, args...)
}

// call calls fn protected; an error is "'name' function failed: message".
func (st *luaState) call(name string, fn lua.LValue, args ...lua.LValue) error {
	L := st.L
	L.Push(fn)
	for _, a := range args {
		L.Push(a)
	}
	st.trace = ""
	if err := L.PCall(len(args), 0, st.errfunc); err != nil {
		msg := st.errorText(err)
		if st.trace != "" {
			msg += "\n" + st.trace
		}
		return fmt.Errorf("'%s' function failed: %s", name, msg)
	}
	return nil
}

// installSysbench builds the sysbench table and the globals of sysbench's
// compatibility module.
func (st *luaState) installSysbench() {
	L := st.L
	w := st.w
	sb := L.NewTable()
	st.sbtable = sb
	L.SetGlobal("sysbench", sb)
	L.SetField(sb, "tid", lua.LNumber(st.tid))
	L.SetField(sb, "version", lua.LString("1.0.20"))
	L.SetField(sb, "version_string", lua.LString("sysbench 1.0.20 (candor)"))
	L.SetField(sb, "hooks", L.NewTable())
	L.SetField(sb, "error", st.consts(map[string]int{"NONE": 0, "RESTART_EVENT": 1}))

	cmd := L.NewTable()
	L.SetField(sb, "cmdline", cmd)
	argv := L.NewTable()
	argv.RawSetInt(0, lua.LString("sysbench"))
	argv.RawSetInt(1, lua.LString(w.file))
	argv.RawSetInt(2, lua.LString(w.g.command))
	L.SetField(cmd, "argv", argv)
	L.SetField(cmd, "command", lua.LString(w.g.command))
	L.SetField(cmd, "script_path", lua.LString(w.file))
	L.SetField(cmd, "PARALLEL_COMMAND", lua.LTrue)
	for i, n := range []string{"ARG_NULL", "ARG_BOOL", "ARG_INT", "ARG_SIZE", "ARG_DOUBLE", "ARG_STRING", "ARG_LIST", "ARG_FILE", "ARG_MAX"} {
		L.SetField(cmd, n, lua.LNumber(i))
	}
	L.SetField(cmd, "command_defined", L.NewFunction(func(L *lua.LState) int {
		c, ok := L.GetField(cmd, "commands").(*lua.LTable)
		L.Push(lua.LBool(ok && L.GetField(c, L.CheckString(1)) != lua.LNil))
		return 1
	}))
	L.SetField(cmd, "read_cmdline_options", L.NewFunction(func(L *lua.LState) int { L.Push(lua.LTrue); return 1 }))

	L.SetField(sb, "rand", st.randTable())
	L.SetField(sb, "sql", st.sqlTable())
	noop := L.NewFunction(func(L *lua.LState) int { return 0 })
	for _, n := range []string{"report_default", "report_csv", "report_json"} {
		L.SetField(sb, n, noop)
	}
	hist := L.NewTable()
	L.SetField(hist, "new", L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("sysbench.histogram is not available in candor: every result file holds the run's latency histograms")
		return 0
	}))
	L.SetField(sb, "histogram", hist)
	L.SetGlobal("thread_run", L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("thread_run is candor's runner's loop; it is not called from Lua")
		return 0
	}))

	// sysbench.compat.lua's globals.
	rnd := L.GetField(sb, "rand").(*lua.LTable)
	for global, fn := range map[string]string{"sb_rand": "default", "sb_rand_str": "string", "sb_rand_uniform": "uniform",
		"sb_rand_gaussian": "gaussian", "sb_rand_special": "special"} {
		L.SetGlobal(global, L.GetField(rnd, fn))
	}
	L.SetGlobal("sb_rand_uniq", L.NewFunction(func(L *lua.LState) int {
		a := int64(L.OptNumber(1, 0))
		b := int64(L.OptNumber(2, 4294967295))
		u := st.w.uniqueSeq(st.uniqueRand())
		for {
			if v := int64(u.Next()); v >= a && v <= b {
				L.Push(lua.LNumber(v))
				return 1
			}
		}
	}))
	L.SetGlobal("sb_rnd", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LNumber(st.r.Uint64() & 0xffffffff))
		return 1
	}))
	L.SetGlobal("thread_id", lua.LNumber(st.tid))
	L.SetGlobal("test", lua.LString(w.file))
	L.SetGlobal("DB_ERROR_NONE", lua.LNumber(0))
	L.SetGlobal("DB_ERROR_RESTART_TRANSACTION", lua.LNumber(1))
	L.SetGlobal("DB_ERROR_FAILED", lua.LNumber(2))
	if err := L.DoString(legacyAPI); err != nil {
		panic("sysbenchlua: the legacy API does not load: " + err.Error()) // a bug in the text below
	}
}

// legacyAPI is sysbench 0.5's database API, which sysbench 1.0.20 keeps
// for old scripts (db_connect, db_query, ... on one implicit connection,
// and sysbench.db), written over sysbench 1.0's sysbench.sql. Its
// prepared-statement calls, which bind Lua tables by reference, are
// refused with the 1.0 call to use instead.
const legacyAPI = `
local con
local function legacy_con(fn)
  if con == nil then error(fn .. "() before db_connect(): call db_connect() in thread_init() first", 3) end
  return con
end
function db_connect()
  db_driver = sysbench.sql.driver()
  con = db_driver:connect()
end
function db_disconnect()
  if con ~= nil then con:disconnect(); con = nil end
end
function db_query(q) return legacy_con("db_query"):query(q) end
function db_bulk_insert_init(q) legacy_con("db_bulk_insert_init"):bulk_insert_init(q) end
function db_bulk_insert_next(v) legacy_con("db_bulk_insert_next"):bulk_insert_next(v) end
function db_bulk_insert_done() legacy_con("db_bulk_insert_done"):bulk_insert_done() end
for _, name in ipairs({"db_prepare", "db_bind_param", "db_bind_result", "db_execute", "db_close", "db_store_results", "db_free_results"}) do
  _G[name] = function()
    error(name .. "() of sysbench 0.5's API is not supported by candor: use sysbench 1.0's con:prepare(), stmt:bind_create(), stmt:bind_param() and stmt:execute()", 2)
  end
end
sysbench.db = {connect = db_connect, disconnect = db_disconnect, query = db_query,
  bulk_insert_init = db_bulk_insert_init, bulk_insert_next = db_bulk_insert_next, bulk_insert_done = db_bulk_insert_done,
  prepare = db_prepare, bind_param = db_bind_param, bind_result = db_bind_result, execute = db_execute,
  close = db_close, store_results = db_store_results, free_results = db_free_results}
`

func (st *luaState) consts(m map[string]int) *lua.LTable {
	t := st.L.NewTable()
	for k, v := range m {
		st.L.SetField(t, k, lua.LNumber(v))
	}
	return t
}

// setOpt fills sysbench.opt: the general options candor knows, then the
// script's with their values or defaults. A script that declares no
// options gets the given ones as strings and as globals, as in sysbench.
func (st *luaState) setOpt() {
	L, w := st.L, st.w
	opt := L.NewTable()
	g := &w.g
	set := func(k string, v lua.LValue) { L.SetField(opt, k, v) }
	set("threads", lua.LNumber(max(w.threads, 1)))
	set("events", lua.LNumber(g.events))
	set("time", lua.LNumber(0))
	set("rate", lua.LNumber(0))
	set("report_interval", lua.LNumber(0))
	set("percentile", lua.LNumber(g.percentile))
	set("histogram", lua.LBool(g.histogram))
	set("rand_type", lua.LString(g.randType))
	set("rand_seed", lua.LNumber(g.randSeed))
	set("rand_spec_iter", lua.LNumber(g.specIter))
	set("rand_spec_pct", lua.LNumber(g.specPct))
	set("rand_spec_res", lua.LNumber(g.specRes))
	set("rand_pareto_h", lua.LNumber(g.paretoH))
	set("db_driver", lua.LString(w.driver))
	set("db_ps_mode", lua.LString(g.psMode))
	given := map[string]string{}
	for _, p := range g.scriptArgs {
		given[p.name] = p.value
	}
	for _, d := range w.decl {
		text, ok := given[d.name]
		if !ok {
			text = d.def
		}
		v, err := optValue(L, d.typ, text)
		if err != nil {
			v = lua.LString(text) // checked by SetScripts
		}
		set(d.name, v)
	}
	if !w.declared {
		for _, p := range g.scriptArgs {
			set(p.name, lua.LString(p.value))
			if _, isFn := L.GetGlobal(p.name).(*lua.LFunction); !isFn {
				L.SetGlobal(p.name, lua.LString(p.value))
			}
		}
	}
	L.SetField(st.sbtable, "opt", opt)
}

func (st *luaState) uniqueRand() *rand.Rand {
	if st.uniqR != nil {
		return st.uniqR
	}
	return st.r
}

// randTable is sysbench.rand, drawing from the state's generator with
// candor's sysbench distributions (package keydist).
func (st *luaState) randTable() *lua.LTable {
	L := st.L
	w := st.w
	t := L.NewTable()
	bounds := func(L *lua.LState) (int64, int64) {
		return int64(L.CheckNumber(1)), int64(L.CheckNumber(2))
	}
	// draw makes a function of (a, b) from a distribution of sysbench's.
	draw := func(d func(a, b int64) int64) lua.LGFunction {
		return func(L *lua.LState) int {
			a, b := bounds(L)
			L.Push(lua.LNumber(d(a, b)))
			return 1
		}
	}
	fns := map[string]lua.LGFunction{
		"uniform":  draw(func(a, b int64) int64 { return keydist.SysbenchUniform(st.r, a, b) }),
		"default":  draw(func(a, b int64) int64 { return w.dist.Draw(st.r, a, b) }),
		"gaussian": draw(func(a, b int64) int64 { return keydist.SysbenchGaussian(st.r, a, b, w.g.specIter) }),
		"special":  draw(func(a, b int64) int64 { return w.special.Draw(st.r, a, b) }),
		"pareto":   draw(func(a, b int64) int64 { return keydist.SysbenchPareto(st.r, a, b, w.g.paretoH) }),
		"unique": func(L *lua.LState) int {
			L.Push(lua.LNumber(w.uniqueSeq(st.uniqueRand()).Next()))
			return 1
		},
		"uniform_uint64": func(L *lua.LState) int {
			L.Push(lua.LNumber(st.r.Uint64()))
			return 1
		},
		"uniform_double": func(L *lua.LState) int {
			L.Push(lua.LNumber(st.r.Float64()))
			return 1
		},
		"string": func(L *lua.LState) int {
			st.buf = keydist.AppendSysbenchString(st.buf[:0], st.r, L.CheckString(1))
			L.Push(lua.LString(st.buf))
			return 1
		},
		"varstring": func(L *lua.LState) int {
			// sysbench 1.1's: a length uniform in [min, max], each
			// character uniform among 0-9 and a-z.
			a, b := bounds(L)
			n := keydist.SysbenchUniform(st.r, a, b)
			st.buf = st.buf[:0]
			for i := int64(0); i < n; i++ {
				c := keydist.SysbenchUniform(st.r, 0, 35)
				if c < 10 {
					st.buf = append(st.buf, byte('0'+c))
				} else {
					st.buf = append(st.buf, byte('a'+c-10))
				}
			}
			L.Push(lua.LString(st.buf))
			return 1
		},
		"zipfian": func(L *lua.LState) int {
			L.RaiseError("sysbench.rand.zipfian is sysbench 1.1's (sysbench 1.0.20 has none, and candor emulates 1.0.20); use sysbench.rand.pareto or special for a skewed draw")
			return 0
		},
	}
	for name, fn := range fns {
		L.SetField(t, name, L.NewFunction(fn))
	}
	return t
}
