package cassandra

import (
	"context"
	"errors"
	"fmt"
	"io"
	"syscall"
	"testing"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/candor-bench/candor/internal/target"
)

// serverError is a server's error frame as the driver reports it
// (gocql.RequestError).
type serverError struct{ code int }

func (e serverError) Code() int       { return e.code }
func (e serverError) Message() string { return fmt.Sprintf("code %#x", e.code) }
func (e serverError) Error() string   { return e.Message() }

func TestClassify(t *testing.T) {
	wrap := func(err error) error { return fmt.Errorf("statement: %w", err) }
	cases := []struct {
		err  error
		want target.ErrorClass
	}{
		{nil, ""},
		{wrap(serverError{gocql.ErrCodeUnavailable}), target.ClassRetryable},
		{serverError{gocql.ErrCodeOverloaded}, target.ClassRetryable},
		{serverError{gocql.ErrCodeBootstrapping}, target.ClassRetryable},
		{wrap(serverError{gocql.ErrCodeWriteTimeout}), target.ClassTimeout},
		{serverError{gocql.ErrCodeReadTimeout}, target.ClassTimeout},
		{serverError{gocql.ErrCodeCASWriteUnknown}, target.ClassTimeout},
		{serverError{gocql.ErrCodeAlreadyExists}, target.ClassConstraint},
		{serverError{gocql.ErrCodeSyntax}, target.ClassOther},
		{serverError{gocql.ErrCodeInvalid}, target.ClassOther},
		{serverError{gocql.ErrCodeWriteFailure}, target.ClassOther},
		{serverError{gocql.ErrCodeCredentials}, target.ClassOther},
		{gocql.ErrTimeoutNoResponse, target.ClassTimeout},
		{wrap(context.DeadlineExceeded), target.ClassTimeout},
		{gocql.ErrNoConnections, target.ClassConnection},
		{wrap(gocql.ErrConnectionClosed), target.ClassConnection},
		{gocql.ErrSessionClosed, target.ClassConnection},
		{ErrConnClosed, target.ClassConnection},
		{io.EOF, target.ClassConnection},
		{wrap(syscall.ECONNRESET), target.ClassConnection},
		{wrap(target.ErrNotFound), target.ClassNotFound},
		{target.ErrUnexpectedRows, target.ClassUnexpected},
		{errors.New("something else"), target.ClassOther},
	}
	for _, c := range cases {
		if got := Classify(c.err); got != c.want {
			t.Errorf("Classify(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}
