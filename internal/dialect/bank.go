package dialect

// Locking modes of the bank workload.
const (
	BankPessimistic = "pessimistic"
	BankOptimistic  = "optimistic"
)

// BankStatements are the bank workload's statements in one dialect for one
// locking mode. A transfer is Begin..., Read of the lower id then of the
// higher one, Write of each new balance, Commit; Rollback after a failed
// statement.
type BankStatements struct {
	Create string
	// Begin starts a transfer's transaction: the isolation it runs at and
	// the transaction itself (MySQL wire sets the next transaction's level
	// with a statement of its own).
	Begin []string
	// Read reads one account's balance, locking it as the mode asks:
	//
	//	pessimistic: FOR UPDATE (an exclusive row lock held to the commit)
	//	             in a read-committed transaction; SQLite has no row
	//	             locks: BEGIN IMMEDIATE takes the database's write lock
	//	optimistic:  PostgreSQL: no lock, in a serializable transaction that
	//	             the server aborts (40001) when transfers conflict;
	//	             MySQL wire: LOCK IN SHARE MODE in a repeatable-read
	//	             transaction (InnoDB's plain reads at repeatable read
	//	             are snapshots that would let a write lose another's:
	//	             shared locks make the conflicting upgrades a deadlock
	//	             the server detects and rolls back, 1213); SQLite: a
	//	             deferred transaction whose write lock is taken at the
	//	             first write, and refused (SQLITE_BUSY) on a conflict
	Read string
	// Write sets one account's balance to the value the transfer
	// computed from what Read returned: a lost update breaks the total.
	Write    string
	Commit   string
	Rollback string
	// Total is the invariant, read in one statement (one snapshot):
	// the number of accounts and the sum of their balances.
	Total string
}

// Bank returns the statements of the bank workload on table in d for
// locking (BankPessimistic or BankOptimistic).
func Bank(d Dialect, table, locking string) BankStatements {
	s := BankStatements{
		Create:   "CREATE TABLE " + table + " (id BIGINT PRIMARY KEY, balance BIGINT NOT NULL)",
		Read:     "SELECT balance FROM " + table + " WHERE id = " + d.Param(1),
		Write:    "UPDATE " + table + " SET balance = " + d.Param(1) + " WHERE id = " + d.Param(2),
		Commit:   "COMMIT",
		Rollback: "ROLLBACK",
		Total:    "SELECT count(*), COALESCE(sum(balance), 0) FROM " + table,
	}
	switch {
	case d.Placeholder == Dollar && locking == BankPessimistic:
		s.Begin = []string{"BEGIN ISOLATION LEVEL READ COMMITTED"}
		s.Read += " FOR UPDATE"
	case d.Placeholder == Dollar:
		s.Begin = []string{"BEGIN ISOLATION LEVEL SERIALIZABLE"}
	case d.Name == SQLite.Name && locking == BankPessimistic:
		s.Create = "CREATE TABLE " + table + " (id INTEGER PRIMARY KEY, balance INTEGER NOT NULL)"
		s.Begin = []string{"BEGIN IMMEDIATE"}
	case d.Name == SQLite.Name:
		s.Create = "CREATE TABLE " + table + " (id INTEGER PRIMARY KEY, balance INTEGER NOT NULL)"
		s.Begin = []string{"BEGIN"}
	case locking == BankPessimistic:
		s.Begin = []string{"SET TRANSACTION ISOLATION LEVEL READ COMMITTED", "BEGIN"}
		s.Read += " FOR UPDATE"
	default:
		s.Begin = []string{"SET TRANSACTION ISOLATION LEVEL REPEATABLE READ", "BEGIN"}
		s.Read += " LOCK IN SHARE MODE"
	}
	return s
}
