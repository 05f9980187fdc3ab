package dialect

// MarkerTable is the table in which candor records every table it creates, so
// it never drops or reuses a table it did not create (DESIGN.md §6).
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
}

// Ownership returns the ownership SQL for d.
func Ownership(d Dialect) OwnershipStatements {
	if d.Name == CQL.Name {
		return cqlOwnership(d)
	}
	p1, p2, p3 := d.Param(1), d.Param(2), d.Param(3)
	var exists string
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
	}
}
