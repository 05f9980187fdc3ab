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
	out, err := exec.Command(script, "start", dir, "general_log=1", "general_log_file="+logFile).Output()
	if err != nil {
		t.Fatalf("starting MariaDB: %v", err)
	}
	t.Cleanup(func() {
		exec.Command(script, "stop", dir).Run()
		os.Remove(logFile)
	})
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
			best = best[i:]
			break
		}
	}
	return best, st.Size()
}

// The acceptance test of the Lua API's emulation: the oltp_*.lua scripts
// shipped with sysbench 1.0.20, run through candor's Lua interpreter, send
// exactly the statements, values included, that candor's Go sysbench sends
// for the same test, seed and events — as MariaDB's general log records
// them.
func TestSysbenchLuaStatementsMatchGo(t *testing.T) {
	const share = "/usr/share/sysbench"
	if _, err := os.Stat(filepath.Join(share, "oltp_common.lua")); err != nil {
		t.Skip("sysbench 1.0.20's scripts are not installed (" + share + ")")
	}
	u, logFile := generalLogServer(t)
	dir := t.TempDir()
	conn := sysbenchConnArgs(t, u)
	common := append(append([]string{}, conn...), "--tables=2", "--table-size=500")
	sb := func(args ...string) string {
		t.Helper()
		args = append(append([]string{"sysbench"}, common...), args...)
		code, stdout, stderr := runCLI(t, dir, nil, args...)
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
		want, off = logSince(t, logFile, off)
		luaOut := sb(append(args, filepath.Join(share, test+".lua"), "run")...)
		got, off = logSince(t, logFile, off)
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
