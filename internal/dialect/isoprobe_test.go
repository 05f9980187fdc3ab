package dialect

import (
	"strings"
	"testing"
)

// TestProbe: each product's probe SQL uses its own placeholders, and a
// product either tells its lock waits (a session id and a statement that
// asks about it) or says at once that a statement would wait.
func TestProbe(t *testing.T) {
	for _, d := range []Dialect{Postgres, MySQL, SQLite} {
		p := Probe(d)
		if got := p.CreateTable("t"); got != "CREATE TABLE t (id INT PRIMARY KEY, v INT)" {
			t.Errorf("%s: CreateTable = %q", d.Name, got)
		}
		if (p.SessionID == "") == (p.WouldBlock == 0) {
			t.Errorf("%s: needs either a session id with Waiting statements or a WouldBlock code: %+v", d.Name, p)
		}
		for _, q := range p.Waiting {
			if !strings.Contains(q, d.Param(1)) {
				t.Errorf("%s: Waiting %q lacks the parameter %s", d.Name, q, d.Param(1))
			}
		}
		if len(p.Setup) == 0 {
			t.Errorf("%s: no session setup bounds lock waits", d.Name)
		}
	}
}
