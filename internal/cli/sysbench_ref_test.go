package cli

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/target/targettest"
)

// The statements against sysbench 1.0.20 itself: one sysbench command line is
// run by the sysbench binary and by `candor sysbench`, each through a proxy
// that records the statements the client has the server execute and how
// each was sent (as text, or by executing a prepared statement), and the two
// sequences must be the same statement for statement (literal values
// aside). The counts of the two reports' "SQL statistics" blocks must agree
// too (sqlStatistics), and the reports must be laid out alike
// (reportLayout). The golden files in internal/dialect pin the texts; this checks
// them, and their order within each event, against what the reference
// actually sends.

// stmtProxy forwards TCP connections to a server and records, per
// connection, every statement executed, as "text: SQL" for PostgreSQL's
// simple Query and MySQL's COM_QUERY, and "prepared: SQL" for every Bind of
// a prepared statement (its text from the Parse) and every COM_STMT_EXECUTE
// (from the COM_STMT_PREPARE).
type stmtProxy struct {
	ln       net.Listener
	upstream string
	mysql    bool
	url      string // the target's URL with the proxy's address

	mu    sync.Mutex
	conns [][]string // executed statements per connection, in accept order
	// active counts the copying goroutines still running, under mu; idle
	// is signalled when it falls to 0. (A WaitGroup's Add racing with
	// take's Wait, for a connection accepted late, is a data race.)
	active int
	idle   *sync.Cond
}

// newStmtProxy starts a proxy in front of the server of rawURL (MySQL wire
// for a mysql:// URL, else PostgreSQL's).
func newStmtProxy(t *testing.T, rawURL string) *stmtProxy {
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &stmtProxy{ln: ln, upstream: u.Host, mysql: u.Scheme == "mysql"}
	p.idle = sync.NewCond(&p.mu)
	u.Host = ln.Addr().String()
	p.url = u.String()
	go p.accept()
	t.Cleanup(func() { ln.Close() })
	return p
}

func (p *stmtProxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", p.upstream)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		i := len(p.conns)
		p.conns = append(p.conns, nil)
		p.active += 2
		p.mu.Unlock()
		rec := &connRecorder{p: p, i: i}
		go func() {
			defer p.copied()
			if p.mysql {
				rec.mysqlClient(c, s)
			} else {
				rec.pgClient(c, s)
			}
			s.Close()
		}()
		go func() {
			defer p.copied()
			if p.mysql {
				rec.mysqlServer(s, c)
			} else {
				_, _ = io.Copy(c, s)
			}
			c.Close()
		}()
	}
}

// take waits for every connection to end and returns what they executed,
// forgetting it.
func (p *stmtProxy) take() [][]string {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.active > 0 {
		p.idle.Wait()
	}
	out := p.conns
	p.conns = nil
	return out
}

// copied ends one copying goroutine of a connection.
func (p *stmtProxy) copied() {
	p.mu.Lock()
	p.active--
	if p.active == 0 {
		p.idle.Broadcast()
	}
	p.mu.Unlock()
}

type connRecorder struct {
	p *stmtProxy
	i int

	mu      sync.Mutex
	pgStmts map[string]string // PostgreSQL: prepared statement name → text
	myStmts map[uint32]string // MySQL: statement id → text
	pending string            // MySQL: the text of a COM_STMT_PREPARE awaiting its reply
}

// How a statement was sent: as text with its values written in, or by
// executing a statement prepared before.
const (
	sentAsText     = "text"
	sentAsPrepared = "prepared"
)

// executed records one statement, and how it was sent.
func (r *connRecorder) executed(how, text string) {
	r.p.mu.Lock()
	r.p.conns[r.i] = append(r.p.conns[r.i], how+": "+text)
	r.p.mu.Unlock()
}

// cstring splits b at its first NUL. (The messages are decoded here rather
// than with pgproto3.Backend, which needs the authentication method to read
// the client's password messages.)
func cstring(b []byte) (string, []byte) {
	i := bytes.IndexByte(b, 0)
	if i < 0 {
		return string(b), nil
	}
	return string(b[:i]), b[i+1:]
}

// pgClient forwards the frontend's messages and records its statements.
func (r *connRecorder) pgClient(c, s net.Conn) {
	r.pgStmts = map[string]string{}
	started := false
	for {
		var head [5]byte
		n := 5
		if !started {
			n = 4 // untyped: SSLRequest, GSSENCRequest, StartupMessage
		}
		if _, err := io.ReadFull(c, head[:n]); err != nil {
			return
		}
		size := binary.BigEndian.Uint32(head[n-4 : n])
		body := make([]byte, int(size)-4)
		if _, err := io.ReadFull(c, body); err != nil {
			return
		}
		if !started {
			code := binary.BigEndian.Uint32(body[:4])
			started = code != 80877103 && code != 80877104 // not an SSL or GSS request
		} else {
			switch head[0] {
			case 'P':
				name, rest := cstring(body)
				text, _ := cstring(rest)
				r.pgStmts[name] = text
			case 'B':
				_, rest := cstring(body)
				name, _ := cstring(rest)
				r.executed(sentAsPrepared, r.pgStmts[name])
			case 'Q':
				text, _ := cstring(body)
				r.executed(sentAsText, text)
			}
		}
		if _, err := s.Write(append(head[:n:n], body...)); err != nil {
			return
		}
	}
}

// mysqlPacket reads one packet: its 4-byte header and payload.
func mysqlPacket(c net.Conn) ([]byte, []byte, error) {
	head := make([]byte, 4)
	if _, err := io.ReadFull(c, head); err != nil {
		return nil, nil, err
	}
	body := make([]byte, int(head[0])|int(head[1])<<8|int(head[2])<<16)
	if _, err := io.ReadFull(c, body); err != nil {
		return nil, nil, err
	}
	return head, body, nil
}

// mysqlClient forwards the client's packets and records its statements: a
// command is a packet with sequence number 0.
func (r *connRecorder) mysqlClient(c, s net.Conn) {
	for {
		head, body, err := mysqlPacket(c)
		if err != nil {
			return
		}
		if head[3] == 0 && len(body) > 0 {
			switch body[0] {
			case 0x03: // COM_QUERY
				r.executed(sentAsText, string(body[1:]))
			case 0x16: // COM_STMT_PREPARE
				r.mu.Lock()
				r.pending = string(body[1:])
				r.mu.Unlock()
			case 0x17: // COM_STMT_EXECUTE
				if len(body) >= 5 {
					r.mu.Lock()
					text := r.myStmts[binary.LittleEndian.Uint32(body[1:5])]
					r.mu.Unlock()
					r.executed(sentAsPrepared, text)
				}
			}
		}
		if _, err := s.Write(append(head, body...)); err != nil {
			return
		}
	}
}

// mysqlServer forwards the server's packets, noting the statement id of
// each COM_STMT_PREPARE_OK before the client can use it.
func (r *connRecorder) mysqlServer(s, c net.Conn) {
	r.mu.Lock()
	r.myStmts = map[uint32]string{}
	r.mu.Unlock()
	for {
		head, body, err := mysqlPacket(s)
		if err != nil {
			return
		}
		r.mu.Lock()
		if r.pending != "" && head[3] == 1 {
			if len(body) >= 5 && body[0] == 0x00 {
				r.myStmts[binary.LittleEndian.Uint32(body[1:5])] = r.pending
			}
			r.pending = ""
		}
		r.mu.Unlock()
		if _, err := c.Write(append(head, body...)); err != nil {
			return
		}
	}
}

var (
	quotedLiteral  = regexp.MustCompile(`'[^']*'`)
	numericLiteral = regexp.MustCompile(`-?\b[0-9]+\b`)
)

// workerStatements picks the connection that ran the test (the one that
// executed the most statements on sbtest tables) and returns its statements
// from the first BEGIN or sbtest statement on, literals replaced by ? and N.
// samplerSession says whether a session is the server-counter sampler's
// (internal/observe), whose size query names the workload's tables.
func samplerSession(stmts []string) bool {
	for _, s := range stmts {
		if strings.Contains(s, "pg_stat_database") || strings.Contains(s, "SHOW GLOBAL STATUS") {
			return true
		}
	}
	return false
}

func workerStatements(conns [][]string) []string {
	var best []string
	bestN := -1
	for _, stmts := range conns {
		if samplerSession(stmts) {
			continue
		}
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
	var out []string
	for _, s := range best {
		if len(out) == 0 && !strings.Contains(s, "sbtest") && !strings.HasSuffix(s, ": BEGIN") {
			continue
		}
		s = quotedLiteral.ReplaceAllString(s, "'?'")
		out = append(out, numericLiteral.ReplaceAllString(s, "N"))
	}
	return out
}

// statisticsLine is one count of the "SQL statistics" block of sysbench's
// report.
var statisticsLine = regexp.MustCompile(`(?m)^\s*(read|write|other|total|transactions|queries|ignored errors|reconnects):\s+([0-9]+)`)

// sqlStatistics returns the counts of a report's "SQL statistics" block
// that do not depend on which rows the random ids hit: transactions, reads,
// writes and other statements together (an UPDATE or DELETE that finds no
// row is other, not a write), all queries, ignored errors and reconnects.
func sqlStatistics(t *testing.T, report string) string {
	t.Helper()
	n := map[string]string{}
	for _, m := range statisticsLine.FindAllStringSubmatch(report, -1) {
		n[m[1]] = m[2]
	}
	if len(n) != 8 {
		t.Fatalf("no SQL statistics block in the report:\n%s", report)
	}
	w, _ := strconv.Atoi(n["write"])
	o, _ := strconv.Atoi(n["other"])
	return fmt.Sprintf("transactions %s, read %s, write+other %d, total %s, queries %s, ignored errors %s, reconnects %s",
		n["transactions"], n["read"], w+o, n["total"], n["queries"], n["ignored errors"], n["reconnects"])
}

// number is a number with the spaces before it, which pad it to a width.
var number = regexp.MustCompile(` *[0-9]+(\.[0-9]+)?`)

// reportLayout is a report with every number and its padding replaced by
// " N", without the two lines candor words otherwise (the first, naming the
// program, and the one saying how the random numbers were seeded).
func reportLayout(report string) string {
	lines := strings.Split(report, "\n")
	var out []string
	for i, l := range lines {
		if i == 0 || strings.HasPrefix(l, "Initializing random number generator") {
			continue
		}
		out = append(out, number.ReplaceAllString(l, " N"))
	}
	return strings.Join(out, "\n")
}

// runSysbench runs `candor sysbench ARGS` without changing directory, so
// that tests on databases of their own run at once: a relative --out= is
// taken in dir, and a prepare or run given none writes its result there.
func runSysbench(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	abs := outIn(dir, args)
	if verb := args[len(args)-1]; len(abs) == len(args) && !hasOut(args) && (verb == "prepare" || verb == "run") {
		f, err := os.CreateTemp(dir, verb+"-*.json")
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		os.Remove(f.Name())
		abs = append([]string{"--out=" + f.Name()}, abs...)
	}
	return runAbs(t, dir, abs...)
}

// runAt runs candor without changing directory, its result files (-o,
// --out) taken in dir when relative, and a run, load or pgbench given none
// writing its result in dir: tests of their own tables, databases or
// keyspaces run at once.
func runAt(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	abs := outIn(dir, args)
	if len(args) > 0 && !hasOut(args) && (args[0] == "run" || args[0] == "load" || args[0] == "prepare" || args[0] == "pgbench") {
		f, err := os.CreateTemp(dir, args[0]+"-*.json")
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		os.Remove(f.Name())
		abs = append(abs, "-o", f.Name())
	}
	return runAbs(t, dir, abs...)
}

// outIn is args with a relative -o or --out path joined to dir.
func outIn(dir string, args []string) []string {
	out := make([]string, len(args))
	copy(out, args)
	for i, a := range out {
		switch {
		case (a == "-o" || a == "--out") && i+1 < len(out) && !filepath.IsAbs(out[i+1]):
			out[i+1] = filepath.Join(dir, out[i+1])
		case strings.HasPrefix(a, "--out=") && !filepath.IsAbs(strings.TrimPrefix(a, "--out=")):
			out[i] = "--out=" + filepath.Join(dir, strings.TrimPrefix(a, "--out="))
		}
	}
	return out
}

func hasOut(args []string) bool {
	for _, a := range args {
		if a == "-o" || a == "--out" || strings.HasPrefix(a, "--out=") {
			return true
		}
	}
	return false
}

// sysbenchBinaryTargets returns the sysbench 1.0.20 binary and the test
// servers it can drive (PostgreSQL and MySQL wire), skipping the test when
// there is no such server.
func sysbenchBinaryTargets(t *testing.T) (bin string, targets map[string]string) {
	t.Helper()
	bin = targettest.SysbenchBinary(t)
	targets = targettest.RealTargets(t, true) // databases of the test's own: tests run at once
	delete(targets, "sqlite")                 // the binary has no SQLite driver
	if len(targets) == 0 {
		t.Skip("no PostgreSQL or MySQL-wire test server (scripts/test.sh starts both)")
	}
	return bin, targets
}

func TestSysbenchStatementsMatchBinary(t *testing.T) {
	t.Parallel()
	bin, targets := sysbenchBinaryTargets(t)
	runs := [][]string{
		{"oltp_read_write"},
		{"oltp_read_write", "--skip-trx=on"},
		{"oltp_read_only"},
		{"oltp_read_only", "--range-selects=off"},
		{"oltp_write_only"},
		{"oltp_point_select"},
		{"oltp_insert"},
		{"oltp_update_index"},
		{"oltp_update_non_index"},
		{"oltp_delete"},
		{"select_random_points"},
		{"select_random_ranges"},
		{"oltp_read_write", "--point-selects=2", "--simple-ranges=0", "--delete-inserts=2", "--index-updates=0"},
		{"oltp_read_write", "--db-ps-mode=disable"},
		{"select_random_points", "--db-ps-mode=disable", "--random-points=3"},
		{"select_random_ranges", "--db-ps-mode=disable", "--number-of-ranges=2", "--delta=7"},
	}
	for name, u := range targets {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			common := []string{"--tables=1", "--table-size=1000"}
			sb := func(args ...string) {
				t.Helper()
				args = append(append(append([]string{"sysbench"}, sysbenchConnArgs(t, u)...), common...), args...)
				if code, stdout, stderr := runSysbench(t, dir, args...); code != 0 {
					t.Fatalf("candor %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout, stderr)
				}
			}
			sb("oltp_read_write", "cleanup")
			sb("oltp_read_write", "prepare")
			t.Cleanup(func() { sb("oltp_read_write", "cleanup") })

			proxy := newStmtProxy(t, u)
			conn := sysbenchConnArgs(t, proxy.url)
			// compare runs one test by both tools, between sysbench's run
			// and candor's when given.
			compare := func(run []string, between func()) {
				t.Helper()
				test, opts := run[0], run[1:]
				args := append(append(append(append([]string{}, conn...), common...), opts...),
					"--threads=1", "--events=3", "--time=0", test, "run")
				out, err := exec.Command(bin, args...).CombinedOutput()
				if err != nil {
					t.Fatalf("sysbench %s: %v\n%s", strings.Join(args, " "), err, out)
				}
				want := workerStatements(proxy.take())
				if between != nil {
					between()
				}
				code, stdout, stderr := runSysbench(t, dir, append([]string{"sysbench", "--out=ref.json"}, args...)...)
				if code != 0 {
					t.Fatalf("candor sysbench %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout, stderr)
				}
				got := workerStatements(proxy.take())
				if len(want) == 0 {
					t.Fatalf("%v: no statements recorded from sysbench", run)
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("%v: candor's statements differ from sysbench 1.0.20's\nsysbench:\n  %s\ncandor:\n  %s",
						run, strings.Join(want, "\n  "), strings.Join(got, "\n  "))
				}
				if w, g := sqlStatistics(t, string(out)), sqlStatistics(t, stdout); w != g {
					t.Errorf("%v: candor's SQL statistics differ from sysbench 1.0.20's\nsysbench: %s\ncandor:   %s", run, w, g)
				}
				if w, g := reportLayout(string(out)), reportLayout(stdout); w != g {
					t.Errorf("%v: candor's report is laid out unlike sysbench 1.0.20's\nsysbench:\n%s\ncandor:\n%s", run, w, g)
				}
			}
			for _, run := range runs {
				compare(run, nil)
			}
			// bulk_insert has tables of its own, and both tools insert the
			// same ids: each runs on freshly prepared ones.
			sb("oltp_read_write", "cleanup")
			sb("--threads=1", "bulk_insert", "prepare")
			compare([]string{"bulk_insert"}, func() {
				sb("--threads=1", "bulk_insert", "cleanup")
				sb("--threads=1", "bulk_insert", "prepare")
			})
			sb("--threads=1", "bulk_insert", "cleanup")
		})
	}
}

// tableShape describes sysbench table name as the server holds it: its
// columns, its indexes and what its rows look like (their number, the range
// of ids, k within [1, size], the lengths of c and pad), one line each.
func tableShape(t *testing.T, db, u, name string, size int) []string {
	t.Helper()
	var queries []string
	switch db {
	case "postgres":
		queries = []string{
			"SELECT column_name, data_type, character_maximum_length, is_nullable, column_default " +
				"FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = '" + name + "' " +
				"ORDER BY ordinal_position",
			"SELECT indexname, indexdef FROM pg_indexes " +
				"WHERE schemaname = current_schema() AND tablename = '" + name + "' ORDER BY indexname",
		}
	case "mysql":
		queries = []string{
			"SELECT engine, table_collation FROM information_schema.tables " +
				"WHERE table_schema = DATABASE() AND table_name = '" + name + "'",
			"SELECT column_name, column_type, is_nullable, column_default, extra " +
				"FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = '" + name + "' " +
				"ORDER BY ordinal_position",
			"SELECT index_name, non_unique, seq_in_index, column_name, index_type " +
				"FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = '" + name + "' " +
				"ORDER BY index_name, seq_in_index",
		}
	default:
		t.Fatalf("no shape queries for %s", db)
	}
	queries = append(queries, fmt.Sprintf("SELECT COUNT(*), MIN(id), MAX(id), "+
		"SUM(CASE WHEN k BETWEEN 1 AND %d THEN 1 ELSE 0 END), "+
		"MIN(LENGTH(c)), MAX(LENGTH(c)), MIN(LENGTH(pad)), MAX(LENGTH(pad)) FROM %s", size, name))
	var out []string
	withConn(t, u, func(ctx context.Context, _ target.Target, c target.Conn) {
		for _, q := range queries {
			for _, row := range targettest.Rows(t, c, q) {
				out = append(out, strings.Join(row, " | "))
			}
		}
	})
	return out
}

// ddl returns the CREATE TABLE and CREATE INDEX statements on sysbench's
// tables the connections executed, sorted (the tools create tables and
// indexes in different orders and on different connections), how each was
// sent dropped. candor's own bookkeeping table is left out.
func ddl(conns [][]string) []string {
	var out []string
	for _, stmts := range conns {
		for _, s := range stmts {
			_, text, _ := strings.Cut(s, ": ")
			head := strings.TrimSpace(text)
			if (strings.HasPrefix(head, "CREATE TABLE") || strings.HasPrefix(head, "CREATE INDEX")) && strings.Contains(head, "sbtest") {
				out = append(out, strconv.Quote(text))
			}
		}
	}
	sort.Strings(out)
	return out
}

// TestSysbenchPrepareMatchesBinary prepares sysbench's tables with the
// sysbench binary and then with `candor sysbench`, the same command line,
// each through a recording proxy, and compares the CREATE TABLE and CREATE
// INDEX statements each sent, byte for byte, and what each left behind
// (tableShape). The rows go differently (COPY on PostgreSQL, LOAD DATA on
// MariaDB, where candor also creates the k index before loading rather than
// after), so only the DDL's texts and the tables are compared. bulk_insert's
// table is compared by its DDL.
func TestSysbenchPrepareMatchesBinary(t *testing.T) {
	t.Parallel()
	bin, targets := sysbenchBinaryTargets(t)
	const size = 500
	variants := [][]string{
		nil,
		{"--auto-inc=off"},
		{"--create-secondary=off"},
		{"--secondary=on"}, // MySQL only: sysbench writes KEY xid into PostgreSQL's CREATE TABLE too
		{"--threads=1", "bulk_insert"},
	}
	for name, u := range targets {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			proxy := newStmtProxy(t, u)
			for _, v := range variants {
				if name == "postgres" && len(v) > 0 && v[0] == "--secondary=on" {
					continue
				}
				test := "oltp_read_write"
				if len(v) > 0 && v[len(v)-1] == "bulk_insert" {
					test, v = "bulk_insert", v[:len(v)-1]
				}
				args := append(append(sysbenchConnArgs(t, proxy.url), "--tables=2", fmt.Sprintf("--table-size=%d", size)), v...)
				args = append(args, test)
				// Both return what the tool printed after its first line
				// (the banner, which names the tool).
				binary := func(verb string) string {
					t.Helper()
					out, err := exec.Command(bin, append(args, verb)...).CombinedOutput()
					if err != nil {
						t.Fatalf("sysbench %s %s: %v\n%s", strings.Join(args, " "), verb, err, out)
					}
					_, rest, _ := strings.Cut(string(out), "\n")
					return rest
				}
				candor := func(verb string) string {
					t.Helper()
					code, stdout, stderr := runSysbench(t, dir, append(append([]string{"sysbench"}, args...), verb)...)
					if code != 0 {
						t.Fatalf("candor sysbench %s %s: exit %d\n%s%s", strings.Join(args, " "), verb, code, stdout, stderr)
					}
					_, rest, _ := strings.Cut(stdout, "\n")
					return rest
				}
				shapes := func() []string {
					var out []string
					for _, table := range []string{"sbtest1", "sbtest2"} {
						if test != "bulk_insert" {
							out = append(out, tableShape(t, name, u, table, size)...)
						}
					}
					return out
				}
				candor("cleanup")
				proxy.take()
				wantOut := binary("prepare")
				wantDDL := ddl(proxy.take())
				want := shapes()
				wantGone := binary("cleanup")
				gotOut := candor("prepare")
				gotDDL := ddl(proxy.take())
				got := shapes()
				gotGone := candor("cleanup")
				proxy.take()
				if gotOut != wantOut || gotGone != wantGone {
					t.Errorf("%v %s: candor's prepare and cleanup print unlike sysbench 1.0.20's\nsysbench:\n%s%s\ncandor:\n%s%s",
						v, test, wantOut, wantGone, gotOut, gotGone)
				}
				if len(wantDDL) == 0 {
					t.Fatalf("%v %s: no CREATE statements recorded from sysbench", v, test)
				}
				if strings.Join(gotDDL, "\n") != strings.Join(wantDDL, "\n") {
					t.Errorf("%v %s: candor's CREATE statements differ from sysbench 1.0.20's\nsysbench:\n  %s\ncandor:\n  %s",
						v, test, strings.Join(wantDDL, "\n  "), strings.Join(gotDDL, "\n  "))
				}
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("%v: candor's tables differ from sysbench 1.0.20's\nsysbench:\n  %s\ncandor:\n  %s",
						v, strings.Join(want, "\n  "), strings.Join(got, "\n  "))
				}
			}
		})
	}
}

// TestSysbenchFatalMatchesBinary: when a statement's error ends the run,
// `candor sysbench` prints the FATAL lines the sysbench binary prints, but
// for the Lua script's location in the last one, which candor has not got.
func TestSysbenchFatalMatchesBinary(t *testing.T) {
	t.Parallel()
	bin, targets := sysbenchBinaryTargets(t)
	luaLocation := regexp.MustCompile(`/\S+\.lua:\d+: `)
	ids := regexp.MustCompile(`id=\d+`) // drawn at random by both tools
	fatal := func(out string) string {
		var lines []string
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "FATAL: ") {
				lines = append(lines, ids.ReplaceAllString(luaLocation.ReplaceAllString(l, ""), "id=N"))
			}
		}
		return strings.Join(lines, "\n")
	}
	for name, u := range targets {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			args := append(sysbenchConnArgs(t, u), "--tables=1", "--table-size=100")
			sb := func(more ...string) (int, string, string) {
				return runSysbench(t, dir, append(append([]string{"sysbench"}, args...), more...)...)
			}
			sb("oltp_update_index", "cleanup")
			if code, stdout, stderr := sb("oltp_update_index", "prepare"); code != 0 {
				t.Fatalf("prepare: exit %d\n%s%s", code, stdout, stderr)
			}
			defer sb("oltp_update_index", "cleanup")
			failUpdates(t, name, u)
			for _, mode := range []string{"auto", "disable"} {
				run := []string{"--db-ps-mode=" + mode, "--time=5", "oltp_update_index", "run"}
				out, err := exec.Command(bin, append(append([]string{}, args...), run...)...).CombinedOutput()
				if err == nil {
					t.Fatalf("sysbench %s: no error against the trigger\n%s", mode, out)
				}
				want := fatal(string(out))
				code, stdout, stderr := sb(append([]string{"--out=f.json"}, run...)...)
				if code != ExitRunFailed {
					t.Fatalf("candor sysbench %s: exit %d, want %d\n%s%s", mode, code, ExitRunFailed, stdout, stderr)
				}
				if got := fatal(stdout); want == "" || got != want {
					t.Errorf("--db-ps-mode=%s: candor's FATAL lines differ from sysbench 1.0.20's\nsysbench:\n%s\ncandor:\n%s", mode, want, got)
				}
			}
		})
	}
}
