// Package cli builds candor's cobra commands. It parses flags into typed
// configurations and wires the packages together; it holds no benchmark
// logic. Process state (streams, environment, signals) comes in through Env so
// the whole CLI runs in tests.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"github.com/spf13/cobra"

	// Drivers and workloads register themselves.
	_ "github.com/candor-bench/candor/internal/target/cassandra"
	_ "github.com/candor-bench/candor/internal/target/fake"
	_ "github.com/candor-bench/candor/internal/target/mysql"
	_ "github.com/candor-bench/candor/internal/target/postgres"
	_ "github.com/candor-bench/candor/internal/target/sqlite"
	_ "github.com/candor-bench/candor/internal/workload/commitloop"
	_ "github.com/candor-bench/candor/internal/workload/kv"
	_ "github.com/candor-bench/candor/internal/workload/sysbench"
	_ "github.com/candor-bench/candor/internal/workload/ycsb"
)

// Env is the process state the CLI uses.
type Env struct {
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	// Signals delivers interrupts; nil means the process's SIGINT/SIGTERM.
	Signals <-chan os.Signal
	// StderrTTY redraws progress bars in place.
	StderrTTY bool
	// Args is the command line as typed, for the result's provenance.
	Args []string
}

// OSEnv returns the real process state.
func OSEnv() *Env {
	tty := false
	if fi, err := os.Stderr.Stat(); err == nil {
		tty = fi.Mode()&os.ModeCharDevice != 0
	}
	return &Env{Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, StderrTTY: tty, Args: os.Args}
}

// Main runs the CLI with args and returns the exit code. Panics are recovered
// and reported as internal errors without a stack trace (set CANDOR_DEBUG=1
// to see one).
func Main(env *Env, args []string) (code int) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(env.Stderr, "candor: internal error: %v\nThis is a bug in candor; please report it with the command you ran.\n", p)
			if env.Getenv("CANDOR_DEBUG") != "" {
				panic(p)
			}
			code = ExitInternal
		}
	}()
	// Status lines, the signal handler and errors write stderr from several
	// goroutines: serialise them (a test's bytes.Buffer is not safe).
	e := *env
	e.Stderr = &lockedWriter{w: env.Stderr}
	env = &e
	root := NewRoot(env)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return ExitOK
	}
	fmt.Fprintf(env.Stderr, "candor: %v\n", err)
	return ExitCode(err)
}

// NewRoot builds the root command.
func NewRoot(env *Env) *cobra.Command {
	root := &cobra.Command{
		Use:   "candor",
		Short: "Database benchmarks measured right, recorded completely, re-runnable from their result files",
		Long: `candor runs standard database workloads (YCSB A–F today) against real databases over their
native protocols, measures latency with HDR histograms (closed or open loop, coordinated
omission handled), and writes a self-describing result file.

With no --target, candor benchmarks an embedded SQLite file (sqlite://candor.db) in the
working directory.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usagef("%v (see 'candor %s --help')", err, c.Name())
	})
	root.AddCommand(newRunCmd(env, phaseRun), newRunCmd(env, phaseLoad), newCleanupCmd(env), newListCmd(env), newVersionCmd(env), newPlanCmd(env))
	root.AddCommand(newReportCmd(env), newCompareCmd(env), newSysbenchCmd(env), newPrewarmCmd(env))
	return root
}

// interruptContext is cancelled at the first SIGINT/SIGTERM; a second one
// exits at once.
func interruptContext(env *Env) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sig := env.Signals
	var stop func()
	if sig == nil {
		ch := make(chan os.Signal, 2)
		signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
		sig = ch
		stop = func() { signal.Stop(ch) }
	}
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sig:
			fmt.Fprintf(env.Stderr, "\ncandor: %v received: ending the run and writing a partial result (again to quit at once)\n", s)
			cancel(errInterrupted)
		case <-done:
			return
		}
		select {
		case <-sig:
			os.Exit(ExitInterrupted)
		case <-done:
		}
	}()
	return ctx, func() {
		close(done)
		if stop != nil {
			stop()
		}
		cancel(nil)
	}
}

var errInterrupted = errors.New("interrupted")

// lockedWriter serialises writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// redactArgs hides secrets in a command line before it is recorded.
func redactArgs(args []string, redact func(string) string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if strings.Contains(a, "://") || strings.Contains(strings.ToLower(a), "password") {
			a = redact(a)
		}
		out[i] = a
	}
	return out
}
