package cassandra

import (
	"errors"
	"io"
	"net"
	"syscall"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/candor-bench/candor/internal/target"
)

// Classify implements target.Target.
func (t *Target) Classify(err error) target.ErrorClass { return Classify(err) }

// Classify maps an error from this driver to a class:
//
//   - retryable: the coordinator did not attempt the statement — not enough
//     replicas alive for the consistency level (Unavailable), the node
//     overloaded or still bootstrapping; retrying cannot apply it twice;
//   - timeout: the replicas did not answer in time (read or write timeout,
//     a lightweight transaction whose outcome is unknown), or the client's
//     own deadline or request timeout passed; a timed-out write may have
//     been applied on some replicas;
//   - constraint: the keyspace or table to create already exists;
//   - connection: no node reachable, a connection closed or reset, the
//     session or Conn closed;
//   - other: everything else (syntax, invalid request, authentication,
//     read or write failures on replicas).
func Classify(err error) target.ErrorClass {
	if err == nil {
		return ""
	}
	if c := target.ClassifyCommon(err); c != "" {
		return c
	}
	var re gocql.RequestError
	if errors.As(err, &re) {
		switch re.Code() {
		case gocql.ErrCodeUnavailable, gocql.ErrCodeOverloaded, gocql.ErrCodeBootstrapping:
			return target.ClassRetryable
		case gocql.ErrCodeWriteTimeout, gocql.ErrCodeReadTimeout, gocql.ErrCodeCASWriteUnknown:
			return target.ClassTimeout
		case gocql.ErrCodeAlreadyExists:
			return target.ClassConstraint
		}
		return target.ClassOther
	}
	switch {
	case errors.Is(err, gocql.ErrTimeoutNoResponse):
		return target.ClassTimeout
	case errors.Is(err, gocql.ErrNoConnections), errors.Is(err, gocql.ErrConnectionClosed),
		errors.Is(err, gocql.ErrSessionClosed), errors.Is(err, gocql.ErrTooManyTimeouts),
		errors.Is(err, gocql.ErrNoStreams), errors.Is(err, gocql.ErrUnavailable),
		errors.Is(err, ErrConnClosed), errors.Is(err, ErrClosed), errors.Is(err, target.ErrUnreachable),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.EPIPE):
		return target.ClassConnection
	}
	var ne net.Error
	if errors.As(err, &ne) {
		if ne.Timeout() {
			return target.ClassTimeout
		}
		return target.ClassConnection
	}
	return target.ClassOther
}
