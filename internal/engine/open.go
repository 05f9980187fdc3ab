package engine

import (
	"context"
	"fmt"

	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

// OpenBound opens the target at urls (DefaultTarget when none; several are
// the nodes of one cluster) and binds wl to it for threads workers, each
// with its own connection. A workload that cannot run there is
// ExitUnsupported; more connections than the process may open files is
// ExitUsage; an open cut short by an interrupt is ExitInterrupted. The
// caller closes the target.
func OpenBound(ctx context.Context, urls []string, opts target.Options, wl workload.Workload, threads int) (target.Target, error) {
	return OpenBoundConns(ctx, urls, opts, wl, threads, threads)
}

// OpenBoundConns is OpenBound for a command that opens conns connections
// whatever the workload's threads (cleanup: one).
func OpenBoundConns(ctx context.Context, urls []string, opts target.Options, wl workload.Workload, threads, conns int) (target.Target, error) {
	if len(urls) == 0 {
		urls = []string{DefaultTarget}
	}
	tgt, err := target.OpenMulti(ctx, urls, opts)
	if err != nil {
		if ctx.Err() != nil {
			return nil, &Error{Code: ExitInterrupted, Err: ErrInterrupted}
		}
		return nil, err
	}
	if err := checkFileLimit(conns, tgt); err != nil {
		tgt.Close()
		return nil, err
	}
	env := workload.Env{Dialect: tgt.Dialect(), Capabilities: tgt.Capabilities(), Threads: threads,
		Classify: tgt.Classify, ServerError: func(err error) (target.ServerError, bool) { return target.ServerErrorOf(tgt, err) }}
	if err := wl.Bind(env); err != nil {
		tgt.Close()
		return nil, withCode(ExitUnsupported, fmt.Errorf("%s on %s: %w", wl.Name(), tgt.Driver(), err))
	}
	return tgt, nil
}

// fileLimit returns how many files the process may open (RLIMIT_NOFILE's
// soft limit, which Go raises to the hard one at start); ok is false where
// there is no such limit. A variable for tests.
var fileLimit = openFileLimit

// filesSpare are the files candor needs besides its connections: the
// result and interval files, the binary, the runtime's own.
const filesSpare = 64

// checkFileLimit refuses conns connections to tgt up front when they need
// more files than the process may open: each connection holds a socket (an
// embedded SQLite one its database, journal and shared-memory files), and
// hitting the limit half-way would fail the run after opening thousands of
// sessions. The null target opens no files.
func checkFileLimit(conns int, tgt target.Target) error {
	limit, ok := fileLimit()
	if !ok || tgt.Driver() == "null" {
		return nil
	}
	per := 1
	if tgt.Capabilities().Embedded {
		per = 3
	}
	need := uint64(conns)*uint64(per) + filesSpare
	if need <= limit {
		return nil
	}
	return usagef("--threads %d needs about %d open files (%d per connection, one connection per thread) but this process may open %d (ulimit -n); "+
		"lower --threads to at most %d or raise the limit (ulimit -n %d)", conns, need, per, limit, max(int64(limit)-filesSpare, 0)/int64(per), need)
}
