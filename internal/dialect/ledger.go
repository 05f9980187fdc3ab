package dialect

import "strconv"

// LedgerStatements is the SQL of the ledger workload: a write-only stream
// of small rows, each carrying the id of its write in the client's
// durability ledger. The table has no key on id, so a write committed twice
// (a retry of one whose answer was lost) is found twice when the ids are
// read back; t is the server's clock at the insert.
//
// The table's owner (internal/ledger's Owner: the run and repetition that
// created it) is one row of its own, id -1, w the repetition and pad the
// owner's text; write ids are never negative.
//
// The value is immutable and safe for concurrent use.
type LedgerStatements struct {
	// CreateTable is CREATE TABLE <t> (id BIGINT NOT NULL, w INTEGER NOT
	// NULL, pad VARCHAR(<n>), t <ts> DEFAULT <clock>), n at least
	// LedgerOwnerWidth to hold the owner.
	CreateTable string
	// Insert adds one row: id, worker, pad (the owner row too).
	Insert string
	// ReadBack selects every write id (id ≥ 0), as text.
	ReadBack string
	// Owners selects the owner rows (id < 0): pad, the owner's text.
	Owners string
}

// LedgerOwnerWidth is the least width of a ledger table's pad column: the
// owner row's text (internal/ledger's MaxOwnerText) fits in it. A wider
// declared VARCHAR stores the same padding in the same bytes.
const LedgerOwnerWidth = 200

// Ledger builds the ledger statements for table (used verbatim and
// unquoted) whose rows carry pad characters of padding.
func Ledger(d Dialect, table string, pad int) LedgerStatements {
	cl := CommitLoop(d, table, 1) // the server clock and its column type
	ts, clock := "TIMESTAMP", cl.Clock
	if isMySQLFamily(d) {
		ts = "DATETIME(6)"
	}
	create := "CREATE TABLE " + table + " (id BIGINT NOT NULL, w INTEGER NOT NULL, pad VARCHAR(" + strconv.Itoa(max(pad, LedgerOwnerWidth)) +
		"), t " + ts + " DEFAULT " + clock + ")"
	if d.Name == VoltDB.Name {
		// VoltDB's clock is NOW (the transaction's time); the table,
		// without a key, is partitioned on id so that each write is a
		// single-partition transaction.
		create = voltPartition("CREATE TABLE "+table+" (id BIGINT NOT NULL, w INTEGER NOT NULL, pad VARCHAR("+
			strconv.Itoa(max(pad, LedgerOwnerWidth))+" BYTES), t TIMESTAMP DEFAULT NOW)", table, "id")
	}
	return LedgerStatements{
		CreateTable: create,
		Insert:      "INSERT INTO " + table + " (id, w, pad) VALUES (" + d.Param(1) + ", " + d.Param(2) + ", " + d.Param(3) + ")",
		ReadBack:    "SELECT " + kvText(d, "id") + " FROM " + table + " WHERE id >= 0",
		Owners:      "SELECT pad FROM " + table + " WHERE id < 0",
	}
}

// NodeWritable is the query that tells whether a node accepts writes: one
// row, "read-write" or "read-only" (PostgreSQL: not in recovery, a
// primary; MySQL, MariaDB, TiDB: @@read_only off, which MySQL's
// super_read_only turns on too). "" for a dialect without one.
func NodeWritable(d Dialect) string {
	switch {
	case isPostgresFamily(d):
		return "SELECT CASE WHEN pg_is_in_recovery() THEN 'read-only' ELSE 'read-write' END"
	case isMySQLFamily(d):
		return "SELECT CASE WHEN @@read_only THEN 'read-only' ELSE 'read-write' END"
	}
	return ""
}

// CommitLoopReadBack selects, as text, the rows' (i) or, with several jobs,
// (j, i) of a commit-loop table: the ids of its ledger are made from them.
func CommitLoopReadBack(d Dialect, table string, jobs int) string {
	if jobs > 1 {
		return "SELECT " + kvText(d, "j") + ", " + kvText(d, "i") + " FROM " + table
	}
	return "SELECT " + kvText(d, "i") + " FROM " + table
}
