package dialect

import (
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// render writes every statement the package produces for d, one per line, in
// a fixed order: the golden file is the reviewable SQL of the dialect.
func render(d Dialect) string {
	var b strings.Builder
	line := func(name, sql string) { fmt.Fprintf(&b, "%s: %s\n", name, sql) }

	y := YCSB(d, "usertable", 10)
	line("ycsb.create", y.CreateTable)
	line("ycsb.drop", y.DropTable)
	line("ycsb.read", y.Read)
	line("ycsb.scan", y.Scan)
	line("ycsb.update[3]", y.Update([]int{3}))
	line("ycsb.update[0,9]", y.Update([]int{0, 9}))
	line("ycsb.update[9,0]", y.Update([]int{9, 0}))
	line("ycsb.update[all]", y.Update([]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}))
	line("ycsb.insert", y.Insert)
	line("ycsb.insert_rows(2)", y.InsertRows(2))
	line("ycsb.delete", y.Delete)
	line("ycsb.columns", strings.Join(y.Columns, ","))
	line("ycsb.max_insert_rows", fmt.Sprint(y.MaxInsertRows))

	small := YCSB(d, "t1", 1)
	line("ycsb(t1,1).create", small.CreateTable)
	line("ycsb(t1,1).insert_rows(3)", small.InsertRows(3))

	o := Ownership(d)
	line("owned.create_marker", o.CreateMarker)
	line("owned.table_exists", o.TableExists)
	line("owned.owner", o.Owner)
	line("owned.mark", o.Mark)
	line("owned.unmark", o.Unmark)
	line("owned.remark", o.Remark)
	line("owned.drop", o.DropTable("usertable"))
	for i, p := range o.Identity {
		line(fmt.Sprintf("owned.identity[%d] %s optional=%t", i, strings.Join(p.Keys, ","), p.Optional), p.Query)
	}
	if o.Tag != nil {
		line("owned.tag", strings.Join(o.Tag("CREATE TABLE usertable (k INT)", "usertable", "0123456789abcdef"), "; "))
	}

	if l, ok := Locks(d); ok {
		line("locks.try_exclusive", l.TryExclusive)
		line("locks.try_shared", l.TryShared)
		line("locks.unlock", l.Unlock)
		line("locks.unlock_shared", l.UnlockShared)
		line("locks.key(usertable)", fmt.Sprint(LockKey(d, "usertable")))
	} else {
		line("locks", "none in SQL (SQLite: candor locks a file beside the database; CQL: no lock)")
	}
	return b.String()
}

func TestGolden(t *testing.T) {
	cql := CQL
	cql.Keyspace = "ycsb"
	for _, d := range []Dialect{Postgres, SQLite, MySQL, cql, VoltDB} {
		t.Run(d.Name, func(t *testing.T) {
			golden(t, filepath.Join("testdata", d.Name+".golden"), render(d))
		})
	}
}

// The cached single-field and all-fields updates must equal the statement
// built on demand.
func TestUpdateCacheMatchesBuilt(t *testing.T) {
	for _, d := range []Dialect{Postgres, SQLite, MySQL} {
		y := YCSB(d, "usertable", 4)
		for f := 0; f < 4; f++ {
			// a two-element slice with a repeated index is never cached
			built := y.Update([]int{f, f})
			cached := y.Update([]int{f})
			wantPrefix := "UPDATE usertable SET FIELD" + fmt.Sprint(f) + " = " + d.Param(1) + " WHERE"
			if !strings.HasPrefix(cached, wantPrefix) {
				t.Errorf("%s: Update([%d]) = %q", d.Name, f, cached)
			}
			if !strings.HasPrefix(built, "UPDATE usertable SET FIELD"+fmt.Sprint(f)+" = "+d.Param(1)+", ") {
				t.Errorf("%s: Update([%d,%d]) = %q", d.Name, f, f, built)
			}
		}
		// all fields out of order is built, in the order given
		if got := y.Update([]int{3, 2, 1, 0}); !strings.HasPrefix(got, "UPDATE usertable SET FIELD3 = ") {
			t.Errorf("%s: out-of-order all-fields update = %q", d.Name, got)
		}
	}
}

// InsertRows carries exactly n*(fieldcount+1) parameters, numbered 1.. in
// order for $n dialects.
func TestInsertRowsParams(t *testing.T) {
	for _, d := range []Dialect{Postgres, SQLite, MySQL} {
		for _, fc := range []int{0, 1, 10} {
			y := YCSB(d, "usertable", fc)
			for _, n := range []int{1, 2, 7} {
				sql := y.InsertRows(n)
				want := n * (fc + 1)
				var got int
				if d.Placeholder == Dollar {
					got = strings.Count(sql, "$")
					if !strings.HasSuffix(sql, "$"+fmt.Sprint(want)+")") {
						t.Errorf("%s fc=%d n=%d: last parameter wrong: %q", d.Name, fc, n, sql)
					}
				} else {
					got = strings.Count(sql, "?")
				}
				if got != want {
					t.Errorf("%s fc=%d n=%d: %d parameters, want %d", d.Name, fc, n, got, want)
				}
			}
			if y.MaxInsertRows*(fc+1) > d.MaxBindParams || (y.MaxInsertRows+1)*(fc+1) <= d.MaxBindParams {
				t.Errorf("%s fc=%d: MaxInsertRows %d does not fit %d parameters tightly", d.Name, fc, y.MaxInsertRows, d.MaxBindParams)
			}
		}
	}
}

func TestMaxInsertRowsUnlimited(t *testing.T) {
	d := Postgres
	d.MaxBindParams = 0
	if got := YCSB(d, "usertable", 10).MaxInsertRows; got != 0 {
		t.Errorf("no bind limit: MaxInsertRows = %d, want 0", got)
	}
}

func TestProgrammingErrorsPanic(t *testing.T) {
	y := YCSB(Postgres, "usertable", 3)
	cases := map[string]func(){
		"update without fields":     func() { y.Update(nil) },
		"update field out of range": func() { y.Update([]int{3}) },
		"negative field":            func() { y.Update([]int{-1}) },
		"insert zero rows":          func() { y.InsertRows(0) },
	}
	for name, f := range cases {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

func TestLookup(t *testing.T) {
	cases := []struct {
		name string
		want Dialect
	}{
		{"postgres", Postgres},   // canonical name
		{"postgresql", Postgres}, // alias
		{"SQLite", SQLite},       // case-insensitive
		{"mysql", MySQL},         // MySQL wire
		{"MariaDB", MySQL},       // same SQL as MySQL: an alias
		{"tidb", TiDB},           // its own: MySQL text plus distribution clauses
	}
	for _, c := range cases {
		got, err := Lookup(c.name)
		if err != nil || got != c.want {
			t.Errorf("Lookup(%q) = %+v, %v; want %+v", c.name, got, err, c.want)
		}
	}
	_, err := Lookup("oracle")
	if err == nil || !strings.Contains(err.Error(), "mariadb, mysql, postgres, postgresql, sqlite, tidb") {
		t.Errorf("Lookup(oracle) error = %v, want the list of valid names", err)
	}
}

// TiDB's dialect shares MySQL's ownership SQL (information_schema, ?
// placeholders), whatever it adds for sharding.
func TestOwnershipTiDB(t *testing.T) {
	m, ti := Ownership(MySQL), Ownership(TiDB)
	if m.TableExists != ti.TableExists || m.Mark != ti.Mark || m.CreateMarker != ti.CreateMarker {
		t.Errorf("TiDB ownership SQL differs from MySQL's:\n%+v\n%+v", ti, m)
	}
}

func TestParam(t *testing.T) {
	if got := Postgres.Param(12); got != "$12" {
		t.Errorf("Postgres.Param(12) = %q", got)
	}
	if got := SQLite.Param(12); got != "?" {
		t.Errorf("SQLite.Param(12) = %q", got)
	}
	if got := MySQL.Param(12); got != "?" {
		t.Errorf("MySQL.Param(12) = %q", got)
	}
}
