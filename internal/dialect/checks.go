package dialect

// IDStats is one statement (one snapshot) that reads, of table's integer
// column col: the rows, the distinct values, their minimum and maximum
// (0 and 0 for an empty table). The same text on every SQL product.
func IDStats(table, col string) string {
	return "SELECT count(*), count(DISTINCT " + col + "), COALESCE(min(" + col + "), 0), COALESCE(max(" + col + "), 0) FROM " + table
}

// RowCount counts table's rows (SQL and CQL alike).
func RowCount(table string) string {
	return "SELECT count(*) FROM " + table
}

// IndexChecks is how one product checks a table's indexes against the
// table after a run (--check, docs/CHECKS.md). Empty fields are what the
// product has not.
type IndexChecks struct {
	// List returns one row per index of the table: its name, and "1" when
	// amcheck's B-tree check applies to it (else "0").
	List string
	// Invalid returns the names of the table's indexes the server marks
	// unusable (PostgreSQL: a CREATE INDEX CONCURRENTLY that failed leaves
	// one, indisvalid false).
	Invalid string
	// Enable makes the product's own index checker available (CREATE
	// EXTENSION IF NOT EXISTS amcheck); a failure leaves Verify unused.
	Enable string
	// Available returns a row when the checker is there.
	Available string
	// Verify checks one index against its table with the product's
	// checker (amcheck's bt_index_check with heapallindexed): an error
	// is a corruption found.
	Verify func(index string) string
	// Column returns the index's first column (for the counts), when the
	// counts need one.
	Column func(index string) string
	// ViaIndex and WithoutIndex count the table's rows through the index
	// and without it (col is Column's answer; "" when there is none).
	// ForceIndex and ForceTable, run before each count on the same
	// session, make the planner take that path; ResetPlanner after.
	ViaIndex, WithoutIndex func(index, col string) string
	ForceIndex, ForceTable []string
	ResetPlanner           []string
}

// IndexCheck returns the index checks of table in d.
func IndexCheck(d Dialect, table string) IndexChecks {
	lit := "'" + table + "'"
	switch {
	case d.Placeholder == Dollar:
		return IndexChecks{
			List: "SELECT c.relname, CASE WHEN a.amname = 'btree' THEN 1 ELSE 0 END FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid " +
				"JOIN pg_am a ON a.oid = c.relam WHERE i.indrelid = " + lit + "::regclass ORDER BY c.relname",
			Invalid:   "SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = " + lit + "::regclass AND NOT i.indisvalid ORDER BY c.relname",
			Enable:    "CREATE EXTENSION IF NOT EXISTS amcheck",
			Available: "SELECT 1 FROM pg_extension WHERE extname = 'amcheck'",
			Verify:    func(index string) string { return "SELECT bt_index_check('" + index + "'::regclass, true)" },
			Column: func(index string) string {
				return "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0] WHERE i.indexrelid = '" + index + "'::regclass"
			},
			ViaIndex:     func(_, col string) string { return "SELECT count(*) FROM " + table + " WHERE " + col + " IS NOT NULL" },
			WithoutIndex: func(_, col string) string { return "SELECT count(*) FROM " + table + " WHERE " + col + " IS NOT NULL" },
			ForceIndex:   []string{"SET enable_seqscan = off", "SET enable_bitmapscan = off"},
			ForceTable:   []string{"SET enable_seqscan = on", "SET enable_indexscan = off", "SET enable_indexonlyscan = off", "SET enable_bitmapscan = off"},
			ResetPlanner: []string{"RESET enable_seqscan", "RESET enable_indexscan", "RESET enable_indexonlyscan", "RESET enable_bitmapscan"},
		}
	case d.Name == SQLite.Name:
		return IndexChecks{
			List:         "SELECT name, 0 FROM pragma_index_list(" + lit + ") ORDER BY name",
			ViaIndex:     func(index, _ string) string { return "SELECT count(*) FROM " + table + " INDEXED BY " + index },
			WithoutIndex: func(string, string) string { return "SELECT count(*) FROM " + table + " NOT INDEXED" },
		}
	case d.Placeholder == Question && d.Name != CQL.Name:
		return IndexChecks{
			List: "SELECT DISTINCT index_name, 0 FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = " + lit + " ORDER BY index_name",
			ViaIndex: func(index, _ string) string {
				return "SELECT count(*) FROM " + table + " FORCE INDEX (`" + index + "`)"
			},
			WithoutIndex: func(index, _ string) string {
				return "SELECT count(*) FROM " + table + " IGNORE INDEX (`" + index + "`)"
			},
		}
	}
	return IndexChecks{}
}
