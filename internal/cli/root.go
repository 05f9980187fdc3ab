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
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/candor-bench/candor/internal/engine"
	"github.com/candor-bench/candor/internal/runflags"
	"github.com/candor-bench/candor/internal/suggest"
	"github.com/candor-bench/candor/internal/workload"

	// Drivers and workloads register themselves.
	_ "github.com/candor-bench/candor/internal/target/cassandra"
	_ "github.com/candor-bench/candor/internal/target/fake"
	_ "github.com/candor-bench/candor/internal/target/mysql"
	_ "github.com/candor-bench/candor/internal/target/postgres"
	_ "github.com/candor-bench/candor/internal/target/sqlite"
	_ "github.com/candor-bench/candor/internal/target/voltdb"
	_ "github.com/candor-bench/candor/internal/workload/bank"
	_ "github.com/candor-bench/candor/internal/workload/commitloop"
	_ "github.com/candor-bench/candor/internal/workload/kv"
	_ "github.com/candor-bench/candor/internal/workload/ledgerwl"
	_ "github.com/candor-bench/candor/internal/workload/listappend"
	_ "github.com/candor-bench/candor/internal/workload/pgbench"
	_ "github.com/candor-bench/candor/internal/workload/sysbench"
	_ "github.com/candor-bench/candor/internal/workload/sysbenchlua"
	_ "github.com/candor-bench/candor/internal/workload/tpcc"
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

	// outputClosed is closed when a write to Stdout or Stderr found its
	// reader gone (a broken pipe: candor run ... | head -3); Main sets it.
	outputClosed <-chan struct{}
}

// OSEnv returns the real process state.
func OSEnv() *Env {
	tty := false
	if fi, err := os.Stderr.Stat(); err == nil {
		tty = fi.Mode()&os.ModeCharDevice != 0
	}
	// A write to a closed pipe on stdout or stderr would kill the process
	// with SIGPIPE and lose the run; with the signal handled the write
	// returns EPIPE instead, which Main turns into an interrupt (the channel
	// is never read: the handler alone changes the behaviour).
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
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
	// A broken pipe on either ends the run as Ctrl-C does (interruptContext).
	e := *env
	closed := make(chan struct{})
	var once sync.Once
	onBroken := func() { once.Do(func() { close(closed) }) }
	e.Stdout = &pipeWatch{w: env.Stdout, broken: onBroken}
	e.Stderr = &lockedWriter{w: &pipeWatch{w: env.Stderr, broken: onBroken}}
	e.outputClosed = closed
	env = &e
	root := NewRoot(env)
	if err := workloadAsCommand(root, args); err != nil {
		fmt.Fprintf(env.Stderr, "candor: %v\n", err)
		return ExitCode(err)
	}
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return ExitOK
	}
	fmt.Fprintf(env.Stderr, "candor: %v\n", err)
	return ExitCode(err)
}

// workloadAsCommand refuses a command line that starts with a workload's
// name instead of a command, as go-tpc's and YCSB's do (candor tpcc
// prepare ..., candor ycsb/a ...), naming the candor command to type;
// cobra would report the first flag as unknown instead.
func workloadAsCommand(root *cobra.Command, args []string) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return nil
	}
	for _, c := range root.Commands() {
		if c.Name() == args[0] || c.HasAlias(args[0]) {
			return nil
		}
	}
	if _, _, err := workload.Lookup(args[0]); err != nil {
		if !slices.ContainsFunc(args[1:], func(a string) bool { return strings.HasPrefix(a, "-") }) {
			return nil // cobra says it: an unknown command, with the near ones
		}
		// cobra would report the first flag as unknown to the root
		var names []string
		for _, c := range root.Commands() {
			if c.IsAvailableCommand() {
				names = append(names, c.Name())
			}
		}
		return usagef("unknown command %q for \"candor\"%s (commands: %s; see 'candor --help')", args[0], suggest.Hint(args[0], "", names), strings.Join(names, ", "))
	}
	if len(args) > 1 {
		if verb := runflags.PhaseWord(args[1]); verb != "" {
			return usagef("there is no 'candor %s' command: '%s %s' is '%s %s' with the same options (candor's command first, then the workload)", args[0], args[0], args[1], verb, args[0])
		}
	}
	return usagef("there is no 'candor %s' command: %s is a workload; load it with 'candor load %s', run it with 'candor run %s' (and 'candor cleanup %s')", args[0], args[0], args[0], args[0], args[0])
}

// NewRoot builds the root command.
func NewRoot(env *Env) *cobra.Command {
	root := &cobra.Command{
		Use:   "candor",
		Short: "Database benchmarks measured right, recorded completely, re-runnable from their result files",
		Long: `candor runs standard database workloads — YCSB's core workloads A–F (with YCSB property files),
sysbench 1.0.20's OLTP tests (also from a sysbench command line: candor sysbench ...), the
key-value workloads KV-1..3, a commit loop and a durability ledger — against PostgreSQL-wire and
MySQL-wire servers, CQL clusters (Cassandra) and embedded SQLite, over their native protocols. It
measures latency with HDR histograms (closed or open loop, coordinated omission handled), can inject
faults and count lost writes, runs as several shards merged exactly, and writes a self-describing
result file that report, compare, audit and rerun read back.

With no --target, candor benchmarks an embedded SQLite file (sqlite://candor.db) in the
working directory. 'candor list' shows the workloads, 'candor run WORKLOAD --help' a workload's
options.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usagef("%v%s (see '%s --help')", err, runflags.FlagHint(c.Flags(), err), c.CommandPath())
	})
	run, load, cleanup, prewarm := newRunCmd(env, phaseRun), newRunCmd(env, phaseLoad), newCleanupCmd(env), newPrewarmCmd(env)
	for _, c := range []*cobra.Command{run, load, cleanup, prewarm} {
		workloadHelp(c) // each workload's options under its name
	}
	root.AddCommand(newAuditCmd(env), newRerunCmd(env))
	root.AddCommand(newMergeCmd(env))
	root.AddCommand(run, load, cleanup, newListCmd(env), newVersionCmd(env), newPlanCmd(env))
	root.AddCommand(newReportCmd(env), newCompareCmd(env), newSysbenchCmd(env), newPgbenchCmd(env), prewarm)
	root.AddCommand(newLedgerCmd(env), newCheckCmd(env), newIsolationCmd(env))
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "help" {
			// cobra's prints the root's help for an unknown topic.
			c.Run = nil
			c.RunE = func(c *cobra.Command, args []string) error {
				found, rest, err := root.Find(args)
				switch {
				case err != nil || found == nil:
				case len(rest) == 0:
					return found.Help()
				case found.Args != nil && found.Args(found, rest) == nil:
					found.HelpFunc()(found, rest) // candor help run kv-basic
					return nil
				}
				return usagef("unknown help topic %q (see 'candor --help')", strings.Join(args, " "))
			}
		}
	}
	usageErrors(root)
	return root
}

// usageErrors makes every bad use of c and its subcommands a usage error
// (ExitUsage), never a bare error that would read as a bug in candor: the
// errors of each command's argument check (cobra's "accepts 1 arg(s)"), and
// an unknown subcommand ("candor frobnicate", "candor plan frob"). A
// command that only groups others prints its help when given none.
func usageErrors(c *cobra.Command) {
	switch {
	case c.HasSubCommands() && !c.Runnable():
		c.Args = func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return nil
			}
			var names []string
			for _, sub := range cmd.Commands() {
				if sub.IsAvailableCommand() {
					names = append(names, sub.Name())
				}
			}
			hint := suggest.Hint(args[0], "", names)
			return usagef("unknown command %q for %q%s (commands: %s; see '%s --help')", args[0], cmd.CommandPath(), hint, strings.Join(names, ", "), cmd.CommandPath())
		}
		c.RunE = func(cmd *cobra.Command, args []string) error { return cmd.Help() }
	case c.Args != nil:
		check := c.Args
		c.Args = func(cmd *cobra.Command, args []string) error {
			if err := check(cmd, args); err != nil {
				return withCode(ExitUsage, fmt.Errorf("%w (see '%s --help')", err, cmd.CommandPath()))
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		usageErrors(sub)
	}
}

// interruptContext is cancelled at the first SIGINT/SIGTERM, or when a
// write to stdout or stderr finds its pipe closed; a second signal exits at
// once. Output closing does not count as the first signal: Ctrl-C on a
// pipeline reaches candor as well as the reader it feeds.
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
	closed := env.outputClosed
	done := make(chan struct{})
	go func() {
		cancelled := false
		var signalled time.Time
		for {
			select {
			case s := <-sig:
				if !signalled.IsZero() {
					if time.Since(signalled) < doubleSignalGrace {
						continue // the same stop, delivered twice
					}
					os.Exit(ExitInterrupted)
				}
				signalled = time.Now()
				if !cancelled {
					fmt.Fprintf(env.Stderr, "\ncandor: %v received: ending the run and writing a partial result (again to quit at once)\n", s)
				}
			case <-closed:
				closed = nil
				if !cancelled {
					fmt.Fprintf(env.Stderr, "\ncandor: output closed (broken pipe): ending the run and writing a partial result\n")
				}
			case <-done:
				return
			}
			cancelled = true
			cancel(errInterrupted)
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

var errInterrupted = engine.ErrInterrupted

// doubleSignalGrace is how soon after the first signal a second one counts
// as the same stop rather than a request to quit at once. `timeout -s INT`
// (without --foreground) signals candor and then its process group, so one
// stop arrives as two signals microseconds apart; a person pressing Ctrl-C
// twice is far slower than this.
const doubleSignalGrace = 500 * time.Millisecond

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

// pipeWatch passes writes to w until one fails with EPIPE (its reader is
// gone); it then calls broken and drops this and every later write,
// reporting success, so the run ends as if interrupted and still writes its
// result.
type pipeWatch struct {
	w      io.Writer
	broken func()
	gone   atomic.Bool
}

func (p *pipeWatch) Write(b []byte) (int, error) {
	if p.gone.Load() {
		return len(b), nil
	}
	n, err := p.w.Write(b)
	if err != nil && errors.Is(err, syscall.EPIPE) {
		p.gone.Store(true)
		p.broken()
		return len(b), nil
	}
	return n, err
}

// redactArgs hides secrets in a command line before it is recorded
// (engine.RedactArgs).
func redactArgs(args []string, redact func(string) string) []string {
	return engine.RedactArgs(args, redact)
}

// maskedValue replaces a secret's value, as target.Redact does a URL's password.
const maskedValue = engine.MaskedValue
