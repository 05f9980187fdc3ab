// Package bank is the contention workload: accounts and transfers of money
// between two of them, registered as bank (docs/CHECKS.md).
//
// The table holds --accounts rows (id 1..N, balance --initial-balance).
// Each operation (TRANSFER) moves a random amount, 1..--max-amount, from
// one account to another, the two drawn distinct with the skew
// --distribution asks: hotspot (a fraction --hot-fraction of the draws on
// the first --hot-accounts accounts), zipfian (YCSB's θ = 0.99 over all
// accounts, the lowest ids the most drawn) or uniform. The transfer reads
// both balances in id order and writes the two new balances it computed,
// in one transaction, locked as --locking says (dialect.Bank): pessimistic
// (SELECT ... FOR UPDATE at read committed) or optimistic (serializable on
// PostgreSQL, shared locks at repeatable read on MySQL wire, a deferred
// transaction on SQLite), where conflicts abort and the runner retries
// them (class retryable).
//
// The total balance is the invariant: N × initial-balance over N accounts,
// whatever the transfers. It is read in one statement (one snapshot) every
// report interval during the run (workload.IntervalChecker) and after it
// (workload.Checker); any difference is a failed check. A lost update, a
// transfer half-committed or a snapshot that sees half a transfer shows
// there.
package bank

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"strconv"
	"strings"

	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/keydist"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

// Name is the registry name.
const Name = "bank"

// Reference names what the workload follows.
const Reference = "bank transfers with a total-balance invariant (Jepsen's bank test, as a benchmark)"

// Defaults.
const (
	DefaultAccounts       = 1000
	DefaultHotAccounts    = 10
	DefaultHotFraction    = 0.9
	DefaultDistribution   = "hotspot"
	DefaultInitialBalance = 10000
	DefaultMaxAmount      = 100
	DefaultTable          = "bank_accounts"
	// DefaultOperations ends a run given neither --time nor --operations.
	DefaultOperations = 10000
	// DefaultRetries is the attempts a conflicting transfer gets after its
	// first: enough for a hot account under optimistic locking, few enough
	// that a transfer that cannot commit shows as an abort.
	DefaultRetries = 20
	// MaxAccounts keeps the total balance within a BIGINT.
	MaxAccounts = 100_000_000
)

// OpTransfer is the only operation.
const OpTransfer workload.OpID = 0

func init() {
	workload.Register(workload.Entry{
		Name:        Name,
		Description: "contention: transfers between two accounts drawn with a skew, pessimistic or optimistic locking; the total balance is checked every interval and after the run",
		Reference:   Reference,
		Options: []workload.Option{
			{Name: "accounts", Default: strconv.Itoa(DefaultAccounts), Usage: "accounts (rows)"},
			{Name: "hot-accounts", Default: strconv.Itoa(DefaultHotAccounts), Usage: "accounts in the hot set (distribution hotspot)"},
			{Name: "hot-fraction", Default: "0.9", Usage: "share of the draws on the hot accounts (distribution hotspot)"},
			{Name: "distribution", Default: DefaultDistribution, Usage: "how the two accounts of a transfer are drawn: hotspot, zipfian or uniform", Type: workload.OptionString},
			{Name: "locking", Default: dialect.BankPessimistic, Usage: "pessimistic (SELECT ... FOR UPDATE, read committed) or optimistic (serializable / repeatable read, conflicts retried)", Type: workload.OptionString},
			{Name: "initial-balance", Default: strconv.Itoa(DefaultInitialBalance), Usage: "each account's balance after the load"},
			{Name: "max-amount", Default: strconv.Itoa(DefaultMaxAmount), Usage: "a transfer moves 1..max-amount"},
			{Name: "table", Default: DefaultTable, Usage: "table name", Type: workload.OptionString},
		},
		New: func(variant string, files, props []string) (workload.Workload, error) {
			return New(files, props)
		},
	})
}

// Options are the resolved options, as the result file records them.
type Options struct {
	Reference      string  `json:"reference"`
	Table          string  `json:"table"`
	Accounts       int64   `json:"accounts"`
	Distribution   string  `json:"distribution"`
	HotAccounts    int64   `json:"hot-accounts,omitempty"`
	HotFraction    float64 `json:"hot-fraction,omitempty"`
	Locking        string  `json:"locking"`
	InitialBalance int64   `json:"initial-balance"`
	MaxAmount      int64   `json:"max-amount"`
	// Transaction is how a transfer begins and reads on the bound target,
	// as the locking mode chose it ("BEGIN ISOLATION LEVEL SERIALIZABLE;
	// SELECT balance ... WHERE id = $1").
	Transaction string `json:"transaction,omitempty"`
	// NonAtomic: transfers commit their two writes separately (tests of
	// the check only; no option sets it).
	NonAtomic bool `json:"non-atomic,omitempty"`
}

// Workload is the configured bank workload.
type Workload struct {
	opts    Options
	ignored []string
	ops     int64
	keys    keydist.Long
	bound   bool
	d       dialect.Dialect
	stmts   dialect.BankStatements
	maxRows int // rows per load INSERT (bind parameters / 2)
}

var (
	_ workload.Workload        = (*Workload)(nil)
	_ workload.IntervalChecker = (*Workload)(nil)
	_ workload.Worker          = (*worker)(nil)
)

// New builds bank from name=value options (every problem at once).
func New(files, in []string) (*Workload, error) {
	known := []string{"accounts", "distribution", "hot-accounts", "hot-fraction", "initial-balance", "locking", "max-amount", "table"}
	r := workload.ReadOptions(Name, known, []string{"operationcount"}, in)
	if len(files) > 0 {
		r.Errs = append([]error{fmt.Errorf("%s takes no property files (%s); give its options as flags (--accounts=...)", Name, strings.Join(files, ", "))}, r.Errs...)
	}
	vals, integer := r.Values, r.Int
	o := Options{Reference: Reference, Table: DefaultTable, Distribution: DefaultDistribution, Locking: dialect.BankPessimistic}
	if t, ok := vals["table"]; ok {
		if err := target.CheckTableName(t); err != nil {
			r.Errs = append(r.Errs, fmt.Errorf("table=%q: %w", t, err))
		} else {
			o.Table = t
		}
	}
	o.Accounts = integer("accounts", DefaultAccounts, 2, MaxAccounts)
	o.InitialBalance = integer("initial-balance", DefaultInitialBalance, 0, 1_000_000_000)
	o.MaxAmount = integer("max-amount", DefaultMaxAmount, 1, 1_000_000_000)
	if v, ok := vals["locking"]; ok {
		switch v = strings.ToLower(v); v {
		case dialect.BankPessimistic, dialect.BankOptimistic:
			o.Locking = v
		default:
			r.Errs = append(r.Errs, fmt.Errorf("locking=%q: use pessimistic or optimistic", v))
		}
	}
	if v, ok := vals["distribution"]; ok {
		switch v = strings.ToLower(v); v {
		case "hotspot", "zipfian", "uniform":
			o.Distribution = v
		default:
			r.Errs = append(r.Errs, fmt.Errorf("distribution=%q: use hotspot, zipfian or uniform", v))
		}
	}
	w := &Workload{ops: DefaultOperations}
	if o.Distribution == "hotspot" {
		o.HotAccounts = integer("hot-accounts", DefaultHotAccounts, 1, MaxAccounts)
		o.HotFraction = DefaultHotFraction
		if s, ok := vals["hot-fraction"]; ok {
			f, err := strconv.ParseFloat(s, 64)
			if err != nil || f < 0 || f > 1 {
				r.Errs = append(r.Errs, fmt.Errorf("hot-fraction=%q: give a fraction between 0 and 1, such as 0.9", s))
			} else {
				o.HotFraction = f
			}
		}
		if o.HotAccounts > o.Accounts {
			r.Errs = append(r.Errs, fmt.Errorf("hot-accounts=%d is more than accounts=%d: the hot set is a part of the accounts", o.HotAccounts, o.Accounts))
		}
	} else {
		for _, k := range []string{"hot-accounts", "hot-fraction"} {
			if _, ok := vals[k]; ok {
				w.ignored = append(w.ignored, k)
			}
		}
	}
	if _, ok := vals["operationcount"]; ok {
		w.ops = integer("operationcount", DefaultOperations, 1, 1<<62)
	}
	if o.InitialBalance > (1<<62)/o.Accounts {
		r.Errs = append(r.Errs, fmt.Errorf("accounts=%d × initial-balance=%d overflows a BIGINT total", o.Accounts, o.InitialBalance))
	}
	if err := r.Err(Name); err != nil {
		return nil, err
	}
	w.opts = o
	switch o.Distribution {
	case "hotspot":
		w.keys = keydist.NewHotspot(1, o.Accounts, float64(o.HotAccounts)/float64(o.Accounts), o.HotFraction)
	case "zipfian":
		w.keys = keydist.NewZipfian(1, o.Accounts, keydist.ZipfianConstant)
	default:
		w.keys = keydist.NewUniform(1, o.Accounts)
	}
	return w, nil
}

// MakeNonAtomic makes every transfer commit its two writes in two
// transactions: between them the money is in neither account. Tests use it
// to show that the checks catch a broken transfer; no option sets it.
func (w *Workload) MakeNonAtomic() { w.opts.NonAtomic = true }

// Name implements workload.Workload.
func (w *Workload) Name() string { return Name }

// Reference implements workload.Workload.
func (w *Workload) Reference() string { return Reference }

// Ops implements workload.Workload.
func (w *Workload) Ops() []string { return []string{"TRANSFER"} }

// Options implements workload.Workload.
func (w *Workload) Options() any { return w.opts }

// Ignored implements workload.Workload: the hot-set options given with a
// distribution other than hotspot.
func (w *Workload) Ignored() []string { return w.ignored }

// Limits implements workload.Workload: 10,000 transfers unless --time or
// --operations says otherwise; conflicts (class retryable) retried up to
// DefaultRetries times.
func (w *Workload) Limits() workload.Limits {
	return workload.Limits{Operations: w.ops, Retries: DefaultRetries}
}

// Bind implements workload.Workload: bank needs SQL transactions.
func (w *Workload) Bind(env workload.Env) error {
	if err := target.NeedsSQL(Name, env.Capabilities); err != nil {
		return fmt.Errorf("%w (transfers are multi-statement transactions with row locks, which CQL has not)", err)
	}
	if !env.Capabilities.Transactions {
		return fmt.Errorf("%w: %s needs multi-statement transactions", target.ErrUnsupported, Name)
	}
	w.stmts = dialect.Bank(env.Dialect, w.opts.Table, w.opts.Locking)
	w.opts.Transaction = strings.Join(append(append([]string(nil), w.stmts.Begin...), w.stmts.Read), "; ")
	w.d = env.Dialect
	w.maxRows = 1000
	if p := env.Dialect.MaxBindParams; p > 0 {
		w.maxRows = min(w.maxRows, p/2)
	}
	w.bound = true
	return nil
}

// Schema implements workload.Workload.
func (w *Workload) Schema() []workload.Table {
	return []workload.Table{{Name: w.opts.Table, Create: w.stmts.Create}}
}

// LoadRange implements workload.Workload: accounts 1..N.
func (w *Workload) LoadRange() (int64, int64) { return 1, w.opts.Accounts }

// NewLoader implements workload.Workload.
func (w *Workload) NewLoader(int, *rand.Rand) workload.Loader {
	return &loader{w: w, out: workload.RowWriter{Table: w.opts.Table, Columns: []string{"id", "balance"},
		Insert: func(n int) string { return w.d.InsertRows(w.opts.Table, []string{"id", "balance"}, n) }}}
}

type loader struct {
	w   *Workload
	out workload.RowWriter
}

// LoadBatch inserts accounts [from, to), each with the initial balance.
func (l *loader) LoadBatch(ctx context.Context, c target.Conn, from, to int64) error {
	if !l.w.bound {
		return errors.New("bank: LoadBatch before Bind")
	}
	for lo := from; lo < to; lo += int64(l.w.maxRows) {
		hi := min(lo+int64(l.w.maxRows), to)
		rows := make([][]any, 0, hi-lo)
		args := make([]any, 0, 2*(hi-lo))
		for id := lo; id < hi; id++ {
			rows = append(rows, []any{id, l.w.opts.InitialBalance})
			args = append(args, id, l.w.opts.InitialBalance)
		}
		if err := l.out.Write(ctx, c, rows, args); err != nil {
			return err
		}
	}
	return nil
}

// NewWorker implements workload.Workload.
func (w *Workload) NewWorker(_ int, r *rand.Rand) workload.Worker {
	return &worker{w: w, r: r}
}

// worker is one run-phase worker; used by one goroutine.
type worker struct {
	w        *Workload
	r        *rand.Rand
	from, to int64
	amount   int64
}

// Next draws two distinct accounts and an amount.
func (wk *worker) Next() workload.OpID {
	d := wk.w.keys.(keydist.Drawer)
	wk.from = d.Draw(wk.r)
	wk.to = d.Draw(wk.r)
	for i := 0; wk.to == wk.from; i++ {
		if i >= 8 { // a hot set of one account: its neighbour
			wk.to = wk.from%wk.w.opts.Accounts + 1
			break
		}
		wk.to = d.Draw(wk.r)
	}
	wk.amount = 1 + wk.r.Int63n(wk.w.opts.MaxAmount)
	return OpTransfer
}

// Exec runs the transfer chosen by Next. On an error the transaction is
// rolled back, so the runner may retry it on the same session.
func (wk *worker) Exec(ctx context.Context, c target.Conn, _ workload.Span) error {
	if wk.w.opts.NonAtomic {
		if err := wk.tx(ctx, c, []int64{wk.from}, []int64{-wk.amount}); err != nil {
			return err
		}
		return wk.tx(ctx, c, []int64{wk.to}, []int64{wk.amount})
	}
	ids, deltas := []int64{wk.from, wk.to}, []int64{-wk.amount, wk.amount}
	if wk.to < wk.from { // lock in id order: no deadlock between two transfers
		ids[0], ids[1], deltas[0], deltas[1] = ids[1], ids[0], deltas[1], deltas[0]
	}
	return wk.tx(ctx, c, ids, deltas)
}

// tx reads the balances of ids in order, then writes each balance plus
// its delta, in one transaction.
func (wk *worker) tx(ctx context.Context, c target.Conn, ids, deltas []int64) (err error) {
	s := &wk.w.stmts
	for _, b := range s.Begin {
		if _, err := c.Exec(ctx, b); err != nil {
			return err
		}
	}
	defer func() {
		if err != nil {
			c.Exec(ctx, s.Rollback) // the error that matters is err
		}
	}()
	bal := make([]int64, len(ids))
	for i, id := range ids {
		n, err := c.Query(ctx, s.Read, []any{id}, func(cols [][]byte) error {
			v, err := strconv.ParseInt(string(cols[0]), 10, 64)
			bal[i] = v
			return err
		})
		if err != nil {
			return err
		}
		if n != 1 {
			return fmt.Errorf("account %d: %w", id, target.ErrNotFound)
		}
	}
	for i, id := range ids {
		n, err := c.Exec(ctx, s.Write, bal[i]+deltas[i], id)
		if err != nil {
			return err
		}
		if n != 1 {
			return fmt.Errorf("account %d: updated %d rows: %w", id, n, target.ErrUnexpectedRows)
		}
	}
	_, err = c.Exec(ctx, s.Commit)
	return err
}

// Done implements workload.Worker.
func (wk *worker) Done(error) {}

// Check implements workload.Checker: the accounts and their total, in one
// snapshot.
func (w *Workload) Check(ctx context.Context, c target.Conn) ([]workload.CheckResult, error) {
	return w.total(ctx, c)
}

// IntervalCheck implements workload.IntervalChecker: the same reading,
// made while transfers go on.
func (w *Workload) IntervalCheck(ctx context.Context, c target.Conn) ([]workload.CheckResult, error) {
	return w.total(ctx, c)
}

// total reads count(*) and sum(balance) in one statement and compares them
// with the accounts loaded and their total.
func (w *Workload) total(ctx context.Context, c target.Conn) ([]workload.CheckResult, error) {
	var count, sum int64
	_, err := c.Query(ctx, w.stmts.Total, nil, func(cols [][]byte) error {
		var err1, err2 error
		count, err1 = strconv.ParseInt(string(cols[0]), 10, 64)
		sum, err2 = strconv.ParseInt(string(cols[1]), 10, 64)
		return errors.Join(err1, err2)
	})
	if err != nil {
		return nil, fmt.Errorf("reading the total balance of %s: %w", w.opts.Table, err)
	}
	want := w.opts.Accounts * w.opts.InitialBalance
	accounts := workload.CheckResult{Name: "accounts", Passed: count == w.opts.Accounts,
		Detail: fmt.Sprintf("%d accounts, %d loaded", count, w.opts.Accounts)}
	if !accounts.Passed {
		accounts.Offending = abs(count - w.opts.Accounts)
	}
	total := workload.CheckResult{Name: "total balance", Passed: sum == want,
		Detail: fmt.Sprintf("total %d, expected %d (%d accounts × %d)", sum, want, w.opts.Accounts, w.opts.InitialBalance)}
	if !total.Passed {
		total.Offending = 1
		total.Detail += fmt.Sprintf(": %+d", sum-want)
	}
	return []workload.CheckResult{accounts, total}, nil
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
