package mysql

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/candor-bench/candor/internal/target"
)

// Server error numbers candor classifies. MySQL and MariaDB share the low
// numbers; 19xx and 4xxx are MariaDB's, 8xxx and 9xxx TiDB's; 20xx are client
// error numbers that proxies and some servers also send.
var errorClasses = map[uint16]target.ErrorClass{
	1213: target.ClassRetryable, // ER_LOCK_DEADLOCK: the transaction was rolled back
	1205: target.ClassRetryable, // ER_LOCK_WAIT_TIMEOUT (sysbench ignores it too)
	1020: target.ClassRetryable, // ER_CHECKREAD: record changed since last read (MariaDB snapshot isolation)
	8002: target.ClassRetryable, // TiDB: SELECT FOR UPDATE write conflict, cannot retry
	8022: target.ClassRetryable, // TiDB: transaction commit failed, safe to retry
	8028: target.ClassRetryable, // TiDB: information schema changed during the transaction
	9007: target.ClassRetryable, // TiDB/TiKV: write conflict

	1062: target.ClassConstraint, // ER_DUP_ENTRY
	1586: target.ClassConstraint, // ER_DUP_ENTRY_WITH_KEY_NAME
	1451: target.ClassConstraint, // ER_ROW_IS_REFERENCED_2: foreign key, parent row
	1452: target.ClassConstraint, // ER_NO_REFERENCED_ROW_2: foreign key, child row
	1048: target.ClassConstraint, // ER_BAD_NULL_ERROR: NOT NULL
	3819: target.ClassConstraint, // MySQL ER_CHECK_CONSTRAINT_VIOLATED
	4025: target.ClassConstraint, // MariaDB ER_CONSTRAINT_FAILED (CHECK)

	3024: target.ClassTimeout, // MySQL ER_QUERY_TIMEOUT: max_execution_time exceeded
	1969: target.ClassTimeout, // MariaDB ER_STATEMENT_TIMEOUT: max_statement_time exceeded
	1317: target.ClassTimeout, // ER_QUERY_INTERRUPTED: KILL QUERY

	1053: target.ClassConnection, // ER_SERVER_SHUTDOWN
	1927: target.ClassConnection, // MariaDB ER_CONNECTION_KILLED
	4031: target.ClassConnection, // MySQL: disconnected for inactivity
	2006: target.ClassConnection, // CR_SERVER_GONE_ERROR
	2013: target.ClassConnection, // CR_SERVER_LOST
	2055: target.ClassConnection, // CR_SERVER_LOST_EXTENDED
}

// ErrorClass is the class of a server error number (ClassOther for a number
// candor does not list).
func ErrorClass(number uint16) target.ErrorClass {
	if c, ok := errorClasses[number]; ok {
		return c
	}
	return target.ClassOther
}

// Classify implements target.Target.
func (t *Target) Classify(err error) target.ErrorClass { return Classify(err) }

// ServerError implements target.ServerErrorer: the server's error number,
// SQLSTATE and message.
func (t *Target) ServerError(err error) (target.ServerError, bool) {
	var me *gomysql.MySQLError
	if !errors.As(err, &me) {
		return target.ServerError{}, false
	}
	se := target.ServerError{Code: int(me.Number), Message: me.Message}
	if me.SQLState != [5]byte{} {
		se.State = string(me.SQLState[:])
	}
	return se, true
}

// Classify maps an error from this driver's connections to a class. Order:
// target.ClassifyCommon (workload outcomes, client deadlines); then the
// server's error number:
//
//	1213 deadlock, 1205 lock wait timeout, 1020 record changed,
//	TiDB 8002, 8022, 8028, 9007 write conflicts              → retryable
//	1062, 1586 duplicate key; 1451, 1452 foreign key; 1048 NOT NULL;
//	3819, 4025 CHECK                                         → constraint
//	3024, 1969 statement time limit; 1317 query interrupted  → timeout
//	1053 shutdown, 1927 killed, 4031 idle, 2006, 2013, 2055  → connection
//	any other server error                                   → other
//
// then anything that means the session is gone (a bad or closed connection,
// EOF, a network error, connection refused) → connection; else other.
func Classify(err error) target.ErrorClass {
	if err == nil {
		return ""
	}
	if c := target.ClassifyCommon(err); c != "" {
		return c
	}
	var me *gomysql.MySQLError
	if errors.As(err, &me) {
		return ErrorClass(me.Number)
	}
	if isConnectionError(err) {
		return target.ClassConnection
	}
	return target.ClassOther
}

func isConnectionError(err error) bool {
	var netErr net.Error
	switch {
	case errors.Is(err, driver.ErrBadConn), errors.Is(err, gomysql.ErrInvalidConn),
		errors.Is(err, sql.ErrConnDone), errors.Is(err, gomysql.ErrPktSync),
		errors.Is(err, gomysql.ErrPktSyncMul), errors.Is(err, gomysql.ErrMalformPkt),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.EPIPE), errors.Is(err, target.ErrUnreachable):
		return true
	case errors.As(err, &netErr):
		return true
	}
	return strings.Contains(err.Error(), "connection refused")
}
