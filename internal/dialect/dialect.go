// Package dialect holds the SQL text of each product as pure functions of a
// Dialect value, so statements can be golden-tested as strings. Workloads ask
// the dialect for SQL; they never branch on a product name.
package dialect

import "strings"

// Placeholder styles for bind parameters.
const (
	Dollar   = "dollar"   // $1, $2 (PostgreSQL wire)
	Question = "question" // ?, ? (SQLite, MySQL wire)
)

// Dialect describes one product's SQL. It is plain data plus pure functions in
// this package; the zero value is not usable.
type Dialect struct {
	Name        string // "postgres", "sqlite"
	Placeholder string // Dollar or Question
	// ScanLimit is how a row limit is written after ORDER BY: "limit" for
	// `LIMIT ?`, "fetch" for `FETCH FIRST ? ROWS ONLY` (what YCSB's JDBC
	// binding sends to PostgreSQL).
	ScanLimit string
	// MaxBindParams bounds the parameters of one statement (multi-row INSERT
	// batches are sized to fit). 0 means no limit.
	MaxBindParams int
	// Keyspace is the keyspace unqualified table names resolve to, for
	// dialects whose catalog must be asked by name (CQL has no
	// current_keyspace()); "" elsewhere. The CQL driver sets it.
	Keyspace string
}

// Param returns the n-th (1-based) bind parameter in this dialect.
func (d Dialect) Param(n int) string {
	if d.Placeholder == Dollar {
		return "$" + itoa(n)
	}
	return "?"
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

// InsertRows returns INSERT INTO table (cols) VALUES (...), (...) for n rows,
// with this dialect's bind parameters numbered across the rows. n < 1 is a
// programming error and panics.
func (d Dialect) InsertRows(table string, cols []string, n int) string {
	if n < 1 {
		panic("dialect: InsertRows needs n >= 1, got " + itoa(n))
	}
	var b strings.Builder
	b.Grow(32 + len(table) + n*len(cols)*6)
	b.WriteString("INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES ")
	p := 1
	for r := 0; r < n; r++ {
		if r > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for c := range cols {
			if c > 0 {
				b.WriteString(", ")
			}
			b.WriteString(d.Param(p))
			p++
		}
		b.WriteByte(')')
	}
	return b.String()
}
