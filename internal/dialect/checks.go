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
