package dialect

import (
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// tpccDialects are the products with a TPC-C golden file.
var tpccDialects = []Dialect{Postgres, YugabyteDB, CockroachDB, MySQL, TiDB, SQLite}

// tpccLines are every statement of s, named by its field: statements that
// depend on a count rendered for 2 items (and district 3).
func tpccLines(s TPCCStatements) [][2]string {
	var out [][2]string
	for _, t := range s.Tables {
		out = append(out, [2]string{t.Name + ".create", t.Create})
		for i, ix := range t.Indexes {
			out = append(out, [2]string{fmt.Sprintf("%s.index%d", t.Name, i+1), ix})
		}
	}
	var walk func(prefix string, v reflect.Value)
	walk = func(prefix string, v reflect.Value) {
		for i := 0; i < v.NumField(); i++ {
			name, f := prefix+v.Type().Field(i).Name, v.Field(i)
			switch x := f.Interface().(type) {
			case string:
				out = append(out, [2]string{name, x})
			case []string:
				for j, q := range x {
					out = append(out, [2]string{fmt.Sprintf("%s[%d]", name, j), q})
				}
			case func(int) string:
				out = append(out, [2]string{name + "(2)", x(2)})
			case func(int, int) string:
				out = append(out, [2]string{name + "(3, 2)", x(3, 2)})
			case TPCCChecks:
				walk(name+".", f)
			}
		}
	}
	walk("", reflect.ValueOf(s))
	return out
}

func TestTPCCGolden(t *testing.T) {
	for _, d := range tpccDialects {
		t.Run(d.Name, func(t *testing.T) {
			s, err := TPCC(d)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			for _, l := range tpccLines(s) {
				fmt.Fprintf(&b, "%s: %s\n", l[0], l[1])
			}
			golden(t, filepath.Join("testdata", "tpcc_"+d.Name+".golden"), b.String())
		})
	}
}

// Every statement takes as many parameters on the PostgreSQL wire ($1..$n,
// each once and in order) as on the MySQL wire (?), and SQLite's text
// differs from MySQL's only where SQLite has no row locks.
func TestTPCCParams(t *testing.T) {
	pg, err := TPCC(Postgres)
	if err != nil {
		t.Fatal(err)
	}
	my, err := TPCC(MySQL)
	if err != nil {
		t.Fatal(err)
	}
	lite, err := TPCC(SQLite)
	if err != nil {
		t.Fatal(err)
	}
	dollar := regexp.MustCompile(`\$(\d+)`)
	byName := func(ls [][2]string) map[string]string {
		m := map[string]string{}
		for _, l := range ls {
			m[l[0]] = l[1]
		}
		return m
	}
	pl, ml, sl := tpccLines(pg), byName(tpccLines(my)), byName(tpccLines(lite))
	for i := range pl {
		if strings.HasPrefix(pl[i][0], "Analyze") || strings.HasPrefix(pl[i][0], "Checkpoint") {
			continue // per product
		}
		var nums []string
		for _, m := range dollar.FindAllStringSubmatch(pl[i][1], -1) {
			nums = append(nums, m[1])
		}
		for j, n := range nums {
			if n != fmt.Sprint(j+1) {
				t.Errorf("%s: parameters %v, want $1..$%d in order", pl[i][0], nums, len(nums))
				break
			}
		}
		if q := strings.Count(ml[pl[i][0]], "?"); q != len(nums) {
			t.Errorf("%s: %d parameters on PostgreSQL, %d on MySQL", pl[i][0], len(nums), q)
		}
		if q := sl[pl[i][0]]; strings.Contains(q, "FOR UPDATE") {
			t.Errorf("%s: SQLite has no FOR UPDATE: %s", pl[i][0], q)
		}
	}
	if lite.BeginWrite != "BEGIN IMMEDIATE" || pg.BeginWrite != "BEGIN" {
		t.Errorf("BeginWrite: SQLite %q, PostgreSQL %q", lite.BeginWrite, pg.BeginWrite)
	}
	if _, err := TPCC(CQL); err == nil || !strings.Contains(err.Error(), "tpcc runs on") {
		t.Errorf("CQL: %v, want a refusal listing the products", err)
	}
}
