package probe

import (
	"fmt"
	"strings"

	"github.com/candor-bench/candor/internal/dialect"
)

// The anomalies candor probes, in the order its tables list them
// (Hermitage's, with the write-predicate variants beside their read ones).
const (
	G0           = "G0"             // write cycle: dirty write
	G1a          = "G1a"            // aborted read
	G1b          = "G1b"            // intermediate read
	G1c          = "G1c"            // circular information flow
	OTV          = "OTV"            // observed transaction vanishes
	PMP          = "PMP"            // predicate-many-preceders, read predicate
	PMPWrite     = "PMP-write"      // predicate-many-preceders, write predicate
	P4           = "P4"             // lost update
	GSingle      = "G-single"       // read skew, read-only reader
	GSingleWrite = "G-single-write" // read skew, the reader writes by predicate
	G2Item       = "G2-item"        // write skew
	G2           = "G2"             // anti-dependency cycle on predicates
)

// Anomalies lists every probed anomaly in table order.
var Anomalies = []string{G0, G1a, G1b, G1c, OTV, PMP, PMPWrite, P4, GSingle, GSingleWrite, G2Item, G2}

// step is one statement of one session (t: 0 for T1) in a script. SQL
// text names the probe's table as {t}.
type step struct {
	t    int
	sql  string
	read bool                           // a SELECT of (id, v) rows
	end  bool                           // COMMIT or ROLLBACK
	args func(recs []*stepRecord) []any // bind values from earlier steps; nil: none
}

// text is the step as a reader sees it, on the probe's table.
func (s step) text(table string) string { return fmt.Sprintf("T%d %s", s.t+1, expand(s.sql, table)) }

func expand(sql, table string) string { return strings.ReplaceAll(sql, "{t}", table) }

// script is one probe: the steps of two or three sessions in the order they
// are sent, and the check that tells from what they did whether the
// anomaly happened. The table holds (1, 10) and (2, 20) before it starts.
type script struct {
	name     string
	sessions int
	steps    []step
	check    func(v view) bool // true: the anomaly was allowed
}

// view is what a check reads: each step's record and the table's final rows.
type view struct {
	steps []step
	recs  []*stepRecord
	final map[int]int
}

// rows is what read step i returned (nil when it did not run).
func (v view) rows(i int) map[int]int { return v.recs[i].rows }

// ran reports whether step i ran without an error.
func (v view) ran(i int) bool { return !v.recs[i].skipped && v.recs[i].err == nil }

// committed reports whether session t's COMMIT succeeded after every step
// of t did (t is 0 for T1).
func (v view) committed(t int) bool {
	for i, st := range v.steps {
		if st.t != t {
			continue
		}
		if !v.ran(i) {
			return false
		}
		if st.end {
			return strings.HasPrefix(st.sql, "COMMIT")
		}
	}
	return false
}

// has reports whether read step i returned row id with value val.
func (v view) has(i, id, val int) bool {
	r := v.rows(i)
	got, ok := r[id]
	return ok && got == val
}

// builder writes a script's steps.
type builder struct {
	d     dialect.Dialect
	steps []step
}

func (b *builder) add(s step) int { b.steps = append(b.steps, s); return len(b.steps) - 1 }
func (b *builder) do(t int, sql string) int {
	return b.add(step{t: t - 1, sql: sql})
}
func (b *builder) read(t int, sql string) int {
	return b.add(step{t: t - 1, sql: sql, read: true})
}
func (b *builder) begin(ts ...int) {
	for _, t := range ts {
		b.do(t, "BEGIN")
	}
}
func (b *builder) commit(t int) int   { return b.add(step{t: t - 1, sql: "COMMIT", end: true}) }
func (b *builder) rollback(t int) int { return b.add(step{t: t - 1, sql: "ROLLBACK", end: true}) }

const (
	readAll = "SELECT id, v FROM {t} ORDER BY id"
	readX   = "SELECT id, v FROM {t} WHERE id = 1"
	readY   = "SELECT id, v FROM {t} WHERE id = 2"
)

// scripts returns the probes in table order, their SQL in d's placeholders.
// Each follows Hermitage's interleaving for its anomaly; x is row 1 (10),
// y row 2 (20).
func scripts(d dialect.Dialect) []script {
	mk := func(name string, sessions int, body func(b *builder) func(v view) bool) script {
		b := &builder{d: d}
		check := body(b)
		return script{name: name, sessions: sessions, steps: b.steps, check: check}
	}
	return []script{
		mk(G0, 2, func(b *builder) func(v view) bool {
			// T2 overwrites x while T1's write of x is uncommitted; a
			// product that prevents it makes T2 wait for T1.
			b.begin(1, 2)
			b.do(1, "UPDATE {t} SET v = 11 WHERE id = 1")
			w := b.do(2, "UPDATE {t} SET v = 12 WHERE id = 1")
			b.do(1, "UPDATE {t} SET v = 21 WHERE id = 2")
			b.commit(1)
			b.do(2, "UPDATE {t} SET v = 22 WHERE id = 2")
			b.commit(2)
			return func(v view) bool {
				dirty := v.ran(w) && !v.recs[w].blocked
				mixed := (v.final[1] == 12 && v.final[2] == 21) || (v.final[1] == 11 && v.final[2] == 22)
				return dirty || mixed
			}
		}),
		mk(G1a, 2, func(b *builder) func(v view) bool {
			// T2 reads T1's write, which T1 then rolls back.
			b.begin(1, 2)
			b.do(1, "UPDATE {t} SET v = 101 WHERE id = 1")
			r1 := b.read(2, readAll)
			b.rollback(1)
			r2 := b.read(2, readAll)
			b.commit(2)
			return func(v view) bool { return v.has(r1, 1, 101) || v.has(r2, 1, 101) }
		}),
		mk(G1b, 2, func(b *builder) func(v view) bool {
			// T2 reads a value T1 wrote and overwrote before committing.
			b.begin(1, 2)
			b.do(1, "UPDATE {t} SET v = 101 WHERE id = 1")
			r1 := b.read(2, readAll)
			b.do(1, "UPDATE {t} SET v = 11 WHERE id = 1")
			b.commit(1)
			r2 := b.read(2, readAll)
			b.commit(2)
			return func(v view) bool { return v.has(r1, 1, 101) || v.has(r2, 1, 101) }
		}),
		mk(G1c, 2, func(b *builder) func(v view) bool {
			// Each reads the other's uncommitted write: a cycle of
			// write-read dependencies.
			b.begin(1, 2)
			b.do(1, "UPDATE {t} SET v = 11 WHERE id = 1")
			b.do(2, "UPDATE {t} SET v = 22 WHERE id = 2")
			r1 := b.read(1, readY)
			r2 := b.read(2, readX)
			b.commit(1)
			b.commit(2)
			return func(v view) bool { return v.has(r1, 2, 22) && v.has(r2, 1, 11) }
		}),
		mk(OTV, 3, func(b *builder) func(v view) bool {
			// T3 sees a write of T2, then a write of T1 that T2 overwrote:
			// T2 vanishes from what T3 observed.
			b.begin(1, 2, 3)
			b.do(1, "UPDATE {t} SET v = 11 WHERE id = 1")
			b.do(1, "UPDATE {t} SET v = 19 WHERE id = 2")
			b.do(2, "UPDATE {t} SET v = 12 WHERE id = 1")
			b.commit(1)
			r1 := b.read(3, readAll)
			b.do(2, "UPDATE {t} SET v = 18 WHERE id = 2")
			r2 := b.read(3, readAll)
			b.commit(2)
			r3 := b.read(3, readAll)
			b.commit(3)
			return func(v view) bool {
				reads := []int{r1, r2, r3}
				for i, a := range reads {
					if !(v.has(a, 1, 12) || v.has(a, 2, 18)) {
						continue
					}
					for _, c := range reads[i:] {
						if v.has(c, 1, 11) || v.has(c, 2, 19) {
							return true
						}
					}
				}
				return false
			}
		}),
		mk(PMP, 2, func(b *builder) func(v view) bool {
			// T1's second predicate read sees a row T2 inserted after
			// T1's first predicate read.
			b.begin(1, 2)
			b.read(1, "SELECT id, v FROM {t} WHERE v = 30")
			b.do(2, "INSERT INTO {t} (id, v) VALUES (3, 30)")
			b.commit(2)
			r := b.read(1, "SELECT id, v FROM {t} WHERE v % 3 = 0")
			b.commit(1)
			return func(v view) bool { return v.has(r, 3, 30) }
		}),
		mk(PMPWrite, 2, func(b *builder) func(v view) bool {
			// T2 deletes by a predicate while T1 changes the rows it
			// matches; afterwards T2 still sees a row of the value it
			// deleted.
			b.begin(1, 2)
			b.do(1, "UPDATE {t} SET v = v + 10")
			b.read(2, "SELECT id, v FROM {t} WHERE v = 20")
			b.do(2, "DELETE FROM {t} WHERE v = 20")
			b.commit(1)
			r := b.read(2, readAll)
			b.commit(2)
			return func(v view) bool {
				for _, val := range v.rows(r) {
					if val == 20 {
						return v.committed(1) // T2
					}
				}
				return false
			}
		}),
		mk(P4, 2, func(b *builder) func(v view) bool {
			// Both read x and write back what they read plus one: with
			// both committed, x must have grown by two.
			b.begin(1, 2)
			a := b.read(1, readX)
			c := b.read(2, readX)
			plusOne := func(i int) func(recs []*stepRecord) []any {
				return func(recs []*stepRecord) []any { return []any{recs[i].rows[1] + 1} }
			}
			b.add(step{t: 0, sql: "UPDATE {t} SET v = " + b.d.Param(1) + " WHERE id = 1", args: plusOne(a)})
			b.add(step{t: 1, sql: "UPDATE {t} SET v = " + b.d.Param(1) + " WHERE id = 1", args: plusOne(c)})
			b.commit(1)
			b.commit(2)
			return func(v view) bool { return v.committed(0) && v.committed(1) && v.final[1] < 12 }
		}),
		mk(GSingle, 2, func(b *builder) func(v view) bool {
			// T2 moves 2 from y to x (x + y stays 30); read-only T1 reads
			// x before T2 commits and y after: a sum other than 30.
			b.begin(1, 2)
			a := b.read(1, readX)
			b.read(2, readX)
			b.read(2, readY)
			b.do(2, "UPDATE {t} SET v = 12 WHERE id = 1")
			b.do(2, "UPDATE {t} SET v = 18 WHERE id = 2")
			b.commit(2)
			c := b.read(1, readY)
			b.commit(1)
			return func(v view) bool {
				return v.ran(a) && v.ran(c) && v.rows(a)[1]+v.rows(c)[2] != 30
			}
		}),
		mk(GSingleWrite, 2, func(b *builder) func(v view) bool {
			// As G-single, but T1 then deletes by a predicate over y: it
			// writes on T2's state after reading x from before T2.
			b.begin(1, 2)
			b.read(1, readX)
			b.read(2, readAll)
			b.do(2, "UPDATE {t} SET v = 12 WHERE id = 1")
			b.do(2, "UPDATE {t} SET v = 18 WHERE id = 2")
			b.commit(2)
			b.do(1, "DELETE FROM {t} WHERE v = 20")
			b.read(1, readY)
			b.commit(1)
			return func(v view) bool { return v.committed(0) && v.committed(1) }
		}),
		mk(G2Item, 2, func(b *builder) func(v view) bool {
			// Each reads both rows and writes the one the other did not.
			b.begin(1, 2)
			b.read(1, "SELECT id, v FROM {t} WHERE id IN (1, 2)")
			b.read(2, "SELECT id, v FROM {t} WHERE id IN (1, 2)")
			b.do(1, "UPDATE {t} SET v = 11 WHERE id = 1")
			b.do(2, "UPDATE {t} SET v = 21 WHERE id = 2")
			b.commit(1)
			b.commit(2)
			return func(v view) bool { return v.committed(0) && v.committed(1) }
		}),
		mk(G2, 2, func(b *builder) func(v view) bool {
			// Each reads a predicate and inserts a row the other's read
			// would have matched.
			b.begin(1, 2)
			b.read(1, "SELECT id, v FROM {t} WHERE v % 3 = 0")
			b.read(2, "SELECT id, v FROM {t} WHERE v % 3 = 0")
			b.do(1, "INSERT INTO {t} (id, v) VALUES (3, 30)")
			b.do(2, "INSERT INTO {t} (id, v) VALUES (4, 42)")
			b.commit(1)
			b.commit(2)
			return func(v view) bool { return v.committed(0) && v.committed(1) }
		}),
	}
}
