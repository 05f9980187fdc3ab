package cli

import "github.com/candor-bench/candor/internal/engine"

// Exit codes are a public, documented list (README "Exit codes"), kept by
// the engine, whose errors carry them.
const (
	ExitOK               = engine.ExitOK
	ExitInternal         = engine.ExitInternal
	ExitUsage            = engine.ExitUsage
	ExitUnreachable      = engine.ExitUnreachable
	ExitUnsupported      = engine.ExitUnsupported
	ExitRunFailed        = engine.ExitRunFailed
	ExitInterrupted      = engine.ExitInterrupted
	ExitResultNotWritten = engine.ExitResultNotWritten
)

// ExitAuditFindings: candor audit found an error-level finding. It shares
// 1 with ExitInternal on purpose: audit's exit code is a verdict, as a
// linter's is (0 clean, 1 findings, 2 bad input), so a CI job can gate on it.
const ExitAuditFindings = 1

// ExitError carries an exit code with its message.
type ExitError = engine.Error

// withCode wraps err with an exit code unless it already has one.
func withCode(code int, err error) error { return engine.WithCode(code, err) }

func usagef(format string, a ...any) error { return engine.Usagef(format, a...) }

// ExitCode maps an error to the documented exit code.
func ExitCode(err error) int { return engine.Code(err) }
