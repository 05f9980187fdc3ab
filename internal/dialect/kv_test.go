package dialect

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// renderKV writes every statement of the key-value workloads for d, one per
// line, in a fixed order: the golden file is the reviewable SQL.
func renderKV(d Dialect) string {
	var b strings.Builder
	line := func(name, sql string) { fmt.Fprintf(&b, "%s: %s\n", name, sql) }

	k := KVBasic(d, "kv_basic", 50)
	line("kv_basic.create", k.CreateTable)
	line("kv_basic.read", k.Read)
	line("kv_basic.write", k.Write)
	line("kv_basic.insert_rows(1)", k.InsertRows(1))
	line("kv_basic.insert_rows(3)", k.InsertRows(3))
	line("kv_basic.columns", strings.Join(k.Columns, ","))
	line("kv_basic.max_insert_rows", fmt.Sprint(k.MaxInsertRows))

	i := KVInts(d, "kv_ints", 50, 50)
	line("kv_ints.create", i.CreateTable)
	line("kv_ints.read[0]", i.Read[0])
	line("kv_ints.read[49]", i.Read[49])
	line("kv_ints.write[0]", i.Write[0])
	line("kv_ints.write[49]", i.Write[49])
	line("kv_ints.columns", strings.Join(i.Columns, ","))
	line("kv_ints.max_insert_rows", fmt.Sprint(i.MaxInsertRows))
	line("kv_ints.begin", i.Begin)
	line("kv_ints.commit", i.Commit)
	line("kv_ints.rollback", i.Rollback)
	if i.Batch != nil {
		line("kv_ints.batch(logged)", i.Batch(true, []string{i.Write[3], i.Write[7]}))
		line("kv_ints.batch(unlogged)", i.Batch(false, []string{i.Write[3]}))
	}

	s := KVInts(d, "t1", 8, 2)
	line("kv_ints(t1,8,2).create", s.CreateTable)
	line("kv_ints(t1,8,2).insert_rows(2)", s.InsertRows(2))
	if create, call := KVIntsProcedure(d, "t1", 2, 2); create != "" {
		line("kv_ints_procedure(t1,2,2).create", create)
		line("kv_ints_procedure(t1,2,2).call", call)
	}
	return b.String()
}

// renderCommitLoop writes every commit-loop statement for d, for one job and
// for three.
func renderCommitLoop(d Dialect) string {
	var b strings.Builder
	line := func(name, sql string) { fmt.Fprintf(&b, "%s: %s\n", name, sql) }
	for _, jobs := range []int{1, 3} {
		c := CommitLoop(d, "demo", jobs)
		p := fmt.Sprintf("commit_loop(jobs=%d).", jobs)
		line(p+"create", c.CreateTable)
		line(p+"clock", c.Clock)
		line(p+"insert", c.Insert)
		line(p+"rate", c.Rate)
		line(p+"rate_per_job", c.RatePerJob)
		if c.InServer != nil {
			line(p+"in_server(job 2, 1..10000)", c.InServer(2, 1, 10000))
			line(p+"in_server(job 2, 10001..20000)", c.InServer(2, 10001, 20000))
		} else {
			line(p+"in_server", "(none)")
		}
	}
	return b.String()
}

// renderLedger writes the ledger workload's statements for d, and
// commit-loop's read-back of its ledger ids.
func renderLedger(d Dialect) string {
	var b strings.Builder
	line := func(name, sql string) { fmt.Fprintf(&b, "%s: %s\n", name, sql) }
	l := Ledger(d, "ledger", 16)
	line("ledger.create", l.CreateTable)
	line("ledger.insert", l.Insert)
	line("ledger.read_back", l.ReadBack)
	line("ledger.owners", l.Owners)
	line("ledger.node_writable", NodeWritable(d))
	line("commit_loop(jobs=1).read_back", CommitLoopReadBack(d, "demo", 1))
	line("commit_loop(jobs=3).read_back", CommitLoopReadBack(d, "demo", 3))
	return b.String()
}

// TestLedgerGolden compares the ledger SQL with testdata/ledger_<dialect>.golden.
func TestLedgerGolden(t *testing.T) { checkGolden(t, "ledger", renderLedger, VoltDB) }

// TestKVGolden and TestCommitLoopGolden compare the SQL with
// testdata/<kind>_<dialect>.golden; run with -update to rewrite them.
func TestKVGolden(t *testing.T)         { checkGolden(t, "kv", renderKV, CQL, VoltDB) }
func TestCommitLoopGolden(t *testing.T) { checkGolden(t, "commitloop", renderCommitLoop) }

// TestListAppendGolden compares the list-append SQL with
// testdata/listappend_<dialect>.golden.
func TestListAppendGolden(t *testing.T) {
	checkGolden(t, "listappend", func(d Dialect) string {
		s := ListAppend(d, "demo")
		return "create: " + s.Create + "\nappend: " + s.Append + "\nread: " + s.Read + "\nbegin: " + s.Begin +
			"\ncommit: " + s.Commit + "\nrollback: " + s.Rollback + "\n"
	})
}

// checkGolden checks the SQL dialects and the extra dialects given.
func checkGolden(t *testing.T, kind string, render func(Dialect) string, extra ...Dialect) {
	for _, d := range append([]Dialect{Postgres, SQLite, MySQL}, extra...) {
		t.Run(d.Name, func(t *testing.T) {
			golden(t, filepath.Join("testdata", kind+"_"+d.Name+".golden"), render(d))
		})
	}
}

// The KV multi-row INSERT binds exactly n × columns parameters, numbered in
// order for $n dialects, and its row limit fits the bind-parameter limit.
func TestKVInsertRowsParams(t *testing.T) {
	for _, d := range []Dialect{Postgres, SQLite, MySQL} {
		for _, n := range []int{1, 2, 7} {
			st := KVInts(d, "t", 50, 3)
			sql := st.InsertRows(n)
			want := n * 4
			if d.Placeholder == Dollar {
				if !strings.Contains(sql, fmt.Sprintf("$%d)", want)) || strings.Contains(sql, fmt.Sprintf("$%d", want+1)) {
					t.Errorf("%s n=%d: last parameter is not $%d: %s", d.Name, n, want, sql)
				}
			} else if got := strings.Count(sql, "?"); got != want {
				t.Errorf("%s n=%d: %d parameters, want %d", d.Name, n, got, want)
			}
		}
		// a row limit that would overflow the dialect's parameter limit
		if st := KVInts(d, "t", 50, 50); st.MaxInsertRows*51 > d.MaxBindParams || (st.MaxInsertRows+1)*51 <= d.MaxBindParams {
			t.Errorf("%s: MaxInsertRows %d is not the largest fit under %d parameters", d.Name, st.MaxInsertRows, d.MaxBindParams)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("InsertRows(0) did not panic")
		}
	}()
	KVBasic(Postgres, "t", 50).InsertRows(0)
}

// Only PostgreSQL has the in-server loop; the list CommitLoopInServerDialects
// gives in error messages says so.
func TestCommitLoopInServerDialects(t *testing.T) {
	for _, d := range []Dialect{Postgres, SQLite, MySQL} {
		has := CommitLoop(d, "demo", 1).InServer != nil
		listed := strings.Contains(strings.Join(CommitLoopInServerDialects(), ","), d.Name)
		if has != listed {
			t.Errorf("%s: InServer present=%v but listed=%v", d.Name, has, listed)
		}
	}
}
