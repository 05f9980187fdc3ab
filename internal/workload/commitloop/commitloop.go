// Package commitloop is the single-session commit test of the published
// distributed SQL vs PostgreSQL comparison (docs/EXPERIMENTS.md E4),
// registered as the workload commit-loop.
//
// The table is (i INTEGER PRIMARY KEY, t TIMESTAMP DEFAULT <server clock>),
// or with jobs > 1 (j INTEGER, i INTEGER, t ..., PRIMARY KEY (j, i)); the
// clock is the dialect's per-row server clock (clock_timestamp() on
// PostgreSQL, CURRENT_TIMESTAMP(6) on MySQL, strftime('%Y-%m-%d
// %H:%M:%f','now') on SQLite). Worker w is job j = w+1 and inserts i = 1, 2,
// ..., rows, one autocommitted INSERT per operation (INSERT), so every row is
// its own commit. Limits asks for jobs workers and jobs × rows operations,
// which the runner splits into exactly rows per worker.
//
// After the run, PostRun reads the rate the server saw, as published:
// count(*) / (max(t) - min(t)) computed in SQL, overall and per job
// (server_rows_per_s, server_rows_per_s_job_1, ..., with rows and
// server_span_s beside them). It counts n rows over the n-1 gaps between
// them, exactly as the published query does.
//
// With in-server=true the loop runs inside the server as published: one DO
// block per job that inserts its rows with a COMMIT after each (PostgreSQL
// 11+ and YugabyteDB), as one operation (LOOP); Limits then asks for jobs
// operations. Dialects without such a block fail at Bind.
//
// The workload has no load phase, but its table must be empty when the run
// starts (the rows are 1..rows and the rate spans the whole table): run
// `candor cleanup commit-loop` between runs, or `candor run commit-loop
// --load always`, which drops candor's table and creates it again. A run
// that finds rows already there fails on its first INSERT with a message
// saying so. With --time instead of an operation count each job keeps going
// past rows (i = rows+1, ...), and in-server blocks insert the next rows
// values of i each.
package commitloop

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"strconv"
	"strings"

	"github.com/candor-bench/candor/internal/cacheline"
	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/ledger"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

// Name is the registry name.
const Name = "commit-loop"

// Reference names what this reproduces.
const Reference = "single-session commit loop (docs/EXPERIMENTS.md E4)"

// Defaults: the published 10,000 rows per session, one session.
const (
	DefaultRows  = 10000
	DefaultJobs  = 1
	DefaultTable = "commit_loop"
	// MaxRows keeps i an INTEGER (and the DO block's loop bounds) in range.
	MaxRows = 100000000
	// MaxJobs bounds the parallel jobs (one connection each).
	MaxJobs = 1024
)

// Operation IDs.
const (
	OpInsert workload.OpID = iota // one row, one commit
	OpLoop                        // in-server: a whole DO block of rows commits
)

func init() {
	workload.Register(workload.Entry{
		Name:        Name,
		Description: "E4: one session inserts rows 1..N committing each; server-side rows/s = count / (max(t) - min(t))",
		Reference:   Reference,
		Options: []workload.Option{
			{Name: "rows", Default: strconv.Itoa(DefaultRows), Usage: "rows per job, one commit each"},
			{Name: "jobs", Default: strconv.Itoa(DefaultJobs), Usage: "parallel sessions, each its own j (sets the threads)"},
			{Name: "in-server", Default: "false", Usage: "run the loop inside the server as one DO block per job (PostgreSQL 11+, YugabyteDB)"},
			{Name: "table", Default: DefaultTable, Usage: "table name"},
		},
		New: func(variant string, files, props []string) (workload.Workload, error) {
			return New(files, props)
		},
	})
}

// Options are the resolved options, as the result file records them.
type Options struct {
	Reference string `json:"reference"`
	Table     string `json:"table"`
	Rows      int64  `json:"rows"`
	Jobs      int    `json:"jobs"`
	InServer  bool   `json:"in-server"`
	// ServerClock is the default expression of t on the bound target.
	ServerClock string `json:"server-clock,omitempty"`
	// Ledger: every commit's outcome is in the durability ledger (--ledger).
	Ledger bool `json:"ledger,omitempty"`
}

// Workload is the configured commit-loop. Besides workload.Workload it
// implements workload.PostRunner.
type Workload struct {
	opts Options

	bound bool
	stmts boundStatements
}

// boundStatements are the statements with the dialect they were built for.
type boundStatements struct {
	dialect.CommitLoopStatements
	dialect dialect.Dialect
}

var (
	_ workload.Workload   = (*Workload)(nil)
	_ workload.PostRunner = (*Workload)(nil)
	_ workload.Ledgered   = (*Workload)(nil)
	_ workload.Worker     = (*worker)(nil)
)

// New builds commit-loop from name=value options: rows, jobs, in-server,
// table, and the CLI's operationcount, which must equal the operations the
// loop needs (jobs × rows, or jobs with in-server) when given. Every problem
// is returned at once.
func New(files, in []string) (*Workload, error) {
	r := workload.ReadOptions(Name, []string{"in-server", "jobs", "rows", "table"}, []string{"operationcount"}, in) // operationcount: the CLI's --operations
	if len(files) > 0 {
		r.Errs = append([]error{fmt.Errorf("%s takes no property files (%s); give its options as flags (--rows=...) or -p name=value",
			Name, strings.Join(files, ", "))}, r.Errs...)
	}
	o := Options{Reference: Reference, Table: DefaultTable}
	if t, ok := r.Values["table"]; ok {
		if err := target.CheckTableName(t); err != nil {
			r.Errs = append(r.Errs, fmt.Errorf("table=%q: %w", t, err))
		} else {
			o.Table = t
		}
	}
	o.Rows = r.Int("rows", DefaultRows, 1, MaxRows)
	o.Jobs = int(r.Int("jobs", DefaultJobs, 1, MaxJobs))
	if s, ok := r.Values["in-server"]; ok {
		b, err := strconv.ParseBool(s)
		if err != nil {
			r.Errs = append(r.Errs, fmt.Errorf("in-server=%q: must be true or false", s))
		}
		o.InServer = b
	}
	w := &Workload{opts: o}
	if s, ok := r.Values["operationcount"]; ok && len(r.Errs) == 0 {
		// Checked only when rows and jobs are valid: they decide the count.
		if n := r.Int("operationcount", 0, 0, 1<<62); len(r.Errs) == 0 && n != w.Limits().Operations {
			r.Errs = append(r.Errs, fmt.Errorf("--operations=%s: %s runs exactly %d operations (%s); set --rows and --jobs instead of --operations, or give --time to keep inserting",
				s, Name, w.Limits().Operations, w.opsExplained()))
		}
	}
	if err := r.Err(Name); err != nil {
		return nil, err
	}
	return w, nil
}

func (w *Workload) opsExplained() string {
	if w.opts.InServer {
		return fmt.Sprintf("one in-server loop per job, jobs=%d", w.opts.Jobs)
	}
	return fmt.Sprintf("jobs=%d × rows=%d", w.opts.Jobs, w.opts.Rows)
}

// Name is "commit-loop".
func (w *Workload) Name() string { return Name }

// Reference names what this reproduces.
func (w *Workload) Reference() string { return Reference }

// Ops lists INSERT and LOOP (the in-server block).
func (w *Workload) Ops() []string { return []string{"INSERT", "LOOP"} }

// Options returns the resolved options (an Options value).
func (w *Workload) Options() any { return w.opts }

// Config returns the resolved options, typed.
func (w *Workload) Config() Options { return w.opts }

// Ignored is empty: unknown options are errors.
func (w *Workload) Ignored() []string { return nil }

// Limits asks for one worker per job and the operations that insert rows
// rows per job: jobs × rows single-row commits, or jobs in-server loops.
func (w *Workload) Limits() workload.Limits {
	ops := int64(w.opts.Jobs) * w.opts.Rows
	if w.opts.InServer {
		ops = int64(w.opts.Jobs)
	}
	// The count is the test's definition (rows per job), not a default:
	// it applies even when --time is given, and the threads are the jobs.
	return workload.Limits{Operations: ops, FixedOperations: true, Threads: w.opts.Jobs}
}

// FreshSchema asks for the table to be created anew before every run: the
// loop inserts i = 1..rows into an empty table.
func (w *Workload) FreshSchema() bool { return true }

// Bind builds the statements for env's dialect; in-server fails on a dialect
// without a server-side loop that can commit.
func (w *Workload) Bind(env workload.Env) error {
	if err := target.NeedsSQL(Name, env.Capabilities); err != nil {
		return err
	}
	if env.Dialect.Placeholder == "" {
		return fmt.Errorf("%s: the target's dialect is not set (no placeholder style)", Name)
	}
	st := dialect.CommitLoop(env.Dialect, w.opts.Table, w.opts.Jobs)
	if w.opts.InServer && st.InServer == nil {
		return fmt.Errorf("%s: in-server=true needs a block that loops and commits inside the server, which the %s dialect does not have; dialects with one: %s (PostgreSQL 11+, YugabyteDB); run without in-server to commit from the client",
			Name, env.Dialect.Name, strings.Join(dialect.CommitLoopInServerDialects(), ", "))
	}
	w.stmts = boundStatements{st, env.Dialect}
	w.opts.ServerClock = st.Clock
	w.bound = true
	return nil
}

// Statements returns the bound statements (zero before Bind).
func (w *Workload) Statements() dialect.CommitLoopStatements { return w.stmts.CommitLoopStatements }

// Schema is the one table (nil before Bind).
func (w *Workload) Schema() []workload.Table {
	if !w.bound {
		return nil
	}
	return []workload.Table{{Name: w.opts.Table, Create: w.stmts.CreateTable}}
}

// LoadRange is empty: there is nothing to load.
func (w *Workload) LoadRange() (start, count int64) { return 0, 0 }

// NewLoader returns a loader that is never given records.
func (w *Workload) NewLoader(int, *rand.Rand) workload.Loader { return workload.NoLoad{Workload: Name} }

// NewWorker returns the worker of job id+1; r is unused (the loop draws
// nothing).
func (w *Workload) NewWorker(id int, r *rand.Rand) workload.Worker {
	wk := &worker{w: w, id: id, job: id + 1}
	if w.opts.Jobs > 1 {
		wk.args = []any{int64(wk.job), int64(0)}
	} else {
		wk.args = []any{int64(0)}
	}
	return wk
}

// worker is one job; it is used by one goroutine.
type worker struct {
	_    cacheline.Pad // see package cacheline
	w    *Workload
	id   int
	job  int
	next int64 // operations chosen so far
	i    int64 // single-row mode: the row of the chosen operation
	from int64 // in-server: the block's rows from..to
	to   int64
	args []any
	_    cacheline.Pad
}

// Next chooses the next row (i = 1, 2, ...) or, in-server, the next block
// of rows values of i.
func (wk *worker) Next() workload.OpID {
	wk.next++
	if wk.w.opts.InServer {
		wk.from = (wk.next-1)*wk.w.opts.Rows + 1
		wk.to = wk.next * wk.w.opts.Rows
		return OpLoop
	}
	wk.i = wk.next
	wk.args[len(wk.args)-1] = wk.i
	return OpInsert
}

// Exec inserts the chosen row (one autocommitted statement) or runs the
// chosen in-server block. A worker beyond jobs fails: its job has no j.
func (wk *worker) Exec(ctx context.Context, c target.Conn, s workload.Span) error {
	w := wk.w
	if !w.bound {
		return errors.New("commit-loop: Exec before Bind")
	}
	if wk.id >= w.opts.Jobs {
		return fmt.Errorf("%s: worker %d has no job: jobs=%d needs exactly %d threads (leave --threads unset, or set --jobs)",
			Name, wk.id+1, w.opts.Jobs, w.opts.Jobs)
	}
	var err error
	first := false
	if w.opts.InServer {
		_, err = c.Exec(ctx, w.stmts.InServer(wk.job, wk.from, wk.to))
		first = wk.from == 1
	} else {
		var n int64
		n, err = c.Exec(ctx, w.stmts.Insert, wk.args...)
		if err == nil && n != 1 {
			err = fmt.Errorf("INSERT of i=%d affected %d rows: %w", wk.i, n, target.ErrUnexpectedRows)
		}
		first = wk.i == 1
	}
	if err != nil && first && ctx.Err() == nil {
		return fmt.Errorf("%w (%s inserts i = 1.. into an empty %s; if it holds rows of an earlier run, run 'candor cleanup %s' or use --load always)",
			err, Name, w.opts.Table, Name)
	}
	return err
}

// Done has nothing to finish.
func (wk *worker) Done(error) {}

// WriteID is the ledger id of the chosen row: ledger.ID(job-1, i).
func (wk *worker) WriteID() int64 { return ledger.ID(wk.job-1, wk.i) }

// EnableLedger turns the durability ledger on (--ledger): every row's
// outcome is recorded under the id ledger.ID(job-1, i). An in-server loop
// commits many rows in one operation and cannot carry one.
func (w *Workload) EnableLedger() error {
	if w.opts.InServer {
		return fmt.Errorf("%s: --ledger records the outcome of each commit the client sends; with in-server=true one operation commits a whole loop of rows inside the server: run without in-server", Name)
	}
	w.opts.Ledger = true
	return nil
}

// LedgerTable is the table the ledger's ids are read back from.
func (w *Workload) LedgerTable() string { return w.opts.Table }

// ReadBack calls fn with the ledger id of every row: ledger.ID(j-1, i).
func (w *Workload) ReadBack(ctx context.Context, c target.Conn, fn func(id int64)) error {
	if !w.bound {
		return errors.New("commit-loop: ReadBack before Bind")
	}
	q := dialect.CommitLoopReadBack(w.stmts.dialect, w.opts.Table, w.opts.Jobs)
	_, err := c.Query(ctx, q, nil, func(cols [][]byte) error {
		j := int64(1)
		if len(cols) == 2 {
			v, err := strconv.ParseInt(strings.TrimSpace(string(cols[0])), 10, 64)
			if err != nil {
				return fmt.Errorf("%s: reading back the ledger's ids: j=%q: %w", Name, cols[0], err)
			}
			j, cols = v, cols[1:]
		}
		i, err := strconv.ParseInt(strings.TrimSpace(string(cols[0])), 10, 64)
		if err != nil {
			return fmt.Errorf("%s: reading back the ledger's ids: i=%q: %w", Name, cols[0], err)
		}
		fn(ledger.ID(int(j-1), i))
		return nil
	})
	return err
}

// PostRun reads the server's own rate: count(*) / (max(t) - min(t)),
// overall and, with several jobs, per job. Keys: rows, server_span_s,
// server_rows_per_s, and the same with _job_<j> per job (job 1 alone when
// jobs=1). A rate is absent when the span is zero (fewer than two distinct
// timestamps).
func (w *Workload) PostRun(ctx context.Context, c target.Conn) (map[string]float64, error) {
	if !w.bound {
		return nil, errors.New("commit-loop: PostRun before Bind")
	}
	out := map[string]float64{}
	var perr error
	put := func(suffix string, cols [][]byte) {
		for k, name := range []string{"rows", "server_span_s", "server_rows_per_s"} {
			if cols[k] == nil {
				continue
			}
			v, err := strconv.ParseFloat(strings.TrimSpace(string(cols[k])), 64)
			if err != nil {
				perr = fmt.Errorf("%s: server figure %s=%q is not a number", Name, name+suffix, cols[k])
				continue
			}
			out[name+suffix] = v
		}
	}
	if _, err := c.Query(ctx, w.stmts.Rate, nil, func(cols [][]byte) error {
		if len(cols) != 3 {
			return fmt.Errorf("%s: rate query returned %d columns, expected 3", Name, len(cols))
		}
		put("", cols)
		if w.opts.Jobs == 1 {
			put("_job_1", cols)
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("%s: reading the server-side rate: %w", Name, err)
	}
	if w.stmts.RatePerJob != "" {
		if _, err := c.Query(ctx, w.stmts.RatePerJob, nil, func(cols [][]byte) error {
			if len(cols) != 4 || cols[0] == nil {
				return fmt.Errorf("%s: per-job rate query returned %d columns, expected 4", Name, len(cols))
			}
			put("_job_"+strings.TrimSpace(string(cols[0])), cols[1:])
			return nil
		}); err != nil {
			return nil, fmt.Errorf("%s: reading the per-job server-side rate: %w", Name, err)
		}
	}
	if perr != nil {
		return nil, perr
	}
	return out, nil
}
