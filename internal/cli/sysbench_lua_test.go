package cli

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// A MariaDB of the test's own with its general query log on: the server
// writes every statement it receives, values included, which the tests
// read as an oracle candor does not share.
func generalLogServer(t *testing.T) (url, logFile string) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a MariaDB server")
	}
	if _, err := os.Stat("/usr/sbin/mariadbd"); err != nil {
		t.Skip("MariaDB is not installed (/usr/sbin/mariadbd)")
	}
	script, err := filepath.Abs("../../scripts/mariadb-sandbox.sh")
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "candor-lua-genlog-")
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(dir) // the sandbox script creates it, and will remove it
	logFile = filepath.Join(os.TempDir(), filepath.Base(dir)+".general.log")
	t.Cleanup(func() {
		exec.Command(script, "stop", dir).Run()
		os.Remove(logFile)
	})
	out, err := exec.Command(script, "start", dir, "general_log=1", "general_log_file="+logFile).Output()
	if err != nil {
		t.Fatalf("starting MariaDB: %v", err)
	}
	return strings.TrimSpace(string(out)), logFile
}

// generalLogLine is one entry of MariaDB's general log: the connection's
// thread id, the command (Query, Prepare, Execute, ...) and its argument.
var generalLogLine = regexp.MustCompile(`^(?:\d{6}\s+[\d:]+)?\s+(\d+) ([A-Z][a-z]+(?: [a-z]+)?)\t(.*)$`)

// logSince reads the general log from byte offset off and returns the
// statements the busiest connection executed (Query and Execute, values
// included), from its first BEGIN or statement on a sbtest table, and the
// log's new end.
func logSince(t *testing.T, file string, off int64) ([]string, int64) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	if _, err := f.Seek(off, 0); err != nil {
		t.Fatal(err)
	}
	byConn := map[string][]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		m := generalLogLine.FindStringSubmatch(sc.Text())
		if m == nil || (m[2] != "Query" && m[2] != "Execute") {
			continue
		}
		byConn[m[1]] = append(byConn[m[1]], m[3])
	}
	return busiest(byConn), st.Size()
}

// statementLogServer is a PostgreSQL of the test's own logging every
// statement (log_statement=all), values of prepared statements included.
func statementLogServer(t *testing.T) (url, logFile string) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a PostgreSQL server")
	}
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/postgres")
	if len(bins) == 0 {
		t.Skip("PostgreSQL is not installed")
	}
	script, err := filepath.Abs("../../scripts/pg-sandbox.sh")
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "candor-lua-stmtlog-")
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(dir)
	logDir, err := os.MkdirTemp("", "candor-lua-pglog-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(logDir, 0o777)
	t.Cleanup(func() {
		exec.Command(script, "stop", dir).Run()
		os.RemoveAll(logDir)
	})
	out, err := exec.Command(script, "start", dir, "log_statement=all", "logging_collector=on", "log_directory="+logDir,
		"log_filename=pg.log", "log_line_prefix=%p ").Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("starting PostgreSQL: %v\n%s", err, stderr)
	}
	return strings.TrimSpace(string(out)), filepath.Join(logDir, "pg.log")
}

// pgLogLine is a line of PostgreSQL's log with log_line_prefix '%p ': a
// statement sent as text, a prepared statement's execution, or the
// parameters of the execution before it.
var pgLogLine = regexp.MustCompile(`^(\d+) (?:LOG:  (?:statement: (.*)|execute [^:]*: (.*))|DETAIL:  parameters: (.*))$`)

// pgLogSince is logSince for PostgreSQL's log: executions carry their
// parameters.
func pgLogSince(t *testing.T, file string, off int64) ([]string, int64) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	byConn := map[string][]string{}
	for _, l := range strings.Split(string(data[off:]), "\n") {
		m := pgLogLine.FindStringSubmatch(l)
		switch {
		case m == nil:
		case m[4] != "":
			if s := byConn[m[1]]; len(s) > 0 {
				s[len(s)-1] += " [" + m[4] + "]"
			}
		default:
			byConn[m[1]] = append(byConn[m[1]], m[2]+m[3])
		}
	}
	return busiest(byConn), int64(len(data))
}

// settled waits until the server's log file has stopped growing for 300
// ms (at most 10 s): a busy server writes its log after the statements.
func settled(file string) {
	var last int64 = -1
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(300 * time.Millisecond) {
		st, err := os.Stat(file)
		if err != nil || st.Size() == last {
			return
		}
		last = st.Size()
	}
}

// busiest is the statements of the connection that named sbtest tables
// most, from its first BEGIN or sbtest statement.
func busiest(byConn map[string][]string) []string {
	var best []string
	bestN := -1
	for _, stmts := range byConn {
		n := 0
		for _, s := range stmts {
			if strings.Contains(s, "sbtest") {
				n++
			}
		}
		if n > bestN {
			best, bestN = stmts, n
		}
	}
	for i, s := range best {
		if s == "BEGIN" || strings.Contains(s, "sbtest") {
			return best[i:]
		}
	}
	return best
}

// The acceptance test of the Lua API's emulation: the oltp_*.lua scripts
// shipped with sysbench 1.0.20, run through candor's Lua interpreter, send
// exactly the statements, values included, that candor's Go sysbench sends
// for the same test, seed and events — as the server's own log records
// them (MariaDB's general log, PostgreSQL's log_statement=all).
func TestSysbenchLuaStatementsMatchGo(t *testing.T) {
	t.Parallel()
	t.Run("mariadb", func(t *testing.T) {
		t.Parallel()
		u, logFile := generalLogServer(t)
		luaMatchesGo(t, u, logFile, logSince)
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		u, logFile := statementLogServer(t)
		luaMatchesGo(t, u, logFile, pgLogSince)
	})
}

func luaMatchesGo(t *testing.T, u, logFile string, since func(*testing.T, string, int64) ([]string, int64)) {
	const share = "/usr/share/sysbench"
	if _, err := os.Stat(filepath.Join(share, "oltp_common.lua")); err != nil {
		t.Skip("sysbench 1.0.20's scripts are not installed (" + share + ")")
	}
	dir := t.TempDir()
	conn := sysbenchConnArgs(t, u)
	common := append(append([]string{}, conn...), "--tables=2", "--table-size=500")
	sb := func(args ...string) string {
		t.Helper()
		args = append(append([]string{"sysbench"}, common...), args...)
		code, stdout, stderr := runSysbench(t, dir, args...)
		if code != 0 {
			t.Fatalf("candor %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout, stderr)
		}
		return stdout
	}
	sb("oltp_read_write", "prepare")
	tests := [][]string{
		{"oltp_read_write"},
		{"oltp_read_only"},
		{"oltp_write_only"},
		{"oltp_point_select"},
		{"oltp_insert"},
		{"oltp_update_index"},
		{"oltp_update_non_index"},
		{"oltp_delete"},
		{"oltp_read_write", "--skip-trx=on", "--point-selects=3"},
		{"oltp_read_only", "--db-ps-mode=disable"},
	}
	st, err := os.Stat(logFile)
	if err != nil {
		t.Fatal(err)
	}
	off := st.Size()
	for _, run := range tests {
		test, opts := run[0], run[1:]
		args := append(append([]string{}, opts...), "--threads=1", "--events=20", "--time=0", "--seed=4242", "--out=r.json")
		goOut := sb(append(args, test, "run")...)
		var want, got []string
		settled(logFile)
		want, off = since(t, logFile, off)
		luaOut := sb(append(args, filepath.Join(share, test+".lua"), "run")...)
		settled(logFile)
		got, off = since(t, logFile, off)
		if len(want) == 0 {
			t.Fatalf("%v: the general log holds no statement of the Go run", run)
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%v: the Lua script's statements differ from candor's Go sysbench's\n%s", run, firstDifference(want, got))
		}
		t.Logf("%v: %d statements alike, the first %q, the last %q", run, len(want), want[0], want[len(want)-1])
		if w, g := sqlStatistics(t, goOut), sqlStatistics(t, luaOut); w != g {
			t.Errorf("%v: SQL statistics differ\nGo:  %s\nLua: %s", run, w, g)
		}
	}
}

// firstDifference shows where two statement lists part.
func firstDifference(want, got []string) string {
	for i := 0; i < max(len(want), len(got)); i++ {
		var w, g string
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g {
			return fmt.Sprintf("statement %d (of %d Go, %d Lua):\n  Go:  %s\n  Lua: %s", i+1, len(want), len(got), w, g)
		}
	}
	return ""
}
