package pgbench

import (
	"os/exec"
	"strings"
	"testing"
)

// Each bad script's message is pgbench 15.18's own, after its "pgbench:
// error: " prefix (pgbench -n -t 1 -f FILE).
func TestSyntaxErrorsAsPgbench(t *testing.T) {
	for _, c := range []struct{ file, text, want string }{
		{"a.sql", "SELECT 1;\n\\set x random(1)\n", "a.sql:2: unexpected number of arguments (random) in command \"set\"\n\\set x random(1)\n               ^ error found here"},
		{"b.sql", "\\nosuch 1\n", "b.sql:1: invalid command in command \"nosuch\"\n\\nosuch 1"},
		{"c.sql", "\\set x nosuch(1)\n", "c.sql:1: unexpected function name (nosuch) in command \"set\"\n\\set x nosuch(1)\n            ^ error found here"},
		{"d.sql", "\\if true\nSELECT 1;\n", "condition error in script \"d.sql\" command 3: \\if without matching \\endif"},
		{"e.sql", "SELECT 1;\n\\else\n", "condition error in script \"e.sql\" command 2: \\else without matching \\if"},
		{"f.sql", "\\gset\n", "f.sql:1: \\gset must follow an SQL command"},
		{"g.sql", "\\sleep 10 hours\n", "g.sql:1: unrecognized time unit, must be us, ms or s (hours) in command \"sleep\"\n\\sleep 10 hours\n          ^ error found here"},
		{"h.sql", "\\set x 1 +\n", "h.sql:1: syntax error in command \"set\"\n\\set x 1 +\n          ^ error found here"},
		{"i.sql", "-- only\n", "empty command list for script \"i.sql\""},
		{"j.sql", "\\set k CASE WHEN 1 THEN 'a' END\n", "j.sql:1: unexpected character (') in command \"set\"\n\\set k CASE WHEN 1 THEN 'a' END\n                        ^ error found here"},
	} {
		_, err := parseScript(c.file, c.text, newSymbols(), parseOptions{})
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: got\n%v\nwant\n%s", c.file, err, c.want)
		}
	}
}

func TestShellRefusedUnlessAllowed(t *testing.T) {
	text := "\\setshell x echo 5\n\\shell true\n"
	_, err := parseScript("s.sql", text, newSymbols(), parseOptions{})
	if err == nil || !strings.Contains(err.Error(), "--allow-shell") {
		t.Fatalf("\\setshell without allow-shell: %v", err)
	}
	if _, err := parseScript("s.sql", text, newSymbols(), parseOptions{allowShell: true}); err != nil {
		t.Fatalf("with allow-shell: %v", err)
	}
}

// The splitting of SQL commands, as psql's lexer does it for pgbench.
func TestSQLCommandSplitting(t *testing.T) {
	text := "-- leading comment\n  SELECT 'a;b', \"c;d\", $$e;f$$, $t$g;h$t$, (1;2) /* i;j */ FROM x;\n" +
		"SELECT 1\n  + 2; SELECT :a::int, ::b, E'k\\';l';\n" +
		"SELECT 3 \\; SELECT 4;\n" +
		"SELECT 5 \\gset p_\n" +
		"SELECT 6"
	syms := newSymbols()
	cmds, err := parseScript("x.sql", text, syms, parseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cmds {
		var b strings.Builder
		for _, p := range c.parts {
			if p.slot >= 0 {
				b.WriteString("{" + p.name + "}")
			} else {
				b.WriteString(p.text)
			}
		}
		got = append(got, b.String())
	}
	want := []string{
		"SELECT 'a;b', \"c;d\", $$e;f$$, $t$g;h$t$, (1;2) /* i;j */ FROM x;",
		"SELECT 1\n  + 2;",
		"SELECT {a}::int, ::b, E'k\\';l';",
		"SELECT 3 ; SELECT 4;",
		"SELECT 5 ",
		"SELECT 6",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("commands:\n%q\nwant\n%q", got, want)
	}
	if cmds[1].line != 3 || cmds[2].line != 4 || cmds[5].line != 7 {
		t.Errorf("lines %d, %d, %d; want 3, 4, 7", cmds[1].line, cmds[2].line, cmds[5].line)
	}
	if cmds[4].gset != gSet || cmds[4].prefix != "p_" {
		t.Errorf("\\gset p_ not attached: %+v", cmds[4])
	}
}

// The built-ins are pgbench 15's, as `pgbench --show-script` prints them.
func TestBuiltinsAsPgbenchShowsThem(t *testing.T) {
	bin, err := exec.LookPath("pgbench")
	if err != nil {
		t.Skip("no pgbench binary")
	}
	for _, b := range builtins {
		out, err := exec.Command(bin, "--show-script="+b.name).CombinedOutput()
		if err != nil {
			t.Fatalf("pgbench --show-script=%s: %v\n%s", b.name, err, out)
		}
		want := "-- " + b.name + ": " + b.desc + "\n" + b.text
		if strings.TrimSpace(string(out)) != strings.TrimSpace(want) {
			t.Errorf("%s:\n%s\nwant (pgbench)\n%s", b.name, want, out)
		}
	}
}

func TestBuiltinPrefixes(t *testing.T) {
	if b, err := findBuiltin("tpcb"); err != nil || b.name != "tpcb-like" {
		t.Errorf("tpcb: %v %v", b.name, err)
	}
	if _, err := findBuiltin("s"); err == nil || !strings.Contains(err.Error(), "ambiguous") {
		t.Errorf("s: %v", err)
	}
	if _, err := findBuiltin("nope"); err == nil || !strings.Contains(err.Error(), "no builtin script found") {
		t.Errorf("nope: %v", err)
	}
}

func TestOptionsRefused(t *testing.T) {
	for _, c := range []struct{ opt, want string }{
		{"protocol=fast", "invalid query mode"},
		{"file=x.sql@abc", "invalid weight"},
		{"builtin=s", "ambiguous"},
		{"define=x", "invalid variable definition"},
		{"scale=0", "invalid scaling factor"},
		{"max-tries=-1", "invalid number of maximum tries"},
		{"nosuch=1", "unknown option"},
		{"file=x.sql@0", "total script weight must not be zero"},
	} {
		_, err := New(nil, []string{c.opt})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.opt, err, c.want)
		}
	}
}

// No script text makes the parser panic, and every command it returns
// has its line.
func FuzzParseScript(f *testing.F) {
	for _, b := range builtins {
		f.Add(b.text)
	}
	f.Add("\\set x CASE WHEN :a > 1 THEN -9223372036854775808 ELSE ~:b END\n\\if :x\nSELECT $$;$$ \\gset p\n\\elif 1\n\\else\n\\endif\n\\sleep :x ms\n")
	f.Add("SELECT '\\\n;\\;--\n/* /* */ */ E'\\'' \"a\"\"b\" :: :a:b")
	f.Fuzz(func(t *testing.T, text string) {
		cmds, err := parseScript("f.sql", text, newSymbols(), parseOptions{allowShell: true})
		if err != nil {
			return
		}
		for _, c := range cmds {
			if c.line < 1 {
				t.Fatalf("command without a line: %+v", c)
			}
		}
	})
}
