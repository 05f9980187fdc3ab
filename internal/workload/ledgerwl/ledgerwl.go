// Package ledgerwl is the ledger workload: a write-only stream of small
// rows for measuring durability around faults (docs/FAULTS.md, "The
// durability ledger"). Each worker inserts rows (id, w, pad), one
// autocommitted INSERT per operation; id is ledger.ID(worker, sequence),
// unique in the run, and the runner records every attempt's outcome in the
// worker's ledger file. After the run the CLI reads the ids back and
// accounts for them (internal/ledger).
//
// It runs closed loop (each worker as fast as its commits return) or open
// loop (--rate, the writes per second of all workers). The table is created
// anew before every run: ids start from 0 each run, and rows of an earlier
// run would be counted as unrecorded. The table's owner, the run and
// repetition that created it, is one row of its own (id -1), which
// candor ledger verify checks. The shards of one run (ShareLedger) write
// one table: the first creates it, the others join it, and each numbers
// its workers after the shards before it.
package ledgerwl

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
const Name = "ledger"

// Reference names what this is.
const Reference = "candor durability ledger (write-only stream, every outcome recorded)"

// Defaults.
const (
	DefaultTable = "candor_ledger"
	DefaultPad   = 16
	MaxPad       = 4000
)

// OpWrite is the one operation: one row, one commit.
const OpWrite workload.OpID = 0

func init() {
	workload.Register(workload.Entry{
		Name:        Name,
		Description: "write-only stream of small rows, every write's outcome in a client-side ledger; lost writes, RPO and RTO around faults",
		Reference:   Reference,
		Options: []workload.Option{
			{Name: "pad", Default: strconv.Itoa(DefaultPad), Usage: "characters of padding per row"},
			{Name: "table", Default: DefaultTable, Usage: "table name"},
		},
		New: func(variant string, files, props []string) (workload.Workload, error) { return New(files, props) },
	})
}

// Options are the resolved options, as the result file records them.
type Options struct {
	Reference string `json:"reference"`
	Table     string `json:"table"`
	Pad       int    `json:"pad"`
}

// Workload is the configured ledger workload.
type Workload struct {
	opts  Options
	bound bool
	stmts dialect.LedgerStatements
	pad   string
	// shared: the run id the shards of one run share (ShareLedger); ""
	// when not sharded. first: the number of worker 0.
	shared string
	first  int
}

var (
	_ workload.Workload     = (*Workload)(nil)
	_ workload.Ledgered     = (*Workload)(nil)
	_ workload.FreshSchemer = (*Workload)(nil)
	_ workload.LedgerOwner  = (*Workload)(nil)
	_ workload.SharedLedger = (*Workload)(nil)
	_ workload.LedgerWorker = (*worker)(nil)
)

// New builds the workload from name=value options: pad, table (and the
// CLI's operationcount, which it accepts).
func New(files, in []string) (*Workload, error) {
	var errs []error
	if len(files) > 0 {
		errs = append(errs, fmt.Errorf("%s takes no property files (%s); give its options as flags (--pad=...)", Name, strings.Join(files, ", ")))
	}
	o := Options{Reference: Reference, Table: DefaultTable, Pad: DefaultPad}
	for _, s := range in {
		k, v, ok := strings.Cut(s, "=")
		k = strings.ReplaceAll(strings.ToLower(strings.TrimSpace(k)), "_", "-")
		v = strings.TrimSpace(v)
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("option %q: expected name=value", s))
		case k == "operationcount":
		case k == "table":
			if err := target.CheckTableName(v); err != nil {
				errs = append(errs, fmt.Errorf("table=%q: %w", v, err))
			} else {
				o.Table = v
			}
		case k == "pad":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > MaxPad {
				errs = append(errs, fmt.Errorf("pad=%q: give a whole number of characters from 1 to %d", v, MaxPad))
			} else {
				o.Pad = n
			}
		default:
			errs = append(errs, fmt.Errorf("unknown option %q; valid options of %s: pad, table", k, Name))
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s: invalid options:\n%w", Name, errors.Join(errs...))
	}
	return &Workload{opts: o, pad: strings.Repeat("x", o.Pad)}, nil
}

func (w *Workload) Name() string      { return Name }
func (w *Workload) Reference() string { return Reference }
func (w *Workload) Ops() []string     { return []string{"WRITE"} }
func (w *Workload) Options() any      { return w.opts }
func (w *Workload) Ignored() []string { return nil }

// Limits sets nothing: --time (or --operations), --threads and --rate say
// how long, how many and how fast.
func (w *Workload) Limits() workload.Limits { return workload.Limits{} }

// FreshSchema asks for the table to be created anew before every run,
// unless the shards of one run share it: then it is kept when it is the
// run's (its data signature names the run), and created anew otherwise.
func (w *Workload) FreshSchema() bool { return w.shared == "" }

// DataSignature names the run whose shards share the table: a table of
// another run does not hold what this one needs, and is created anew.
func (w *Workload) DataSignature() string {
	if w.shared == "" {
		return Name
	}
	return Name + " run=" + w.shared
}

// ShareLedger makes the table the run's, shared by its shards, and numbers
// the workers from first.
func (w *Workload) ShareLedger(run string, first int) { w.shared, w.first = run, first }

// FirstWriter is the number of worker 0 in the write ids.
func (w *Workload) FirstWriter() int { return w.first }

// ownerID is the id of the owner row: write ids are never negative.
const ownerID = -1

// WriteOwner inserts the owner row: id -1, w the repetition, pad the
// owner's text.
func (w *Workload) WriteOwner(ctx context.Context, c target.Conn, owner string, rep int) error {
	if !w.bound {
		return errors.New("ledger: WriteOwner before Bind")
	}
	if _, err := c.Exec(ctx, w.stmts.Insert, int64(ownerID), int64(rep), owner); err != nil {
		return fmt.Errorf("recording the ledger's owner in table %s: %w", w.opts.Table, err)
	}
	return nil
}

// Owners returns the owner rows' texts.
func (w *Workload) Owners(ctx context.Context, c target.Conn) ([]string, error) {
	if !w.bound {
		return nil, errors.New("ledger: Owners before Bind")
	}
	var out []string
	_, err := c.Query(ctx, w.stmts.Owners, nil, func(cols [][]byte) error {
		out = append(out, strings.TrimSpace(string(cols[0])))
		return nil
	})
	return out, err
}

// EnableLedger accepts: the workload always keeps one.
func (w *Workload) EnableLedger() error { return nil }

// AlwaysLedger says the ledger needs no --ledger.
func (w *Workload) AlwaysLedger() {}

// LedgerTable is the table the ids are read back from.
func (w *Workload) LedgerTable() string { return w.opts.Table }

// Bind builds the statements for env's dialect; a target that does not
// speak SQL is refused (the statements and the read-back are SQL).
func (w *Workload) Bind(env workload.Env) error {
	if err := target.NeedsSQL(Name, env.Capabilities); err != nil {
		return err
	}
	if env.Dialect.Placeholder == "" {
		return fmt.Errorf("%s: the target's dialect is not set (no placeholder style)", Name)
	}
	w.stmts = dialect.Ledger(env.Dialect, w.opts.Table, w.opts.Pad)
	w.bound = true
	return nil
}

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

// ReadBack calls fn with every id in the table.
func (w *Workload) ReadBack(ctx context.Context, c target.Conn, fn func(id int64)) error {
	if !w.bound {
		return errors.New("ledger: ReadBack before Bind")
	}
	return readIDs(ctx, c, w.stmts.ReadBack, func(cols [][]byte) (int64, error) {
		return strconv.ParseInt(strings.TrimSpace(string(cols[0])), 10, 64)
	}, fn)
}

// readIDs runs a read-back query and turns each row into an id.
func readIDs(ctx context.Context, c target.Conn, q string, id func([][]byte) (int64, error), fn func(int64)) error {
	_, err := c.Query(ctx, q, nil, func(cols [][]byte) error {
		v, err := id(cols)
		if err != nil {
			return fmt.Errorf("reading back the ledger's ids: %w", err)
		}
		fn(v)
		return nil
	})
	return err
}

// NewWorker returns worker id's writer (writer FirstWriter()+id in the
// write ids); r is unused.
func (w *Workload) NewWorker(id int, r *rand.Rand) workload.Worker {
	id += w.first
	return &worker{w: w, id: id, args: []any{int64(0), int64(id), w.pad}}
}

type worker struct {
	_    cacheline.Pad
	w    *Workload
	id   int
	seq  int64 // writes chosen so far
	cur  int64 // the id of the chosen write
	args []any
	_    cacheline.Pad
}

// Next chooses the next write: its id is the worker's next sequence
// number.
func (wk *worker) Next() workload.OpID {
	wk.cur = ledger.ID(wk.id, wk.seq)
	wk.seq++
	wk.args[0] = wk.cur
	return OpWrite
}

// WriteID is the chosen write's id.
func (wk *worker) WriteID() int64 { return wk.cur }

// Exec inserts the chosen row in one autocommitted statement.
func (wk *worker) Exec(ctx context.Context, c target.Conn, s workload.Span) error {
	if !wk.w.bound {
		return errors.New("ledger: Exec before Bind")
	}
	n, err := c.Exec(ctx, wk.w.stmts.Insert, wk.args...)
	if err == nil && n != 1 {
		err = fmt.Errorf("INSERT of id %d affected %d rows: %w", wk.cur, n, target.ErrUnexpectedRows)
	}
	return err
}

// Done has nothing to finish.
func (wk *worker) Done(error) {}
