// Package pgbenchline translates a pgbench 15 command line —
// `pgbench [options]... [dbname]` — into the candor command line that runs
// it: `candor run script/pgbench` (or `candor load script/pgbench` for
// -i), with pgbench's connection options turned into a --target URL and its
// report format. Options candor's run knows (--out, --repeat, --warmup,
// --target, ...) pass through. Like sysbenchline, it runs nothing.
package pgbenchline

import (
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/candor-bench/candor/internal/engine"
	"github.com/candor-bench/candor/internal/runflags"
	"github.com/candor-bench/candor/internal/suggest"
)

// Line is a pgbench command line taken apart.
type Line struct {
	Init    bool   // -i
	Help    bool   // --help, -?
	Version bool   // -V
	Clients int    // -c
	Jobs    int    // -j: the event loops (threads) the clients are spread over, --loops
	Time    int    // -T seconds (0: not given)
	Txns    int    // -t per client (0: not given)
	Rate    string // -R
	// LatencyLimit is -L in ms ("" when not given); candor reports the
	// transactions above it and skips none.
	LatencyLimit string
	Progress     int // -P seconds
	Scale        string
	Protocol     string
	MaxTries     string
	Report       bool // -r
	// NoVacuum is -n; VacuumAll -v; InitSteps -I's steps ("" when not
	// given: pgbench's dtgvp).
	NoVacuum, VacuumAll bool
	InitSteps           string
	Notes               []string
	props               []string // -p name=value for script/pgbench
	conn                map[string]string
	dbname              string
	target              bool
	pass                []string // candor's own options
	ownIO               bool     // they include --session-io or --loops
	format              bool     // --format given
}

// withArg are pgbench's options that take a value, short and long.
var withArg = map[string]string{
	"c": "client", "j": "jobs", "T": "time", "t": "transactions", "R": "rate", "L": "latency-limit",
	"M": "protocol", "D": "define", "f": "file", "b": "builtin", "s": "scale", "P": "progress",
	"h": "host", "p": "port", "U": "username", "d": "dbname", "F": "fillfactor", "I": "init-steps",
	"l": "", "i": "", "r": "", "n": "", "q": "", "S": "", "N": "", "C": "", "V": "", "?": "", "v": "",
}

// longWithArg are the long options that take a value.
var longWithArg = map[string]bool{
	"client": true, "jobs": true, "time": true, "transactions": true, "rate": true, "latency-limit": true,
	"protocol": true, "define": true, "file": true, "builtin": true, "scale": true, "progress": true,
	"host": true, "port": true, "username": true, "dbname": true, "fillfactor": true, "init-steps": true,
	"max-tries": true, "random-seed": true, "partitions": true, "partition-method": true, "tablespace": true,
	"index-tablespace": true, "log-prefix": true, "sampling-rate": true, "aggregate-interval": true,
	"show-script": true,
}

// longNames maps pgbench's short options to their long names.
var longNames = map[string]string{
	"i": "initialize", "r": "report-per-command", "n": "no-vacuum", "q": "quiet", "S": "select-only",
	"N": "skip-some-updates", "C": "connect", "V": "version", "?": "help", "l": "log", "v": "vacuum-all",
}

// refused are pgbench options candor does not reproduce, with why.
var refused = map[string]string{
	"connect":            "-C (a new connection per transaction): candor keeps one session per client",
	"log":                "-l (per-transaction log files): candor records HDR histograms and intervals in its result file instead",
	"log-prefix":         "--log-prefix: candor writes no per-transaction log",
	"sampling-rate":      "--sampling-rate: candor writes no per-transaction log",
	"aggregate-interval": "--aggregate-interval: candor records intervals of --report-interval in its result (-P sets it)",
	"partitions":         "--partitions: candor creates pgbench_accounts unpartitioned",
	"partition-method":   "--partition-method: candor creates pgbench_accounts unpartitioned",
	"tablespace":         "--tablespace: candor creates the tables in the default tablespace",
	"index-tablespace":   "--index-tablespace: candor creates the tables in the default tablespace",
	"unlogged-tables":    "--unlogged-tables: candor creates ordinary tables",
	"foreign-keys":       "--foreign-keys: candor creates no foreign keys",
	"debug":              "--debug: candor has no debug trace",
	"show-script":        "--show-script: see docs/SCRIPTS.md for the built-in scripts",
	"progress-timestamp": "--progress-timestamp: candor's intervals carry their start time in the result",
	"exit-on-abort":      "--exit-on-abort: a failed transaction counts against candor's error budget instead",
}

// ignored are accepted without effect.
var ignored = map[string]string{
	"quiet":             "",
	"failures-detailed": "candor's result counts errors by class",
	"verbose-errors":    "candor's result keeps the first error of each class",
}

// Parse reads a pgbench command line (options in getopt's forms: -c4,
// -c 4, --client=4, --client 4; an optional database name). getenv gives
// the PG* environment for the connection.
func Parse(args []string) (*Line, error) {
	l := &Line{Clients: 1, Jobs: 1, conn: map[string]string{}}
	for i := 0; i < len(args); i++ {
		a := args[i]
		var name, val string
		hasVal := false
		switch {
		case a == "--":
			continue
		case strings.HasPrefix(a, "--"):
			name, val, hasVal = strings.Cut(a[2:], "=")
			if pg, ok := pgbenchHas[name]; ok {
				return nil, engine.Usagef("--%s is candor run's option; candor pgbench takes pgbench's: %s", name, pg)
			}
			if !longWithArg[name] && !isPgbenchFlag(name) && !isCandorFlag(name) {
				hint := ""
				if c := suggest.Closest(name, pgbenchLongNames()); len(c) > 0 {
					hint = " (did you mean --" + strings.Join(c, " or --") + "?)"
				}
				return nil, engine.Usagef("option --%s is neither pgbench's nor candor's%s; see 'candor pgbench --help'", name, hint)
			}
			if !longWithArg[name] && !isPgbenchFlag(name) {
				// candor's own option: passed on as it is, with its
				// value when it takes one and it is separate.
				l.pass = append(l.pass, a)
				if name == "format" {
					l.format = true
				}
				if !hasVal && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") && candorTakesValue(name) {
					l.pass = append(l.pass, args[i+1])
					i++
				}
				if name == "target" {
					l.target = true
				}
				if name == "session-io" || name == "loops" {
					l.ownIO = true // how the sessions wait is the user's, not -j's
				}
				continue
			}
		case a == "-o" && i+1 < len(args):
			// candor's -o FILE (--out): pgbench has no -o.
			l.pass = append(l.pass, a, args[i+1])
			i++
			continue
		case strings.HasPrefix(a, "-") && len(a) > 1:
			short := a[1:2]
			long, known := withArg[short]
			if !known {
				return nil, engine.Usagef("pgbench option %s is not known; see 'candor pgbench --help'", a)
			}
			if long == "" {
				// A flag without a value; several may be grouped (-rn).
				for _, c := range a[1:] {
					n, ok := longNames[string(c)]
					if !ok {
						return nil, engine.Usagef("pgbench option -%c in %s is not known or takes a value; give it on its own", c, a)
					}
					if err := l.set(n, "", false); err != nil {
						return nil, err
					}
				}
				continue
			}
			name = long
			if len(a) > 2 {
				val, hasVal = a[2:], true
			}
		default:
			if l.dbname != "" {
				return nil, engine.Usagef("too many command-line arguments (first is %q)", a)
			}
			l.dbname = a
			continue
		}
		if longWithArg[name] && !hasVal {
			if i+1 >= len(args) {
				return nil, engine.Usagef("pgbench option --%s needs a value", name)
			}
			val, hasVal = args[i+1], true
			i++
		}
		if err := l.set(name, val, hasVal); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// pgbenchHas are candor run's options that pgbench's own options give
// (--time and --rate are pgbench's long names too).
var pgbenchHas = map[string]string{
	"threads": "-c N (clients)", "operations": "-t N (transactions per client)",
	"report-interval": "-P SECONDS",
}

// isCandorFlag reports whether candor run has the long option name.
func isCandorFlag(name string) bool {
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	runflags.Add(fs, engine.PhaseRun)
	return fs.Lookup(name) != nil
}

// pgbenchLongNames are pgbench's long options candor takes, for the "did
// you mean" of an unknown one.
func pgbenchLongNames() []string {
	var out []string
	for n := range longWithArg {
		if _, no := refused[n]; !no {
			out = append(out, n)
		}
	}
	for _, n := range longNames {
		if _, no := refused[n]; !no {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

func isPgbenchFlag(name string) bool {
	if _, ok := refused[name]; ok {
		return true
	}
	if _, ok := ignored[name]; ok {
		return true
	}
	for _, n := range longNames {
		if n == name {
			return true
		}
	}
	return name == "report-latencies"
}

// candorTakesValue reports whether candor's run option name takes a value
// (so "--out FILE" passes on whole).
func candorTakesValue(name string) bool {
	switch name {
	case "target", "out", "o", "repeat", "warmup", "seed", "format", "max-error-rate", "isolation", "load",
		"fault", "target-role", "session-io", "connect-timeout", "shard", "metrics-addr", "arrival", "retries", "max-unavailable":
		return true
	}
	return false
}

func atoi(opt, v string, min int) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < min {
		return 0, engine.Usagef("invalid %s: %q (a whole number from %d)", opt, v, min)
	}
	return n, nil
}

// set applies one pgbench option.
func (l *Line) set(name, val string, hasVal bool) error {
	var err error
	if why, ok := refused[name]; ok {
		return engine.Usagef("candor pgbench does not take %s", why)
	}
	if _, ok := ignored[name]; ok {
		return nil
	}
	switch name {
	case "initialize":
		l.Init = true
	case "no-vacuum":
		l.NoVacuum = true
	case "vacuum-all":
		l.VacuumAll = true
	case "help":
		l.Help = true
	case "version":
		l.Version = true
	case "client":
		l.Clients, err = atoi("number of clients", val, 1)
	case "jobs":
		l.Jobs, err = atoi("number of threads", val, 1)
		if err == nil {
			l.props = append(l.props, "jobs="+val)
		}
	case "time":
		l.Time, err = atoi("duration", val, 1)
	case "transactions":
		l.Txns, err = atoi("number of transactions", val, 1)
	case "rate":
		if r, e := strconv.ParseFloat(val, 64); e != nil || r <= 0 {
			return engine.Usagef("invalid rate limit: %q (transactions per second, above 0)", val)
		}
		l.Rate = val
	case "latency-limit":
		if r, e := strconv.ParseFloat(val, 64); e != nil || r <= 0 {
			return engine.Usagef("invalid latency limit: %q (milliseconds, above 0)", val)
		}
		l.LatencyLimit = val
		l.props = append(l.props, "latency-limit="+val)
	case "progress":
		l.Progress, err = atoi("thread progress delay", val, 1)
	case "protocol":
		l.Protocol = val
		l.props = append(l.props, "protocol="+val)
	case "define":
		l.props = append(l.props, "define="+val)
	case "file":
		l.props = append(l.props, "file="+val)
	case "builtin":
		l.props = append(l.props, "builtin="+val)
	case "select-only":
		l.props = append(l.props, "builtin=select-only")
	case "skip-some-updates":
		l.props = append(l.props, "builtin=simple-update")
	case "scale":
		l.Scale = val
		l.props = append(l.props, "scale="+val)
	case "max-tries":
		l.MaxTries = val
		l.props = append(l.props, "max-tries="+val)
	case "random-seed":
		if val != "time" && val != "rand" {
			l.props = append(l.props, "random-seed="+val)
		}
	case "report-per-command", "report-latencies":
		l.Report = true
		l.props = append(l.props, "report-latencies=true")
	case "host", "port", "username", "dbname":
		l.conn[name] = val
	case "fillfactor":
		if val != "100" {
			return engine.Usagef("candor pgbench does not take -F %s: candor creates pgbench's tables with the default fill factor (100)", val)
		}
	case "init-steps":
		for _, c := range val {
			switch c {
			case 'd', 't', 'g', 'G', 'v', 'p', ' ':
			case 'f':
				return engine.Usagef("candor pgbench does not take init step f: candor creates no foreign keys")
			default:
				return engine.Usagef("unrecognized initialization step %q; allowed step characters are: \"dtgGvpf\"", string(c))
			}
		}
		l.InitSteps = val
		l.Notes = append(l.Notes, "-I: candor drops (its own) tables, creates them with their primary keys, and generates the rows on the client whatever the steps; it vacuums when they include v")
	default:
		return engine.Usagef("pgbench option --%s is not known; see 'candor pgbench --help'", name)
	}
	return err
}

// TargetURL is the PostgreSQL URL pgbench's connection options and the PG*
// environment name (host localhost, port 5432, user and database from the
// environment); candor connects over TCP.
func (l *Line) TargetURL(getenv func(string) string) (string, error) {
	pick := func(opt, env, def string) string {
		if v := l.conn[opt]; v != "" {
			return v
		}
		if v := getenv(env); v != "" {
			return v
		}
		return def
	}
	host := pick("host", "PGHOST", "localhost")
	if strings.HasPrefix(host, "/") {
		return "", engine.Usagef("host %q is a Unix socket directory: candor connects over TCP; give --target postgres://USER@HOST:PORT/DB", host)
	}
	user := pick("username", "PGUSER", getenv("USER"))
	db := l.dbname
	if db == "" {
		db = pick("dbname", "PGDATABASE", user)
	}
	if strings.Contains(db, "=") {
		return "", engine.Usagef("the database %q is a connection string: give --target postgres://USER@HOST:PORT/DB instead", db)
	}
	u := url.URL{Scheme: "postgres", Host: host + ":" + pick("port", "PGPORT", "5432"), Path: "/" + db}
	if user != "" {
		u.User = url.User(user)
	}
	return u.String(), nil
}

// CleanupArgs is, for -i, the candor command line that first drops
// pgbench's tables when candor created them (pgbench -i's step d); tables
// candor did not create are refused there, never dropped.
func (l *Line) CleanupArgs(getenv func(string) string) ([]string, error) {
	out := []string{"cleanup", "script/pgbench", "-p", "tables=true"}
	if l.target {
		for i, a := range l.pass {
			switch {
			case strings.HasPrefix(a, "--target="):
				out = append(out, a)
			case a == "--target" && i+1 < len(l.pass):
				out = append(out, a, l.pass[i+1])
			}
		}
		return out, nil
	}
	u, err := l.TargetURL(getenv)
	if err != nil {
		return nil, err
	}
	return append(out, "--target", u), nil
}

// Args is the candor command line: the verb (run or load) and its
// arguments.
func (l *Line) Args(getenv func(string) string) ([]string, error) {
	verb := "run"
	out := []string{"script/pgbench"}
	if !l.target {
		u, err := l.TargetURL(getenv)
		if err != nil {
			return nil, err
		}
		out = append(out, "--target", u)
	}
	if l.Init {
		verb = "load"
		if l.Scale != "" {
			out = append(out, "-p", "scale="+l.Scale)
		}
		out = append(out, "-p", "tables=true")
		if l.NoVacuum || l.InitSteps != "" && !strings.Contains(l.InitSteps, "v") {
			out = append(out, "-p", "vacuum=none") // pgbench -i -n, or -I without step v
		}
		return append([]string{verb}, append(out, l.pass...)...), nil
	}
	for _, p := range l.props {
		out = append(out, "-p", p)
	}
	switch {
	case l.NoVacuum: // -n wins over -v, as in pgbench
		out = append(out, "-p", "vacuum=none")
	case l.VacuumAll:
		out = append(out, "-p", "vacuum=all")
	}
	// A run neither creates nor drops a table (--load never), and uses
	// pgbench's tables whoever created them: pgbench -i's own, as pgbench
	// does (--allow-foreign-tables; candor still drops none).
	out = append(out, "--threads", strconv.Itoa(l.Clients))
	if !l.ownIO {
		out = append(out, "--loops", strconv.Itoa(l.Jobs)) // -j threads
	}
	out = append(out, "--load", "never", "--allow-foreign-tables")
	switch {
	case l.Time > 0:
		out = append(out, "--time", strconv.Itoa(l.Time)+"s")
	default:
		t := l.Txns
		if t == 0 {
			t = 10 // pgbench's default: 10 transactions per client
		}
		out = append(out, "--operations", strconv.Itoa(t*l.Clients))
	}
	if l.Rate != "" {
		out = append(out, "--rate", l.Rate)
	}
	if l.Progress > 0 {
		out = append(out, "--report-interval", strconv.Itoa(l.Progress)+"s")
	}
	if !l.format {
		out = append(out, "--format", "pgbench")
	}
	return append([]string{verb}, append(out, l.pass...)...), nil
}
