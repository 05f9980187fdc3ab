package dialect

// YCSBStatements is the SQL the YCSB workload issues, shaped like the YCSB
// JDBC binding (specs/ycsb.md §1.9): table usertable, key column YCSB_KEY,
// fields FIELD0..FIELD<n-1>.
type YCSBStatements struct {
	CreateTable string // CREATE TABLE <t> (YCSB_KEY VARCHAR(255) PRIMARY KEY, FIELD0 TEXT, ...)
	DropTable   string // DROP TABLE <t>
	Read        string // SELECT * FROM <t> WHERE YCSB_KEY = ?
	Scan        string // SELECT * FROM <t> WHERE YCSB_KEY >= ? ORDER BY YCSB_KEY <limit ?>
	// Update returns UPDATE <t> SET FIELDi=?, ... WHERE YCSB_KEY = ? for the
	// given field indexes, in the order given (values bound in that order,
	// then the key).
	Update func(fields []int) string
	// Insert is INSERT INTO <t> (YCSB_KEY, FIELD0..) VALUES (?, ...) with all fields.
	Insert string
	// InsertRows returns a multi-row INSERT of n rows with all fields.
	InsertRows func(n int) string
	Delete     string // DELETE FROM <t> WHERE YCSB_KEY = ?
	Columns    []string
}

// YCSB builds the YCSB statements for a table with fieldcount fields.
func YCSB(d Dialect, table string, fieldcount int) YCSBStatements {
	panic("dialect.YCSB: not implemented yet")
}
