package dialect

// IsolationProbe is the SQL the isolation probes (internal/isolation/probe)
// need besides their scripts, which are plain SQL every product accepts.
type IsolationProbe struct {
	// CreateTable creates the probe's two-column table (id, v).
	CreateTable func(table string) string
	// Setup runs on every probe session once it is connected: a bound on
	// lock waits, so that a step that waits forever fails instead, or (SQLite)
	// no busy waiting at all, so that a step that would wait says so at once.
	Setup []string
	// SessionID returns one row with the session's id on the server; ""
	// where there is none (an embedded database).
	SessionID string
	// Waiting lists statements of one parameter, a SessionID, each returning
	// one row whose first column is a number greater than 0 when that
	// session's statement is waiting for a lock, as the server sees it. The
	// probe uses the first that runs (the others need a privilege or a
	// column the server may lack).
	Waiting []string
	// WouldBlock is the server error code with which a statement says at
	// once that it would have to wait for another session's lock (SQLite's
	// SQLITE_BUSY with busy_timeout 0); 0 where statements wait instead.
	WouldBlock int
}

// ProbeLockWait is how long a probe step may wait for a lock before the
// server fails it (seconds): far longer than any step of a probe takes, so
// that a lock wait it reaches is a hang in the probe's script.
const ProbeLockWait = 60

// Probe returns d's IsolationProbe.
func Probe(d Dialect) IsolationProbe {
	p := IsolationProbe{
		CreateTable: func(table string) string {
			return "CREATE TABLE " + table + " (id INT PRIMARY KEY, v INT)"
		},
	}
	switch d.Name {
	case MySQL.Name:
		p.Setup = []string{"SET SESSION innodb_lock_wait_timeout = " + itoa(ProbeLockWait)}
		p.SessionID = "SELECT CONNECTION_ID()"
		p.Waiting = []string{
			// InnoDB's own view; needs the PROCESS privilege.
			"SELECT COUNT(*) FROM information_schema.innodb_trx WHERE trx_mysql_thread_id = ? AND trx_state = 'LOCK WAIT'",
			// Without it, a session sees its user's own threads: a probe
			// statement (one or two rows) still running after half a
			// second is waiting for a lock (MariaDB's time_ms; MySQL's and
			// TiDB's whole seconds below).
			"SELECT COUNT(*) FROM information_schema.processlist WHERE id = ? AND command IN ('Query', 'Execute') AND time_ms >= 500",
			"SELECT COUNT(*) FROM information_schema.processlist WHERE id = ? AND command IN ('Query', 'Execute') AND time >= 1",
		}
	case SQLite.Name:
		p.Setup = []string{"PRAGMA busy_timeout = 0"}
		p.WouldBlock = 5 // SQLITE_BUSY (not SQLITE_BUSY_SNAPSHOT, 517: that one aborts)
	default: // the PostgreSQL wire
		p.Setup = []string{"SET lock_timeout = '" + itoa(ProbeLockWait) + "s'"}
		p.SessionID = "SELECT pg_backend_pid()"
		p.Waiting = []string{"SELECT COUNT(*) FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'"}
	}
	return p
}
