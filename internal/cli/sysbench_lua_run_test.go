package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/testutil/oracle"
)

// luaTestTargets are the test servers a Lua script can run on.
func luaTestTargets(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	if u := os.Getenv("CANDOR_TEST_MYSQL_URL"); u != "" {
		out["mysql"] = u
	}
	if u := os.Getenv("CANDOR_TEST_POSTGRES_URL"); u != "" {
		out["postgres"] = u
	}
	if len(out) == 0 {
		t.Skip("CANDOR_TEST_MYSQL_URL and CANDOR_TEST_POSTGRES_URL unset (scripts/test.sh sets them)")
	}
	return out
}

// customScript is a user's script: options of its own, prepare and
// cleanup, a custom command, prepared statements with parameters, result
// sets read back, and the counters.
const customScript = `
sysbench.cmdline.options = {
   rows = {"Rows to create", 10},
   label = {"Label written by events", "x"},
   fast = {"A boolean", false},
}

sysbench.cmdline.commands = {
   count = {function ()
      local con = sysbench.sql.driver():connect()
      print("rows: " .. con:query_row("SELECT COUNT(*) FROM luatest"))
   end},
}

function prepare()
   local con = sysbench.sql.driver():connect()
   con:query("CREATE TABLE luatest (id INTEGER PRIMARY KEY, v VARCHAR(20))")
   con:bulk_insert_init("INSERT INTO luatest (id, v) VALUES")
   for i = 1, sysbench.opt.rows do
      con:bulk_insert_next(string.format("(%d, '%s')", i, sysbench.opt.label))
   end
   con:bulk_insert_done()
   print(string.format("Created luatest with %u rows", sysbench.opt.rows))
end

function cleanup()
   local con = sysbench.sql.driver():connect()
   con:query("DROP TABLE IF EXISTS luatest")
end

function thread_init(tid)
   drv = sysbench.sql.driver()
   con = drv:connect()
   upd = con:prepare("UPDATE luatest SET v = ? WHERE id = ?")
   pv = upd:bind_create(sysbench.sql.type.VARCHAR, 5)
   pid = upd:bind_create(sysbench.sql.type.INT)
   upd:bind_param(pv, pid)
end

function event(tid)
   local rs = con:query("SELECT id, v FROM luatest ORDER BY id")
   assert(rs.nrows == sysbench.opt.rows, "rows " .. rs.nrows)
   local row = rs:fetch_row()
   assert(row[1] == "1", "first id " .. tostring(row[1]))
   assert(sysbench.opt.fast == true)
   pv:set(sysbench.opt.label)
   pid:set(sysbench.rand.uniform(1, sysbench.opt.rows))
   upd:execute()
end
`

func writeScript(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A user's script with options of its own runs prepare, a custom command,
// run and cleanup as sysbench does; the server holds what the script
// wrote (read back with a client of the test's own), the report counts
// the script's reads, writes and other statements, the result records
// the script's text, and a rerun runs the recorded text though the file
// has changed since.
//
// Its commands run as child processes in the test's directory (runChild):
// their result files are named as sysbench names them, relative to it. The
// table luatest is this test's alone.
func TestSysbenchLuaCustomScript(t *testing.T) {
	t.Parallel()
	for name, u := range luaTestTargets(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			script := writeScript(t, dir, "my_test.lua", customScript)
			conn := append(sysbenchConnArgs(t, u), "--rows=7", "--label=abcdefgh", "--fast")
			sb := func(args ...string) (string, string) {
				t.Helper()
				args = append(append([]string{"sysbench"}, conn...), args...)
				code, stdout, stderr := runChild(t, dir, args...)
				if code != 0 {
					t.Fatalf("candor %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout, stderr)
				}
				return stdout, stderr
			}
			sb(script, "cleanup")
			out, _ := sb(script, "prepare")
			if !strings.Contains(out, "Created luatest with 7 rows") {
				t.Errorf("prepare printed:\n%s", out)
			}
			t.Cleanup(func() { sb(script, "cleanup") })
			if out, _ := sb(script, "count"); !strings.Contains(out, "rows: 7") {
				t.Errorf("the custom command printed:\n%s", out)
			}
			or := oracle.Open(t, u)
			if n := or.Ints(t, "SELECT COUNT(*) FROM luatest WHERE v = 'abcdefgh'"); n[0] != 7 {
				t.Fatalf("the server holds %d rows labelled by prepare, want 7", n[0])
			}
			out, _ = sb("--threads=2", "--events=40", "--time=0", "--out=lua.json", script, "run")
			for _, want := range []string{"read:                            40", "transactions:                        40"} {
				if !strings.Contains(out, want) {
					t.Errorf("the report lacks %q:\n%s", want, out)
				}
			}
			// VARCHAR(5) parameters are cut to 5 bytes, as sysbench cuts them.
			if n := or.Ints(t, "SELECT COUNT(*) FROM luatest WHERE v = 'abcde'"); n[0] == 0 {
				t.Errorf("no row was updated by the events (v = 'abcde')")
			}
			res, err := result.Read(filepath.Join(dir, "lua.json"))
			if err != nil {
				t.Fatal(err)
			}
			var spec struct {
				Scripts []struct{ Name, SHA256, Text string }
			}
			if err := json.Unmarshal(res.Spec, &spec); err != nil {
				t.Fatal(err)
			}
			if len(spec.Scripts) != 1 || spec.Scripts[0].Text != customScript || spec.Scripts[0].Name != script {
				t.Fatalf("the result records the scripts %+v", spec.Scripts)
			}
			// The file changes; a rerun runs what the result recorded.
			writeScript(t, dir, "my_test.lua", "this is not Lua")
			code, stdout, stderr := runChild(t, dir, "rerun", "lua.json", "--target="+u, "--out=rerun.json")
			writeScript(t, dir, "my_test.lua", customScript) // for the cleanup
			if code != 0 {
				t.Fatalf("rerun: exit %d\n%s%s", code, stdout, stderr)
			}
			rr, err := result.Read(filepath.Join(dir, "rerun.json"))
			if err != nil {
				t.Fatal(err)
			}
			if rr.Status != result.StatusComplete {
				t.Errorf("the rerun's status is %s", rr.Status)
			}
		})
	}
}

// sysbench.rand's deterministic properties against sysbench 1.0.20's own
// output: the shape of sysbench.rand.string's result and the range of the
// integer functions, from one script run by both as a custom command.
func TestSysbenchLuaRandMatchesBinary(t *testing.T) {
	t.Parallel()
	bin := exec.Command("sysbench", "--version")
	if err := bin.Run(); err != nil {
		t.Skip("no sysbench binary")
	}
	u := ""
	for _, v := range luaTestTargets(t) {
		u = v
	}
	dir := t.TempDir()
	script := writeScript(t, dir, "rand.lua", `
sysbench.cmdline.commands = {
   draw = {function ()
      for i = 1, 2000 do
         print(string.format("s %s", sysbench.rand.string("##-@@@-#")))
         print(string.format("u %d", sysbench.rand.uniform(3, 9)))
         print(string.format("d %d", sysbench.rand.default(5, 15)))
         print(string.format("g %d", sysbench.rand.gaussian(1, 4)))
         print(string.format("p %d", sysbench.rand.pareto(10, 20)))
         print(string.format("x %d", sysbench.rand.special(100, 200)))
      end
   end},
}
`)
	ref, err := exec.Command("sysbench", script, "draw").Output()
	if err != nil {
		t.Fatalf("sysbench: %v", err)
	}
	code, got, stderr := runAbs(t, dir, "sysbench", "--target="+u, script, "draw")
	if code != 0 {
		t.Fatalf("candor: exit %d\n%s", code, stderr)
	}
	type summary struct {
		shapes   map[string]bool
		min, max map[string]int
	}
	shape := regexp.MustCompile(`[0-9]`)
	letters := regexp.MustCompile(`[a-z]`)
	sum := func(out string) summary {
		s := summary{shapes: map[string]bool{}, min: map[string]int{}, max: map[string]int{}}
		for _, l := range strings.Split(out, "\n") {
			k, v, ok := strings.Cut(l, " ")
			if !ok || len(k) != 1 {
				continue
			}
			if k == "s" {
				s.shapes[letters.ReplaceAllString(shape.ReplaceAllString(v, "#"), "@")] = true
				continue
			}
			n, err := strconv.Atoi(v)
			if err != nil {
				t.Fatalf("%q", l)
			}
			if m, ok := s.min[k]; !ok || n < m {
				s.min[k] = n
			}
			if m, ok := s.max[k]; !ok || n > m {
				s.max[k] = n
			}
		}
		return s
	}
	want, have := sum(string(ref)), sum(got)
	if len(want.shapes) != 1 || len(have.shapes) != 1 || !want.shapes["##-@@@-#"] || !have.shapes["##-@@@-#"] {
		t.Errorf("rand.string shapes: sysbench %v, candor %v", want.shapes, have.shapes)
	}
	// 2000 draws reach both ends of these small ranges in both tools.
	for _, k := range []string{"u", "p"} {
		if want.min[k] != have.min[k] || want.max[k] != have.max[k] {
			t.Errorf("%s: sysbench's range %d..%d, candor's %d..%d", k, want.min[k], want.max[k], have.min[k], have.max[k])
		}
	}
	// The others stay in their bounds (their tails are too thin to compare).
	for k, r := range map[string][2]int{"d": {5, 15}, "g": {1, 4}, "x": {100, 200}} {
		if have.min[k] < r[0] || have.max[k] > r[1] {
			t.Errorf("%s out of %d..%d: %d..%d", k, r[0], r[1], have.min[k], have.max[k])
		}
	}
}

// Bad input and failing scripts: one clear message and the documented exit
// code, never a hang or a panic. None of its scripts runs SQL, so it runs
// against the null target, with or without servers (a fatal SQL error is
// TestSysbenchLuaFatalSQLError's).
func TestSysbenchLuaBadInput(t *testing.T) {
	t.Parallel() // its scripts create no table
	dir := t.TempDir()
	conn := "--target=null://"
	run := func(args ...string) (int, string, string) {
		t.Helper()
		for _, a := range args {
			if strings.HasPrefix(a, "--out=") {
				return runAt(t, dir, append([]string{"sysbench", conn}, args...)...)
			}
		}
		f, err := os.CreateTemp(dir, "run-*.json")
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		os.Remove(f.Name())
		return runAt(t, dir, append([]string{"sysbench", conn, "--out=" + f.Name()}, args...)...)
	}

	syntax := writeScript(t, dir, "syntax.lua", "function event()\n  local x = \n  x(\nend\n")
	if code, _, stderr := run("--events=1", syntax, "run"); code != ExitUsage || !regexp.MustCompile(`syntax\.lua:\d+: syntax error`).MatchString(stderr) {
		t.Errorf("a syntax error: exit %d (want %d)\n%s", code, ExitUsage, stderr)
	}

	ffi := writeScript(t, dir, "ffi.lua", "local ffi = require(\"ffi\")\nffi.cdef[[int usleep(unsigned int);]]\nfunction event() ffi.C.usleep(10) end\n")
	if code, _, stderr := run("--events=1", ffi, "run"); code != ExitUsage || !strings.Contains(stderr, "ffi.lua:1: the script uses LuaJIT's ffi") {
		t.Errorf("ffi: exit %d (want %d)\n%s", code, ExitUsage, stderr)
	}

	bin := filepath.Join(dir, "binary.lua")
	os.WriteFile(bin, []byte{0x7f, 'E', 'L', 'F', 0, 1, 2}, 0o644)
	if code, _, stderr := run("--events=1", bin, "run"); code != ExitUsage || !strings.Contains(stderr, "not a text file") {
		t.Errorf("a binary file: exit %d (want %d)\n%s", code, ExitUsage, stderr)
	}

	opt := writeScript(t, dir, "opt.lua", "sysbench.cmdline.options = {n = {\"N\", 1}}\nfunction event() end\n")
	if code, _, stderr := run("--events=1", "--m=2", opt, "run"); code != ExitUsage || !strings.Contains(stderr, "unknown option --m") {
		t.Errorf("an undeclared option: exit %d (want %d)\n%s", code, ExitUsage, stderr)
	}
	if code, _, stderr := run("--events=1", "--n=abc", opt, "run"); code != ExitUsage || !strings.Contains(stderr, "--n=abc: not a number") {
		t.Errorf("an option of the wrong type: exit %d (want %d)\n%s", code, ExitUsage, stderr)
	}

	// An error in the tenth event ends the run at once, as sysbench's
	// thread_run failure does: its FATAL line and no report on stdout, the
	// traceback on stderr, long before --time.
	flaky := writeScript(t, dir, "flaky.lua", "n = 0\nfunction helper()\n  error(\"boom at \" .. 'event')\nend\nfunction event()\n  n = n + 1\n  if n % 10 == 0 then helper() end\nend\n")
	began := time.Now()
	code, stdout, stderr := run("--time=600", "--out=flaky.json", flaky, "run")
	if took := time.Since(began); took > 5*time.Minute { // --time ran out: no abort
		t.Errorf("a Lua error: the run took %v", took)
	}
	if code != ExitRunFailed || !strings.Contains(stdout, "FATAL: `thread_run' function failed: "+flaky+":3: boom at event") || strings.Contains(stdout, "SQL statistics") {
		t.Fatalf("a Lua error in an event: exit %d (want %d, sysbench's FATAL line and no report)\n%s%s", code, ExitRunFailed, stdout, stderr)
	}
	if !strings.Contains(stderr, "stack traceback") {
		t.Errorf("the Lua error's traceback is not on stderr:\n%s", stderr)
	}
	res, err := result.Read(filepath.Join(dir, "flaky.json"))
	if err != nil {
		t.Fatal(err)
	}
	if ph := res.Phases[len(res.Phases)-1]; ph.Status != result.StatusFailed || ph.Operations < 10 || !strings.Contains(ph.Failure, "boom at event") {
		t.Errorf("status %s after %d events: %s", ph.Status, ph.Operations, ph.Failure)
	}
	// Every event failing breaks the default budget: the run fails.
	broken := writeScript(t, dir, "broken.lua", "function event() local t = nil; return t.x end\n")
	if code, stdout, stderr := run("--events=50", "--time=0", "--out=broken.json", broken, "run"); code != ExitRunFailed {
		t.Errorf("every event failing: exit %d (want %d)\n%s%s", code, ExitRunFailed, stdout, stderr)
	}

	// A script looping forever inside one event ends with the run.
	loop := writeScript(t, dir, "loop.lua", "function event() while true do end end\n")
	began = time.Now()
	code, stdout, stderr = run("--time=1", "--out=loop.json", loop, "run")
	if took := time.Since(began); took > time.Minute { // a hang, not a slow end: a loaded machine under -race took 15.2 s
		t.Errorf("an endless event: the run took %v for --time=1", took)
	}
	if code != 0 && code != ExitRunFailed {
		t.Errorf("an endless event: exit %d\n%s%s", code, stdout, stderr)
	}
}

// A fatal SQL error ends the run, as sysbench's FATAL does, on each server
// the tests have.
func TestSysbenchLuaFatalSQLError(t *testing.T) {
	targets := luaTestTargets(t)
	t.Parallel() // its script creates no table
	for name, u := range targets {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			fatal := writeScript(t, dir, "fatal.lua", "function thread_init() con = sysbench.sql.driver():connect() end\nfunction event() con:query(\"SELECT * FROM no_such_table_here\") end\n")
			code, stdout, stderr := runAt(t, dir, "sysbench", "--target="+u, "--events=50", "--time=0", "--out=fatal.json", fatal, "run")
			if code != ExitRunFailed || !strings.Contains(stdout+stderr, "no_such_table_here") {
				t.Errorf("a fatal SQL error: exit %d (want %d)\n%s%s", code, ExitRunFailed, stdout, stderr)
			}
		})
	}
}

// A script without event() is refused before candor connects, as
// SYSBENCH-LUA.md promises: exit 2 on an unreachable target as on one that
// answers, naming the file.
func TestSysbenchLuaNoEventBeforeConnecting(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := writeScript(t, dir, "noevent.lua", "x = 1\n")
	for _, target := range []string{"postgres://u:s3cret@127.0.0.1:1/db", "mysql://u:s3cret@127.0.0.1:1/db", "null://"} {
		code, stdout, stderr := runAt(t, dir, "sysbench", "--target="+target, "--connect-timeout=2s", "--events=1", script, "run")
		if code != ExitUsage || !strings.Contains(stderr, "cannot find the event() function in") || !strings.Contains(stderr, "noevent.lua") {
			t.Errorf("%s: exit %d (want %d, naming the missing event())\n%s%s", target, code, ExitUsage, stdout, stderr)
		}
	}
}

// legacyScript is written for sysbench 0.5's API, which sysbench 1.0.20
// still runs: db_connect(), db_query(), db_bulk_insert_*() on an implicit
// connection, thread_id and event(thread_id).
const legacyScript = `
function prepare()
   db_connect()
   db_query("CREATE TABLE lua05 (id INTEGER PRIMARY KEY, tid INTEGER)")
   db_bulk_insert_init("INSERT INTO lua05 (id, tid) VALUES")
   for i = 1, 5 do
      db_bulk_insert_next("(" .. i .. ", -1)")
   end
   db_bulk_insert_done()
   db_disconnect()
end

function cleanup()
   db_connect()
   db_query("DROP TABLE IF EXISTS lua05")
end

function thread_init(thread_id)
   db_connect()
   n = 0
end

function event(thread_id)
   n = n + 1
   db_query("INSERT INTO lua05 (id, tid) VALUES (" .. (1000 * (thread_id + 1) + n) .. ", " .. thread_id .. ")")
end
`

// A sysbench 0.5 script runs as sysbench 1.0.20 runs it, on its implicit
// connection: the rows its prepare and events wrote are on the server
// (read by the test's own client). 0.5's prepared statements, which
// candor does not take, are refused at once with the 1.0 call to use.
func TestSysbenchLuaLegacyAPI(t *testing.T) {
	t.Parallel()
	for name, u := range luaTestTargets(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			script := writeScript(t, dir, "legacy.lua", legacyScript)
			sb := func(args ...string) (int, string, string) {
				t.Helper()
				return runAt(t, dir, append(append([]string{"sysbench"}, sysbenchConnArgs(t, u)...), args...)...)
			}
			sb(script, "cleanup")
			if code, out, errOut := sb(script, "prepare"); code != 0 {
				t.Fatalf("prepare: exit %d\n%s%s", code, out, errOut)
			}
			t.Cleanup(func() { sb(script, "cleanup") })
			if code, out, errOut := sb("--threads=2", "--events=20", "--time=0", "--out="+filepath.Join(dir, "r.json"), script, "run"); code != 0 || !strings.Contains(out, "transactions:                        20") {
				t.Fatalf("run: exit %d\n%s%s", code, out, errOut)
			}
			or := oracle.Open(t, u)
			if n := or.Ints(t, "SELECT COUNT(*) FROM lua05"); n[0] != 25 {
				t.Errorf("lua05 holds %d rows, want 5 from prepare and 20 from the events", n[0])
			}
			if n := or.Ints(t, "SELECT COUNT(DISTINCT tid) FROM lua05 WHERE tid >= 0"); n[0] < 1 || n[0] > 2 {
				t.Errorf("the events came from %d threads", n[0])
			}
			stmt := writeScript(t, dir, "stmt.lua", "function thread_init()\n  db_connect()\n  s = db_prepare(\"SELECT 1\")\nend\nfunction event() end\n")
			code, out, errOut := sb("--events=1", "--out="+filepath.Join(dir, "s.json"), stmt, "run")
			if code != ExitRunFailed || !strings.Contains(out+errOut, "db_prepare() of sysbench 0.5's API is not supported by candor: use sysbench 1.0's con:prepare()") {
				t.Errorf("db_prepare: exit %d\n%s%s", code, out, errOut)
			}
		})
	}
}
