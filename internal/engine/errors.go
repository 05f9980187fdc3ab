package engine

import (
	"errors"
	"fmt"

	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

// Exit codes are a public, documented list (README "Exit codes"). Keep them
// stable: scripts depend on them. The engine's errors carry them (Error), so
// that every caller (the CLI, plans, rerun) ends with the same code.
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

// Error carries an exit code with its message.
type Error struct {
	Code int
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// WithCode wraps err with an exit code unless it already has one.
func WithCode(code int, err error) error {
	if err == nil {
		return nil
	}
	var ee *Error
	if errors.As(err, &ee) {
		return err
	}
	if code == ExitRunFailed && errors.Is(err, target.ErrUnreachable) {
		// A phase that could not open its sessions (the server refused
		// them: too many connections) never started: the target's code,
		// as its message says.
		code = ExitUnreachable
	}
	return &Error{Code: code, Err: err}
}

// Usagef is a bad-input error (ExitUsage).
func Usagef(format string, a ...any) error {
	return &Error{Code: ExitUsage, Err: fmt.Errorf(format, a...)}
}

// Code maps an error to the documented exit code: the one it carries, else
// the one its class has.
func Code(err error) int {
	if err == nil {
		return ExitOK
	}
	var ee *Error
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

// ErrInterrupted is the error of a run ended by a signal (or a closed
// output).
var ErrInterrupted = errors.New("interrupted")

func withCode(code int, err error) error   { return WithCode(code, err) }
func usagef(format string, a ...any) error { return Usagef(format, a...) }
