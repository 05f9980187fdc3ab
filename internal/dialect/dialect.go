// Package dialect holds the SQL text of each product as pure functions of a
// Dialect value, so statements can be golden-tested as strings. Workloads ask
// the dialect for SQL; they never branch on a product name.
package dialect

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
