package dialect

// ListAppendStatements is the SQL of the isolation/list-append workload
// (docs/ISOLATION.md): one row per key whose v is the key's list, its
// elements in decimal separated by commas. Append adds one element in one
// statement, inserting the row when the key has none (Jepsen's shape); Read
// returns v, or no row for an empty list. A transaction is Begin, its
// micro-ops, Commit; the run's --isolation is the session's level.
//
// The value is immutable and safe for concurrent use.
type ListAppendStatements struct {
	Create string
	// Append takes the key ($1) and the element as text ($2).
	Append string
	// Read takes the key.
	Read     string
	Begin    string
	Commit   string
	Rollback string
}

// ListAppend builds the statements for table (used verbatim and unquoted).
func ListAppend(d Dialect, table string) ListAppendStatements {
	s := ListAppendStatements{
		Create:   "CREATE TABLE " + table + " (k BIGINT PRIMARY KEY, v TEXT NOT NULL)",
		Read:     "SELECT v FROM " + table + " WHERE k = " + d.Param(1),
		Begin:    "BEGIN",
		Commit:   "COMMIT",
		Rollback: "ROLLBACK",
	}
	ins := "INSERT INTO " + table + " (k, v) VALUES (" + d.Param(1) + ", " + d.Param(2) + ")"
	switch {
	case isMySQLFamily(d):
		// TEXT holds 64 KB; a key's list stays far below it
		// (max-writes-per-key), LONGTEXT makes that no limit at all.
		s.Create = "CREATE TABLE " + table + " (k BIGINT PRIMARY KEY, v LONGTEXT NOT NULL)"
		s.Append = ins + " ON DUPLICATE KEY UPDATE v = CONCAT(v, ',', VALUES(v))"
	case d.Name == SQLite.Name:
		s.Create = "CREATE TABLE " + table + " (k INTEGER PRIMARY KEY, v TEXT NOT NULL)"
		s.Append = ins + " ON CONFLICT (k) DO UPDATE SET v = v || ',' || excluded.v"
	default:
		s.Append = ins + " ON CONFLICT (k) DO UPDATE SET v = " + table + ".v || ',' || excluded.v"
	}
	return s
}
