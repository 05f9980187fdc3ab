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

// YugabyteDB is the PostgreSQL wire dialect as YugabyteDB YSQL speaks it:
// PostgreSQL's text for everything PostgreSQL writes, plus YugabyteDB's table
// distribution clauses (PRIMARY KEY (id HASH) / (id ASC), SPLIT INTO n TABLETS,
// SPLIT AT VALUES) where a workload asks for sharding. The postgres driver
// returns it when SELECT version() carries "-YB-".
var YugabyteDB = Dialect{
	Name:          "yugabytedb",
	Placeholder:   Dollar,
	ScanLimit:     "fetch",
	MaxBindParams: 65535,
}

// CockroachDB is the PostgreSQL wire dialect as CockroachDB speaks it:
// PostgreSQL's text for everything PostgreSQL writes, plus CockroachDB's
// hash-sharded primary keys (USING HASH), ALTER TABLE ... SPLIT AT, and real
// sequences where PostgreSQL's SERIAL would be unique_rowid(). The postgres
// driver returns it when SELECT version() names CockroachDB.
var CockroachDB = Dialect{
	Name:          "cockroachdb",
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

// MySQL is the MySQL wire dialect (MySQL, MariaDB, TiDB): ? placeholders,
// LIMIT ?, and at most 65535 bind parameters per prepared statement (the
// 16-bit parameter count of COM_STMT_PREPARE's reply). The three products
// accept the same text for everything this package writes — the YCSB table
// is the JDBC binding's create_table.mysql (YCSB_KEY VARCHAR(255) PRIMARY KEY,
// FIELDn TEXT) — so MariaDB and TiDB are aliases of it, not dialects of
// their own.
var MySQL = Dialect{
	Name:          "mysql",
	Placeholder:   Question,
	ScanLimit:     "limit",
	MaxBindParams: 65535,
}

// TiDB is the MySQL wire dialect as TiDB speaks it: MySQL's text for
// everything MySQL writes, plus TiDB's table distribution clauses
// (SHARD_ROW_ID_BITS, PRE_SPLIT_REGIONS, SPLIT TABLE, AUTO_ID_CACHE)
// where a workload asks for sharding or an id cache. A driver that recognises
// a TiDB server returns it.
var TiDB = Dialect{
	Name:          "tidb",
	Placeholder:   Question,
	ScanLimit:     "limit",
	MaxBindParams: 65535,
}

// CQL is the Cassandra Query Language (Apache Cassandra, ScyllaDB,
// YugabyteDB YCQL): ? placeholders, LIMIT ?, at most 65535 bind values per
// statement (the native protocol's 16-bit count). It is not SQL: no joins,
// no ORDER BY across partitions, no multi-statement transactions. Its
// Keyspace field names the keyspace of the session (the driver sets it).
var CQL = Dialect{
	Name:          "cql",
	Placeholder:   Question,
	ScanLimit:     "limit",
	MaxBindParams: 65535,
}

// VoltDB is VoltDB's SQL, run through its @AdHoc system procedure: ?
// placeholders, LIMIT ?, at most 1024 bind parameters (a procedure call
// carries at most 1025, and @AdHoc's first is the SQL text). It has no
// TEXT or BYTEA (VARCHAR(n BYTES) and VARBINARY(n), at most 1 MiB each, at
// most 2 MiB declared per row), no multi-row INSERT (VoltDBInsertRows
// sends one INSERT per row), no catalog in SQL (the ownership statements
// ask @SystemCatalog through the driver's EXEC form) and no transactions
// across calls. A workload table with a primary key is partitioned on it
// (PARTITION TABLE ... ON COLUMN, sent in the same call as its CREATE
// TABLE); candor's marker table is replicated to every partition.
var VoltDB = Dialect{
	Name:          "voltdb",
	Placeholder:   Question,
	ScanLimit:     "limit",
	MaxBindParams: 1024,
}

// byName maps every accepted name to its dialect; aliases map to the same value.
var byName = map[string]Dialect{
	"postgres":    Postgres,
	"postgresql":  Postgres,
	"yugabytedb":  YugabyteDB,
	"cockroachdb": CockroachDB,
	"sqlite":      SQLite,
	"mysql":       MySQL,
	"mariadb":     MySQL,
	"tidb":        TiDB,
	"cql":         CQL,
	"voltdb":      VoltDB,
}

// Lookup returns the dialect registered under name (case-insensitive;
// "postgresql" is an alias of "postgres", "mariadb" of "mysql").
// An unknown name is an error that lists the valid names.
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
