package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/target/targettest"
)

// valueColumns are the column types whose text TestValuesAsDatabaseSQL
// compares, with a value each (two rows: the value, and NULL).
var valueColumns = []struct{ typ, val string }{
	{"TINYINT", "-128"},
	{"TINYINT UNSIGNED", "255"},
	{"SMALLINT UNSIGNED", "65535"},
	{"MEDIUMINT", "-8388608"},
	{"INT", "-2147483648"},
	{"INT ZEROFILL", "42"},
	{"BIGINT", "-9223372036854775808"},
	{"BIGINT UNSIGNED", "18446744073709551615"},
	{"FLOAT", "3.1415927"},
	{"FLOAT", "1e20"},
	{"DOUBLE", "0.1"},
	{"DOUBLE", "1e100"},
	{"DOUBLE", "-2.5e-7"},
	{"DECIMAL(12,4)", "-12.3400"},
	{"CHAR(3)", "'abc'"},
	{"VARCHAR(10)", "''"},
	{"VARBINARY(4)", "X'00FF'"},
	{"BLOB", "X''"},
	{"DATE", "'2024-02-29'"},
	{"DATETIME(6)", "'2024-01-02 03:04:05.123456'"},
	{"TIMESTAMP", "'2024-01-02 03:04:05'"},
	{"TIME(3)", "'-12:34:56.789'"},
	{"YEAR", "2024"},
	{"BIT(8)", "b'101'"},
	{"ENUM('x','y')", "'y'"},
}

// The Conn's text for every column type, through the text protocol (no
// arguments) and the binary protocol (a prepared statement), is exactly
// what database/sql scans into sql.RawBytes from the same driver, NULL and
// empty values included.
func TestValuesAsDatabaseSQL(t *testing.T) {
	tgt := openTarget(t, testURL(t), target.Options{})
	c := targettest.Connect(t, tgt)
	table := targettest.TableName("candor_my_values")
	targettest.DropAtEnd(t, tgt, table)
	var defs, vals, nulls []string
	for i, col := range valueColumns {
		defs = append(defs, fmt.Sprintf("c%d %s NULL", i, col.typ))
		vals = append(vals, col.val)
		nulls = append(nulls, "NULL")
	}
	mustExec(t, c, "CREATE TABLE "+table+" (id INT PRIMARY KEY, "+strings.Join(defs, ", ")+")")
	mustExec(t, c, "INSERT INTO "+table+" VALUES (1, "+strings.Join(vals, ", ")+"), (2, "+strings.Join(nulls, ", ")+")")

	ctx := context.Background()
	sc, err := tgt.(*Target).conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	for _, q := range []struct {
		name string
		sql  string
		args []any
	}{
		{"text protocol", "SELECT * FROM " + table + " ORDER BY id", nil},
		{"binary protocol", "SELECT * FROM " + table + " WHERE id > ? ORDER BY id", []any{0}},
	} {
		var got [][]string
		if _, err := c.Query(ctx, q.sql, q.args, func(cols [][]byte) error {
			got = append(got, show(cols))
			return nil
		}); err != nil {
			t.Fatalf("%s: %v", q.name, err)
		}
		want := rawBytes(t, sc, q.sql, q.args)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s:\n got  %v\n want %v", q.name, got, want)
		}
		t.Logf("%s: %v", q.name, got)
	}
}

// show renders a row for comparison: NULL, or the value quoted.
func show(cols [][]byte) []string {
	out := make([]string, len(cols))
	for i, v := range cols {
		if v == nil {
			out[i] = "NULL"
		} else {
			out[i] = fmt.Sprintf("%q", v)
		}
	}
	return out
}

// rawBytes runs a query through database/sql, scanning into sql.RawBytes.
func rawBytes(t *testing.T, c *sql.Conn, q string, args []any) [][]string {
	t.Helper()
	var (
		rows *sql.Rows
		err  error
	)
	if len(args) == 0 {
		rows, err = c.QueryContext(context.Background(), q)
	} else {
		var s *sql.Stmt
		if s, err = c.PrepareContext(context.Background(), q); err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		rows, err = s.QueryContext(context.Background(), args...)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	dest := make([]any, len(cols))
	raw := make([]sql.RawBytes, len(cols))
	for i := range dest {
		dest[i] = &raw[i]
	}
	var out [][]string
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			t.Fatal(err)
		}
		row := make([][]byte, len(raw))
		for i := range raw {
			row[i] = raw[i]
		}
		out = append(out, show(row))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
