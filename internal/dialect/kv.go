package dialect

import "strings"

// Column names of the key-value workloads (kv-basic, kv-ints,
// kv-ints-batch). The key column is not called "key": KEY is a reserved word
// in MySQL.
const (
	KVKeyColumn     = "kv_key"
	KVPayloadColumn = "payload"
	KVIntPrefix     = "c" // kv-ints columns c0, c1, ...
)

// KVBasicStatements is the SQL of kv-basic (KV-1): a table of
// (kv_key VARCHAR(keySize) PRIMARY KEY, payload <binary>), read and written
// one row at a time by key.
//
// The value is immutable; its strings and functions are safe for concurrent
// use.
type KVBasicStatements struct {
	// CreateTable is CREATE TABLE <t> (kv_key VARCHAR(n) PRIMARY KEY,
	// payload <type>) with the dialect's binary type: BYTEA on PostgreSQL,
	// BLOB on SQLite, MEDIUMBLOB (up to 16 MiB) on MySQL.
	CreateTable string
	Read        string // SELECT payload FROM <t> WHERE kv_key = ?
	Write       string // UPDATE <t> SET payload = ? WHERE kv_key = ? (payload, then key)
	// InsertRows returns a multi-row INSERT of n rows (key, payload per
	// row). n must be ≥ 1 (it panics otherwise).
	InsertRows func(n int) string
	Columns    []string // kv_key, payload
	// MaxInsertRows is the most rows one InsertRows statement may carry under
	// the dialect's bind-parameter limit; 0 means no limit.
	MaxInsertRows int
}

// KVBasic builds the kv-basic statements. table is used verbatim and
// unquoted (the caller validates it); keySize is the key column's width in
// characters.
func KVBasic(d Dialect, table string, keySize int) KVBasicStatements {
	cols := []string{KVKeyColumn, KVPayloadColumn}
	if d.Name == CQL.Name {
		return KVBasicStatements{
			CreateTable:   "CREATE TABLE " + table + " (" + KVKeyColumn + " varchar PRIMARY KEY, " + KVPayloadColumn + " blob)",
			Read:          "SELECT " + KVPayloadColumn + " FROM " + table + " WHERE " + KVKeyColumn + " = ?",
			Write:         "UPDATE " + table + " SET " + KVPayloadColumn + " = ? WHERE " + KVKeyColumn + " = ?",
			InsertRows:    func(n int) string { return cqlBatch(d, table, cols, n) },
			Columns:       cols,
			MaxInsertRows: kvMaxRows(d, len(cols)),
		}
	}
	create := "CREATE TABLE " + table + " (" + KVKeyColumn + " VARCHAR(" + itoa(keySize) + ") PRIMARY KEY, " +
		KVPayloadColumn + " " + kvBinaryType(d) + ")"
	insertRows := func(n int) string { return d.InsertRows(table, cols, n) }
	if d.Name == VoltDB.Name {
		create = voltPartition("CREATE TABLE "+table+" ("+KVKeyColumn+" VARCHAR("+itoa(keySize)+" BYTES) NOT NULL, "+
			KVPayloadColumn+" "+kvBinaryType(d)+", PRIMARY KEY ("+KVKeyColumn+"))", table, KVKeyColumn)
		insertRows = func(n int) string { return VoltDBInsertRows(table, cols, n) }
	}
	return KVBasicStatements{
		CreateTable:   create,
		Read:          "SELECT " + KVPayloadColumn + " FROM " + table + " WHERE " + KVKeyColumn + " = " + d.Param(1),
		Write:         "UPDATE " + table + " SET " + KVPayloadColumn + " = " + d.Param(1) + " WHERE " + KVKeyColumn + " = " + d.Param(2),
		InsertRows:    insertRows,
		Columns:       cols,
		MaxInsertRows: kvMaxRows(d, len(cols)),
	}
}

// KVIntsStatements is the SQL of kv-ints (KV-2) and kv-ints-batch (KV-3): a
// table of (kv_key VARCHAR(keySize) PRIMARY KEY, c0 INTEGER, ..,
// c<columns-1> INTEGER), one column read or written at a time by key, and
// the transaction statements of the batched variant.
//
// The value is immutable; its strings and functions are safe for concurrent
// use.
type KVIntsStatements struct {
	CreateTable string // CREATE TABLE <t> (kv_key VARCHAR(n) PRIMARY KEY, c0 INTEGER, ...)
	// Read[a] selects column c<a> of the row with key ? as text (a decimal
	// integer): PostgreSQL sends integers in binary, so every dialect casts.
	Read []string
	// Write[b] is UPDATE <t> SET c<b> = ? WHERE kv_key = ? (value, then key).
	Write []string
	// InsertRows returns a multi-row INSERT of n rows (key, c0.. per row).
	// n must be ≥ 1 (it panics otherwise).
	InsertRows func(n int) string
	Columns    []string // kv_key, c0, c1, ...
	// MaxInsertRows is the most rows one InsertRows statement may carry under
	// the dialect's bind-parameter limit; 0 means no limit.
	MaxInsertRows int
	// Begin starts a transaction that will write: BEGIN, or BEGIN IMMEDIATE
	// on SQLite, which takes the write lock up front so a concurrent writer
	// waits (busy_timeout) instead of failing when the read lock is upgraded.
	Begin    string
	Commit   string // COMMIT
	Rollback string // ROLLBACK
	// Batch returns the writes, each a Write statement, as one BATCH
	// statement (logged: atomic across partitions; unlogged: not), their
	// values bound in order; nil for dialects without batches (SQL).
	Batch func(logged bool, writes []string) string
}

// KVInts builds the kv-ints statements for a table of columns integer
// columns (columns < 0 is treated as 0). table is used verbatim and unquoted.
func KVInts(d Dialect, table string, keySize, columns int) KVIntsStatements {
	if columns < 0 {
		columns = 0
	}
	cols := make([]string, 0, columns+1)
	cols = append(cols, KVKeyColumn)
	var create strings.Builder
	create.WriteString("CREATE TABLE " + table + " (" + KVKeyColumn + " VARCHAR(" + itoa(keySize) + ") PRIMARY KEY")
	read := make([]string, columns)
	write := make([]string, columns)
	where := " FROM " + table + " WHERE " + KVKeyColumn + " = " + d.Param(1)
	for i := 0; i < columns; i++ {
		c := KVIntPrefix + itoa(i)
		cols = append(cols, c)
		create.WriteString(", " + c + " INTEGER")
		read[i] = "SELECT " + kvText(d, c) + where
		write[i] = "UPDATE " + table + " SET " + c + " = " + d.Param(1) + " WHERE " + KVKeyColumn + " = " + d.Param(2)
	}
	create.WriteString(")")
	begin := "BEGIN"
	if d.Name == SQLite.Name {
		begin = "BEGIN IMMEDIATE"
	}
	if d.Name == CQL.Name {
		return cqlKVInts(d, table, cols)
	}
	createTable := create.String()
	insertRows := func(n int) string { return d.InsertRows(table, cols, n) }
	if d.Name == VoltDB.Name {
		// The key as bytes, NOT NULL and the primary key declared apart,
		// so that the table can be partitioned on it.
		var b strings.Builder
		b.WriteString("CREATE TABLE " + table + " (" + KVKeyColumn + " VARCHAR(" + itoa(keySize) + " BYTES) NOT NULL")
		for _, c := range cols[1:] {
			b.WriteString(", " + c + " INTEGER")
		}
		b.WriteString(", PRIMARY KEY (" + KVKeyColumn + "))")
		createTable = voltPartition(b.String(), table, KVKeyColumn)
		insertRows = func(n int) string { return VoltDBInsertRows(table, cols, n) }
	}
	return KVIntsStatements{
		CreateTable:   createTable,
		Read:          read,
		Write:         write,
		InsertRows:    insertRows,
		Columns:       cols,
		MaxInsertRows: kvMaxRows(d, len(cols)),
		Begin:         begin,
		Commit:        "COMMIT",
		Rollback:      "ROLLBACK",
	}
}

// kvBinaryType is the column type of a kv-basic payload.
func kvBinaryType(d Dialect) string {
	switch {
	case d.Name == SQLite.Name:
		return "BLOB"
	case d.Name == VoltDB.Name:
		return "VARBINARY(" + itoa(voltMaxColumn) + ")"
	case isMySQLFamily(d):
		// BLOB holds at most 64 KiB; MEDIUMBLOB 16 MiB, above kv-basic's
		// largest value-size.
		return "MEDIUMBLOB"
	}
	return "BYTEA" // PostgreSQL wire
}

// kvText casts an integer column to its decimal text.
func kvText(d Dialect, col string) string {
	if isMySQLFamily(d) {
		return "CAST(" + col + " AS CHAR)"
	}
	if d.Name == VoltDB.Name {
		return "CAST(" + col + " AS VARCHAR)"
	}
	return "CAST(" + col + " AS TEXT)"
}

// kvMaxRows is the most rows of perRow parameters one statement may bind.
func kvMaxRows(d Dialect, perRow int) int {
	if d.MaxBindParams <= 0 || perRow <= 0 {
		return 0
	}
	return d.MaxBindParams / perRow
}

// KVProcedureSuffix ends the name of the procedure kv-ints-batch declares
// beside its table on VoltDB (<table>_pairs): the ownership SQL drops the
// procedure of that name with the table (VoltDB refuses to drop a table a
// procedure reads).
const KVProcedureSuffix = "_pairs"

// KVIntsProcedure returns, on VoltDB, the DDL of a SQL-declared procedure
// that runs batch read/odd/write pairs on one row of table (columns integer
// columns) as one transaction, and the EXEC statement that calls it; both
// are "" on dialects without SQL procedures.
//
// VoltDB's SQL procedures cannot branch, and their column names are fixed,
// so each pair is one UPDATE whose WHERE reads column A (DECODE of A's
// index) and is true only when A is odd, and whose SET writes column B:
// every column gets COALESCE(?, c), its parameter NULL except B's, which
// carries the new value. The statements run in order in one transaction,
// so a pair reads what an earlier pair wrote, as in BEGIN ... COMMIT; each
// statement's modified-row count (1 when odd, else 0) sums to the writes.
// The parameters of a pair: columns values (NULL or B's), the key, A's
// index. The procedure is partitioned on the key (parameter columns, the
// first pair's key): a single-partition transaction.
func KVIntsProcedure(d Dialect, table string, columns, batch int) (create, call string) {
	if d.Name != VoltDB.Name || columns < 1 || batch < 1 {
		return "", ""
	}
	proc := table + KVProcedureSuffix
	var set, dec strings.Builder
	for i := 0; i < columns; i++ {
		c := KVIntPrefix + itoa(i)
		if i > 0 {
			set.WriteString(", ")
		}
		set.WriteString(c + " = COALESCE(CAST(? AS INTEGER), " + c + ")")
		dec.WriteString(", " + itoa(i) + ", " + c)
	}
	stmt := "UPDATE " + table + " SET " + set.String() + " WHERE " + KVKeyColumn + " = ? AND MOD(DECODE(?" +
		dec.String() + "), 2) <> 0"
	var b strings.Builder
	b.WriteString("CREATE PROCEDURE " + proc + " PARTITION ON TABLE " + table + " COLUMN " + KVKeyColumn +
		" PARAMETER " + itoa(columns) + " AS BEGIN ")
	for i := 0; i < batch; i++ {
		b.WriteString(stmt + "; ")
	}
	b.WriteString("END")
	return b.String(), "EXEC " + proc + strings.Repeat(" ?", batch*(columns+2))
}
