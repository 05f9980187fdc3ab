// Package sysbenchline translates a sysbench 1.0.20 command line —
// `sysbench [options]... TESTNAME COMMAND` — into the candor command line
// that runs it: prepare, run, cleanup or prewarm of sysbench/TESTNAME. It
// translates only what candor names differently: --db-driver and the
// drivers' connection options become --target URLs, the deprecated aliases
// (--num-threads, --max-time, --max-requests, --tx-rate) their options, and
// a run gets sysbench's defaults (--time=10, its report format, no load).
// Everything else is passed on, so candor's own options work there too.
// Like plan, it runs nothing: `candor sysbench` (internal/cli) parses the
// translated line into a Spec and runs it.
package sysbenchline

import (
	"fmt"
	"net"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/candor-bench/candor/internal/engine"
	"github.com/candor-bench/candor/internal/suggest"
	"github.com/candor-bench/candor/internal/target/mysql"
	"github.com/candor-bench/candor/internal/version"
	"github.com/candor-bench/candor/internal/workload"
	"github.com/candor-bench/candor/internal/workload/sysbench"
)

// Line is a sysbench command line taken apart.
type Line struct {
	Test, Command string
	// Script is the Lua script the line names instead of a built-in test
	// (a path ending in .lua, or an existing file): the workload
	// sysbench-lua runs it, and its commands are the script's.
	Script        string
	Driver        string            // mysql (sysbench's default) or pgsql
	conn          map[string]string // the drivers' connection options, by name
	opts          []sysbenchOpt     // the rest, in order
	Target        bool              // --target given
	Help, Version bool
	testOption    bool            // the deprecated --test=TEST
	deprecated    map[string]bool // deprecated aliases given a non-zero value
	mysqlOpts     []sysbenchOpt   // the MySQL driver's own options (sysbenchMySQLOpts)
	Ignored       []string        // options of the driver not in use, dropped as sysbench ignores them
}

// warnings are sysbench's warnings about deprecated options, in the order it
// prints them (on stdout, before its header).
func (l *Line) Warnings() []string {
	var out []string
	if l.testOption {
		out = append(out, "WARNING: the --test option is deprecated. You can pass a script name or path on the command line without any options.")
	}
	for _, old := range []string{"num-threads", "max-time", "max-requests", "tx-rate"} {
		if l.deprecated[old] {
			out = append(out, fmt.Sprintf("WARNING: --%s is deprecated, use --%s instead", old, sysbenchAliases[old]))
		}
	}
	return out
}

// sysbenchOpt is one --name[=value] option; set tells "--name" from "--name=".
type sysbenchOpt struct {
	name, value string
	set         bool
}

func (o sysbenchOpt) arg() string {
	if !o.set {
		return "--" + o.name
	}
	return "--" + o.name + "=" + o.value
}

// sysbenchAliases are sysbench's deprecated names (and 1.1's --warmup-time)
// for options candor has under another name.
var sysbenchAliases = map[string]string{
	"num-threads": "threads", "max-time": "time", "max-requests": "events", "tx-rate": "rate", "warmup-time": "warmup",
}

// sysbenchOffOnly are sysbench options candor accepts at their default, off,
// with why candor has no "on".
var sysbenchOffOnly = map[string]string{
	"debug":           "candor has no debug trace",
	"validate":        "candor has no validation mode",
	"db-debug":        "candor has no debug trace",
	"mysql-debug":     "candor has no client library trace",
	"mysql-dry-run":   "candor always runs the statements",
	"forced-shutdown": "candor interrupts the statements still running when --time ends",
}

// sysbenchMySQLOpts are the MySQL driver's options other than the
// connection's: checked when --db-driver is mysql, ignored otherwise (as by
// sysbench).
var sysbenchMySQLOpts = map[string]bool{
	"mysql-socket": true, "mysql-ignore-errors": true, "mysql-ssl-cipher": true,
	"mysql-debug": true, "mysql-dry-run": true,
}

// sysbenchIgnored are accepted and have no meaning for candor.
var sysbenchIgnored = map[string]bool{"thread-stack-size": true, "verbosity": true}

// sysbenchConnOpts are the drivers' connection options.
var sysbenchConnOpts = map[string]string{
	"mysql-host": "mysql", "mysql-port": "mysql", "mysql-user": "mysql", "mysql-password": "mysql",
	"mysql-db": "mysql", "mysql-ssl": "mysql", "mysql-compression": "mysql",
	"pgsql-host": "pgsql", "pgsql-port": "pgsql", "pgsql-user": "pgsql", "pgsql-password": "pgsql", "pgsql-db": "pgsql",
}

// sysbenchNonOLTP are sysbench's built-in tests that are not database tests.
var sysbenchNonOLTP = []string{"fileio", "cpu", "memory", "threads", "mutex"}

// Parse reads sysbench's grammar: options anywhere, the first
// other word is the test and the second the command; --config-file's
// options come first.
func Parse(args []string, readFile func(string) ([]byte, error)) (*Line, error) {
	l := &Line{Driver: "mysql", conn: map[string]string{}}
	var words []string
	var opts []sysbenchOpt
	for _, a := range args {
		if !strings.HasPrefix(a, "-") || a == "-" {
			words = append(words, a)
			continue
		}
		if a == "-h" {
			l.Help = true
			continue
		}
		if !strings.HasPrefix(a, "--") {
			// candor's short flags (-q); values go after '=' here too.
			opts = append(opts, sysbenchOpt{name: a})
			continue
		}
		name, value, set := strings.Cut(a[2:], "=")
		name = strings.ReplaceAll(name, "_", "-")
		if name == "" {
			return nil, engine.Usagef("%q is not an option: sysbench options are --name=value", a)
		}
		if name == "test" { // deprecated in 1.0 and still taken: the test's name or script
			words = append([]string{value}, words...)
			l.testOption = true
			continue
		}
		if name == "config-file" {
			file, err := sysbenchConfigFile(value, readFile)
			if err != nil {
				return nil, err
			}
			opts = append(file, opts...)
			continue
		}
		opts = append(opts, sysbenchOpt{name: name, value: value, set: set})
	}
	for _, o := range opts {
		if err := l.take(o); err != nil {
			return nil, err
		}
	}
	if l.Help || l.Version {
		return l, nil
	}
	if err := l.checkDriver(); err != nil {
		return nil, err
	}
	switch len(words) {
	case 0:
		return nil, engine.Usagef("name a test and a command, as for sysbench: candor sysbench [options] oltp_read_write prepare|run|cleanup")
	case 1:
		return nil, engine.Usagef("missing command after the test %s: give prepare, run, cleanup, prewarm or help", words[0])
	case 2:
	default:
		return nil, engine.Usagef("unexpected argument %q after the command %s; options take their value after '=' as in sysbench (--threads=16)", words[2], words[1])
	}
	if err := l.setTest(words[0], readFile); err != nil {
		return nil, err
	}
	if l.Script != "" {
		l.Command = words[1] // the script says which commands it has
		return l, nil
	}
	switch words[1] {
	case "prepare", "run", "cleanup", "help", "prewarm":
		l.Command = words[1]
	default:
		hint := ""
		if _, err := strconv.ParseFloat(words[1], 64); err == nil || isOnOff(words[1]) {
			hint = "; options take their value after '=' as in sysbench (--threads=16)"
		}
		return nil, engine.Usagef("unknown command %q for the test %s: give prepare, run, cleanup, prewarm or help%s", words[1], l.Test, hint)
	}
	return l, nil
}

// sysbenchConfigFile reads --config-file: one option per line, NAME=VALUE
// or NAME alone, '#' comments.
func sysbenchConfigFile(name string, readFile func(string) ([]byte, error)) ([]sysbenchOpt, error) {
	if name == "" {
		return nil, engine.Usagef("--config-file needs a file name: --config-file=FILE")
	}
	data, err := readFile(name)
	if err != nil {
		return nil, engine.Usagef("cannot read --config-file: %v", err)
	}
	if data, err = workload.PropertyText(name, data); err != nil {
		return nil, engine.Usagef("--config-file: %v", err)
	}
	var out []sysbenchOpt
	for n, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, set := strings.Cut(strings.TrimPrefix(line, "--"), "=")
		k = strings.ReplaceAll(strings.TrimSpace(k), "_", "-")
		if k == "" || k == "config-file" {
			return nil, engine.Usagef("%s line %d: expected NAME=VALUE, got %q", name, n+1, line)
		}
		out = append(out, sysbenchOpt{name: k, value: strings.TrimSpace(v), set: set})
	}
	return out, nil
}

// take files one option.
func (l *Line) take(o sysbenchOpt) error {
	if alias, ok := sysbenchAliases[o.name]; ok {
		// sysbench warns when a deprecated option has a value above zero.
		if v, err := strconv.ParseFloat(o.value, 64); err == nil && v > 0 && o.name != "warmup-time" {
			if l.deprecated == nil {
				l.deprecated = map[string]bool{}
			}
			l.deprecated[o.name] = true
		}
		o.name = alias
	}
	on := !o.set || isTrue(o.value) // --help, --version
	switch {
	case o.name == "help":
		l.Help = on
	case o.name == "version":
		l.Version = on
	case o.name == "db-driver":
		if o.value != "mysql" && o.value != "pgsql" {
			return engine.Usagef("--db-driver=%s: candor speaks sysbench's mysql and pgsql drivers; for other databases give --target=URL", o.value)
		}
		l.Driver = o.value
		l.conn["db-driver"] = o.value
	case sysbenchConnOpts[o.name] != "":
		if !o.set && (o.name == "mysql-ssl" || o.name == "mysql-compression") {
			o.value = "on" // an on/off option alone is on
		}
		l.conn[o.name] = o.value
	case sysbenchMySQLOpts[o.name]:
		l.mysqlOpts = append(l.mysqlOpts, o) // checked once the driver is known
	case o.name == "report-checkpoints":
		if o.value != "" {
			return engine.WithCode(engine.ExitUnsupported, fmt.Errorf("--report-checkpoints is not supported: every interval record in candor's result file holds the counters and histograms of its interval"))
		}
	case sysbenchOffOnly[o.name] != "":
		return offOnly(o)
	case sysbenchIgnored[o.name]:
	case o.name == "report-interval" && o.set && isZero(o.value):
		// sysbench's default: no interval lines. candor still records intervals.
		l.opts = slices.DeleteFunc(l.opts, func(p sysbenchOpt) bool { return p.name == "report-interval" })
	default:
		l.Target = l.Target || o.name == "target"
		l.opts = append(l.opts, o)
	}
	return nil
}

// checkDriver drops the options of the driver not in use, as sysbench
// ignores them (listing them in ignored), and checks the MySQL driver's own
// options when it is in use.
func (l *Line) checkDriver() error {
	for name := range l.conn {
		if d := sysbenchConnOpts[name]; d != "" && d != l.Driver {
			l.Ignored = append(l.Ignored, "--"+name)
			delete(l.conn, name)
		}
	}
	for _, o := range l.mysqlOpts {
		if l.Driver != "mysql" {
			l.Ignored = append(l.Ignored, "--"+o.name)
			continue
		}
		switch o.name {
		case "mysql-socket":
			return engine.Usagef("--mysql-socket: candor connects over TCP; give --mysql-host and --mysql-port instead")
		case "mysql-ignore-errors":
			if err := checkIgnoreErrors(o.value); err != nil {
				return err
			}
		case "mysql-ssl-cipher":
			if o.value != "" {
				return engine.WithCode(engine.ExitUnsupported, fmt.Errorf("%s is not supported: candor's TLS (Go's crypto/tls) negotiates the cipher and takes no OpenSSL cipher names", o.arg()))
			}
		default:
			if err := offOnly(o); err != nil {
				return err
			}
		}
	}
	slices.Sort(l.Ignored)
	return nil
}

// setTest takes sysbench's test argument: a built-in test's name, or a
// Lua script: a path ending in .lua, or a file that exists.
func (l *Line) setTest(arg string, readFile func(string) ([]byte, error)) error {
	name := strings.TrimSuffix(path.Base(arg), ".lua")
	if strings.HasSuffix(arg, ".lua") || (!slices.Contains(sysbench.Tests, arg) && readable(arg, readFile)) {
		l.Script = arg
		return nil
	}
	switch {
	case slices.Contains(sysbench.Tests, name):
		l.Test = name
		return nil
	case slices.Contains(sysbenchNonOLTP, name):
		return engine.Usagef("sysbench's %s test is not a database test; candor runs sysbench's OLTP tests: %s", name, strings.Join(sysbench.Tests, ", "))
	}
	return engine.Usagef("unknown sysbench test %q; candor runs sysbench's OLTP tests: %s", arg, strings.Join(sysbench.Tests, ", "))
}

func readable(name string, readFile func(string) ([]byte, error)) bool {
	_, err := readFile(name)
	return err == nil
}

// scriptArgs is the candor command line of a Lua script's run: `run
// sysbench-lua -p file=SCRIPT`, candor's flags as they are, and the
// script's options (any other) as -p name=value, which the workload checks
// against the options the script declares.
func (l *Line) scriptArgs(has func(verb, name string) bool) ([]string, error) {
	if l.Command != "run" {
		return nil, engine.Usagef("the command %s of the script %s runs through ScriptProps, not as a candor command line", l.Command, l.Script)
	}
	out, err := l.targetArgs([]string{engine.PhaseRun, luaWorkload, "-p", "file=" + l.Script}, false)
	if err != nil {
		return nil, err
	}
	if l.endless() {
		return nil, engine.Usagef("--time=0 with no --events is sysbench's endless test; candor's runs have an end: give --time=SECONDS or --events=N")
	}
	out = append(out, "--format=sysbench", "--time="+sysbenchTime, "--load=never")
	for _, o := range l.opts {
		switch {
		case strings.HasPrefix(o.name, "-"): // a short flag
			out = append(out, o.name)
		case candorFlag(has, o.name):
			out = append(out, o.arg())
		default:
			out = append(out, "-p", o.prop())
		}
	}
	return out, nil
}

// luaWorkload is the workload that runs sysbench Lua scripts
// (internal/workload/sysbenchlua).
const luaWorkload = "sysbench-lua"

// candorFlag tells candor's own run flags and sysbench-lua's options
// (given as flags) from a script's options, which go as properties.
func candorFlag(has func(verb, name string) bool, name string) bool {
	other := false
	for _, e := range workload.Entries() {
		for _, o := range e.Options {
			if o.Name == name {
				if e.Name == luaWorkload {
					return true
				}
				other = true
			}
		}
	}
	return !other && has(engine.PhaseRun, name)
}

// prop is the option as a property, name=value; an option alone is on.
func (o sysbenchOpt) prop() string {
	if !o.set {
		return o.name + "=on"
	}
	return o.name + "=" + o.value
}

// ScriptProps is what a Lua script's command other than run needs: the
// workload's properties (the script, the command, sysbench-lua's and the
// script's options), --threads (parallel commands run one Lua state per
// thread) and the targets. candor's other run options have no use there
// and are dropped, as sysbench ignores options a command does not read.
func (l *Line) ScriptProps(has func(verb, name string) bool) (props []string, threads int, targets []string, err error) {
	props = []string{"file=" + l.Script, "command=" + l.Command}
	threads = 1
	for _, o := range l.opts {
		switch {
		case o.name == "threads":
			n, err := strconv.Atoi(o.value)
			if err != nil || n < 1 {
				return nil, 0, nil, engine.Usagef("--threads=%s: give a number of threads, 1 or more", o.value)
			}
			threads = n
		case o.name == "target":
			targets = append(targets, o.value)
		case strings.HasPrefix(o.name, "-"):
		case candorFlag(has, o.name) && !isLuaOption(o.name):
		default:
			props = append(props, o.prop())
		}
	}
	if len(targets) > 0 && len(l.conn) > 0 {
		return nil, 0, nil, engine.Usagef("give either --target or sysbench's connection options (--db-driver, --%s-host, ...), not both", l.Driver)
	}
	if len(targets) == 0 {
		urls, err := l.URLs()
		if err != nil {
			return nil, 0, nil, err
		}
		targets = urls[:1]
	}
	return props, threads, targets, nil
}

func isLuaOption(name string) bool {
	for _, e := range workload.Entries() {
		if e.Name == luaWorkload {
			for _, o := range e.Options {
				if o.Name == name {
					return true
				}
			}
		}
	}
	return false
}

// targetArgs appends to out the --target URLs the connection options
// make (the first alone when one is true), unless --target was given.
func (l *Line) targetArgs(out []string, one bool) ([]string, error) {
	if l.Target && len(l.conn) > 0 {
		return nil, engine.Usagef("give either --target or sysbench's connection options (--db-driver, --%s-host, ...), not both", l.Driver)
	}
	if l.Target {
		return out, nil
	}
	urls, err := l.URLs()
	if err != nil {
		return nil, err
	}
	if one {
		urls = urls[:1]
	}
	for _, u := range urls {
		out = append(out, "--target="+u)
	}
	return out, nil
}

// Args builds the candor command line: the verb (load, run, cleanup or
// prewarm), the workload and the options. has tells whether one of
// candor's commands has a flag.
func (l *Line) Args(has func(verb, name string) bool) ([]string, error) {
	if l.Script != "" {
		return l.scriptArgs(has)
	}
	workload := "sysbench/" + l.Test
	verb := map[string]string{"prepare": engine.PhaseLoad, "run": engine.PhaseRun, "cleanup": "cleanup", "prewarm": "prewarm"}[l.Command]
	out, err := l.targetArgs([]string{verb, workload}, verb == "cleanup") // one session drops the tables
	if err != nil {
		return nil, err
	}
	if verb == engine.PhaseRun {
		if l.endless() {
			return nil, engine.Usagef("--time=0 with no --events is sysbench's endless test; candor's runs have an end: give --time=SECONDS or --events=N")
		}
		out = append(out, "--format=sysbench", "--time="+sysbenchTime, "--load=never")
	}
	if verb == engine.PhaseLoad || verb == "cleanup" {
		out = append(out, "--format=sysbench") // sysbench's per-table lines
	}
	for _, o := range l.opts {
		name := o.name
		if strings.HasPrefix(name, "-") { // a short flag
			out = append(out, name)
			continue
		}
		if !has(verb, name) {
			if has(engine.PhaseRun, name) {
				continue // a run option given to prepare or cleanup: sysbench ignores it too
			}
			return nil, engine.Usagef("unknown option --%s%s (candor sysbench --help lists what it takes)", name, suggest.Hint(name, "--", optionNames(verb, has)))
		}
		out = append(out, o.arg())
	}
	return out, nil
}

// sysbenchGeneral are sysbench 1.0.20's general options, as candor takes
// them (the "did you mean" of an unknown one).
var sysbenchGeneral = []string{"threads", "time", "events", "rate", "report-interval", "warmup", "rand-type", "rand-seed",
	"rand-spec-iter", "rand-spec-pct", "rand-spec-res", "rand-pareto-h", "percentile", "histogram", "db-ps-mode",
	"db-driver", "config-file", "help", "version"}

// optionNames are the options a sysbench line may give verb: sysbench's
// general ones, its drivers', the OLTP tests' and their old names, those
// of candor's verb has.
func optionNames(verb string, has func(verb, name string) bool) []string {
	var out []string
	add := func(n string) {
		if has(verb, n) || sysbenchConnOpts[n] != "" || sysbenchAliases[n] != "" || n == "db-driver" || n == "config-file" {
			out = append(out, n)
		}
	}
	for _, n := range sysbenchGeneral {
		add(n)
	}
	for n := range sysbenchConnOpts {
		add(n)
	}
	for n := range sysbenchAliases {
		add(n)
	}
	if e, _, err := workload.Lookup("sysbench"); err == nil {
		for _, o := range e.Options {
			add(o.Name)
		}
	}
	return out
}

// sysbenchTime is sysbench's default --time, in seconds.
const sysbenchTime = "10"

// endless reports whether the last --time is 0 and no --events limit is set
// (sysbench then runs until it is stopped).
func (l *Line) endless() bool {
	time, events := sysbenchTime, "0"
	for _, o := range l.opts {
		switch o.name {
		case "time":
			time = o.value
		case "events":
			events = o.value
		}
	}
	return isZero(time) && isZero(events)
}

// urls builds the targets from the connection options with sysbench's
// defaults. A MySQL connection takes the next port, and after the last port
// the next host (drv_mysql.c): one node per host and port, host-major.
func (l *Line) URLs() ([]string, error) {
	p := l.Driver + "-"
	get := func(name, def string) string {
		if v, ok := l.conn[p+name]; ok {
			return v
		}
		return def
	}
	scheme, port := "mysql", "3306"
	if l.Driver == "pgsql" {
		scheme, port = "postgres", "5432"
	}
	hosts := splitList(get("host", "localhost"))
	ports := splitList(get("port", port))
	if l.Driver == "pgsql" && (len(hosts) > 1 || len(ports) > 1) {
		return nil, engine.Usagef("sysbench's pgsql driver takes one host and port; for several nodes repeat --target=URL")
	}
	for _, pt := range ports {
		if n, err := strconv.Atoi(pt); err != nil || n < 1 || n > 65535 {
			return nil, engine.Usagef("--%sport=%s: a port is a number from 1 to 65535", p, pt)
		}
	}
	user, pw := get("user", "sbtest"), get("password", "")
	info := url.User(user)
	if pw != "" {
		info = url.UserPassword(user, pw)
	}
	q := url.Values{}
	for _, o := range []struct{ name, param, value string }{{"ssl", "tls", "skip-verify"}, {"compression", "compress", "true"}} {
		switch v := get(o.name, "off"); {
		case !isOnOff(v):
			return nil, engine.Usagef("--%s%s=%s: give on or off", p, o.name, v)
		case isTrue(v):
			q.Set(o.param, o.value)
		}
	}
	query := q.Encode()
	var out []string
	for _, h := range hosts {
		for _, pt := range ports {
			u := url.URL{Scheme: scheme, User: info, Host: net.JoinHostPort(h, pt), Path: "/" + get("db", "sbtest"), RawQuery: query}
			out = append(out, u.String())
		}
	}
	return out, nil
}

// checkIgnoreErrors accepts --mysql-ignore-errors when candor restarts the
// event on every code listed (sysbench's default list is such a list).
func checkIgnoreErrors(list string) error {
	var not []string
	for _, c := range splitList(list) {
		n, err := strconv.ParseUint(c, 10, 16)
		if err != nil {
			not = append(not, c)
			continue
		}
		if !slices.Contains(sysbench.RestartClasses, mysql.ErrorClass(uint16(n))) {
			not = append(not, c)
		}
	}
	if len(not) == 0 {
		return nil
	}
	return engine.WithCode(engine.ExitUnsupported, fmt.Errorf("--mysql-ignore-errors=%s: candor restarts an event on deadlocks, lock-wait timeouts, "+
		"write conflicts and constraint violations (1213, 1205, 1020, 1062, TiDB 8002, 8022, 8028, 9007, ...) and stops the run at any other "+
		"error, as sysbench does; it cannot ignore %s: drop the option or list only codes of that set",
		list, strings.Join(not, ", ")))
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// offOnly accepts an option of sysbenchOffOnly at off, and refuses it on
// with the reason.
func offOnly(o sysbenchOpt) error {
	if on, err := sysbench.ParseOnOff(o.value); !o.set || err != nil || on {
		return engine.WithCode(engine.ExitUnsupported, fmt.Errorf("%s is not supported: %s", o.arg(), sysbenchOffOnly[o.name]))
	}
	return nil
}

// Banner is the first line `candor sysbench` prints in place of
// sysbench's "sysbench 1.0.20 (using ...)".
func Banner() string {
	v, _, _ := version.Info()
	return fmt.Sprintf("candor %s (sysbench 1.0.20 command line)", v)
}

// DriverOf names the sysbench driver an option belongs to: mysql or pgsql.
func DriverOf(option string) string {
	d, _, _ := strings.Cut(strings.TrimPrefix(option, "--"), "-")
	return d
}

func isTrue(v string) bool {
	b, err := sysbench.ParseOnOff(v)
	return err == nil && b
}

func isOnOff(v string) bool {
	_, err := sysbench.ParseOnOff(v)
	return err == nil
}

func isZero(v string) bool {
	f, err := strconv.ParseFloat(v, 64)
	return err == nil && f == 0
}
