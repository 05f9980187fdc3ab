package mysql

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/target/targettest"
)

func TestTableLoadVersion(t *testing.T) {
	for v, want := range map[string]bool{
		"10.11.19-MariaDB-0+deb12u1": true,
		"10.11.11-MariaDB":           true,
		"10.11.10-MariaDB":           false, // MDEV-34703 not fixed
		"10.6.20-MariaDB":            false,
		"11.4.5-MariaDB":             true,
		"11.4.4-MariaDB":             false,
		"11.5.2-MariaDB":             false,
		"11.7.2-MariaDB":             true,
		"12.0.1-MariaDB":             true,
		"8.0.36":                     false, // MySQL: no such path
		"8.0.11-TiDB-v7.5.0":         false,
		"garbage-MariaDB":            false,
		"10.11-MariaDB":              false,
	} {
		if got := tableLoadVersion(v); got != want {
			t.Errorf("tableLoadVersion(%q) = %v, want %v", v, got, want)
		}
	}
}

func TestAppendTSV(t *testing.T) {
	got, err := appendTSV(nil, []any{int64(-7), 3, "a\tb\nc\\d\re\x00f", []byte("x"), nil})
	if err != nil {
		t.Fatal(err)
	}
	if want := "-7\t3\ta\\tb\\nc\\\\d\\re\\0f\tx\t\\N\n"; string(got) != want {
		t.Errorf("appendTSV = %q, want %q", got, want)
	}
	if _, err := appendTSV(nil, []any{1.5}); !errors.Is(err, target.ErrUnsupported) {
		t.Errorf("a float: %v, want ErrUnsupported", err)
	}
}

// The reader yields exactly the rendered rows whatever the read sizes, and
// reports progress up to n.
func TestTSVReader(t *testing.T) {
	const n = 20000
	var reported []int64
	row := func(i int64, dst []any) []any { return append(dst[:0], i+1, "v") }
	var want strings.Builder
	for i := int64(0); i < n; i++ {
		b, _ := appendTSV(nil, row(i, nil))
		want.Write(b)
	}
	for _, wrap := range []func(io.Reader) io.Reader{
		func(r io.Reader) io.Reader { return r },
		iotest.OneByteReader,
		iotest.HalfReader,
	} {
		reported = reported[:0]
		rd := &tsvReader{n: n, row: row, progress: func(k int64) { reported = append(reported, k) }}
		got, err := io.ReadAll(wrap(rd))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want.String() {
			t.Fatalf("read %d bytes, want %d (content differs)", len(got), want.Len())
		}
		if len(reported) == 0 || reported[len(reported)-1] != n {
			t.Fatalf("progress %v, want it to end at %d", reported, n)
		}
		for i := 1; i < len(reported); i++ {
			if reported[i] <= reported[i-1] {
				t.Fatalf("progress not increasing: %v", reported)
			}
		}
	}
	if err := iotest.TestReader(&tsvReader{n: 3, row: row}, []byte("1\tv\n2\tv\n3\tv\n")); err != nil {
		t.Error(err)
	}
}

// On a real MariaDB with the bulk path: every byte arrives as sent (tabs,
// newlines, backslashes, NUL, NULL), progress reaches n, the session's
// checks are restored, and a duplicate key fails the whole load, leaving the
// table empty.
func TestLoadTableOnMariaDB(t *testing.T) {
	tgt := openTarget(t, testURL(t), target.Options{})
	if !tgt.Capabilities().TableLoad {
		t.Skip("this server has no bulk path for empty tables (MariaDB 10.11.11+, 11.4.5+ or 11.7.2+ with local_infile on)")
	}
	ctx := context.Background()
	c := targettest.Connect(t, tgt)
	table := targettest.TableName("tableload")
	if err := target.CreateOwned(ctx, c, tgt.Dialect(), table,
		"CREATE TABLE "+table+" (id INTEGER NOT NULL PRIMARY KEY, s VARCHAR(40) NULL, b VARBINARY(40) NOT NULL, KEY b_1 (b))", "test"); err != nil {
		t.Fatal(err)
	}
	targettest.DropAtEnd(t, tgt, table)
	odd := []string{"tab\there", "new\nline", `back\slash`, "nul\x00byte", "cr\rx", `\N`, ""}
	const n = 20000
	row := func(i int64, dst []any) []any {
		var s any = odd[i%int64(len(odd))]
		if i%11 == 5 {
			s = nil
		}
		return append(dst[:0], i+1, s, []byte(fmt.Sprintf("b%06d", n-i)))
	}
	var last int64
	tl := c.(target.TableLoader)
	got, err := tl.LoadTable(ctx, table, []string{"id", "s", "b"}, n, row, func(k int64) { last = k })
	if err != nil || got != n || last != n {
		t.Fatalf("LoadTable: %d rows, progress %d, %v; want %d", got, last, err, n)
	}
	i := int64(0)
	if _, err := c.Query(ctx, "SELECT id, s, b FROM "+table+" ORDER BY id", nil, func(cols [][]byte) error {
		want := row(i, nil)
		if string(cols[0]) != fmt.Sprint(want[0]) || string(cols[2]) != string(want[2].([]byte)) ||
			(want[1] == nil) != (cols[1] == nil) || (want[1] != nil && string(cols[1]) != want[1].(string)) {
			return fmt.Errorf("row %d: got %q, want %q", i, cols, want)
		}
		i++
		return nil
	}); err != nil || i != n {
		t.Fatalf("reading back: %d rows, %v", i, err)
	}
	if rows := targettest.Rows(t, c, "SELECT @@SESSION.unique_checks, @@SESSION.foreign_key_checks"); rows[0][0] != "1" || rows[0][1] != "1" {
		t.Errorf("session checks after LoadTable: %v, want 1 1", rows)
	}

	// A duplicate id: nothing stays.
	empty := targettest.TableName("tableload")
	if err := target.CreateOwned(ctx, c, tgt.Dialect(), empty, "CREATE TABLE "+empty+" (id INTEGER NOT NULL PRIMARY KEY)", "test"); err != nil {
		t.Fatal(err)
	}
	targettest.DropAtEnd(t, tgt, empty)
	dup := func(i int64, dst []any) []any { return append(dst[:0], i%500) }
	if _, err := tl.LoadTable(ctx, empty, []string{"id"}, 1000, dup, nil); err == nil {
		t.Error("a load with duplicate keys succeeded")
	}
	if rows := targettest.Rows(t, c, "SELECT COUNT(*) FROM "+empty); rows[0][0] != "0" {
		t.Errorf("after a failed load the table holds %s rows, want 0", rows[0][0])
	}
}
