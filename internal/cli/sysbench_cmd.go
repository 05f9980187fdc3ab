package cli

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/candor-bench/candor/internal/target/mysql"
	"github.com/candor-bench/candor/internal/version"
	"github.com/candor-bench/candor/internal/workload"
	"github.com/candor-bench/candor/internal/workload/sysbench"
)

// `candor sysbench` takes a sysbench 1.0.20 command line as it is —
// `sysbench [options]... TESTNAME COMMAND` with `candor` put in front — and
// runs it as candor's prepare, run or cleanup of sysbench/TESTNAME. It
// translates only what candor names differently: --db-driver and the
// drivers' connection options become --target URLs, the deprecated aliases
// (--num-threads, --max-time, --max-requests, --tx-rate) their options, and
// a run gets sysbench's defaults (--time=10, its report format, no load).
// Everything else is passed on, so candor's own options work here too.

const sysbenchCmdLong = `Takes a sysbench 1.0.20 command line as it is: put 'candor' in front of
'sysbench [options]... TESTNAME COMMAND'. TESTNAME is one of sysbench's OLTP tests (a path
such as /usr/share/sysbench/oltp_read_write.lua works too); COMMAND is prepare, run, cleanup,
prewarm (MySQL wire) or help (the test script's options, as sysbench lists them). As in sysbench,
options take their value after '=' (--threads=16) and on/off options alone mean on.

  --db-driver=mysql|pgsql          sysbench's default is mysql
  --mysql-host=LIST --mysql-port=LIST --mysql-user --mysql-password --mysql-db --mysql-ssl
  --pgsql-host --pgsql-port --pgsql-user --pgsql-password --pgsql-db
                                   become --target URLs with sysbench's defaults (host localhost,
                                   port 3306 or 5432, user and database sbtest). Several MySQL hosts
                                   or ports give one node per host and port, taken by connections
                                   in turn as sysbench does. candor connects over TCP even to
                                   localhost (libmysqlclient would use the Unix socket there).
  --mysql-ssl=on                   TLS without verifying the server's certificate
  --mysql-compression=on           the protocol's zlib compression (the URL's compress=true)
  --mysql-ignore-errors=LIST       accepted when every code in it is one candor restarts an
                                   event on (1213, 1205, 1020, 1062, TiDB's 8002, 8022, 8028,
                                   9007, ...); candor's set does not change
  --num-threads, --max-time, --max-requests, --tx-rate, --warmup-time
                                   --threads, --time, --events, --rate, --warmup
  --config-file=FILE               one NAME=VALUE option per line, read before the command line
  --test=TESTNAME                  the deprecated form of TESTNAME
  --histogram, --percentile=N      sysbench's latency histogram and percentile (0: none) in the report
  --db-ps-mode=auto|disable        disable sends statements as text with their values written in
  --thread-stack-size, --verbosity accepted and ignored

A run gets sysbench's defaults: --time=10 (stopping at --events first when given), no
interval lines unless --report-interval is given, sysbench's report on stdout
(--format=sysbench) and no load (--load=never: prepare first, as with sysbench). Every
other option is passed on to 'candor prepare|run|cleanup|prewarm sysbench/TESTNAME': the tests'
options (--tables, --table-size, --rand-type, ...) and candor's own (--target=URL instead of
the connection options, --out=FILE, --isolation=..., --seed=N); options a command does not
have (--time for cleanup) are dropped, as sysbench ignores them. candor writes its result
file as always.`

func newSysbenchCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sysbench [options]... TESTNAME prepare|run|cleanup|prewarm|help",
		Short: "Run a sysbench 1.0.20 command line as it is (its options, --db-driver and connection options)",
		Long:  sysbenchCmdLong,
		Example: `  candor sysbench --db-driver=mysql --mysql-host=127.0.0.1 --mysql-password=pw --tables=10 --table-size=1000000 oltp_read_write prepare
  candor sysbench --db-driver=mysql --mysql-host=127.0.0.1 --mysql-password=pw --tables=10 --table-size=1000000 --threads=64 --time=300 --report-interval=10 oltp_read_write run
  candor sysbench --db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-user=postgres --tables=10 oltp_read_write cleanup`,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			line, err := parseSysbenchLine(args, os.ReadFile)
			if err != nil {
				return err
			}
			switch {
			case line.help:
				return cmd.Help()
			case line.version:
				fmt.Fprintln(env.Stdout, sysbenchBanner())
				return nil
			}
			if line.command == "help" {
				// sysbench's help for a test: its script's options.
				fmt.Fprintf(env.Stdout, "%s\n\n", sysbenchBanner())
				text, err := sysbench.Help(line.test)
				if err != nil {
					return usagef("%v.", err)
				}
				fmt.Fprintf(env.Stdout, "%s\nsysbench's general options (--threads, --time, --rand-type, ...) and candor's: candor run sysbench/%s --help\n", text, line.test)
				return nil
			}
			root := NewRoot(env)
			out, err := line.candorArgs(flagOf(root))
			if err != nil {
				return err
			}
			for _, w := range line.warnings() {
				fmt.Fprintln(env.Stdout, w)
			}
			for _, name := range line.ignored {
				fmt.Fprintf(env.Stderr, "candor: %s is an option of sysbench's %s driver, and --db-driver is %s: ignored, as sysbench ignores it\n",
					name, driverOf(name), line.driver)
			}
			return runSysbenchVerb(env, root, out[0], out[1:])
		},
	}
	return cmd
}

// runSysbenchVerb runs the candor command a sysbench line translates to:
// prepare and run parse into a Spec the engine runs; cleanup and prewarm
// call their commands' functions with their flags parsed.
func runSysbenchVerb(env *Env, root *cobra.Command, verb string, args []string) error {
	if verb == phaseLoad || verb == phaseRun {
		spec, err := parseSpec(env, verb, args)
		if err != nil {
			return err
		}
		return runSpec(env, spec)
	}
	sub, _, err := root.Find([]string{verb})
	if err != nil || sub == root {
		return fmt.Errorf("candor has no %s command", verb)
	}
	if err := sub.ParseFlags(args); err != nil {
		return usagef("%v (see '%s --help')", err, sub.CommandPath())
	}
	return sub.RunE(sub, sub.Flags().Args())
}

// flagOf looks up a flag of one of root's commands (nil when it has none).
func flagOf(root *cobra.Command) func(verb, name string) *pflag.Flag {
	return func(verb, name string) *pflag.Flag {
		sub, _, err := root.Find([]string{verb})
		if err != nil || sub == root {
			return nil
		}
		return sub.Flags().Lookup(name)
	}
}

// sysbenchLine is a sysbench command line taken apart.
type sysbenchLine struct {
	test, command string
	driver        string            // mysql (sysbench's default) or pgsql
	conn          map[string]string // the drivers' connection options, by name
	opts          []sysbenchOpt     // the rest, in order
	target        bool              // --target given
	help, version bool
	testOption    bool            // the deprecated --test=TEST
	deprecated    map[string]bool // deprecated aliases given a non-zero value
	mysqlOpts     []sysbenchOpt   // the MySQL driver's own options (sysbenchMySQLOpts)
	ignored       []string        // options of the driver not in use, dropped as sysbench ignores them
}

// warnings are sysbench's warnings about deprecated options, in the order it
// prints them (on stdout, before its header).
func (l *sysbenchLine) warnings() []string {
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

// parseSysbenchLine reads sysbench's grammar: options anywhere, the first
// other word is the test and the second the command; --config-file's
// options come first.
func parseSysbenchLine(args []string, readFile func(string) ([]byte, error)) (*sysbenchLine, error) {
	l := &sysbenchLine{driver: "mysql", conn: map[string]string{}}
	var words []string
	var opts []sysbenchOpt
	for _, a := range args {
		if !strings.HasPrefix(a, "-") || a == "-" {
			words = append(words, a)
			continue
		}
		if a == "-h" {
			l.help = true
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
			return nil, usagef("%q is not an option: sysbench options are --name=value", a)
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
	if l.help || l.version {
		return l, nil
	}
	if err := l.checkDriver(); err != nil {
		return nil, err
	}
	switch len(words) {
	case 0:
		return nil, usagef("name a test and a command, as for sysbench: candor sysbench [options] oltp_read_write prepare|run|cleanup")
	case 1:
		return nil, usagef("missing command after the test %s: give prepare, run, cleanup, prewarm or help", words[0])
	case 2:
	default:
		return nil, usagef("unexpected argument %q after the command %s; options take their value after '=' as in sysbench (--threads=16)", words[2], words[1])
	}
	if err := l.setTest(words[0]); err != nil {
		return nil, err
	}
	switch words[1] {
	case "prepare", "run", "cleanup", "help", "prewarm":
		l.command = words[1]
	default:
		hint := ""
		if _, err := strconv.ParseFloat(words[1], 64); err == nil || isOnOff(words[1]) {
			hint = "; options take their value after '=' as in sysbench (--threads=16)"
		}
		return nil, usagef("unknown command %q for the test %s: give prepare, run, cleanup, prewarm or help%s", words[1], l.test, hint)
	}
	return l, nil
}

// sysbenchConfigFile reads --config-file: one option per line, NAME=VALUE
// or NAME alone, '#' comments.
func sysbenchConfigFile(name string, readFile func(string) ([]byte, error)) ([]sysbenchOpt, error) {
	if name == "" {
		return nil, usagef("--config-file needs a file name: --config-file=FILE")
	}
	data, err := readFile(name)
	if err != nil {
		return nil, usagef("cannot read --config-file: %v", err)
	}
	if data, err = workload.PropertyText(name, data); err != nil {
		return nil, usagef("--config-file: %v", err)
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
			return nil, usagef("%s line %d: expected NAME=VALUE, got %q", name, n+1, line)
		}
		out = append(out, sysbenchOpt{name: k, value: strings.TrimSpace(v), set: set})
	}
	return out, nil
}

// take files one option.
func (l *sysbenchLine) take(o sysbenchOpt) error {
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
		l.help = on
	case o.name == "version":
		l.version = on
	case o.name == "db-driver":
		if o.value != "mysql" && o.value != "pgsql" {
			return usagef("--db-driver=%s: candor speaks sysbench's mysql and pgsql drivers; for other databases give --target=URL", o.value)
		}
		l.driver = o.value
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
			return withCode(ExitUnsupported, fmt.Errorf("--report-checkpoints is not supported: every interval record in candor's result file holds the counters and histograms of its interval"))
		}
	case sysbenchOffOnly[o.name] != "":
		return offOnly(o)
	case sysbenchIgnored[o.name]:
	case o.name == "report-interval" && o.set && isZero(o.value):
		// sysbench's default: no interval lines. candor still records intervals.
		l.opts = slices.DeleteFunc(l.opts, func(p sysbenchOpt) bool { return p.name == "report-interval" })
	default:
		l.target = l.target || o.name == "target"
		l.opts = append(l.opts, o)
	}
	return nil
}

// checkDriver drops the options of the driver not in use, as sysbench
// ignores them (listing them in ignored), and checks the MySQL driver's own
// options when it is in use.
func (l *sysbenchLine) checkDriver() error {
	for name := range l.conn {
		if d := sysbenchConnOpts[name]; d != "" && d != l.driver {
			l.ignored = append(l.ignored, "--"+name)
			delete(l.conn, name)
		}
	}
	for _, o := range l.mysqlOpts {
		if l.driver != "mysql" {
			l.ignored = append(l.ignored, "--"+o.name)
			continue
		}
		switch o.name {
		case "mysql-socket":
			return usagef("--mysql-socket: candor connects over TCP; give --mysql-host and --mysql-port instead")
		case "mysql-ignore-errors":
			if err := checkIgnoreErrors(o.value); err != nil {
				return err
			}
		case "mysql-ssl-cipher":
			if o.value != "" {
				return withCode(ExitUnsupported, fmt.Errorf("%s is not supported: candor's TLS (Go's crypto/tls) negotiates the cipher and takes no OpenSSL cipher names", o.arg()))
			}
		default:
			if err := offOnly(o); err != nil {
				return err
			}
		}
	}
	slices.Sort(l.ignored)
	return nil
}

// setTest takes sysbench's test argument: a name or a script path.
func (l *sysbenchLine) setTest(arg string) error {
	name := strings.TrimSuffix(path.Base(arg), ".lua")
	switch {
	case slices.Contains(sysbench.Tests, name):
		l.test = name
		return nil
	case slices.Contains(sysbenchNonOLTP, name):
		return usagef("sysbench's %s test is not a database test; candor runs sysbench's OLTP tests: %s", name, strings.Join(sysbench.Tests, ", "))
	}
	return usagef("unknown sysbench test %q; candor runs sysbench's OLTP tests: %s", arg, strings.Join(sysbench.Tests, ", "))
}

// candorArgs builds the candor command line. flag looks up a flag of one of
// candor's commands (nil when it has none).
func (l *sysbenchLine) candorArgs(flag func(verb, name string) *pflag.Flag) ([]string, error) {
	workload := "sysbench/" + l.test
	verb := map[string]string{"prepare": phaseLoad, "run": phaseRun, "cleanup": "cleanup", "prewarm": "prewarm"}[l.command]
	out := []string{verb, workload}
	if l.target && len(l.conn) > 0 {
		return nil, usagef("give either --target or sysbench's connection options (--db-driver, --%s-host, ...), not both", l.driver)
	}
	if !l.target {
		urls, err := l.urls()
		if err != nil {
			return nil, err
		}
		if verb == "cleanup" {
			urls = urls[:1] // one session drops the tables
		}
		for _, u := range urls {
			out = append(out, "--target="+u)
		}
	}
	if verb == phaseRun {
		if l.endless() {
			return nil, usagef("--time=0 with no --events is sysbench's endless test; candor's runs have an end: give --time=SECONDS or --events=N")
		}
		out = append(out, "--format=sysbench", "--time="+sysbenchTime, "--load=never")
	}
	if verb == phaseLoad || verb == "cleanup" {
		out = append(out, "--format=sysbench") // sysbench's per-table lines
	}
	for _, o := range l.opts {
		name := o.name
		if strings.HasPrefix(name, "-") { // a short flag
			out = append(out, name)
			continue
		}
		if flag(verb, name) == nil {
			if flag(phaseRun, name) != nil {
				continue // a run option given to prepare or cleanup: sysbench ignores it too
			}
			return nil, usagef("unknown option --%s (candor sysbench --help lists what it takes)", name)
		}
		out = append(out, o.arg())
	}
	return out, nil
}

// sysbenchTime is sysbench's default --time, in seconds.
const sysbenchTime = "10"

// endless reports whether the last --time is 0 and no --events limit is set
// (sysbench then runs until it is stopped).
func (l *sysbenchLine) endless() bool {
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
func (l *sysbenchLine) urls() ([]string, error) {
	p := l.driver + "-"
	get := func(name, def string) string {
		if v, ok := l.conn[p+name]; ok {
			return v
		}
		return def
	}
	scheme, port := "mysql", "3306"
	if l.driver == "pgsql" {
		scheme, port = "postgres", "5432"
	}
	hosts := splitList(get("host", "localhost"))
	ports := splitList(get("port", port))
	if l.driver == "pgsql" && (len(hosts) > 1 || len(ports) > 1) {
		return nil, usagef("sysbench's pgsql driver takes one host and port; for several nodes repeat --target=URL")
	}
	for _, pt := range ports {
		if n, err := strconv.Atoi(pt); err != nil || n < 1 || n > 65535 {
			return nil, usagef("--%sport=%s: a port is a number from 1 to 65535", p, pt)
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
			return nil, usagef("--%s%s=%s: give on or off", p, o.name, v)
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
	return withCode(ExitUnsupported, fmt.Errorf("--mysql-ignore-errors=%s: candor restarts an event on deadlocks, lock-wait timeouts, "+
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
		return withCode(ExitUnsupported, fmt.Errorf("%s is not supported: %s", o.arg(), sysbenchOffOnly[o.name]))
	}
	return nil
}

// sysbenchBanner is the first line `candor sysbench` prints in place of
// sysbench's "sysbench 1.0.20 (using ...)".
func sysbenchBanner() string {
	v, _, _ := version.Info()
	return fmt.Sprintf("candor %s (sysbench 1.0.20 command line)", v)
}

// driverOf names the sysbench driver an option belongs to: mysql or pgsql.
func driverOf(option string) string {
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
