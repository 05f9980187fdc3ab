package dialect

import "strconv"

// LedgerStatements is the SQL of the ledger workload: a write-only stream
// of small rows, each carrying the id of its write in the client's
// durability ledger. The table has no key on id, so a write committed twice
// (a retry of one whose answer was lost) is found twice when the ids are
// read back; t is the server's clock at the insert.
//
// The value is immutable and safe for concurrent use.
type LedgerStatements struct {
	// CreateTable is CREATE TABLE <t> (id BIGINT NOT NULL, w INTEGER NOT
	// NULL, pad VARCHAR(<n>), t <ts> DEFAULT <clock>).
	CreateTable string
	// Insert adds one row: id, worker, pad.
	Insert string
	// ReadBack selects every id, as text.
	ReadBack string
}

// Ledger builds the ledger statements for table (used verbatim and
// unquoted) whose rows carry pad characters of padding.
func Ledger(d Dialect, table string, pad int) LedgerStatements {
	cl := CommitLoop(d, table, 1) // the server clock and its column type
	ts := "TIMESTAMP"
	if isMySQLFamily(d) {
		ts = "DATETIME(6)"
	}
	return LedgerStatements{
		CreateTable: "CREATE TABLE " + table + " (id BIGINT NOT NULL, w INTEGER NOT NULL, pad VARCHAR(" + strconv.Itoa(max(pad, 1)) +
			"), t " + ts + " DEFAULT " + cl.Clock + ")",
		Insert:   "INSERT INTO " + table + " (id, w, pad) VALUES (" + d.Param(1) + ", " + d.Param(2) + ", " + d.Param(3) + ")",
		ReadBack: "SELECT " + kvText(d, "id") + " FROM " + table,
	}
}

// CommitLoopReadBack selects, as text, the rows' (i) or, with several jobs,
// (j, i) of a commit-loop table: the ids of its ledger are made from them.
func CommitLoopReadBack(d Dialect, table string, jobs int) string {
	if jobs > 1 {
		return "SELECT " + kvText(d, "j") + ", " + kvText(d, "i") + " FROM " + table
	}
	return "SELECT " + kvText(d, "i") + " FROM " + table
}
