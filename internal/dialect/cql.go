package dialect

import "strings"

// cqlOwnership is the CQL text of candor's ownership marks. The marker
// table lives in the session's keyspace; whether a table exists is asked of
// system_schema.tables by keyspace name (d.Keyspace, a plain identifier the
// driver has checked, written as a string literal) and table name. CQL
// cannot order rows across partitions, so Marks comes unordered.
func cqlOwnership(d Dialect) OwnershipStatements {
	return OwnershipStatements{
		CreateMarker: "CREATE TABLE IF NOT EXISTS " + MarkerTable +
			" (table_name text PRIMARY KEY, workload text, created_at text)",
		TableExists: "SELECT table_name FROM system_schema.tables WHERE keyspace_name = '" + d.Keyspace + "' AND table_name = ?",
		Owner:       "SELECT workload FROM " + MarkerTable + " WHERE table_name = ?",
		Marks:       "SELECT table_name, workload FROM " + MarkerTable,
		Mark:        "INSERT INTO " + MarkerTable + " (table_name, workload, created_at) VALUES (?, ?, ?)",
		Remark:      "UPDATE " + MarkerTable + " SET workload = ? WHERE table_name = ?",
		// A lightweight transaction (Paxos): its result row's [applied]
		// column says whether it changed the mark (the driver's Exec counts
		// it as one row or none).
		RemarkIf:  "UPDATE " + MarkerTable + " SET workload = ? WHERE table_name = ? IF workload = ?",
		Unmark:    "DELETE FROM " + MarkerTable + " WHERE table_name = ?",
		DropTable: func(table string) string { return "DROP TABLE " + table },
		// The table id Cassandra gives a table when it creates it (a
		// timeuuid); TRUNCATE and ALTER keep it.
		Identity: []IdentityPart{{Keys: []string{"id"}, Query: "SELECT id FROM system_schema.tables WHERE keyspace_name = '" + d.Keyspace + "' AND table_name = ?"}},
	}
}

// YCSB's CQL binding's column names (CassandraCQLClient: YCSB_KEY = "y_id",
// fields field0..). The other dialects follow the JDBC binding instead.
const (
	YCSBCQLKeyColumn   = "y_id"
	ycsbCQLFieldPrefix = "field"
)

// cqlBatch returns n INSERTs of cols into table as one unlogged BATCH
// (CQL has no multi-row INSERT): values bound row by row. An unlogged batch
// is not atomic across partitions; it saves round trips only. n = 1 is the
// plain INSERT.
func cqlBatch(d Dialect, table string, cols []string, n int) string {
	if n < 1 {
		panic("dialect: InsertRows needs n >= 1, got " + itoa(n))
	}
	one := d.InsertRows(table, cols, 1)
	if n == 1 {
		return one
	}
	var b strings.Builder
	b.Grow(len("BEGIN UNLOGGED BATCH  APPLY BATCH") + n*(len(one)+2))
	b.WriteString("BEGIN UNLOGGED BATCH ")
	for i := 0; i < n; i++ {
		b.WriteString(one)
		b.WriteString("; ")
	}
	b.WriteString("APPLY BATCH")
	return b.String()
}

// cqlKVInts is kv-ints in CQL: int columns, read as they are (the CQL
// driver returns integers as decimal text), no transaction statements (CQL
// has none: the atomic kv-ints-batch is refused on a target without
// transactions). cols are kv_key, c0, c1, ...
func cqlKVInts(d Dialect, table string, cols []string) KVIntsStatements {
	var create strings.Builder
	create.WriteString("CREATE TABLE " + table + " (" + KVKeyColumn + " varchar PRIMARY KEY")
	read := make([]string, len(cols)-1)
	write := make([]string, len(cols)-1)
	for i, c := range cols[1:] {
		create.WriteString(", " + c + " int")
		read[i] = "SELECT " + c + " FROM " + table + " WHERE " + KVKeyColumn + " = ?"
		write[i] = "UPDATE " + table + " SET " + c + " = ? WHERE " + KVKeyColumn + " = ?"
	}
	create.WriteString(")")
	return KVIntsStatements{
		CreateTable:   create.String(),
		Read:          read,
		Write:         write,
		InsertRows:    func(n int) string { return cqlBatch(d, table, cols, n) },
		Columns:       cols,
		MaxInsertRows: kvMaxRows(d, len(cols)),
		Batch:         cqlWriteBatch,
	}
}

// cqlWriteBatch is BEGIN [UNLOGGED] BATCH w1; w2; ... APPLY BATCH.
func cqlWriteBatch(logged bool, writes []string) string {
	var b strings.Builder
	b.WriteString("BEGIN ")
	if !logged {
		b.WriteString("UNLOGGED ")
	}
	b.WriteString("BATCH ")
	for _, w := range writes {
		b.WriteString(w)
		b.WriteString("; ")
	}
	b.WriteString("APPLY BATCH")
	return b.String()
}
