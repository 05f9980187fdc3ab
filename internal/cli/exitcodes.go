package cli

import (
	"errors"
	"fmt"

	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

// Exit codes are a public, documented list (README "Exit codes"). Keep them
// stable: scripts depend on them.
const (
	ExitOK          = 0   // success
	ExitInternal    = 1   // a bug in candor (an unexpected error or a recovered panic)
	ExitUsage       = 2   // bad input: unknown workload, option, property or value; malformed file; bad URL
	ExitUnreachable = 3   // the target could not be reached or refused the connection (also when a phase cannot open all its sessions: too many connections)
	ExitUnsupported = 4   // the target lacks something the workload needs, or a safety refusal (a table candor did not create)
	ExitRunFailed   = 5   // the benchmark started but failed (a load batch failed after its retries, the server went away for good)
	ExitInterrupted = 130 // interrupted by Ctrl-C or SIGTERM; a partial result marked interrupted was written
)

// ExitResultNotWritten: the run ended and its summary was printed, but its
// result file could not be written (a full disk, a directory that stopped
// being writable); the interval side file keeps what it could.
const ExitResultNotWritten = 6

// ExitAuditFindings: candor audit found an error-level finding. It shares
// 1 with ExitInternal on purpose: audit's exit code is a verdict, as a
// linter's is (0 clean, 1 findings, 2 bad input), so a CI job can gate on it.
const ExitAuditFindings = 1

// ExitError carries an exit code with its message.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// withCode wraps err with an exit code unless it already has one.
func withCode(code int, err error) error {
	if err == nil {
		return nil
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		return err
	}
	if code == ExitRunFailed && errors.Is(err, target.ErrUnreachable) {
		// A phase that could not open its sessions (the server refused
		// them: too many connections) never started: the target's code,
		// as its message says.
		code = ExitUnreachable
	}
	return &ExitError{Code: code, Err: err}
}

func usagef(format string, a ...any) error {
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf(format, a...)}
}

// ExitCode maps an error to the documented exit code.
func ExitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var ee *ExitError
	switch {
	case errors.As(err, &ee):
		return ee.Code
	case errors.Is(err, target.ErrBadURL), errors.Is(err, workload.ErrUnknown):
		return ExitUsage
	case errors.Is(err, target.ErrUnreachable):
		return ExitUnreachable
	case errors.Is(err, target.ErrForeignTable), errors.Is(err, target.ErrUnsupported):
		return ExitUnsupported
	}
	return ExitInternal
}
