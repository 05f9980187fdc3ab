package dialect

import (
	"fmt"
	"sort"
	"strings"
)

// Postgres is the PostgreSQL wire dialect (PostgreSQL, YugabyteDB YSQL,
// CockroachDB): $n placeholders, scans limited with FETCH FIRST ? ROWS ONLY as
// YCSB's JDBC binding sends to PostgreSQL, and at most 65535 bind parameters
// per statement (the protocol's 16-bit parameter count).
var Postgres = Dialect{
	Name:          "postgres",
	Placeholder:   Dollar,
	ScanLimit:     "fetch",
	MaxBindParams: 65535,
}

// SQLite is the embedded SQLite dialect: ? placeholders, LIMIT ?, and at most
// 32766 bind parameters (SQLITE_MAX_VARIABLE_NUMBER in modernc.org/sqlite,
// the default of SQLite ≥ 3.32).
var SQLite = Dialect{
	Name:          "sqlite",
	Placeholder:   Question,
	ScanLimit:     "limit",
	MaxBindParams: 32766,
}

// byName maps every accepted name to its dialect; aliases map to the same value.
var byName = map[string]Dialect{
	"postgres":   Postgres,
	"postgresql": Postgres,
	"sqlite":     SQLite,
}

// Lookup returns the dialect registered under name (case-insensitive;
// "postgresql" is an alias of "postgres"). An unknown name is an error that
// lists the valid names.
func Lookup(name string) (Dialect, error) {
	if d, ok := byName[strings.ToLower(name)]; ok {
		return d, nil
	}
	return Dialect{}, fmt.Errorf("unknown dialect %q; valid dialects: %s", name, strings.Join(Names(), ", "))
}

// Names lists the accepted dialect names, aliases included, sorted.
func Names() []string {
	out := make([]string, 0, len(byName))
	for n := range byName {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
