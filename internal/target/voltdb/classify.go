package voltdb

import (
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/candor-bench/candor/internal/target"
)

// Classify implements target.Target.
func (t *Target) Classify(err error) target.ErrorClass { return Classify(err) }

// Classify maps an error of this driver to a class:
//
//   - timeout: RESPONSE_UNKNOWN (-7: the transaction was dropped in a
//     change of partition leader and may have committed), and the
//     client's own deadline or a socket timeout: an unknown outcome,
//     which is not retried (a retry could apply it twice);
//   - connection: CONNECTION_LOST (-4), SERVER_UNAVAILABLE (-5: a node
//     shutting down or not yet ready), CONNECTION_TIMEOUT (-6), and a
//     session whose connection failed or could not be made;
//   - retryable: TXN_MISPARTITIONED and TXN_MISROUTED (-10, -11): the call
//     reached a site that does not hold its partition and ran nowhere;
//   - constraint: a USER_ABORT or GRACEFUL_FAILURE (-1, -2) with a
//     constraint failure (a duplicate key), or a CREATE of an object that
//     exists;
//   - other: every other failure the server reports (a syntax error, a
//     wrong number of parameters, an unexpected or operational failure).
func Classify(err error) target.ErrorClass {
	if err == nil {
		return ""
	}
	if c := target.ClassifyCommon(err); c != "" {
		return c
	}
	var se *StatusError
	if errors.As(err, &se) {
		switch se.Status {
		case StatusResponseUnknown:
			return target.ClassTimeout
		case StatusConnectionLost, StatusServerUnavailable, StatusConnectionTimeout:
			return target.ClassConnection
		case StatusTxnMispartitioned, StatusTxnMisrouted:
			return target.ClassRetryable
		case StatusUserAbort, StatusGracefulFailure:
			if se.Constraint || isConstraintMessage(se.Message) {
				return target.ClassConstraint
			}
		}
		return target.ClassOther
	}
	var le *LoginError
	switch {
	case errors.As(err, &le):
		return target.ClassOther
	case errors.Is(err, ErrConnLost), errors.Is(err, ErrConnClosed), errors.Is(err, target.ErrUnreachable),
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

// isConstraintMessage reports whether a failure's message is a
// constraint violation or an object that exists already.
func isConstraintMessage(msg string) bool {
	m := strings.ToUpper(msg)
	return strings.Contains(m, "CONSTRAINT VIOLATION") || strings.Contains(m, "ALREADY EXISTS")
}

// ServerError implements target.ServerErrorer: the server's message of a
// call that failed with USER_ABORT, GRACEFUL_FAILURE, UNEXPECTED_FAILURE or
// OPERATIONAL_FAILURE, which ran to a definite end (nothing committed).
// RESPONSE_UNKNOWN and the connection statuses are not: their outcome is
// unknown.
func (t *Target) ServerError(err error) (target.ServerError, bool) {
	var se *StatusError
	if !errors.As(err, &se) {
		return target.ServerError{}, false
	}
	switch se.Status {
	case StatusUserAbort, StatusGracefulFailure, StatusUnexpectedFailure, StatusOperationalFailure,
		StatusTxnMispartitioned, StatusTxnMisrouted:
		return target.ServerError{Code: int(se.Status), Message: se.Message}, true
	}
	return target.ServerError{}, false
}

// NotSent implements target.NotSender: the call failed before any byte of
// it was written (a session that could not connect again, a parameter
// without a wire type).
func (t *Target) NotSent(err error) bool {
	var ns *notSentError
	return errors.As(err, &ns)
}

var (
	_ target.ServerErrorer = (*Target)(nil)
	_ target.NotSender     = (*Target)(nil)
)
