package engine

import (
	"context"
	"fmt"
	"github.com/candor-bench/candor/internal/testutil/dbtest"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/result/resulttest"
	"github.com/candor-bench/candor/internal/runner"
	"github.com/candor-bench/candor/internal/target"

	_ "github.com/candor-bench/candor/internal/target/mysql"
	_ "github.com/candor-bench/candor/internal/target/postgres"
	_ "github.com/candor-bench/candor/internal/workload/commitloop"
	_ "github.com/candor-bench/candor/internal/workload/kv"
	_ "github.com/candor-bench/candor/internal/workload/ledgerwl"
	_ "github.com/candor-bench/candor/internal/workload/sysbench"
)

// The engine's integration tests run whole Specs through Run against real
// servers (SQLite always, PostgreSQL and MariaDB when CANDOR_TEST_POSTGRES_URL
// and CANDOR_TEST_MYSQL_URL are set), with absolute paths and no change of
// directory, so that those on tables or databases of their own run in
// parallel. What the CLI prints of a run (its summary) is the CLI's tests'.

// Beside candor, the tests use their own connections (internal/testutil/dbtest).
type lockedBuffer = dbtest.LockedBuffer

var (
	withConn  = dbtest.WithConn
	countRows = dbtest.CountRows
	exists    = dbtest.Exists
	execSQL   = dbtest.ExecSQL
	markOf    = dbtest.MarkOf
)

// ran is one run of an integration test: its exit code (Code of Run's
// error), what it said on stderr (status lines, then the error as the CLI
// prints it: "candor: ...") and its report.
type ran struct {
	code   int
	stderr string
	rep    Report
}

// runIn runs spec with ctx (cancelled: the run is interrupted, as by
// Ctrl-C) and checks every result the run wrote in the directory of its
// --out by the conservation laws (resulttest), as the CLI's tests check
// every result a command writes.
func runIn(t *testing.T, ctx context.Context, stderr io.Writer, spec Spec) ran {
	t.Helper()
	var errb lockedBuffer
	w := io.Writer(&errb)
	if stderr != nil {
		w = io.MultiWriter(&errb, stderr)
	}
	began := time.Now().Add(-time.Second) // file times may be coarse
	env := &Env{Stdout: io.Discard, Stderr: w, Args: append([]string{"candor"}, spec.Args()...), Display: statusDisplay{w}}
	rep, err := Run(ctx, env, spec)
	if err != nil {
		fmt.Fprintf(w, "candor: %v\n", err)
	}
	if spec.Out != "" {
		resulttest.CheckFilesSince(t, filepath.Dir(spec.Out), began) // every result the run wrote breaks no law
	}
	return ran{Code(err), errb.String(), rep}
}

// statusDisplay prints nothing of its own, and sends the runner's status
// lines ("[load] ...") to w unless the run is quiet, as the CLI's does.
type statusDisplay struct{ w io.Writer }

func (d statusDisplay) Start(r *runner.Runner, s Started) {
	if !s.Spec.Quiet {
		r.Status = d.w
	}
}
func (statusDisplay) Summary(Finished) error { return nil }

// runE2E runs spec to its end.
func runE2E(t *testing.T, spec Spec) ran {
	t.Helper()
	return runIn(t, context.Background(), nil, spec)
}

// specFor is a Spec of phase for wl on url (none: the default SQLite file,
// which a test always names), writing out, quiet, with properties props
// (name=value).
func specFor(phase, wl, url, out string, props ...string) Spec {
	s := NewSpec(phase, wl)
	if url != "" {
		s.Targets = []string{url}
	}
	s.Out, s.Quiet, s.Properties = out, true, props
	return s
}

func ptr[T any](v T) *T { return &v }

// cleanupE2E drops wl's tables on url as candor cleanup does, and returns
// its exit code and what it said.
func cleanupE2E(t *testing.T, url, wl string, props ...string) (int, string) {
	t.Helper()
	var errb lockedBuffer
	err := func() error {
		w, err := ResolveWorkload(&errb, wl, nil, props)
		if err != nil {
			return err
		}
		ctx := context.Background()
		tgt, err := OpenBoundConns(ctx, []string{url}, target.Options{ConnectTimeout: target.DefaultConnectTimeout}, w, 1, 1)
		if err != nil {
			return err
		}
		defer tgt.Close()
		return Cleanup(ctx, io.Discard, &errb, tgt, w, CleanupRequest{Quiet: true})
	}()
	if err != nil {
		fmt.Fprintf(&errb, "candor: %v\n", err)
	}
	return Code(err), errb.String()
}

// runPhaseOf is the last run phase of the result at path.
func runPhaseOf(t *testing.T, path string) *result.Phase {
	t.Helper()
	res := resulttest.Read(t, path)
	for i := len(res.Phases) - 1; i >= 0; i-- {
		if res.Phases[i].Name == PhaseRun {
			return &res.Phases[i]
		}
	}
	t.Fatalf("%s has no run phase", path)
	return nil
}

// verifyE2E is candor ledger verify of the result at path: its exit code,
// stdout and stderr (with the error as the CLI prints it).
func verifyE2E(t *testing.T, path string, req VerifyRequest) (int, string, string) {
	t.Helper()
	var out, errb lockedBuffer
	if req.Timeout == 0 {
		req.Timeout = DefaultRecoveryTimeout // --recovery-timeout's default
	}
	began := time.Now().Add(-time.Second)
	err := VerifyLedger(context.Background(), &Env{Stdout: &out, Stderr: &errb, Display: silent{}}, path, req)
	if err != nil {
		fmt.Fprintf(&errb, "candor: %v\n", err)
	}
	resulttest.CheckFilesSince(t, filepath.Dir(path), began)
	return Code(err), out.String(), errb.String()
}
