package dialect

import (
	"strconv"
	"strings"
)

// MarkerTable is the table in which candor records every table it creates, so
// it never drops or reuses a table it did not create (docs/TABLES.md).
const MarkerTable = "candor_owned_tables"

// OwnershipStatements is the SQL behind candor's table-ownership marks. Table
// names are bound as parameters in lower case: every table candor creates is
// written unquoted, and both PostgreSQL (which folds unquoted names) and
// SQLite (which compares them case-insensitively) treat it as its lower-case
// spelling. MySQL keeps the case of table names on Linux
// (lower_case_table_names=0), so its existence check compares
// lower(table_name): a table is found whatever case it was created in.
type OwnershipStatements struct {
	// CreateMarker creates the marker table when it is absent.
	CreateMarker string
	// TableExists returns one row when a table named ? (lower case) exists
	// where an unqualified CREATE TABLE on this connection would put it, and no
	// row otherwise. It selects only text so raw values need no decoding.
	TableExists string
	// Owner selects the workload column of the mark of table ?; no row means
	// the table is not marked.
	Owner string
	// Marks selects table_name and workload of every mark, by table name.
	Marks string
	// Mark records table ?, workload ?, created_at ? (RFC 3339 UTC).
	Mark string
	// Unmark deletes the mark of table ?.
	Unmark string
	// Remark sets the mark of table ? (the second parameter) to workload ?
	// (the first): a load that finished rewrites the mark it began with.
	Remark string
	// RemarkIf sets the mark of table ? (the second parameter) to workload
	// ? (the first) only while it still reads ? (the third): an atomic
	// compare-and-swap of the mark row, so that loads of one table's key
	// ranges running at once (sharded loads) each add their range without
	// losing another's (on CQL a lightweight transaction).
	RemarkIf string
	// DropTable returns DROP TABLE <table>; table is used verbatim.
	DropTable func(table string) string
	// Identity reads a table's identity as the database knows it, for
	// table ? (lower case): each part's statement returns at most one row
	// whose columns are the values of its Keys. None: the product gives no
	// identity candor can read (CockroachDB, YugabyteDB, null://).
	Identity []IdentityPart
	// Weak are the parts of Identity a copy of the table's definition
	// carries (MySQL's comment token, copied by CREATE TABLE ... LIKE):
	// a table whose identity matches in these parts alone is not known
	// to be candor's.
	Weak []string
	// Rewritten are the parts of Identity that candor's own DDL after a
	// load (CREATE INDEX on MariaDB sets the create time anew) changes:
	// the load's end records them again.
	Rewritten []string
	// Tag returns the statements that create table by ddl carrying token
	// where Identity finds it again; nil when the database's own identity
	// needs none (SQLite and MySQL need one).
	Tag func(ddl, table, token string) []string
}

// IdentityPart is one statement of a table's identity.
type IdentityPart struct {
	Keys  []string // the names of its columns' values, in order
	Query string   // one parameter: the table name, lower case
	// Optional: an error (a privilege missing) or no row leaves the part
	// out instead of failing the read.
	Optional bool
}

// SQLiteTokenMark opens the comment that carries an SQLite table's token
// in its CREATE TABLE text (sqlite_schema.sql keeps comments).
const SQLiteTokenMark = "/* candor:"

// MySQLTokenMark begins the table comment that carries a MySQL table's
// token.
const MySQLTokenMark = "candor:"

// Ownership returns the ownership SQL for d.
func Ownership(d Dialect) OwnershipStatements {
	if d.Name == CQL.Name {
		return cqlOwnership(d)
	}
	if d.Name == VoltDB.Name {
		return voltOwnership(d)
	}
	p1, p2, p3 := d.Param(1), d.Param(2), d.Param(3)
	var exists string
	var identity []IdentityPart
	var tag func(ddl, table, token string) []string
	var weak, rewritten []string
	switch d.Name {
	case Postgres.Name:
		// The oid, and the transaction that created the table: the xmin
		// of its row type's pg_type row, which TRUNCATE, VACUUM FULL,
		// CREATE INDEX and ANALYZE leave as it is (they rewrite pg_class's
		// row, whose xmin changes, and relfilenode). A table dropped and
		// created again has another oid and another creating transaction.
		identity = []IdentityPart{{Keys: []string{"oid", "created"}, Query: "SELECT c.oid::text, t.xmin::text FROM pg_class c JOIN pg_type t ON t.oid = c.reltype " +
			"WHERE c.relname = " + p1 + " AND c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p')"}}
	case MySQL.Name:
		// A token candor writes into the table's comment right after
		// creating it (ALTER TABLE ... COMMENT changes no data), which
		// TRUNCATE, OPTIMIZE, ANALYZE and CREATE INDEX keep and a table
		// created by anyone else lacks; the table's create time
		// (information_schema.tables, readable with any privilege on the
		// table), which CREATE TABLE ... LIKE copies the comment without
		// and RENAME TABLE sets anew; and InnoDB's table id where the
		// PROCESS privilege shows it (INNODB_SYS_TABLES on MariaDB and
		// MySQL 5.7, INNODB_TABLES on MySQL 8), which TRUNCATE and
		// OPTIMIZE change too. The token alone is weak (a LIKE copy
		// carries it); the create time has seconds only, and CREATE
		// INDEX and OPTIMIZE set it anew on MariaDB (TRUNCATE does not):
		// a load's end records it again after candor's own post-load
		// DDL (Rewritten).
		identity = []IdentityPart{
			{Keys: []string{"token", "ctime"}, Query: "SELECT CASE WHEN table_comment LIKE '" + MySQLTokenMark + "%' THEN substr(table_comment, " + strconv.Itoa(len(MySQLTokenMark)+1) + ", 16) ELSE 'none' END, " +
				"CAST(UNIX_TIMESTAMP(create_time) AS CHAR) FROM information_schema.tables WHERE table_schema = DATABASE() AND lower(table_name) = " + p1},
			{Keys: []string{"tid"}, Query: "SELECT CAST(table_id AS CHAR) FROM information_schema.innodb_sys_tables WHERE lower(name) = lower(CONCAT(DATABASE(), '/', " + p1 + "))", Optional: true},
			{Keys: []string{"tid"}, Query: "SELECT CAST(table_id AS CHAR) FROM information_schema.innodb_tables WHERE lower(name) = lower(CONCAT(DATABASE(), '/', " + p1 + "))", Optional: true},
		}
		weak, rewritten = []string{"token"}, []string{"ctime"}
	case TiDB.Name:
		identity = []IdentityPart{{Keys: []string{"tid"}, Query: "SELECT CAST(tidb_table_id AS CHAR) FROM information_schema.tables WHERE table_schema = DATABASE() AND lower(table_name) = " + p1}}
	case SQLite.Name:
		// A token candor writes into the CREATE TABLE text as a comment,
		// which sqlite_schema keeps and a table created by anyone else
		// lacks. (The rowid of the sqlite_schema row is not part of it:
		// VACUUM renumbers those rows, and a table created again after
		// the last one dropped gets the same rowid.)
		identity = []IdentityPart{{Keys: []string{"token"}, Query: "SELECT CASE WHEN instr(sql, '" + SQLiteTokenMark + "') > 0 " +
			"THEN substr(sql, instr(sql, '" + SQLiteTokenMark + "') + " + strconv.Itoa(len(SQLiteTokenMark)) + ", 16) ELSE 'none' END " +
			"FROM sqlite_master WHERE type = 'table' AND lower(name) = " + p1}}
		tag = func(ddl, _, token string) []string { return []string{tagDDL(ddl, token)} }
	}
	if d.Name == MySQL.Name {
		tag = func(ddl, table, token string) []string {
			return []string{ddl, "ALTER TABLE " + table + " COMMENT = '" + MySQLTokenMark + token + "'"}
		}
	}
	switch {
	case d.Name == MySQL.Name || d.Name == TiDB.Name:
		// MySQL wire: DATABASE() is the schema an unqualified CREATE TABLE
		// uses. information_schema compares names case-sensitively on MySQL 8
		// (case-insensitively on MariaDB), hence lower(table_name); the
		// parameter is already lower case.
		exists = "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() AND lower(table_name) = " + p1
	case d.Placeholder == Question:
		// SQLite: the schema table of the main database.
		exists = "SELECT name FROM sqlite_master WHERE type = 'table' AND lower(name) = " + p1
	default:
		// PostgreSQL wire: information_schema is served by PostgreSQL,
		// YugabyteDB and CockroachDB alike; current_schema() is where an
		// unqualified CREATE TABLE creates the table.
		exists = "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = " + p1
	}
	return OwnershipStatements{
		CreateMarker: "CREATE TABLE IF NOT EXISTS " + MarkerTable +
			" (table_name VARCHAR(255) PRIMARY KEY, workload VARCHAR(255), created_at VARCHAR(64))",
		TableExists: exists,
		Owner:       "SELECT workload FROM " + MarkerTable + " WHERE table_name = " + p1,
		Marks:       "SELECT table_name, workload FROM " + MarkerTable + " ORDER BY table_name",
		Mark:        "INSERT INTO " + MarkerTable + " (table_name, workload, created_at) VALUES (" + p1 + ", " + p2 + ", " + p3 + ")",
		Unmark:      "DELETE FROM " + MarkerTable + " WHERE table_name = " + p1,
		Remark:      "UPDATE " + MarkerTable + " SET workload = " + p1 + " WHERE table_name = " + p2,
		RemarkIf:    "UPDATE " + MarkerTable + " SET workload = " + p1 + " WHERE table_name = " + p2 + " AND workload = " + p3,
		DropTable:   func(table string) string { return "DROP TABLE " + table },
		Identity:    identity,
		Weak:        weak,
		Rewritten:   rewritten,
		Tag:         tag,
	}
}

// tagDDL puts token, in a comment, right after the first parenthesis of a
// CREATE TABLE statement (before its first column).
func tagDDL(ddl, token string) string {
	i := strings.Index(ddl, "(")
	if i < 0 {
		return ddl
	}
	return ddl[:i+1] + SQLiteTokenMark + token + " */ " + ddl[i+1:]
}
