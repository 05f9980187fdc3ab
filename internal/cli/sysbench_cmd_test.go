package cli

import (
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/sysbenchline"
	"github.com/candor-bench/candor/internal/target/targettest"
	"github.com/candor-bench/candor/internal/testutil/oracle"
)

// translate runs a sysbench command line through the parser and the
// translation against candor's real commands.
func translate(args []string, files map[string]string) ([]string, error) {
	read := func(name string) ([]byte, error) {
		if s, ok := files[name]; ok {
			return []byte(s), nil
		}
		return nil, fs.ErrNotExist
	}
	l, err := sysbenchline.Parse(args, read)
	if err != nil {
		return nil, err
	}
	return l.Args(flagOf(NewRoot(&Env{})))
}

func TestSysbenchCommandLineTranslation(t *testing.T) {
	runDefaults := []string{"--format=sysbench", "--time=10", "--load=never"}
	cases := []struct {
		name  string
		args  []string
		files map[string]string
		want  []string
	}{
		{"sysbench's defaults: the mysql driver on localhost", []string{"oltp_read_write", "run"},
			nil, append([]string{"run", "sysbench/oltp_read_write", "--target=mysql://sbtest@localhost:3306/sbtest"}, runDefaults...)},
		{"pgsql options, a password that needs escaping, options anywhere", []string{"--db-driver=pgsql", "--pgsql-host=127.0.0.1",
			"--pgsql-port=5433", "--pgsql-user=u", "--pgsql-password=p@ss:w/rd", "oltp_point_select", "--pgsql-db=d", "--threads=4", "--table_size=1000", "run"},
			nil, append(append([]string{"run", "sysbench/oltp_point_select", "--target=postgres://u:p%40ss%3Aw%2Frd@127.0.0.1:5433/d"}, runDefaults...),
				"--threads=4", "--table-size=1000")},
		{"one node per MySQL host and port, ports first, with TLS", []string{"--mysql-host=h1,h2", "--mysql-port=1,2", "--mysql-ssl=on", "--mysql-db=db",
			"oltp_read_only", "run"},
			nil, append([]string{"run", "sysbench/oltp_read_only",
				"--target=mysql://sbtest@h1:1/db?tls=skip-verify", "--target=mysql://sbtest@h1:2/db?tls=skip-verify",
				"--target=mysql://sbtest@h2:1/db?tls=skip-verify", "--target=mysql://sbtest@h2:2/db?tls=skip-verify"}, runDefaults...)},
		{"deprecated aliases, the default ignore list, ignored options", []string{"--num-threads=8", "--max-time=5", "--max-requests=100", "--tx-rate=50",
			"--mysql-ignore-errors=1213,1020,1205", "--thread-stack-size=64K", "--verbosity=5", "--db-ps-mode=disable", "--debug=off", "oltp_insert", "run"},
			nil, append(append([]string{"run", "sysbench/oltp_insert", "--target=mysql://sbtest@localhost:3306/sbtest"}, runDefaults...),
				"--threads=8", "--time=5", "--events=100", "--rate=50", "--db-ps-mode=disable")},
		{"--report-interval=0 is sysbench's no interval lines", []string{"--report-interval=10", "--report-interval=0", "oltp_delete", "run"},
			nil, append([]string{"run", "sysbench/oltp_delete", "--target=mysql://sbtest@localhost:3306/sbtest"}, runDefaults...)},
		{"prepare keeps --threads and drops run options", []string{"--threads=4", "--time=300", "--events=9", "--rate=5", "--tables=10", "--auto-inc=off", "oltp_read_write", "prepare"},
			nil, []string{"load", "sysbench/oltp_read_write", "--target=mysql://sbtest@localhost:3306/sbtest", "--format=sysbench", "--threads=4", "--tables=10", "--auto-inc=off"}},
		// (--threads stays: bulk_insert's cleanup drops a table per thread)
		{"cleanup uses one node and drops what it has no use for", []string{"--mysql-host=a,b", "--threads=64", "--time=300", "--report-interval=10", "--tables=10", "oltp_read_write", "cleanup"},
			nil, []string{"cleanup", "sysbench/oltp_read_write", "--target=mysql://sbtest@a:3306/sbtest", "--format=sysbench", "--threads=64", "--tables=10"}},
		{"--config-file comes before the command line", []string{"--config-file=sb.cfg", "--threads=2", "oltp_read_only", "run"},
			map[string]string{"sb.cfg": "# sysbench options\nthreads=16\nrand_type=uniform\nskip-trx\n"},
			append(append([]string{"run", "sysbench/oltp_read_only", "--target=mysql://sbtest@localhost:3306/sbtest"}, runDefaults...),
				"--threads=16", "--rand-type=uniform", "--skip-trx", "--threads=2")},
		{"candor's own options pass through, --target among them", []string{"--target=sqlite://x.db", "--out=r.json", "-q", "--isolation=serializable", "bulk_insert", "run"},
			nil, append(append([]string{"run", "sysbench/bulk_insert"}, runDefaults...), "--target=sqlite://x.db", "--out=r.json", "-q", "--isolation=serializable")},
		{"--test= names the test; --histogram passes on", []string{"--test=oltp_read_write", "--histogram", "--percentile=99", "run"},
			nil, append(append([]string{"run", "sysbench/oltp_read_write", "--target=mysql://sbtest@localhost:3306/sbtest"}, runDefaults...),
				"--histogram", "--percentile=99")},
		{"prewarm on every node, with its threads", []string{"--mysql-host=a,b", "--threads=4", "--time=60", "--tables=8", "oltp_read_write", "prewarm"},
			nil, []string{"prewarm", "sysbench/oltp_read_write", "--target=mysql://sbtest@a:3306/sbtest", "--target=mysql://sbtest@b:3306/sbtest", "--threads=4", "--tables=8"}},
		// --mysql-ssl alone is on; compression is a URL parameter
		{"TLS and compression", []string{"--mysql-ssl", "--mysql-compression=on", "oltp_point_select", "run"},
			nil, append([]string{"run", "sysbench/oltp_point_select", "--target=mysql://sbtest@localhost:3306/sbtest?compress=true&tls=skip-verify"}, runDefaults...)},
		// a Lua script (a path ending in .lua): sysbench-lua, the script's
		// options (those of no candor flag, or another workload's) as
		// properties, candor's flags and sysbench-lua's options as flags
		{"a Lua script, its options and candor's", []string{"--threads=4", "--table-size=100", "--rand-type=uniform", "--skip_trx", "--my-opt=x",
			"--out=r.json", "/usr/share/sysbench/oltp_read_write.lua", "run"},
			nil, []string{"run", "sysbench-lua", "-p", "file=/usr/share/sysbench/oltp_read_write.lua", "--target=mysql://sbtest@localhost:3306/sbtest",
				"--format=sysbench", "--time=10", "--load=never", "--threads=4", "-p", "table-size=100", "--rand-type=uniform", "-p", "skip-trx=on",
				"-p", "my-opt=x", "--out=r.json"}},
		{"--test= names a script too", []string{"--test=my_test.lua", "--events=5", "run"},
			nil, append([]string{"run", "sysbench-lua", "-p", "file=my_test.lua", "--target=mysql://sbtest@localhost:3306/sbtest"},
				append(runDefaults, "--events=5")...)},
		// no cipher is sysbench's default; --pgsql-variant is a test option
		{"an empty cipher, a PostgreSQL variant", []string{"--mysql-ssl-cipher=", "--pgsql-variant=redshift", "oltp_read_only", "run"},
			nil, []string{"run", "sysbench/oltp_read_only", "--target=mysql://sbtest@localhost:3306/sbtest", "--format=sysbench", "--time=10", "--load=never", "--pgsql-variant=redshift"}},
	}
	for _, c := range cases {
		got, err := translate(c.args, c.files)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

func TestSysbenchCommandLineRefusals(t *testing.T) {
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no test", []string{"--threads=2"}, ExitUsage, "name a test and a command"},
		{"no command", []string{"oltp_read_write"}, ExitUsage, "missing command"},
		{"a value given with a space", []string{"--threads", "4", "oltp_read_write", "run"}, ExitUsage, "after '='"},
		{"not a database test", []string{"fileio", "run"}, ExitUsage, "not a database test"},
		{"unknown test", []string{"oltp_frobnicate", "run"}, ExitUsage, "oltp_read_write"},
		{"unknown command", []string{"oltp_read_write", "go"}, ExitUsage, `unknown command "go"`},
		{"unknown driver", []string{"--db-driver=oracle", "oltp_read_write", "run"}, ExitUsage, "mysql and pgsql"},
		{"a Unix socket", []string{"--mysql-socket=/tmp/s", "oltp_read_write", "run"}, ExitUsage, "TCP"},
		{"several pgsql hosts", []string{"--db-driver=pgsql", "--pgsql-host=a,b", "oltp_read_write", "run"}, ExitUsage, "one host"},
		{"a bad port", []string{"--mysql-port=99999", "oltp_read_write", "run"}, ExitUsage, "1 to 65535"},
		{"--target with connection options", []string{"--target=sqlite://x.db", "--mysql-host=h", "oltp_read_write", "run"}, ExitUsage, "not both"},
		{"ignore all errors", []string{"--mysql-ignore-errors=all", "oltp_read_write", "run"}, ExitUnsupported, "cannot ignore all"},
		{"ignore a syntax error", []string{"--mysql-ignore-errors=1213,1064", "oltp_read_write", "run"}, ExitUnsupported, "cannot ignore 1064"},
		{"forced shutdown", []string{"--forced-shutdown=5", "oltp_read_write", "run"}, ExitUnsupported, "--forced-shutdown=5"},
		{"an OpenSSL cipher", []string{"--mysql-ssl=on", "--mysql-ssl-cipher=AES128-SHA", "oltp_read_write", "run"}, ExitUnsupported, "negotiates the cipher"},
		{"compression neither on nor off", []string{"--mysql-compression=zlib", "oltp_read_write", "run"}, ExitUsage, "--mysql-compression=zlib: give on or off"},
		{"unknown option", []string{"--frobnicate=1", "oltp_read_write", "run"}, ExitUsage, "unknown option --frobnicate"},
		{"an endless run", []string{"--time=0", "--events=0", "oltp_read_write", "run"}, ExitUsage, "endless"},
		{"missing config file", []string{"--config-file=nope.cfg", "oltp_read_write", "run"}, ExitUsage, "--config-file"},
	}
	for _, c := range cases {
		_, err := translate(c.args, nil)
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		if code := ExitCode(err); code != c.code || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: exit %d (want %d): %v", c.name, code, c.code, err)
		}
	}
	// Accepted: codes candor restarts on, a constraint among them.
	if _, err := translate([]string{"--mysql-ignore-errors=1062,8002", "oltp_read_write", "run"}, nil); err != nil {
		t.Errorf("--mysql-ignore-errors=1062,8002: %v", err)
	}
}

// TestSysbenchCommand runs a sysbench command line end to end on SQLite
// (through --target) and on the real servers (through sysbench's own
// connection options): prepare, run with sysbench's report, cleanup.
func TestSysbenchCommand(t *testing.T) {
	t.Parallel()
	for name, u := range targettest.RealTargets(t, true) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			conn := sysbenchConnArgs(t, u)
			common := append(conn, "--tables=2", "--table-size=1000")
			sb := func(args ...string) (int, string, string) {
				return runSysbench(t, dir, append(append([]string{"sysbench"}, common...), args...)...)
			}
			sb("oltp_read_only", "cleanup")
			// sysbench's lines on stdout, in table order.
			code, stdout, stderr := sb("--threads=2", "--time=300", "oltp_read_only", "prepare")
			if code != 0 {
				t.Fatalf("prepare: exit %d\n%s", code, stderr)
			}
			if want := "Creating table 'sbtest1'...\nInserting 1000 records into 'sbtest1'\nCreating a secondary index on 'sbtest1'...\n" +
				"Creating table 'sbtest2'...\nInserting 1000 records into 'sbtest2'\nCreating a secondary index on 'sbtest2'...\n"; !strings.HasSuffix(stdout, "\n\n"+want) {
				t.Errorf("prepare printed\n%s\nwant it to end with a blank line and\n%s", stdout, want)
			}
			for _, table := range []string{"sbtest1", "sbtest2"} {
				if n := countRows(t, targetURL(t, u), table); n != 1000 {
					t.Errorf("%s has %d rows after prepare, want 1000", table, n)
				}
			}
			// 1.5 s with a line a second: one line, none for the half
			// second left at the end (sysbench prints none).
			code, stdout, stderr = sb("--threads=2", "--time=1.5", "--report-interval=1", "--histogram", "--out=ro.json", "oltp_read_only", "run")
			if code != 0 {
				t.Fatalf("run: exit %d\n%s%s", code, stdout, stderr)
			}
			var lines []string
			for _, l := range strings.Split(stdout, "\n") {
				if strings.HasPrefix(l, "[ ") {
					lines = append(lines, l)
				}
			}
			if len(lines) != 1 || !strings.HasPrefix(lines[0], "[ 1s ] thds: 2 tps: ") {
				t.Errorf("interval lines %q, want one, [ 1s ] with 2 threads", lines)
			}
			if h, s := strings.Index(stdout, "Latency histogram (values are in milliseconds)\n       value  -"), strings.Index(stdout, "SQL statistics:"); h < 0 || h > s {
				t.Errorf("no latency histogram before the SQL statistics with --histogram:\n%s", stdout)
			}
			for _, want := range []string{"SQL statistics:", "transactions:", "95th percentile:", "Threads fairness:"} {
				if !strings.Contains(stdout, want) {
					t.Errorf("the report lacks %q:\n%s", want, stdout)
				}
			}
			res := readOnlyResult(t, filepath.Join(dir, "ro.json"))
			// --db-ps-mode=disable: statements as text, counted the same.
			if code, stdout, stderr := sb("--threads=2", "--time=1", "--db-ps-mode=disable", "--out=text.json", "oltp_read_only", "run"); code != 0 {
				t.Fatalf("run --db-ps-mode=disable: exit %d\n%s%s", code, stdout, stderr)
			}
			text := readOnlyResult(t, filepath.Join(dir, "text.json"))
			if !strings.Contains(fmt.Sprint(text.Workload.Options), "disable") {
				t.Errorf("--db-ps-mode=disable is not recorded in the workload's options: %v", text.Workload.Options)
			}
			cmd := strings.Join(res.Command, " ")
			if !strings.Contains(cmd, "candor sysbench") {
				t.Errorf("recorded command %q is not the one given", cmd)
			}
			if pw := password(u); pw != "" && (strings.Contains(cmd, "password="+pw) || !strings.Contains(cmd, "password=xxxxx")) {
				t.Errorf("recorded command %q holds the password", cmd)
			}
			// prewarm: MySQL wire only, as in sysbench.
			code, stdout, stderr = sb("--threads=2", "oltp_read_only", "prewarm")
			if name == "mysql" {
				if code != 0 || !strings.Contains(stdout, "Prewarming table sbtest1\n") || !strings.Contains(stdout, "Prewarming table sbtest2\n") {
					t.Errorf("prewarm: exit %d\n%s%s", code, stdout, stderr)
				}
			} else if code != ExitUnsupported || !strings.Contains(stderr, "MySQL-wire only") {
				t.Errorf("prewarm on %s: exit %d, want %d\n%s", name, code, ExitUnsupported, stderr)
			}
			code, stdout, stderr = sb("--threads=2", "--time=300", "oltp_read_only", "cleanup")
			if code != 0 {
				t.Fatalf("cleanup: exit %d\n%s", code, stderr)
			}
			if want := "\n\nDropping table 'sbtest1'...\nDropping table 'sbtest2'...\n"; !strings.HasSuffix(stdout, want) {
				t.Errorf("cleanup printed\n%s\nwant it to end with%s", stdout, want)
			}
			for _, table := range []string{"sbtest1", "sbtest2"} {
				if exists(t, targetURL(t, u), table) {
					t.Errorf("%s survived cleanup", table)
				}
			}
		})
	}
	t.Run("help and version", func(t *testing.T) {
		dir := t.TempDir()
		if code, stdout, _ := runAbs(t, dir, "sysbench", "--help"); code != 0 || !strings.Contains(stdout, "--db-driver=mysql|pgsql") {
			t.Errorf("--help: exit %d\n%s", code, stdout)
		}
		if code, stdout, _ := runAbs(t, dir, "sysbench", "--version"); code != 0 || !strings.Contains(stdout, "sysbench 1.0.20 command line") {
			t.Errorf("--version: exit %d\n%s", code, stdout)
		}
	})
}

// readOnlyResult reads the result of an oltp_read_only run and checks its
// queries: exactly 14 reads and 2 other per event.
func readOnlyResult(t *testing.T, path string) *result.Result {
	t.Helper()
	res, err := result.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	p := res.Phases[len(res.Phases)-1]
	if n := p.Ops[0].Count; n == 0 || p.Counters["reads"] != 14*n || p.Counters["other"] != 2*n {
		t.Errorf("%s: %d events with r/w/o %v, want 14/0/2 each", filepath.Base(path), n, p.Counters)
	}
	return res
}

// sysbenchConnArgs are sysbench's connection options for a test target
// (SQLite has none: --target).
func sysbenchConnArgs(t *testing.T, raw string) []string {
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	driver := map[string]string{"mysql": "mysql", "postgres": "pgsql"}[u.Scheme]
	if driver == "" {
		return []string{"--target=" + raw}
	}
	p := "--" + driver + "-"
	args := []string{"--db-driver=" + driver, p + "host=" + u.Hostname(), p + "port=" + u.Port(),
		p + "user=" + u.User.Username(), p + "db=" + strings.TrimPrefix(u.Path, "/")}
	if pw, ok := u.User.Password(); ok {
		args = append(args, p+"password="+pw)
	}
	return args
}

// targetURL is the URL candor sysbench builds for a test target, for the
// checks made beside it (PostgreSQL's test URL carries sslmode).
func targetURL(t *testing.T, raw string) string {
	l, err := sysbenchline.Parse(append(sysbenchConnArgs(t, raw), "oltp_read_only", "run"), os.ReadFile)
	if err != nil {
		t.Fatal(err)
	}
	if l.Target {
		return raw
	}
	urls, err := l.URLs()
	if err != nil {
		t.Fatal(err)
	}
	return urls[0]
}

func password(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return ""
	}
	pw, _ := u.User.Password()
	return pw
}

// TestSysbenchDeprecationWarnings: sysbench's warnings for its deprecated
// options, in its order, for values above zero only.
func TestSysbenchDeprecationWarnings(t *testing.T) {
	l, err := sysbenchline.Parse([]string{"--tx-rate=0", "--max-time=5", "--num-threads=2", "--max-requests=0", "--test=oltp_read_only", "run"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"WARNING: the --test option is deprecated. You can pass a script name or path on the command line without any options.",
		"WARNING: --num-threads is deprecated, use --threads instead",
		"WARNING: --max-time is deprecated, use --time instead",
	}
	if got := l.Warnings(); !slices.Equal(got, want) {
		t.Errorf("warnings:\n got %q\nwant %q", got, want)
	}
	if l, err = sysbenchline.Parse([]string{"--threads=2", "--warmup-time=3", "oltp_read_only", "run"}, nil); err != nil || len(l.Warnings()) != 0 {
		t.Errorf("current options warned: %v %q", err, l.Warnings())
	}
}

// TestSysbenchHelpCommand: `candor sysbench TEST help` lists the test
// script's options as sysbench does; bulk_insert has none (exit 2).
func TestSysbenchHelpCommand(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := runCLI(t, dir, nil, "sysbench", "select_random_points", "help")
	if code != 0 || !strings.Contains(stdout, "(sysbench 1.0.20 command line)\n\nselect_random_points options:\n  --auto_inc[=on|off] ") ||
		!strings.Contains(stdout, "--random_points=N") || !strings.Contains(stdout, "candor run sysbench/select_random_points --help") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	if code, _, stderr = runCLI(t, dir, nil, "sysbench", "bulk_insert", "help"); code != ExitUsage || !strings.Contains(stderr, "'bulk_insert' test does not implement the 'help' command.") {
		t.Fatalf("bulk_insert help: exit %d\n%s", code, stderr)
	}
}

// TestSysbenchOtherDriversOptions: the options of the driver not in use are
// ignored, as sysbench ignores them, and named; the MySQL driver's own are
// checked only when it is in use.
func TestSysbenchOtherDriversOptions(t *testing.T) {
	l, err := sysbenchline.Parse([]string{"--mysql-host=m", "--mysql-socket=/tmp/s", "--mysql-ignore-errors=all", "--mysql-compression=on",
		"--db-driver=pgsql", "--pgsql-host=p", "oltp_read_only", "run"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"--mysql-compression", "--mysql-host", "--mysql-ignore-errors", "--mysql-socket"}
	if !slices.Equal(l.Ignored, want) {
		t.Errorf("ignored %q, want %q", l.Ignored, want)
	}
	if u, err := l.URLs(); err != nil || len(u) != 1 || u[0] != "postgres://sbtest@p:5432/sbtest" {
		t.Errorf("urls %q, %v", u, err)
	}
	if l, err = sysbenchline.Parse([]string{"--pgsql-host=p", "oltp_read_only", "run"}, nil); err != nil || !slices.Equal(l.Ignored, []string{"--pgsql-host"}) {
		t.Errorf("pgsql option with the mysql driver: %v, ignored %q", err, l.Ignored)
	}
	// On the MySQL driver its options are checked.
	if _, err := sysbenchline.Parse([]string{"--mysql-socket=/tmp/s", "--db-driver=mysql", "oltp_read_only", "run"}, nil); ExitCode(err) != ExitUsage {
		t.Errorf("--mysql-socket on the mysql driver: %v", err)
	}
	dir := t.TempDir()
	_, _, stderr := runCLI(t, dir, nil, "sysbench", "--db-driver=pgsql", "--pgsql-port=1", "--mysql-host=m", "oltp_read_only", "run")
	if !strings.Contains(stderr, "candor: --mysql-host is an option of sysbench's mysql driver, and --db-driver is pgsql: ignored, as sysbench ignores it") {
		t.Errorf("no note of the ignored option:\n%s", stderr)
	}
}

// oltp_insert at --time's end lets each thread's event in flight finish, and
// counts it, as sysbench does: the transactions reported are the rows the
// run added, read with the test's own connection (an oracle sharing no code
// with candor's drivers); the result records the rule and keeps its laws.
func TestSysbenchOltpInsertCountsInFlight(t *testing.T) {
	t.Parallel()
	for name, u := range targettest.RealTargets(t, true) {
		if name == "sqlite" {
			continue // one writer at a time: the servers' drop-in counts are the issue
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			common := append(sysbenchConnArgs(t, u), "--tables=1", "--table-size=100")
			sb := func(args ...string) (int, string, string) {
				return runSysbench(t, dir, append(append([]string{"sysbench"}, common...), args...)...)
			}
			sb("oltp_insert", "cleanup")
			t.Cleanup(func() { sb("oltp_insert", "cleanup") })
			if code, stdout, stderr := sb("oltp_insert", "prepare"); code != 0 {
				t.Fatalf("prepare: exit %d\n%s%s", code, stdout, stderr)
			}
			o := oracle.Open(t, targetURL(t, u))
			before := o.Ints(t, "SELECT count(*) FROM sbtest1")[0]
			code, stdout, stderr := sb("--threads=8", "--time=2", "--out=ins.json", "oltp_insert", "run")
			if code != 0 {
				t.Fatalf("run: exit %d\n%s%s", code, stdout, stderr)
			}
			added := o.Ints(t, "SELECT count(*) FROM sbtest1")[0] - before
			res, err := result.Read(filepath.Join(dir, "ins.json"))
			if err != nil {
				t.Fatal(err)
			}
			ph := res.Phases[len(res.Phases)-1]
			if added == 0 || ph.Operations != added || !ph.FinishInFlight {
				t.Errorf("%d transactions reported, %d rows added (finish_in_flight %v): want equal, counted by sysbench's rule", ph.Operations, added, ph.FinishInFlight)
			}
			if !regexp.MustCompile(`transactions:\s+` + strconv.FormatInt(added, 10) + ` `).MatchString(stdout) {
				t.Errorf("the report does not say %d transactions:\n%s", added, stdout)
			}
			if v := result.Check(res); len(v) != 0 {
				t.Errorf("the result breaks its laws: %v", v)
			}
		})
	}
}
