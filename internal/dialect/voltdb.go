package dialect

import "strings"

// voltMaxColumn is the most bytes one VARCHAR or VARBINARY column may
// declare; voltMaxRow the most a row may declare in all (VoltDB's limits,
// 1 MiB and 2 MiB), less room for the key.
const (
	voltMaxColumn = 1 << 20
	voltMaxRow    = 2<<20 - 1024
)

// voltPartition appends the PARTITION TABLE statement that spreads table
// over the partitions by its primary key column key, sent with the CREATE
// TABLE in one @AdHoc call (both or neither).
func voltPartition(create, table, key string) string {
	return create + "; PARTITION TABLE " + table + " ON COLUMN " + key
}

// VoltDBInsertRows returns n single-row INSERTs of cols into table, joined
// by "; ": VoltDB has no multi-row INSERT, and its driver sends the
// statements of one Exec as separate @AdHoc calls, all at once (not
// atomic: each row is a transaction of its own). n = 1 is the plain INSERT.
func VoltDBInsertRows(table string, cols []string, n int) string {
	one := VoltDB.InsertRows(table, cols, 1)
	if n == 1 {
		return one
	}
	if n < 1 {
		panic("dialect: InsertRows needs n >= 1, got " + itoa(n))
	}
	return strings.Repeat(one+"; ", n-1) + one
}

// voltFieldBytes is the width of each of fields text columns beside a key:
// as wide as VoltDB's row limit lets every one of them be.
func voltFieldBytes(fields int) int {
	return min(voltMaxColumn, voltMaxRow/max(fields, 1))
}

// voltOwnership is the ownership SQL on VoltDB. Whether a table exists is
// asked of the system procedure @SystemCatalog TABLES (VoltDB has no
// catalog in SQL), filtered by the driver to the row of the table's name;
// VoltDB keeps names in upper case and the filter ignores case. VoltDB
// gives no table identity candor can read (no table id in the catalog):
// the mark alone tells candor's tables, as on CockroachDB.
func voltOwnership(d Dialect) OwnershipStatements {
	return OwnershipStatements{
		CreateMarker: "CREATE TABLE " + MarkerTable +
			" (table_name VARCHAR(255) NOT NULL, workload VARCHAR(255), created_at VARCHAR(64), PRIMARY KEY (table_name))",
		TableExists: "EXEC @SystemCatalog TABLES WHERE TABLE_NAME = ?",
		Owner:       "SELECT workload FROM " + MarkerTable + " WHERE table_name = ?",
		Marks:       "SELECT table_name, workload FROM " + MarkerTable + " ORDER BY table_name",
		Mark:        "INSERT INTO " + MarkerTable + " (table_name, workload, created_at) VALUES (?, ?, ?)",
		Unmark:      "DELETE FROM " + MarkerTable + " WHERE table_name = ?",
		Remark:      "UPDATE " + MarkerTable + " SET workload = ? WHERE table_name = ?",
		RemarkIf:    "UPDATE " + MarkerTable + " SET workload = ? WHERE table_name = ? AND workload = ?",
		// The procedure a kv-ints-batch table carries (KVIntsProcedure)
		// goes first, in the same call: VoltDB refuses to drop a table a
		// procedure reads. IF EXISTS: other tables have none.
		DropTable: func(table string) string {
			return "DROP PROCEDURE " + table + KVProcedureSuffix + " IF EXISTS; DROP TABLE " + table
		},
	}
}
