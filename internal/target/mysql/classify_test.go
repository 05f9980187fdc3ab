package mysql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/candor-bench/candor/internal/target"
)

func TestClassify(t *testing.T) {
	my := func(n uint16) error { return fmt.Errorf("exec: %w", &gomysql.MySQLError{Number: n, Message: "x"}) }
	cases := []struct {
		name string
		err  error
		want target.ErrorClass
	}{
		{"deadlock", my(1213), target.ClassRetryable},
		{"lock wait timeout", my(1205), target.ClassRetryable},
		{"record changed (MariaDB snapshot isolation)", my(1020), target.ClassRetryable},
		{"TiDB select for update conflict", my(8002), target.ClassRetryable},
		{"TiDB commit retryable", my(8022), target.ClassRetryable},
		{"TiDB schema changed", my(8028), target.ClassRetryable},
		{"TiKV write conflict", my(9007), target.ClassRetryable},
		{"duplicate key", my(1062), target.ClassConstraint},
		{"duplicate key with key name", my(1586), target.ClassConstraint},
		{"foreign key parent", my(1451), target.ClassConstraint},
		{"foreign key child", my(1452), target.ClassConstraint},
		{"NOT NULL", my(1048), target.ClassConstraint},
		{"MySQL CHECK", my(3819), target.ClassConstraint},
		{"MariaDB CHECK", my(4025), target.ClassConstraint},
		{"max_execution_time", my(3024), target.ClassTimeout},
		{"max_statement_time", my(1969), target.ClassTimeout},
		{"KILL QUERY", my(1317), target.ClassTimeout},
		{"server shutdown", my(1053), target.ClassConnection},
		{"MariaDB connection killed", my(1927), target.ClassConnection},
		{"server gone", my(2006), target.ClassConnection},
		{"lost connection", my(2013), target.ClassConnection},
		{"syntax error", my(1064), target.ClassOther},
		{"unknown table", my(1146), target.ClassOther},
		{"client deadline", fmt.Errorf("q: %w", context.DeadlineExceeded), target.ClassTimeout},
		{"workload not found", target.ErrNotFound, target.ClassNotFound},
		{"workload unexpected rows", target.ErrUnexpectedRows, target.ClassUnexpected},
		{"bad conn", driver.ErrBadConn, target.ClassConnection},
		{"invalid conn", fmt.Errorf("x: %w", gomysql.ErrInvalidConn), target.ClassConnection},
		{"conn done", sql.ErrConnDone, target.ClassConnection},
		{"out of sync", gomysql.ErrPktSync, target.ClassConnection},
		{"EOF", fmt.Errorf("read: %w", io.EOF), target.ClassConnection},
		{"unexpected EOF", io.ErrUnexpectedEOF, target.ClassConnection},
		{"reset", &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}, target.ClassConnection},
		{"refused, as text", errors.New("dial tcp 127.0.0.1:1: connect: connection refused"), target.ClassConnection},
		{"unreachable", fmt.Errorf("%w: x", target.ErrUnreachable), target.ClassConnection},
		{"plain error", errors.New("boom"), target.ClassOther},
		{"nil", nil, ""},
	}
	for _, c := range cases {
		if got := Classify(c.err); got != c.want {
			t.Errorf("%s: Classify(%v) = %q, want %q", c.name, c.err, got, c.want)
		}
	}
}
