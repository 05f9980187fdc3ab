package mysql

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/candor-bench/candor/internal/target"
)

// A server at max_connections refuses with ER_CON_COUNT_ERROR: the message
// says so and how to fix it (not "check that the server is running"), and
// the error is still the target's (exit code 3).
func TestTooManyConnectionsMessage(t *testing.T) {
	tg := &Target{redacted: "mysql://u:xxxxx@127.0.0.1:3306/db", password: "pw"}
	for _, n := range []uint16{1040, 1203} {
		err := tg.connectError(fmt.Errorf("handshake: %w", &gomysql.MySQLError{Number: n, Message: "Too many connections"}))
		if !errors.Is(err, target.ErrUnreachable) || !strings.Contains(err.Error(), "refused the connection: too many connections") ||
			!strings.Contains(err.Error(), "max_connections") || strings.Contains(err.Error(), "server is running") {
			t.Errorf("%d: %v", n, err)
		}
	}
	if err := tg.connectError(errors.New("dial tcp: connection refused")); !strings.Contains(err.Error(), "server is running") {
		t.Errorf("network error: %v", err)
	}
}
