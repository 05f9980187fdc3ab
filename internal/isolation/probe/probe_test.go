package probe

import (
	"errors"
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/dialect"
)

// scriptNamed returns the probe of anomaly a.
func scriptNamed(t *testing.T, a string) script {
	t.Helper()
	for _, sc := range scripts(dialect.Postgres) {
		if sc.name == a {
			return sc
		}
	}
	t.Fatalf("no probe %s", a)
	return script{}
}

// records makes a record per step: every step ran, without rows, unless
// edit changes it.
func records(sc script, edit func(recs []*stepRecord)) []*stepRecord {
	recs := make([]*stepRecord, len(sc.steps))
	for i := range recs {
		recs[i] = &stepRecord{done: make(chan struct{})}
	}
	if edit != nil {
		edit(recs)
	}
	return recs
}

// indexOf is the index of the n-th (0-based) step of session T (1-based)
// whose SQL starts with prefix.
func indexOf(t *testing.T, sc script, session int, prefix string, n int) int {
	t.Helper()
	for i, st := range sc.steps {
		if st.t == session-1 && strings.HasPrefix(st.sql, prefix) {
			if n == 0 {
				return i
			}
			n--
		}
	}
	t.Fatalf("%s: no step %d of T%d starting %q", sc.name, n, session, prefix)
	return -1
}

func TestChecks(t *testing.T) {
	abort := func(sc script, session int, prefix string) func([]*stepRecord) {
		return func(recs []*stepRecord) {
			recs[indexOf(t, sc, session, prefix, 0)].err = errors.New("could not serialize")
		}
	}
	p4, g2item, gsingle, g1a := scriptNamed(t, P4), scriptNamed(t, G2Item), scriptNamed(t, GSingle), scriptNamed(t, G1a)
	cases := []struct {
		name  string
		sc    script
		recs  []*stepRecord
		final map[int]int
		want  bool
	}{
		// Both increments committed but x grew by one: the lost update.
		{"P4 lost", p4, records(p4, nil), map[int]int{1: 11, 2: 20}, true},
		// Both committed and x grew by two: serial.
		{"P4 serial", p4, records(p4, nil), map[int]int{1: 12, 2: 20}, false},
		// T2's update failed (40001): only one increment, none lost.
		{"P4 aborted", p4, records(p4, abort(p4, 2, "UPDATE")), map[int]int{1: 11, 2: 20}, false},
		// Both write-skew transactions committed.
		{"G2-item both", g2item, records(g2item, nil), map[int]int{1: 11, 2: 21}, true},
		// T2's commit failed.
		{"G2-item one", g2item, records(g2item, abort(g2item, 2, "COMMIT")), map[int]int{1: 11, 2: 20}, false},
		// T1 read x before T2's transfer and y after it: 10 + 18.
		{"G-single skew", gsingle, records(gsingle, func(r []*stepRecord) {
			r[indexOf(t, gsingle, 1, "SELECT", 0)].rows = map[int]int{1: 10}
			r[indexOf(t, gsingle, 1, "SELECT", 1)].rows = map[int]int{2: 18}
		}), nil, true},
		// T1 read from one snapshot: 10 + 20.
		{"G-single snapshot", gsingle, records(gsingle, func(r []*stepRecord) {
			r[indexOf(t, gsingle, 1, "SELECT", 0)].rows = map[int]int{1: 10}
			r[indexOf(t, gsingle, 1, "SELECT", 1)].rows = map[int]int{2: 20}
		}), nil, false},
		// T2 saw T1's write that T1 rolled back.
		{"G1a dirty", g1a, records(g1a, func(r []*stepRecord) {
			r[indexOf(t, g1a, 2, "SELECT", 0)].rows = map[int]int{1: 101, 2: 20}
		}), nil, true},
	}
	for _, c := range cases {
		if got := c.sc.check(view{steps: c.sc.steps, recs: c.recs, final: c.final}); got != c.want {
			t.Errorf("%s: allowed = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestScripts: every anomaly has one probe, every session begins and ends
// its transaction, and a probe's statements name the table only as {t}.
func TestScripts(t *testing.T) {
	scs := scripts(dialect.MySQL)
	if len(scs) != len(Anomalies) {
		t.Fatalf("%d probes for %d anomalies", len(scs), len(Anomalies))
	}
	for i, sc := range scs {
		if sc.name != Anomalies[i] {
			t.Errorf("probe %d is %s, want %s", i, sc.name, Anomalies[i])
		}
		for s := 0; s < sc.sessions; s++ {
			var first, last step
			n := 0
			for _, st := range sc.steps {
				if st.t == s {
					if n == 0 {
						first = st
					}
					last = st
					n++
				}
			}
			if first.sql != "BEGIN" || !last.end {
				t.Errorf("%s: T%d starts %q and ends %q", sc.name, s+1, first.sql, last.sql)
			}
		}
		for _, st := range sc.steps {
			if strings.Contains(st.sql, DefaultTable) {
				t.Errorf("%s: %q names the table", sc.name, st.sql)
			}
		}
	}
}

func TestCell(t *testing.T) {
	for _, c := range []struct {
		o    Outcome
		want string
	}{
		{Outcome{Allowed: true, Blocked: []string{"T2 UPDATE"}}, "allowed"},
		{Outcome{}, "ok"},
		{Outcome{Blocked: []string{"T2 UPDATE"}}, "blocked"},
		{Outcome{Aborts: []Abort{{Code: "40001"}}}, "abort 40001"},
		{Outcome{Blocked: []string{"x"}, Aborts: []Abort{{Code: "1213/40001"}, {Code: "1205"}}}, "blocked, abort 1213/40001"},
	} {
		if got := c.o.Cell(); got != c.want {
			t.Errorf("%+v.Cell() = %q, want %q", c.o, got, c.want)
		}
	}
}

func TestWriteText(t *testing.T) {
	rep := Report{Product: "PostgreSQL", Version: "15.18", Target: "postgres://u@h/db", Levels: []Level{
		{Level: "read-uncommitted", Reason: "not supported"},
		{Level: "repeatable-read", Offered: true, Outcomes: []Outcome{
			{Anomaly: P4, Aborts: []Abort{{Step: "T2 UPDATE t SET v = $1 WHERE id = 1", Code: "40001", Message: "could not serialize access due to concurrent update"}}, Blocked: []string{"T2 UPDATE"}},
			{Anomaly: G2Item, Allowed: true},
		}},
	}}
	var b strings.Builder
	if err := WriteText(&b, rep); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"isolation probe of PostgreSQL 15.18 (postgres://u@h/db)",
		"read-uncommitted (not offered)  -   -    -",
		"blocked, abort 40001",
		"allowed",
		"repeatable-read, P4: T2 UPDATE t SET v = $1 WHERE id = 1: could not serialize access due to concurrent update (40001)",
		"read-uncommitted: not supported",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
}

func TestBadLevel(t *testing.T) {
	for _, l := range []string{"", "snapshot", "READ COMMITTED"} {
		_, err := Run(t.Context(), "sqlite://"+t.TempDir()+"/x.db", Options{Levels: []string{l}})
		if !errors.Is(err, ErrBadLevel) || !strings.Contains(err.Error(), "read-committed") {
			t.Errorf("level %q: %v, want ErrBadLevel listing the levels", l, err)
		}
	}
}
