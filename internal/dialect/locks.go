package dialect

// TableLocks is the SQL of the locks candor takes around the tables of a
// workload: an exclusive lock while it inspects, drops, creates, loads or
// cleans up a table, and, where the product has them, a shared lock while a
// run uses it, so that another candor process cannot drop and reload a
// table under a run (or under a load).
//
// Every statement takes one parameter, the lock key LockKey returns for a
// table, and returns one row whose single text column is "ok" when the
// statement succeeded (the lock was granted or released) and NULL when it
// did not (the lock is held by another session). The Try statements never
// wait: a caller that must wait polls them, so that it can give up when its
// context ends.
//
// The locks are session locks: they last until released or until the
// session ends, so a killed candor process never leaves one behind.
type TableLocks struct {
	// TryExclusive takes the lock of key ? exclusively.
	TryExclusive string
	// TryShared takes the lock of key ? shared; "" where the product has no
	// shared mode (MySQL's GET_LOCK).
	TryShared string
	// Unlock releases an exclusive hold of key ?.
	Unlock string
	// UnlockShared releases a shared hold of key ?; "" without TryShared.
	UnlockShared string
}

// Locks returns the table-lock SQL of d, and false for a product without
// session locks candor uses: SQLite (an embedded database: candor locks a
// file beside it instead), CockroachDB and YugabyteDB (whose advisory lock
// functions are stubs or off by default) and TiDB (whose GET_LOCK differs
// between versions).
func Locks(d Dialect) (TableLocks, bool) {
	switch d.Name {
	case Postgres.Name:
		// Advisory locks belong to the database the session is connected
		// to, so the key needs no database name; it holds the schema the
		// table's unqualified name resolves to (current_schema(), where
		// CREATE TABLE puts it), so that tables of one name in two schemas
		// do not wait for each other. The key is the server's 64-bit hash
		// of "candor table lock schema.table" (two tables whose keys
		// collide merely wait for each other). The shared and exclusive
		// modes conflict as a reader-writer lock does; a session holding
		// the lock exclusively may also take it shared, then release the
		// exclusive hold: the hold is downgraded with no gap.
		key := "hashtextextended('candor table lock ' || current_schema() || '.' || $1::text, 0)"
		ok := func(fn string) string {
			return "SELECT CASE WHEN " + fn + "(" + key + ") THEN 'ok' END"
		}
		return TableLocks{
			TryExclusive: ok("pg_try_advisory_lock"),
			TryShared:    ok("pg_try_advisory_lock_shared"),
			Unlock:       ok("pg_advisory_unlock"),
			UnlockShared: ok("pg_advisory_unlock_shared"),
		}, true
	case MySQL.Name:
		// GET_LOCK names are server-wide, so the name holds the database:
		// 'candor:' and the SHA-1 of database.table, 47 characters, within
		// MySQL's limit of 64. GET_LOCK returns 1 when granted, 0 after
		// its timeout (0: at once), NULL on an error; RELEASE_LOCK 1 when
		// released. MySQL 5.7+ and MariaDB 10.0.2+ let one session hold
		// several such locks.
		name := "CONCAT('candor:', SHA1(CONCAT(IFNULL(DATABASE(), ''), '.', ?)))"
		return TableLocks{
			TryExclusive: "SELECT CASE WHEN GET_LOCK(" + name + ", 0) = 1 THEN 'ok' END",
			Unlock:       "SELECT CASE WHEN RELEASE_LOCK(" + name + ") = 1 THEN 'ok' END",
		}, true
	}
	return TableLocks{}, false
}

// LockKey is the parameter of d's TableLocks statements for table (lower
// case): the table name, which the server hashes with the schema
// (PostgreSQL) or the database (MySQL) it belongs to.
func LockKey(d Dialect, table string) any {
	return table
}
