package cli

import (
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/target/targettest"
)

// The statements against pgbench 15 itself: one pgbench command line is
// run by the pgbench binary and by `candor pgbench`, each through the
// statement proxy (sysbench_ref_test.go), with --random-seed and one
// client, and the statements of the scripts must be the same, statement
// for statement. With -M simple the values are written into the texts, so
// the two tools drew the same random numbers, hashes and permutations;
// with -M prepared they sent the same prepared texts.

// pgbenchRefScript exercises the expression language: every generator and
// deterministic function, arithmetic, \if/\elif/\else, \gset.
const pgbenchRefScript = `-- a reference script
\set a random(1, 1000)
\set b random_exponential(1, 1000, 2.5)
\set c random_gaussian(1, 1000, 3.0)
\set d random_zipfian(1, 1000, 1.5)
\set e hash(:a)
\set f hash_fnv1a(:b, 7)
\set g permute(:c, 1000)
\set h permute(:d, 1000, :e)
\set i :a * 2.5 / 3 + pi() - sqrt(:b) + ln(:c) * exp(1) + pow(2, 0.5)
\set j greatest(:a, :b, 17) - least(:c, :d) + abs(-:a) + mod(:a, 7) + (:a & 255) + (:b << 2) + (~:c # 5)
\set k CASE WHEN :a > 500 THEN :b IS NULL WHEN :a > 250 THEN true ELSE NOT (:a < 100 OR :b >= 3) END
\set l int(:i) + double(:j) / 4
\if :a % 2 = 0
SELECT /*s*/ 'even', :a, :b, :c, :d, :e, :f, :g, :h, :i, :j, :k, :l;
\elif :a % 3 = 0
SELECT /*s*/ 'three', :a, ':a', :a::text;
\else
SELECT /*s*/ 'odd', :a, :client_id, :scale, :undefined_var;
\endif
SELECT /*s*/ :a + 1 AS nxt, 'x' AS lit \gset p_
SELECT /*s*/ :p_nxt, ':p_lit', :p_nxt * 2 \;
SELECT /*s*/ 2;
SELECT /*s*/ :a AS u, 2 AS w \aset q_
SELECT /*s*/ 3 WHERE false \aset q_
\sleep 1 us
\set m :q_u + :q_w
\sleep :m us
SELECT /*s*/ :m, :q_u;
`

func TestPgbenchStatementsMatchBinary(t *testing.T) {
	bin, err := exec.LookPath("pgbench")
	if err != nil {
		t.Skip("no pgbench binary (PostgreSQL 15's client)")
	}
	u := targettest.PostgresDatabaseURL(t) // a database of its own: pgbench's tables have fixed names
	t.Parallel()
	dir := t.TempDir()
	script := filepath.Join(dir, "ref.sql")
	if err := os.WriteFile(script, []byte(pgbenchRefScript), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, stdout, stderr := runAt(t, dir, "pgbench", "-i", "-s", "1", "--target", u); code != 0 {
		t.Fatalf("candor pgbench -i: exit %d\n%s%s", code, stdout, stderr)
	}
	t.Cleanup(func() { runAt(t, dir, "cleanup", "script/pgbench", "-p", "tables=true", "--target", u) })
	proxy := newStmtProxy(t, u)
	pu, err := url.Parse(proxy.url)
	if err != nil {
		t.Fatal(err)
	}
	conn := []string{"-h", pu.Hostname(), "-p", pu.Port(), "-U", pu.User.Username(), strings.TrimPrefix(pu.Path, "/")}
	// scriptStatements keeps the statements of the scripts (not the tools'
	// own: reading the scale, candor's table marks).
	scriptStatements := func(conns [][]string) []string {
		var out []string
		for _, c := range conns {
			for _, s := range c {
				_, text, _ := strings.Cut(s, ": ")
				for _, p := range []string{"BEGIN", "END", "UPDATE pgbench_", "SELECT abalance", "INSERT INTO pgbench_history", "SELECT /*s*/"} {
					if strings.HasPrefix(text, p) {
						out = append(out, s)
						break
					}
				}
			}
		}
		return out
	}
	for _, run := range [][]string{
		{"-b", "tpcb-like", "-M", "simple", "-r"},
		{"-b", "tpcb-like", "-M", "prepared"},
		{"-b", "simple-update", "-M", "extended"},
		{"-S", "-M", "simple", "-b", "simple-update@2", "-r", "-L", "100"},
		{"-f", script, "-M", "simple", "-D", "undefined_var=7", "-D", "default_seed=99"},
		{"-f", script, "-M", "simple"},
	} {
		args := append(append([]string{"-n", "-c", "1", "-t", "25", "--random-seed=5432"}, run...), conn...)
		cmd := exec.Command(bin, args...)
		var pout, perr strings.Builder
		cmd.Stdout, cmd.Stderr = &pout, &perr
		err := cmd.Run()
		out := pout.String() + perr.String()
		// Without -D undefined_var, ":undefined_var" stays in the text
		// and the server refuses it: pgbench aborts its client (exit 2),
		// candor fails the transaction and goes on, above its error
		// budget (exit 5); the statements up to pgbench's abort agree.
		aborted := strings.Contains(string(out), "aborted in command")
		if err != nil && !aborted {
			t.Fatalf("pgbench %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		want := scriptStatements(proxy.take())
		code, stdout, stderr := runAt(t, dir, append([]string{"pgbench"}, args...)...)
		if code != 0 && !(aborted && code == 5) {
			t.Fatalf("candor pgbench %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout, stderr)
		}
		got := scriptStatements(proxy.take())
		if aborted && len(got) > len(want) {
			got = got[:len(want)]
		}
		if !aborted {
			if g, w := pgbenchLayout(stdout), pgbenchLayout(pout.String()); g != w {
				t.Errorf("%s: report laid out differently:\ncandor:\n%s\npgbench:\n%s", strings.Join(run, " "), g, w)
			}
		}
		if len(want) == 0 {
			t.Fatalf("pgbench %s: no statement recorded\n%s", strings.Join(args, " "), out)
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			n := 0
			for n < len(got) && n < len(want) && got[n] == want[n] {
				n++
			}
			g, w := "(none)", "(none)"
			if n < len(got) {
				g = got[n]
			}
			if n < len(want) {
				w = want[n]
			}
			t.Errorf("%s: statement %d of %d (pgbench %d) differs:\ncandor:  %s\npgbench: %s", strings.Join(run, " "), n+1, len(got), len(want), g, w)
		}
	}
}

// pgbenchLayout is a pgbench report's lines without their figures: each
// line's label, and the command of each per-statement line. pgbench's
// banner and "initial connection time" line, which candor does not print,
// are left out.
func pgbenchLayout(out string) string {
	var labels []string
	for _, l := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(l, "pgbench ("), strings.HasPrefix(l, "initial connection time"), strings.HasPrefix(l, "result: "), l == "":
			continue
		case strings.HasPrefix(l, "   "):
			f := strings.Fields(l)
			labels = append(labels, "statement: "+strings.Join(f[2:], " "))
			continue
		}
		if i := strings.IndexAny(l, ":="); i >= 0 {
			l = l[:i]
		}
		labels = append(labels, strings.TrimSpace(l))
	}
	return strings.Join(labels, "\n")
}
