// Package pgbench runs pgbench 15 scripts as the workload script/pgbench:
// users' scripts (-p file=my.sql[@weight]) and pgbench's three built-in
// scripts (-p builtin=tpcb-like|simple-update|select-only), with the
// meta-commands and the expression language of pgbench 15 and its
// generators (pg_prng), and pgbench -i's tables and rows. Each script is
// one transaction type: one operation named after the script. See
// docs/SCRIPTS.md for what differs from pgbench.
package pgbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"strconv"
	"strings"

	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
	"github.com/candor-bench/candor/internal/workload/script"
)

// Name is the registry name with its variant.
const Name = "script/pgbench"

// Reference names what this reproduces.
const Reference = "pgbench 15 custom scripts (PostgreSQL 15 pgbench)"

// Protocols of -M.
const (
	ProtocolSimple   = "simple"
	ProtocolExtended = "extended"
	ProtocolPrepared = "prepared"
)

// maxScripts is pgbench's MAX_SCRIPTS.
const maxScripts = 128

func init() {
	script.RegisterVariant(script.Variant{
		Name:        "pgbench",
		Description: "pgbench 15 scripts",
		New:         func(files, props []string) (workload.Workload, error) { return New(files, props) },
	})
}

// ScriptInfo describes one script of the run, as the result records it.
type ScriptInfo struct {
	Name        string `json:"name"` // the operation: the file as given, or the built-in's name
	File        string `json:"file,omitempty"`
	Builtin     string `json:"builtin,omitempty"`
	Description string `json:"description"` // pgbench's "transaction type"
	Weight      int    `json:"weight"`
	// Commands are the first lines of its commands, in order (what -r
	// reports beside each command's latency).
	Commands []string `json:"commands"`
}

// Options are the resolved options, as the result file records them.
type Options struct {
	Reference string       `json:"reference"`
	Scripts   []ScriptInfo `json:"scripts"`
	Defines   []string     `json:"defines,omitempty"`
	Scale     int64        `json:"scale"`
	// ScaleFrom says where :scale came from: "option", or
	// "pgbench_branches" (a built-in script reads the table's rows, as
	// pgbench does).
	ScaleFrom       string `json:"scale_from"`
	Protocol        string `json:"protocol"`
	MaxTries        int    `json:"max_tries"`
	RandomSeed      string `json:"random_seed,omitempty"`
	ReportLatencies bool   `json:"report_latencies,omitempty"`
	AllowShell      bool   `json:"allow_shell,omitempty"`
	// Jobs is pgbench's -j as given: reported, without effect (every
	// client has its own goroutine).
	Jobs int `json:"jobs,omitempty"`
	// LatencyLimitMs is pgbench's -L: the report counts the transactions
	// above it (candor skips none).
	LatencyLimitMs float64 `json:"latency_limit_ms,omitempty"`
	// Tables: the run uses pgbench's tables (a built-in script, or a
	// load): the workload creates and loads them as pgbench -i does.
	Tables bool `json:"pgbench_tables"`
	// Vacuum is what is vacuumed, as pgbench 15 does: VacuumDefault
	// (before a run VACUUM pgbench_branches and pgbench_tellers and
	// TRUNCATE pgbench_history; after a load VACUUM ANALYZE the four
	// tables), VacuumAll (-v: before a run also VACUUM ANALYZE
	// pgbench_accounts) or VacuumNone (-n).
	Vacuum string `json:"vacuum"`
}

// The values of the vacuum option.
const (
	VacuumDefault = "default"
	VacuumAll     = "all"
	VacuumNone    = "none"
)

// parsedScript is one script ready to run.
type parsedScript struct {
	info ScriptInfo
	cmds []command
	cum  int64 // cumulative weight up to and including this script
}

// Workload is the configured script/pgbench.
type Workload struct {
	opts     Options
	scaleSet bool
	randSeed *uint64
	defines  [][2]string
	files    []string // the scripts' files, in order (ScriptNames)
	syms     *symbols
	scripts  []*parsedScript
	total    int64
	counters []string
	slots    struct{ clientID, scale, randomSeed, defaultSeed int }

	dialect dialect.Dialect
	threads int
	bound   bool

	// Per run phase, drawn when worker 0 is made (NewWorker).
	clientSeeds []uint64
	chooseSeeds []uint64 // each worker's script chooser (pgbench: its thread's)
	defaultSeed uint64
	baseSeed    uint64

	debugOut io.Writer
}

var (
	_ workload.Workload     = (*Workload)(nil)
	_ workload.Scripted     = (*Workload)(nil)
	_ workload.PreRunner    = (*Workload)(nil)
	_ workload.PostLoader   = (*Workload)(nil)
	_ workload.CounterNamer = (*Workload)(nil)
	_ workload.Worker       = (*worker)(nil)
)

// New builds script/pgbench from name=value options: file (several),
// builtin (several), define (several), scale, protocol, max-tries,
// random-seed, report-latencies, allow-shell, and the CLI's
// operationcount. Every problem is returned at once.
func New(files, in []string) (*Workload, error) {
	var errs []error
	if len(files) > 0 {
		errs = append(errs, fmt.Errorf("%s takes no property files (%s); give scripts as -p file=PATH", Name, strings.Join(files, ", ")))
	}
	w := &Workload{syms: newSymbols(), debugOut: os.Stderr}
	w.opts = Options{Reference: Reference, Scale: 1, ScaleFrom: "option", Protocol: ProtocolSimple, MaxTries: 1, Vacuum: VacuumDefault}
	var refs []ScriptInfo
	known := []string{"allow-shell", "builtin", "define", "file", "jobs", "latency-limit", "max-tries", "protocol", "random-seed", "report-latencies", "scale", "tables", "vacuum"}
	for _, s := range in {
		k, v, ok := strings.Cut(s, "=")
		k = strings.ReplaceAll(strings.ToLower(strings.TrimSpace(k)), "_", "-")
		if !ok {
			errs = append(errs, fmt.Errorf("option %q: expected name=value", s))
			continue
		}
		switch k {
		case "file", "builtin":
			target, weight, err := splitWeight(v)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s=%q: %w", k, v, err))
				continue
			}
			if k == "file" {
				if target == "" {
					errs = append(errs, fmt.Errorf("file=%q: give the path of a pgbench script", v))
					continue
				}
				refs = append(refs, ScriptInfo{File: target, Name: target, Description: target, Weight: weight})
				continue
			}
			b, err := findBuiltin(target)
			if err != nil {
				errs = append(errs, fmt.Errorf("builtin=%q: %w", v, err))
				continue
			}
			refs = append(refs, ScriptInfo{Builtin: b.name, Name: b.name, Description: b.desc, Weight: weight})
		case "define":
			name, val, ok := strings.Cut(v, "=")
			if !ok || name == "" || val == "" {
				errs = append(errs, fmt.Errorf("define=%q: invalid variable definition; give NAME=VALUE", v))
				continue
			}
			w.defines = append(w.defines, [2]string{name, val})
			w.opts.Defines = append(w.opts.Defines, v)
		case "scale":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 1 || n > 1<<31/accountsPerScale*accountsPerScale {
				errs = append(errs, fmt.Errorf("scale=%q: invalid scaling factor; give a whole number from 1", v))
				continue
			}
			w.opts.Scale, w.scaleSet = n, true
		case "protocol":
			switch v {
			case ProtocolSimple, ProtocolExtended, ProtocolPrepared:
				w.opts.Protocol = v
			default:
				errs = append(errs, fmt.Errorf("protocol=%q: invalid query mode; use simple, extended or prepared", v))
			}
		case "vacuum":
			switch v {
			case VacuumDefault, VacuumAll, VacuumNone:
				w.opts.Vacuum = v
			default:
				errs = append(errs, fmt.Errorf("vacuum=%q: use default (pgbench's), all (pgbench -v) or none (pgbench -n)", v))
			}
		case "jobs":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				errs = append(errs, fmt.Errorf("jobs=%q: give a whole number from 1", v))
				continue
			}
			w.opts.Jobs = n
		case "latency-limit":
			ms, err := strconv.ParseFloat(v, 64)
			if err != nil || ms <= 0 {
				errs = append(errs, fmt.Errorf("latency-limit=%q: give milliseconds above 0", v))
				continue
			}
			w.opts.LatencyLimitMs = ms
		case "max-tries":
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				errs = append(errs, fmt.Errorf("max-tries=%q: invalid number of maximum tries; give 0 (no limit) or more", v))
				continue
			}
			w.opts.MaxTries = n
		case "random-seed":
			if v == "" {
				continue
			}
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				errs = append(errs, fmt.Errorf("random-seed=%q: give an unsigned integer (candor's own --seed replaces pgbench's time and rand)", v))
				continue
			}
			w.randSeed = &n
			w.opts.RandomSeed = v
		case "report-latencies", "allow-shell", "tables":
			b, err := strconv.ParseBool(v)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s=%q: must be true or false", k, v))
				continue
			}
			switch k {
			case "report-latencies":
				w.opts.ReportLatencies = b
			case "allow-shell":
				w.opts.AllowShell = b
			default:
				w.opts.Tables = b
			}
		case "operationcount":
			// Added by the CLI for --operations: the runner counts.
		default:
			if strings.Contains(s, "=") && !isOtherVariantOption(k) {
				errs = append(errs, fmt.Errorf("unknown option %q; valid options of %s: %s", k, Name, strings.Join(known, ", ")))
			}
		}
	}
	if len(refs) == 0 {
		b, _ := findBuiltin("tpcb-like") // pgbench's default script
		refs = append(refs, ScriptInfo{Builtin: b.name, Name: b.name, Description: b.desc, Weight: 1})
	}
	if len(refs) > maxScripts {
		errs = append(errs, fmt.Errorf("at most %d SQL scripts are allowed (%d given)", maxScripts, len(refs)))
	}
	seen := map[string]int{}
	for i := range refs {
		r := &refs[i]
		seen[r.Name]++
		if seen[r.Name] > 1 {
			r.Name = fmt.Sprintf("%s#%d", r.Name, seen[r.Name])
		}
		if r.Builtin != "" {
			w.opts.Tables = true
		} else {
			w.files = append(w.files, r.File)
		}
		w.total += int64(r.Weight)
	}
	if w.total == 0 && len(errs) == 0 {
		errs = append(errs, errors.New("total script weight must not be zero; give a weight above 0 to one script"))
	}
	w.opts.Scripts = refs
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s: invalid options:\n%w", Name, errors.Join(errs...))
	}
	w.slots.clientID = w.syms.slot("client_id")
	w.slots.scale = w.syms.slot("scale")
	w.slots.randomSeed = w.syms.slot("random_seed")
	w.slots.defaultSeed = w.syms.slot("default_seed")
	for _, d := range w.defines {
		w.syms.slot(d[0])
	}
	return w, nil
}

// isOtherVariantOption tells the options of script's other variants,
// which reach every variant's New as flags.
func isOtherVariantOption(k string) bool {
	for name, opts := range script.OptionSets {
		if name == "pgbench" {
			continue
		}
		for _, o := range opts {
			if o.Name == k {
				return true
			}
		}
	}
	return false
}

// splitWeight splits "name@weight" at its last '@', as pgbench does; the
// weight is 1 when absent.
func splitWeight(s string) (string, int, error) {
	at := strings.LastIndexByte(s, '@')
	if at < 0 {
		return s, 1, nil
	}
	w, err := strconv.ParseInt(s[at+1:], 10, 32)
	if err != nil || w < 0 {
		return "", 0, fmt.Errorf("invalid weight specification: %q (a whole number from 0)", s[at+1:])
	}
	return s[:at], int(w), nil
}

// ScriptNames lists the script files to read (workload.Scripted).
func (w *Workload) ScriptNames() []string { return w.files }

// SetScripts parses the scripts' texts and the built-ins (workload.Scripted).
func (w *Workload) SetScripts(texts []workload.Script) error {
	byName := map[string]string{}
	for _, s := range texts {
		byName[s.Name] = s.Text
	}
	po := parseOptions{allowShell: w.opts.AllowShell}
	w.scripts = nil
	var cum int64
	for _, info := range w.opts.Scripts {
		text, file := "", info.File
		if info.Builtin != "" {
			b, _ := findBuiltin(info.Builtin)
			text, file = b.text, info.Builtin
		} else {
			t, ok := byName[info.File]
			if !ok {
				return fmt.Errorf("%s: the script %s was not read", Name, info.File)
			}
			text = t
		}
		cmds, err := parseScript(file, text, w.syms, po)
		if err != nil {
			return fmt.Errorf("%s: %w", Name, err)
		}
		info.Commands = make([]string, len(cmds))
		for i, c := range cmds {
			info.Commands[i] = c.first
		}
		cum += int64(info.Weight)
		w.scripts = append(w.scripts, &parsedScript{info: info, cmds: cmds, cum: cum})
	}
	for i := range w.scripts {
		w.opts.Scripts[i].Commands = w.scripts[i].info.Commands
	}
	w.counters = nil
	for _, s := range w.scripts {
		for k := range s.cmds {
			w.counters = append(w.counters, CounterName(s.info.Name, k, "ns"), CounterName(s.info.Name, k, "n"), CounterName(s.info.Name, k, "failed"))
		}
	}
	return nil
}

// CounterName is the name of a command's counter with -r: what is "ns"
// (its time summed), "n" (its executions) or "failed" (its failures);
// command is 0-based.
func CounterName(script string, command int, what string) string {
	return fmt.Sprintf("%s %d %s", script, command+1, what)
}

// Name is "script/pgbench".
func (w *Workload) Name() string { return Name }

// Reference names what this reproduces.
func (w *Workload) Reference() string { return Reference }

// Ops lists one operation per script, named after it.
func (w *Workload) Ops() []string {
	out := make([]string, len(w.opts.Scripts))
	for i, s := range w.opts.Scripts {
		out[i] = s.Name
	}
	return out
}

// Options returns the resolved options (an Options value).
func (w *Workload) Options() any { return &w.opts }

// Config returns the resolved options, typed.
func (w *Workload) Config() Options { return w.opts }

// Ignored is empty: unknown options are errors.
func (w *Workload) Ignored() []string { return nil }

// Counters names, with -r (report-latencies), each command's summed time
// in ns, its executions and its failures, three counters per command,
// script by script (CounterName).
func (w *Workload) Counters() []string { return w.counters }

// Limits: retries as --max-tries asks (serialization failures and
// deadlocks only, as pgbench 15 retries), and an error of any other kind
// aborts the client, as pgbench's do (a lost session apart: candor
// reconnects it, for runs that measure a fail-over).
func (w *Workload) Limits() workload.Limits {
	retries := w.opts.MaxTries - 1
	if w.opts.MaxTries == 0 {
		retries = -1
	}
	// -T: a client finishes the transaction in progress, which counts.
	return workload.Limits{Retries: retries, RetryClasses: []target.ErrorClass{target.ClassRetryable}, FinishInFlight: true, AbortClient: true}
}

var _ workload.AbortDescriber = (*Workload)(nil)

// AbortMessage is pgbench's line for a client aborted at err
// (workload.AbortDescriber).
func (w *Workload) AbortMessage(client int, err error) string {
	var ce *CommandError
	if errors.As(err, &ce) {
		return ce.Abort(client)
	}
	return fmt.Sprintf("client %d aborted: %v", client, err)
}

// Bind writes each SQL command's text with the dialect's placeholders for
// the extended and prepared protocols.
func (w *Workload) Bind(env workload.Env) error {
	if err := target.NeedsSQL(Name, env.Capabilities); err != nil {
		return err
	}
	if w.scripts == nil {
		if err := w.SetScripts(nil); err != nil {
			return err
		}
	}
	w.dialect, w.threads = env.Dialect, env.Threads
	for _, s := range w.scripts {
		for i := range s.cmds {
			c := &s.cmds[i]
			if c.kind != cSQL {
				continue
			}
			if end := dialect.PgbenchEnd(env.Dialect); s.info.Builtin != "" && c.plain == "END;" && end != c.plain {
				c.plain, c.parts = end, []sqlPart{{text: end, slot: -1}}
			}
			var b strings.Builder
			c.params = c.params[:0]
			for _, p := range c.parts {
				if p.slot < 0 {
					b.WriteString(p.text)
					continue
				}
				c.params = append(c.params, p.slot)
				b.WriteString(env.Dialect.Param(len(c.params)))
			}
			c.bound = b.String()
		}
	}
	w.bound = true
	return nil
}

// Schema is pgbench's four tables when the run uses them (a built-in
// script, or tables=true), else none.
func (w *Workload) Schema() []workload.Table {
	if !w.opts.Tables {
		return nil
	}
	var out []workload.Table
	for _, t := range initTables() {
		out = append(out, workload.Table{Name: t[0], Create: t[1]})
	}
	return out
}

// LoadRange is the accounts pgbench -i loads: 100,000 per scale unit
// (with each unit's branch and tellers), or nothing without tables.
func (w *Workload) LoadRange() (start, count int64) {
	if !w.opts.Tables {
		return 0, 0
	}
	return 0, w.opts.Scale * accountsPerScale
}

// PreRun vacuums as pgbench does before a run (vacuum=), reads :scale
// from pgbench_branches when a built-in script runs, as pgbench does (its
// count of rows wins over scale=), and refuses empty tables.
func (w *Workload) PreRun(ctx context.Context, c target.Conn) error {
	if w.opts.Vacuum != VacuumNone {
		if err := w.runSteps(ctx, c, dialect.PgbenchRunVacuum(w.dialect, w.opts.Vacuum == VacuumAll)); err != nil {
			return err
		}
	}
	builtin := false
	for _, s := range w.opts.Scripts {
		builtin = builtin || s.Builtin != ""
	}
	if !builtin {
		return nil
	}
	var n int64
	_, err := c.Query(ctx, "SELECT count(*) FROM pgbench_branches", nil, func(cols [][]byte) error {
		v, err := strconv.ParseInt(strings.TrimSpace(string(cols[0])), 10, 64)
		n = v
		return err
	})
	if err != nil {
		return fmt.Errorf("%w: %s: reading the scale from pgbench_branches: %v; initialise the tables first (candor pgbench -i -s N, or candor load %s -p scale=N)", target.ErrUnsupported, Name, err, Name)
	}
	if n == 0 {
		return fmt.Errorf("%w: %s: pgbench_branches is empty; initialise the tables first (candor pgbench -i -s N)", target.ErrUnsupported, Name)
	}
	if w.scaleSet && n != w.opts.Scale {
		fmt.Fprintf(w.debugOut, "candor: scale option ignored, using count from pgbench_branches table (%d)\n", n)
	}
	w.opts.Scale, w.opts.ScaleFrom = n, "pgbench_branches"
	return nil
}

// runSteps sends pgbench's vacuum statements, each to a table that exists
// (pgbench reports a missing one and goes on; candor skips it). A table
// candor did not create is not truncated: candor empties only its own
// tables, and says so. A statement's error is reported and the run goes on,
// as pgbench ignores it.
func (w *Workload) runSteps(ctx context.Context, c target.Conn, steps []dialect.PgbenchStep) error {
	said := false
	var notes []string
	for _, st := range steps {
		exists, owned, err := target.TableState(ctx, c, w.dialect, st.Table)
		if err != nil {
			return fmt.Errorf("%s: before the run: %w", Name, err)
		}
		if !exists {
			continue
		}
		if st.Truncate && !owned {
			notes = append(notes, fmt.Sprintf("candor: %s is not a table candor created: not emptied before the run (pgbench truncates it); empty it yourself to start from no history", st.Table))
			continue
		}
		if !said {
			fmt.Fprint(w.debugOut, "starting vacuum...")
			said = true
		}
		if _, err := c.Exec(ctx, st.SQL); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			fmt.Fprintf(w.debugOut, "\ncandor: %s: %v (ignoring this error and continuing anyway, as pgbench)\n", st.SQL, err)
		}
	}
	if said {
		fmt.Fprintln(w.debugOut, "end.")
	}
	for _, n := range notes {
		fmt.Fprintln(w.debugOut, n)
	}
	return nil
}

// PostLoad is pgbench -i's step v: VACUUM ANALYZE of its tables after the
// load (workload.PostLoader), unless vacuum=none (-i -n, or -I without v).
func (w *Workload) PostLoad(ctx context.Context, c target.Conn) error {
	for _, st := range w.PostLoadSteps() {
		if _, err := c.Exec(ctx, st); err != nil {
			return fmt.Errorf("%s: %w", st, err)
		}
	}
	return nil
}

// PostLoadSteps are PostLoad's statements, for the load's status line.
func (w *Workload) PostLoadSteps() []string {
	if !w.opts.Tables || w.opts.Vacuum == VacuumNone {
		return nil
	}
	var out []string
	for _, st := range dialect.PgbenchLoadVacuum(w.dialect) {
		out = append(out, st.SQL)
	}
	return out
}

// NewWorker returns client id. Worker 0, made first, draws the clients'
// generators and the default seed from the base sequence in pgbench's
// order (every client's, then default_seed), so that with random-seed=N
// and as many threads as pgbench has clients, every client draws what
// pgbench's does.
func (w *Workload) NewWorker(id int, r *rand.Rand) workload.Worker {
	if id == 0 || w.clientSeeds == nil {
		w.baseSeed = r.Uint64()
		if w.randSeed != nil {
			w.baseSeed = *w.randSeed
		}
		base := newPRNG(w.baseSeed)
		n := max(w.threads, id+1)
		w.clientSeeds = make([]uint64, n)
		for i := range w.clientSeeds {
			w.clientSeeds[i] = base.next()
		}
		w.defaultSeed = base.next()
		// Then each thread's choose, throttle and sample generators:
		// worker i chooses its scripts as pgbench's thread i does (so
		// with -j equal to -c, exactly as pgbench).
		w.chooseSeeds = make([]uint64, n)
		for i := range w.chooseSeeds {
			w.chooseSeeds[i] = base.next()
			base.next()
			base.next()
		}
	}
	seed, choose := uint64(id)*0x9E3779B97F4A7C15, uint64(id)*0xBF58476D1CE4E5B9
	if id < len(w.clientSeeds) {
		seed, choose = w.clientSeeds[id], w.chooseSeeds[id]
	}
	wk := &worker{w: w, id: id, r: r, chooser: newPRNG(choose)}
	c := &wk.c
	c.w = w
	c.vars = make([]value, len(w.syms.names))
	c.rng = newPRNG(seed)
	c.vars[w.slots.clientID] = intVal(int64(id))
	c.vars[w.slots.scale] = intVal(w.opts.Scale)
	c.vars[w.slots.randomSeed] = intVal(int64(w.baseSeed))
	c.vars[w.slots.defaultSeed] = intVal(int64(w.defaultSeed))
	for _, d := range w.defines {
		c.vars[w.syms.slot(d[0])] = value{k: kString, s: d[1]}
	}
	if w.opts.ReportLatencies {
		wk.counterBase = make([]int, len(w.scripts))
		n := 0
		for i, s := range w.scripts {
			wk.counterBase[i] = n
			n += 3 * len(s.cmds)
		}
	}
	return wk
}

// SetDebugOutput sets where debug() writes (stderr by default).
func (w *Workload) SetDebugOutput(out io.Writer) { w.debugOut = out }

// SetLog is SetDebugOutput for the engine: debug() and the vacuum's lines
// go to the run's stderr.
func (w *Workload) SetLog(out io.Writer) { w.debugOut = out }

// debug prints debug()'s line as pgbench does.
func (w *Workload) debug(c *client, e *expr, v value) {
	var s string
	switch v.k {
	case kNull:
		s = "null"
	case kBool:
		s = "boolean " + v.String()
	case kInt:
		s = "int " + v.String()
	case kDouble:
		s = "double " + v.String()
	default:
		s = "string " + v.s
	}
	fmt.Fprintf(w.debugOut, "debug(script=%d,command=%d): %s\n", c.script, c.command+1, s)
}
