// Package sysbenchlua runs users' sysbench 1.0.20 Lua scripts as a candor
// workload, "sysbench-lua" (-p file=SCRIPT.lua; `candor sysbench
// SCRIPT.lua run` reaches it too), in an embedded Lua 5.1 interpreter
// (gopher-lua): one Lua state per worker, as sysbench keeps one per
// thread, with sysbench's Lua API emulated in Go (docs/SYSBENCH-LUA.md).
//
// One event() call is one TRANSACTION operation. The runner owns the loop:
// thread_init(tid) runs at the worker's first event, on its connection;
// thread_done(tid) when its run phase ends (workload.Finisher). Statements
// go through the worker's target.Conn as candor's Go sysbench sends them
// (prepared statements with arguments, BEGIN and COMMIT prepared, con:query
// as text), and are counted as reads, writes and other by sysbench's rules.
//
// Errors: a statement's error the target classifies as retryable or
// constraint (sysbench's ignorable errors: deadlocks, lock waits, 1020,
// duplicate keys) raises sysbench's errdesc table with errcode
// RESTART_EVENT, and when event() lets it through the runner restarts the
// event (sysbench.hooks.before_restart_event first); a lost connection
// restarts it once the runner has reconnected. Any other statement error
// raises sysbench's "SQL error, errno = N, state = 'S': message" and, when
// event() lets it through, ends the run (workload.ErrStopRun), as
// sysbench's FATAL does. A Lua error in event() ends the run too, as
// sysbench's thread_run failure does (its traceback on stderr).
package sysbenchlua

import (
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"

	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/keydist"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
	"github.com/candor-bench/candor/internal/workload/sysbench"
)

// Name is the workload's registry name.
const Name = "sysbench-lua"

// ShareDir is where sysbench 1.0.20 installs its scripts: a require()
// not found beside the script or in the working directory is looked for
// there, as sysbench's package.path ends with it.
var ShareDir = "/usr/share/sysbench"

// Operation and counters, as candor's Go sysbench has them.
const (
	OpEvent workload.OpID = 0

	CounterReads  = 0
	CounterWrites = 1
	CounterOther  = 2
)

func init() {
	workload.Register(workload.Entry{
		Name:        Name,
		Description: "a sysbench 1.0.20 Lua script (-p file=SCRIPT.lua; its options as -p name=value), run in an embedded Lua interpreter",
		Reference:   sysbench.Reference + " Lua API",
		Options:     entryOptions,
		New: func(variant string, files, props []string) (workload.Workload, error) {
			return New(files, props)
		},
	})
}

// entryOptions are the options candor knows before reading the script:
// the script itself and sysbench's general options that its Lua API reads
// (sysbench.rand.*'s parameters, the report's). The script's own options
// (sysbench.cmdline.options) are properties, -p name=value, checked
// against what the script declares.
var entryOptions = []workload.Option{
	{Name: "file", Default: "", Usage: "the sysbench Lua script to run", Type: workload.OptionString},
	{Name: "rand-type", Default: "special", Usage: "random numbers distribution {uniform, gaussian, special, pareto} of sysbench.rand.default"},
	{Name: "rand-spec-iter", Default: "12", Usage: "number of iterations for the special distribution"},
	{Name: "rand-spec-pct", Default: "1", Usage: "percentage of the entire range where 'special' values will fall in the special distribution"},
	{Name: "rand-spec-res", Default: "75", Usage: "percentage of 'special' values to use for the special distribution"},
	{Name: "rand-seed", Default: "0", Usage: "seed for random number generator. When 0, candor's run seed (--seed) is used"},
	{Name: "rand-pareto-h", Default: "0.2", Usage: "shape parameter for the Pareto distribution"},
	{Name: "percentile", Default: "95", Usage: "percentile to calculate in latency statistics (1-100); 0 turns it off in --format sysbench"},
	{Name: "histogram", Default: "off", Usage: "print latency histogram in report (--format sysbench)"},
	{Name: "db-ps-mode", Default: "auto", Usage: "prepared statements usage mode {auto, disable}"},
}

// general are sysbench's general options as sysbench.opt holds them, for
// the ones candor knows (the others are in sysbench.opt with their
// defaults, below).
type general struct {
	randType                     string
	specIter, specPct, specRes   int
	randSeed                     int64
	paretoH                      float64
	percentile                   int
	histogram                    bool
	psMode                       string
	events                       int64
	command                      string
	scriptArgs                   []prop // the script's options as given, in order
	scriptArgIndex               map[string]int
	psDisable                    bool
	threadsForOpt, reportIntervl int
}

// prop is one script option as given: name with underscores.
type prop struct{ name, value string }

// Workload is one configured Lua script. Methods other than NewWorker are
// called from one goroutine.
type Workload struct {
	file string
	g    general

	texts   map[string]string // script name -> text (SetScripts)
	names   []string          // ScriptNames: the script, then the files it requires
	modules map[string]string // module name -> script name
	protos  map[string]*lua.FunctionProto

	decl      []optDecl // the script's options, sorted by name
	declared  bool      // it has sysbench.cmdline.options
	commands  map[string]bool
	globals   map[string]bool // global functions the script defines
	readsRows bool            // the script reads result sets (fetch_row, nrows, query_row, ...)

	env      workload.Env
	driver   string // sysbench's driver name: mysql, pgsql, sqlite
	dist     keydist.SysbenchRand
	special  keydist.SysbenchRand
	bound    bool
	threads  int
	uniqOnce sync.Once
	uniq     *keydist.SysbenchUnique
	dog      watchdog // stops scripts looping in an event when the phase ends

	// Log is where Lua errors' tracebacks go, once per distinct message
	// (default os.Stderr).
	Log    io.Writer
	logMu  sync.Mutex
	logged map[string]bool
}

var (
	_ workload.Workload     = (*Workload)(nil)
	_ workload.Scripted     = (*Workload)(nil)
	_ workload.CounterNamer = (*Workload)(nil)
)

// New builds the workload from its properties: file=SCRIPT, the general
// options of entryOptions, command=NAME (the script's command: run unless
// `candor sysbench` says otherwise), operationcount (--events), and the
// script's own options, checked once the script is read (SetScripts).
func New(files, props []string) (*Workload, error) {
	if len(files) > 0 {
		return nil, fmt.Errorf("%s: takes no property files (-P); give the script as -p file=SCRIPT.lua and its options as -p name=value", Name)
	}
	w := &Workload{g: general{randType: "special", specIter: 12, specPct: 1, specRes: 75, paretoH: 0.2, percentile: 95, psMode: "auto", command: "run",
		scriptArgIndex: map[string]int{}}, Log: os.Stderr}
	var errs []error
	for _, p := range props {
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			errs = append(errs, fmt.Errorf("property %q: expected name=value", p))
			continue
		}
		if err := w.set(strings.ReplaceAll(strings.TrimSpace(k), "_", "-"), strings.TrimSpace(v)); err != nil {
			errs = append(errs, fmt.Errorf("--%s=%s: %w", k, v, err))
		}
	}
	if w.file == "" {
		errs = append(errs, errors.New("no script: give -p file=SCRIPT.lua (or run candor sysbench SCRIPT.lua run)"))
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s: %w", Name, errors.Join(errs...))
	}
	w.names = []string{w.file}
	return w, nil
}

func (w *Workload) set(k, v string) error {
	g := &w.g
	atoi := func(lo, hi int) (int, error) {
		n, err := strconv.Atoi(v)
		if err != nil || n < lo || n > hi {
			return 0, fmt.Errorf("must be an integer from %d to %d", lo, hi)
		}
		return n, nil
	}
	var err error
	switch k {
	case "file":
		w.file = v
	case "command":
		g.command = v
	case "operationcount":
		g.events, err = strconv.ParseInt(v, 10, 64)
	case "rand-type":
		if !slices.Contains(keydist.SysbenchRandTypes, v) {
			return fmt.Errorf("valid values: %s", strings.Join(keydist.SysbenchRandTypes, ", "))
		}
		g.randType = v
	case "rand-spec-iter":
		g.specIter, err = atoi(1, 1000)
	case "rand-spec-pct":
		g.specPct, err = atoi(0, 100)
	case "rand-spec-res":
		g.specRes, err = atoi(0, 100)
	case "rand-seed":
		g.randSeed, err = strconv.ParseInt(v, 10, 64)
		if err != nil || g.randSeed < 0 {
			err = errors.New("must be a non-negative integer")
		}
	case "rand-pareto-h":
		g.paretoH, err = strconv.ParseFloat(v, 64)
		if err != nil || !(g.paretoH > 0 && g.paretoH < 1) {
			err = errors.New("must be a number strictly between 0 and 1")
		}
	case "percentile":
		g.percentile, err = atoi(0, 100)
	case "histogram":
		g.histogram, err = sysbench.ParseOnOff(v)
	case "db-ps-mode":
		if v != "auto" && v != "disable" {
			return errors.New("must be auto or disable")
		}
		g.psMode, g.psDisable = v, v == "disable"
	default:
		name := strings.ReplaceAll(k, "-", "_")
		if i, ok := g.scriptArgIndex[name]; ok {
			g.scriptArgs[i].value = v // the last one wins, as in sysbench
			return nil
		}
		g.scriptArgIndex[name] = len(g.scriptArgs)
		g.scriptArgs = append(g.scriptArgs, prop{name, v})
	}
	return err
}

// Name is "sysbench-lua".
func (w *Workload) Name() string { return Name }

// Reference names the API emulated.
func (w *Workload) Reference() string { return sysbench.Reference + " Lua API" }

// Ops is one operation: an event.
func (w *Workload) Ops() []string { return []string{"TRANSACTION"} }

// Counters are sysbench's query counts.
func (w *Workload) Counters() []string { return []string{"reads", "writes", "other"} }

// Options are the resolved options: the script, the general options and
// the script's own (as given; their defaults are the script's).
func (w *Workload) Options() any {
	opts := map[string]string{}
	for _, p := range w.g.scriptArgs {
		opts[p.name] = p.value
	}
	return struct {
		File       string            `json:"file"`
		Command    string            `json:"command"`
		RandType   string            `json:"rand_type"`
		SpecIter   int               `json:"rand_spec_iter"`
		SpecPct    int               `json:"rand_spec_pct"`
		SpecRes    int               `json:"rand_spec_res"`
		RandSeed   int64             `json:"rand_seed"`
		ParetoH    float64           `json:"rand_pareto_h"`
		Percentile int               `json:"percentile"`
		Histogram  bool              `json:"histogram"`
		PSMode     string            `json:"db_ps_mode"`
		Script     map[string]string `json:"script_options,omitempty"`
	}{w.file, w.g.command, w.g.randType, w.g.specIter, w.g.specPct, w.g.specRes, w.g.randSeed, w.g.paretoH, w.g.percentile, w.g.histogram, w.g.psMode, opts}
}

// Ignored is empty: an option the script does not declare is refused.
func (w *Workload) Ignored() []string { return nil }

// Limits are sysbench's: --time=10, events restarted without limit on
// sysbench's ignorable errors and after a reconnect; a Lua error in an
// event or a fatal SQL error stops the run (ErrStopRun).
func (w *Workload) Limits() workload.Limits {
	return workload.Limits{
		Duration:         10 * time.Second,
		Retries:          -1,
		RetryClasses:     append(slices.Clip(sysbench.RestartClasses), target.ClassConnection),
		SharedOperations: true,
		FinishInFlight:   true, // --time: a thread finishes its event in progress
	}
}

// ReportPercentile, ReportHistogram and ReportSeed are what the sysbench
// report format asks (as candor's Go sysbench offers them).
func (w *Workload) ReportPercentile() float64 { return float64(w.g.percentile) }
func (w *Workload) ReportHistogram() bool     { return w.g.histogram }
func (w *Workload) ReportSeed() int64         { return w.g.randSeed }

// ScriptNames is the script, then the files it requires once SetScripts
// has read it.
func (w *Workload) ScriptNames() []string { return slices.Clone(w.names) }

// ffiUse finds a use of LuaJIT's ffi in a script.
var ffiUse = regexp.MustCompile(`(?m)(\bffi\s*\.|require\s*\(?\s*["']ffi["'])`)

// requireCall finds require("name") and require "name" with a literal name.
var requireCall = regexp.MustCompile(`\brequire\s*\(?\s*["']([A-Za-z0-9_.\-]+)["']`)

// readsRowsUse finds a use of a result set's rows.
var readsRowsUse = regexp.MustCompile(`\b(fetch_row|nrows|nfields|query_row|db_store_results|bind_result)\b`)

// builtinModules need no file.
var builtinModules = map[string]bool{"string": true, "table": true, "math": true, "os": true, "io": true, "debug": true, "coroutine": true, "package": true}

// SetScripts compiles the scripts, finds the files they require (adding
// them to ScriptNames: the engine calls again with them) and, once all are
// read, runs the script's chunk once to learn its options and commands. A
// syntax error is reported as file:line, a script using LuaJIT's ffi is
// refused, as is an option the script does not declare.
func (w *Workload) SetScripts(scripts []workload.Script) error {
	w.texts = map[string]string{}
	w.protos = map[string]*lua.FunctionProto{}
	w.modules = map[string]string{}
	for _, s := range scripts {
		w.texts[s.Name] = s.Text
	}
	w.readsRows = false
	for _, s := range scripts {
		if loc := ffiUse.FindStringIndex(s.Text); loc != nil {
			line := strings.Count(s.Text[:loc[0]], "\n") + 1
			return fmt.Errorf("%s:%d: the script uses LuaJIT's ffi (foreign function interface), which candor's embedded Lua (gopher-lua, Lua 5.1) does not have; "+
				"run it with sysbench, or write the part in plain Lua with sysbench's API", s.Name, line)
		}
		proto, err := compile(s.Name, s.Text)
		if err != nil {
			return err
		}
		w.protos[s.Name] = proto
		w.readsRows = w.readsRows || readsRowsUse.MatchString(s.Text)
		for _, m := range requireCall.FindAllStringSubmatch(s.Text, -1) {
			mod := m[1]
			if builtinModules[mod] || mod == "bit" {
				continue
			}
			if _, ok := w.modules[mod]; ok {
				continue
			}
			path := w.resolve(mod, s.Name)
			w.modules[mod] = path
			if !slices.Contains(w.names, path) {
				w.names = append(w.names, path)
			}
		}
	}
	for _, n := range w.names {
		if _, ok := w.texts[n]; !ok {
			return nil // the engine reads the required files and calls again
		}
	}
	return w.probe()
}

// resolve is the file of module mod required by script from: the first of
// ./mod.lua (sysbench's package.path starts there), the script's directory
// and ShareDir that exists; when none does, the one beside the script (a
// rerun finds it recorded under that name, else says it is missing).
func (w *Workload) resolve(mod, from string) string {
	rel := strings.ReplaceAll(mod, ".", "/") + ".lua"
	beside := filepath.Join(filepath.Dir(w.file), rel)
	for _, p := range []string{rel, beside, filepath.Join(ShareDir, rel)} {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
	}
	return beside
}

// syntaxLine finds gopher-lua's "line:N(column:M)" in a parse error.
var syntaxLine = regexp.MustCompile(`line:(\d+)\(column:\d+\)`)

// compile parses and compiles one script; a syntax error names file:line.
func compile(name, text string) (*lua.FunctionProto, error) {
	text = strings.TrimPrefix(text, "\ufeff")
	if strings.HasPrefix(text, "#") { // a #! line, as lua(1) skips it
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			text = "--" + text[i:]
		}
	}
	chunk, err := parse.Parse(strings.NewReader(text), name)
	if err != nil {
		msg := err.Error()
		line := "?"
		if m := syntaxLine.FindStringSubmatch(msg); m != nil {
			line = m[1]
		}
		msg = strings.TrimPrefix(msg, name)
		msg = syntaxLine.ReplaceAllString(msg, "")
		return nil, fmt.Errorf("%s:%s: syntax error:%s", name, line, strings.TrimRight(msg, "\n"))
	}
	proto, err := lua.Compile(chunk, name)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return proto, nil
}

// optDecl is one option the script declares.
type optDecl struct {
	name, desc, def string
	typ             int // sysbench's ARG_* type
}

// sysbench's option types (sysbench.cmdline.ARG_*).
const (
	argNull = iota
	argBool
	argInt
	argSize
	argDouble
	argString
	argList
	argFile
)

// probe runs the script's chunk in a state of its own, as sysbench's main
// state does, and reads what it declares: its options, its commands and
// its global functions. The given options are checked against them.
func (w *Workload) probe() error {
	st, err := w.newState(stateMain, 0, rand.New(rand.NewSource(1)))
	if err != nil {
		return err
	}
	defer st.L.Close()
	L := st.L
	cmdline := L.GetField(L.GetField(L.GetGlobal("sysbench"), "cmdline"), "options")
	w.decl, w.declared = nil, false
	if t, ok := cmdline.(*lua.LTable); ok {
		w.declared = true
		var errs []error
		t.ForEach(func(k, v lua.LValue) {
			d, err := declOf(k, v)
			if err != nil {
				errs = append(errs, err)
				return
			}
			w.decl = append(w.decl, d)
		})
		if len(errs) > 0 {
			return fmt.Errorf("%s: sysbench.cmdline.options: %w", w.file, errors.Join(errs...))
		}
		sort.Slice(w.decl, func(i, j int) bool { return w.decl[i].name < w.decl[j].name })
	}
	w.commands = map[string]bool{}
	if t, ok := L.GetField(L.GetField(L.GetGlobal("sysbench"), "cmdline"), "commands").(*lua.LTable); ok {
		t.ForEach(func(k, _ lua.LValue) { w.commands[lua.LVAsString(k)] = true })
	}
	w.globals = map[string]bool{}
	for _, fn := range []string{"event", "thread_init", "thread_done", "prepare", "cleanup", "help", "init", "done", "thread_run"} {
		if _, ok := L.GetGlobal(fn).(*lua.LFunction); ok {
			w.globals[fn] = true
		}
	}
	if st.threadRun != L.GetGlobal("thread_run") {
		return fmt.Errorf("%s defines thread_run, sysbench's event loop: candor's runner owns the loop (pacing, duration, retries); put the work of one event in event()", w.file)
	}
	if !w.globals["event"] && w.g.command == "run" {
		// Refused here, before any session: the run needs event().
		return fmt.Errorf("cannot find the event() function in %s: define function event() with the work of one event (or give the script's command: prepare, cleanup, help or one it declares)", w.file)
	}
	return w.checkArgs()
}

// declOf reads one entry of sysbench.cmdline.options: {description,
// default[, type]}.
func declOf(k, v lua.LValue) (optDecl, error) {
	name := lua.LVAsString(k)
	t, ok := v.(*lua.LTable)
	if !ok {
		return optDecl{}, fmt.Errorf("option %s: expected {description, default[, type]}", name)
	}
	d := optDecl{name: strings.ReplaceAll(name, "-", "_"), desc: lua.LVAsString(t.RawGetInt(1))}
	def := t.RawGetInt(2)
	typ := t.RawGetInt(3)
	switch v := def.(type) {
	case lua.LBool:
		d.typ, d.def = argBool, map[bool]string{true: "on", false: "off"}[bool(v)]
	case lua.LNumber:
		d.typ, d.def = argDouble, numberString(float64(v))
	case lua.LString:
		d.typ, d.def = argString, string(v)
	case *lua.LTable:
		var parts []string
		v.ForEach(func(_, e lua.LValue) { parts = append(parts, lua.LVAsString(e)) })
		d.typ, d.def = argList, strings.Join(parts, ",")
	default:
		d.typ = argString
	}
	if n, ok := typ.(lua.LNumber); ok {
		d.typ = int(n)
	}
	return d, nil
}

// checkArgs checks the given script options: each must be one the script
// declares (or, when it declares none, any name: sysbench then takes them
// as strings), of the declared type.
func (w *Workload) checkArgs() error {
	var errs []error
	for _, p := range w.g.scriptArgs {
		if !w.declared {
			continue
		}
		d, ok := w.declOf(p.name)
		if !ok {
			var names []string
			for _, d := range w.decl {
				names = append(names, "--"+d.name)
			}
			errs = append(errs, fmt.Errorf("unknown option --%s: %s declares %s (candor sysbench %s help lists them)", p.name, w.file, strings.Join(names, ", "), w.file))
			continue
		}
		if _, err := optValue(nil, d.typ, p.value); err != nil {
			errs = append(errs, fmt.Errorf("--%s=%s: %w", p.name, p.value, err))
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	return nil
}

func (w *Workload) declOf(name string) (optDecl, bool) {
	for _, d := range w.decl {
		if d.name == name {
			return d, true
		}
	}
	return optDecl{}, false
}

// optValue converts an option's text to its Lua value by sysbench's
// types: on/off for booleans, numbers, a list of strings; L nil only
// checks.
func optValue(L *lua.LState, typ int, v string) (lua.LValue, error) {
	switch typ {
	case argBool:
		switch strings.ToLower(v) {
		case "on", "true", "1", "":
			return lua.LTrue, nil
		case "off", "false", "0":
			return lua.LFalse, nil
		}
		return nil, errors.New("not a boolean: give on or off")
	case argInt, argSize, argDouble:
		if typ == argSize && v != "" {
			mult := map[byte]float64{'K': 1 << 10, 'M': 1 << 20, 'G': 1 << 30, 'T': 1 << 40}[v[len(v)-1]&^0x20]
			if mult > 0 {
				f, err := strconv.ParseFloat(v[:len(v)-1], 64)
				if err != nil {
					return nil, errors.New("not a size: give N with an optional K, M, G or T")
				}
				return lua.LNumber(f * mult), nil
			}
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || (typ == argInt && f != float64(int64(f))) {
			return nil, errors.New("not a number")
		}
		return lua.LNumber(f), nil
	case argList:
		if L == nil {
			return lua.LNil, nil
		}
		t := L.NewTable()
		for _, s := range strings.Split(v, ",") {
			if s != "" {
				t.Append(lua.LString(s))
			}
		}
		return t, nil
	case argFile:
		return lua.LNil, nil
	}
	return lua.LString(v), nil
}

// Bind learns the target: its dialect names sysbench's driver (mysql for
// MySQL wire, pgsql for PostgreSQL wire), and its error classes decide
// which errors a script sees as ignorable.
func (w *Workload) Bind(env workload.Env) error {
	if err := target.NeedsSQL(Name, env.Capabilities); err != nil {
		return err
	}
	w.env = env
	w.threads = max(env.Threads, 1)
	w.driver = driverName(env.Dialect)
	w.dist = keydist.NewSysbenchRand(keydist.SysbenchParams{Type: w.g.randType, SpecIter: w.g.specIter, SpecPct: w.g.specPct, SpecRes: w.g.specRes, ParetoH: w.g.paretoH})
	w.special = keydist.NewSysbenchRand(keydist.SysbenchParams{Type: keydist.SysbenchSpecialType, SpecIter: w.g.specIter, SpecPct: w.g.specPct, SpecRes: w.g.specRes, ParetoH: w.g.paretoH})
	w.bound = true
	return nil
}

// driverName is sysbench's name of the driver a dialect speaks.
func driverName(d dialect.Dialect) string {
	switch {
	case d.Placeholder == dialect.Dollar:
		return "pgsql"
	case d.Name == "sqlite":
		return "sqlite"
	}
	return "mysql"
}

// Schema is empty: the script's prepare command creates its tables.
func (w *Workload) Schema() []workload.Table { return nil }

// LoadRange is empty: a script's data is loaded by its prepare command
// (candor sysbench SCRIPT prepare).
func (w *Workload) LoadRange() (start, count int64) { return 0, 0 }

// NewLoader is never given records.
func (w *Workload) NewLoader(int, *rand.Rand) workload.Loader { return workload.NoLoad{Workload: Name} }

// workerRand is the worker's generator as candor's Go sysbench makes it:
// the runner's, or with --rand-seed one of its own from that seed.
func (w *Workload) workerRand(id int, r *rand.Rand) *rand.Rand {
	if w.g.randSeed == 0 {
		return r
	}
	return rand.New(rand.NewSource(w.g.randSeed*0x2545F4914F6CDD1D + int64(id) + 1))
}

// uniqueSeq is sysbench.rand.unique()'s shared sequence, seeded from the
// first worker's runner generator as candor's Go sysbench seeds it.
func (w *Workload) uniqueSeq(r *rand.Rand) *keydist.SysbenchUnique {
	w.uniqOnce.Do(func() { w.uniq = keydist.NewSysbenchUniqueRand(r) })
	return w.uniq
}

// SetLog sets where Lua errors are logged (the engine's stderr).
func (w *Workload) SetLog(out io.Writer) { w.Log = out }

// logError writes msg once per distinct first line.
func (w *Workload) logError(key, msg string) {
	w.logMu.Lock()
	defer w.logMu.Unlock()
	if w.logged == nil {
		w.logged = map[string]bool{}
	}
	if w.logged[key] || w.Log == nil {
		return
	}
	w.logged[key] = true
	fmt.Fprintf(w.Log, "candor: %s\n", msg)
}

// Help is the script's help command as sysbench prints it: the script's
// help() when it defines one, else its options ("<script> options:").
func (w *Workload) Help(out io.Writer) error {
	if w.globals["help"] {
		st, err := w.newState(stateMain, 0, rand.New(rand.NewSource(1)))
		if err != nil {
			return err
		}
		defer st.L.Close()
		st.out = out
		return st.callGlobal("help")
	}
	if !w.declared {
		return fmt.Errorf("'%s' test does not implement the 'help' command", w.file)
	}
	fmt.Fprintf(out, "%s options:\n", strings.TrimSuffix(filepath.Base(w.file), ".lua"))
	type line struct{ spec, text string }
	var lines []line
	width := 0
	for _, d := range w.decl {
		spec := "--" + d.name
		switch d.typ {
		case argBool:
			spec += "[=on|off]"
		case argInt, argSize, argDouble:
			spec += "=N"
		case argList:
			spec += "=[LIST,...]"
		default:
			spec += "=STRING"
		}
		text := d.desc
		if d.def != "" {
			text += " [" + d.def + "]"
		}
		lines = append(lines, line{spec, text})
		width = max(width, len(spec))
	}
	for _, l := range lines {
		fmt.Fprintf(out, "  %-*s %s\n", width, l.spec, l.text)
	}
	fmt.Fprintln(out)
	return nil
}
