package dialect

import "strings"

// YCSB column names, as in the YCSB JDBC binding (JdbcDBClient.PRIMARY_KEY and
// COLUMN_PREFIX). They are written unquoted, so products that fold identifiers
// see ycsb_key and field0.. — which is also what YCSB's lower-case field names
// match.
const (
	YCSBKeyColumn    = "YCSB_KEY"
	YCSBFieldPrefix  = "FIELD"
	ycsbKeyColumnDDL = "VARCHAR(255)" // the JDBC binding README's key type
	ycsbFieldDDL     = "TEXT"
)

// YCSBStatements is the SQL the YCSB workload issues, shaped like the YCSB
// JDBC binding (docs/YCSB.md, "Reference facts"): table usertable, key column YCSB_KEY,
// fields FIELD0..FIELD<n-1>.
//
// The value is immutable after YCSB returns; its strings and functions are
// safe for concurrent use by any number of workers.
type YCSBStatements struct {
	CreateTable string // CREATE TABLE <t> (YCSB_KEY VARCHAR(255) PRIMARY KEY, FIELD0 TEXT, ...)
	DropTable   string // DROP TABLE <t>
	Read        string // SELECT * FROM <t> WHERE YCSB_KEY = ?
	Scan        string // SELECT * FROM <t> WHERE YCSB_KEY >= ? ORDER BY YCSB_KEY <limit ?>
	// Update returns UPDATE <t> SET FIELDi=?, ... WHERE YCSB_KEY = ? for the
	// given field indexes, in the order given (values bound in that order,
	// then the key). fields must be non-empty and every index in
	// [0, fieldcount); anything else is a programming error and panics.
	// Single-field and all-fields statements are built once, up front, so the
	// common YCSB cases do not allocate.
	Update func(fields []int) string
	// Insert is INSERT INTO <t> (YCSB_KEY, FIELD0..) VALUES (?, ...) with all fields.
	Insert string
	// InsertRows returns a multi-row INSERT of n rows with all fields; values
	// are bound row by row, key first. n must be ≥ 1 (it panics otherwise);
	// callers keep n ≤ MaxInsertRows when that is non-zero.
	InsertRows func(n int) string
	Delete     string // DELETE FROM <t> WHERE YCSB_KEY = ?
	// Columns are the column names in table order: YCSB_KEY, FIELD0, ...
	Columns []string
	// MaxInsertRows is the most rows one InsertRows statement may carry under
	// the dialect's bind-parameter limit; 0 means no limit.
	MaxInsertRows int
}

// YCSB builds the YCSB statements for a table with fieldcount fields
// (fieldcount < 0 is treated as 0). table is used verbatim and unquoted: the
// caller validates it as a plain SQL identifier.
func YCSB(d Dialect, table string, fieldcount int) YCSBStatements {
	if fieldcount < 0 {
		fieldcount = 0
	}
	cql := d.Name == CQL.Name
	keyCol, keyDDL, prefix, fieldDDL := YCSBKeyColumn, ycsbKeyColumnDDL, YCSBFieldPrefix, ycsbFieldDDL
	if cql {
		keyCol, keyDDL, prefix, fieldDDL = YCSBCQLKeyColumn, "varchar", ycsbCQLFieldPrefix, "varchar"
	}
	cols := make([]string, 0, fieldcount+1)
	cols = append(cols, keyCol)
	for i := 0; i < fieldcount; i++ {
		cols = append(cols, prefix+itoa(i))
	}

	var create strings.Builder
	create.WriteString("CREATE TABLE " + table + " (" + keyCol + " " + keyDDL + " PRIMARY KEY")
	for _, c := range cols[1:] {
		create.WriteString(", " + c + " " + fieldDDL)
	}
	create.WriteString(")")
	createTable := create.String()

	insertRows := func(n int) string { return d.InsertRows(table, cols, n) }
	if cql {
		insertRows = func(n int) string { return cqlBatch(d, table, cols, n) }
	}
	if d.Name == VoltDB.Name {
		// VoltDB has no TEXT: each field is as wide as the row limit lets
		// all of them be (VARCHAR(n BYTES)); the key is NOT NULL and the
		// primary key declared apart, so that the table can be
		// partitioned on it.
		var b strings.Builder
		b.WriteString("CREATE TABLE " + table + " (" + keyCol + " VARCHAR(255 BYTES) NOT NULL")
		for _, c := range cols[1:] {
			b.WriteString(", " + c + " VARCHAR(" + itoa(voltFieldBytes(fieldcount)) + " BYTES)")
		}
		b.WriteString(", PRIMARY KEY (" + keyCol + "))")
		createTable = voltPartition(b.String(), table, keyCol)
		insertRows = func(n int) string { return VoltDBInsertRows(table, cols, n) }
	}

	buildUpdate := func(fields []int) string {
		if len(fields) == 0 {
			panic("dialect: YCSB Update needs at least one field")
		}
		var b strings.Builder
		b.WriteString("UPDATE " + table + " SET ")
		for i, f := range fields {
			if f < 0 || f >= fieldcount {
				panic("dialect: YCSB Update field index " + itoa(f) + " out of range [0, " + itoa(fieldcount) + ")")
			}
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(cols[f+1] + " = " + d.Param(i+1))
		}
		b.WriteString(" WHERE " + keyCol + " = " + d.Param(len(fields)+1))
		return b.String()
	}
	// Precompute what YCSB sends nearly always: one field (writeallfields=false)
	// or every field in order (writeallfields=true).
	single := make([]string, fieldcount)
	all := make([]int, fieldcount)
	for i := range single {
		single[i] = buildUpdate([]int{i})
		all[i] = i
	}
	var allFields string
	if fieldcount > 0 {
		allFields = buildUpdate(all)
	}
	update := func(fields []int) string {
		if len(fields) == 1 && fields[0] >= 0 && fields[0] < fieldcount {
			return single[fields[0]]
		}
		if len(fields) == fieldcount && fieldcount > 0 && isIdentity(fields) {
			return allFields
		}
		return buildUpdate(fields)
	}

	read := "SELECT * FROM " + table + " WHERE " + keyCol + " = " + d.Param(1)
	scan := "SELECT * FROM " + table + " WHERE " + keyCol + " >= " + d.Param(1) + " ORDER BY " + keyCol + " "
	if d.ScanLimit == "fetch" {
		scan += "FETCH FIRST " + d.Param(2) + " ROWS ONLY"
	} else {
		scan += "LIMIT " + d.Param(2)
	}
	if cql {
		// YCSB's CQL binding: a read by key with LIMIT 1, and a scan in
		// token order from the start key's token (not key order: the
		// partitioner hashes keys). The columns are named so that they come
		// in table order (SELECT * returns regular columns sorted by name:
		// field10 before field2).
		list := strings.Join(cols, ", ")
		read = "SELECT " + list + " FROM " + table + " WHERE " + keyCol + " = ? LIMIT 1"
		scan = "SELECT " + list + " FROM " + table + " WHERE token(" + keyCol + ") >= token(?) LIMIT ?"
	}

	maxRows := 0
	if d.MaxBindParams > 0 {
		maxRows = d.MaxBindParams / len(cols)
	}

	return YCSBStatements{
		CreateTable:   createTable,
		DropTable:     "DROP TABLE " + table,
		Read:          read,
		Scan:          scan,
		Update:        update,
		Insert:        insertRows(1),
		InsertRows:    insertRows,
		Delete:        "DELETE FROM " + table + " WHERE " + keyCol + " = " + d.Param(1),
		Columns:       cols,
		MaxInsertRows: maxRows,
	}
}

func isIdentity(fields []int) bool {
	for i, f := range fields {
		if f != i {
			return false
		}
	}
	return true
}
