package dialect

import "strconv"

// CommitLoopStatements is the SQL of the commit-loop workload: the published
// single-session commit test (docs/EXPERIMENTS.md E4). Rows are (i) or, with
// several jobs, (j, i); t is filled by the server's clock as each row is
// inserted, and the server-side rate is count / (max(t) - min(t)).
//
// The value is immutable; its strings and functions are safe for concurrent
// use.
type CommitLoopStatements struct {
	// CreateTable is CREATE TABLE <t> (i INTEGER PRIMARY KEY, t <ts> DEFAULT
	// <clock>) for one job, or (j INTEGER, i INTEGER, t ..., PRIMARY KEY (j,
	// i)) for several.
	CreateTable string
	// Clock is the default expression of t: a clock that advances within a
	// transaction, read per row (clock_timestamp() on PostgreSQL,
	// CURRENT_TIMESTAMP(6) on MySQL, strftime(...,'now') on SQLite).
	Clock string
	// Insert adds one row: INSERT INTO <t> (i) VALUES (?), or with several
	// jobs INSERT INTO <t> (j, i) VALUES (?, ?) (job, then i).
	Insert string
	// InServer returns one statement that inserts i = from..to (inclusive)
	// for job j, committing after every row, inside the server (a PL/pgSQL
	// DO block with COMMIT, PostgreSQL 11+ and YugabyteDB). j is ignored for
	// one job. It is nil for dialects without such a block.
	InServer func(job int, from, to int64) string
	// Rate selects, as text: count(*), the span max(t) - min(t) in seconds,
	// and count(*) / span in rows per second (NULL when the span is zero or
	// the table is empty).
	Rate string
	// RatePerJob selects, as text, j and the three Rate columns per job,
	// ordered by j; "" for one job (the table has no j).
	RatePerJob string
}

// CommitLoopInServerDialects lists the dialects whose CommitLoop has an
// InServer block.
func CommitLoopInServerDialects() []string { return []string{Postgres.Name, YugabyteDB.Name} }

// CommitLoop builds the commit-loop statements for table (used verbatim and
// unquoted) with jobs parallel jobs (jobs ≤ 1 means one job, no j column).
func CommitLoop(d Dialect, table string, jobs int) CommitLoopStatements {
	var tsType, clock, span string
	switch {
	case d.Name == SQLite.Name:
		// Text with milliseconds, which sorts in time order; julianday()
		// reads it back. 'now' is fixed within one statement, and each row
		// is its own statement.
		tsType, clock = "TIMESTAMP", "(strftime('%Y-%m-%d %H:%M:%f','now'))"
		span = "(julianday(max(t)) - julianday(min(t))) * 86400.0"
	case isMySQLFamily(d):
		// CURRENT_TIMESTAMP(6) is the statement's start, with microseconds;
		// with autocommit each row is its own statement and transaction.
		tsType, clock = "DATETIME(6)", "CURRENT_TIMESTAMP(6)"
		span = "TIMESTAMPDIFF(MICROSECOND, min(t), max(t)) / 1e6"
	default:
		// PostgreSQL wire, as published: timestamp default clock_timestamp()
		// (now() would be the transaction's start).
		tsType, clock = "TIMESTAMP", "clock_timestamp()"
		span = "EXTRACT(EPOCH FROM max(t) - min(t))"
	}
	text := func(expr string) string { return kvText(d, expr) }
	cols := text("count(*)") + ", " + text(span) + ", " + text("count(*) / NULLIF("+span+", 0)")
	st := CommitLoopStatements{Clock: clock, Rate: "SELECT " + cols + " FROM " + table}
	if jobs > 1 {
		st.CreateTable = "CREATE TABLE " + table + " (j INTEGER, i INTEGER, t " + tsType + " DEFAULT " + clock + ", PRIMARY KEY (j, i))"
		st.Insert = "INSERT INTO " + table + " (j, i) VALUES (" + d.Param(1) + ", " + d.Param(2) + ")"
		st.RatePerJob = "SELECT " + text("j") + ", " + cols + " FROM " + table + " GROUP BY j ORDER BY j"
	} else {
		st.CreateTable = "CREATE TABLE " + table + " (i INTEGER PRIMARY KEY, t " + tsType + " DEFAULT " + clock + ")"
		st.Insert = "INSERT INTO " + table + " (i) VALUES (" + d.Param(1) + ")"
	}
	if d.Name == Postgres.Name || d.Name == YugabyteDB.Name {
		st.InServer = func(job int, from, to int64) string {
			// The published loop: a COMMIT per row inside a DO block, which
			// PostgreSQL allows since 11 when the block is not itself inside
			// a transaction block (one statement in autocommit).
			ins := "INSERT INTO " + table + " (i) VALUES (i)"
			if jobs > 1 {
				ins = "INSERT INTO " + table + " (j, i) VALUES (" + strconv.Itoa(job) + ", i)"
			}
			return "DO $$ BEGIN FOR i IN " + strconv.FormatInt(from, 10) + ".." + strconv.FormatInt(to, 10) +
				" LOOP " + ins + "; COMMIT; END LOOP; END $$"
		}
	}
	return st
}
