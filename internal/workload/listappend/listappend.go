// Package listappend is the isolation/list-append workload
// (docs/ISOLATION.md): transactions of a few micro-ops, each an append of
// a value unique to its key or a read of the key's whole list, as Elle's
// list-append test runs them. Every transaction's ops, outcome and times
// are recorded (workload.Historian); after the run phase the engine writes
// the history beside the result and checks it for isolation anomalies
// (internal/isolation/elle). The run's --isolation is the level observed.
//
// A key is a row (k, v) of candor's own table, v its list as text; an
// append is one upsert concatenating the element. A key slot takes
// --max-writes-per-key appends and then moves to a fresh key, so lists
// stay short (reads and the check stay cheap) while --keys slots keep the
// contention.
package listappend

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/isolation/elle"
	"github.com/candor-bench/candor/internal/keydist"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

// Name is the registry name; Variant its one variant.
const (
	Name    = "isolation"
	Variant = "list-append"
)

// Reference names what the workload follows.
const Reference = "Elle list-append (Kingsbury & Alvaro, VLDB 2020), candor's own implementation"

// Defaults (Elle's list-append generator: up to 4 micro-ops, 32 writes per
// key).
const (
	DefaultKeys            = 10
	DefaultOpsPerTxn       = 4
	DefaultReadFraction    = 0.5
	DefaultMaxWritesPerKey = 32
	DefaultDistribution    = "uniform"
	DefaultTable           = "candor_list_append"
	// DefaultOperations ends a run given neither --time nor --operations.
	DefaultOperations = 10000
	// DefaultRetries: an aborted transaction is retried as a new one
	// (fresh values); each attempt is in the history.
	DefaultRetries = 100
)

// OpTxn is the only operation: one transaction.
const OpTxn workload.OpID = 0

func init() {
	workload.Register(workload.Entry{
		Name:                Name,
		Variants:            []string{Variant},
		VariantDescriptions: map[string]string{Variant: "Elle's list-append transactions; the history is written beside the result and checked for G0, G1, G-single, G2-item"},
		Description:         "isolation observed: transactions of appends and reads whose history is checked for anomalies (docs/ISOLATION.md)",
		Reference:           Reference,
		Options: []workload.Option{
			{Name: "keys", Default: strconv.Itoa(DefaultKeys), Usage: "key slots the transactions touch (fewer: more contention)"},
			{Name: "ops-per-txn", Default: strconv.Itoa(DefaultOpsPerTxn), Usage: "most micro-ops per transaction (each has 1..N)"},
			{Name: "read-fraction", Default: "0.5", Usage: "share of micro-ops that read a key's list (the rest append)"},
			{Name: "distribution", Default: DefaultDistribution, Usage: "how key slots are drawn: uniform or zipfian", Type: workload.OptionString},
			{Name: "max-writes-per-key", Default: strconv.Itoa(DefaultMaxWritesPerKey), Usage: "appends a key takes before its slot moves to a fresh key"},
			{Name: "table", Default: DefaultTable, Usage: "table name", Type: workload.OptionString},
		},
		New: func(variant string, files, props []string) (workload.Workload, error) {
			if variant != Variant {
				return nil, fmt.Errorf("%s: give the variant: %s/%s", Name, Name, Variant)
			}
			return New(files, props)
		},
	})
}

// Options are the resolved options, as the result file records them.
type Options struct {
	Reference       string  `json:"reference"`
	Table           string  `json:"table"`
	Keys            int64   `json:"keys"`
	OpsPerTxn       int64   `json:"ops-per-txn"`
	ReadFraction    float64 `json:"read-fraction"`
	Distribution    string  `json:"distribution"`
	MaxWritesPerKey int64   `json:"max-writes-per-key"`
	// NonAtomic: each micro-op commits on its own (tests of the checker
	// only; no option sets it).
	NonAtomic bool `json:"non-atomic,omitempty"`
}

// Workload is the configured list-append workload.
type Workload struct {
	opts     Options
	ignored  []string
	ops      int64
	slots    keydist.Long
	bound    bool
	stmts    dialect.ListAppendStatements
	classify func(error) target.ErrorClass

	appends []atomic.Int64 // appends issued per slot: its key's generation
	values  atomic.Int64   // the last value appended (unique in the run)
	txnIDs  atomic.Int64

	mu      sync.Mutex
	workers []*worker // since the last TakeHistory
}

var (
	_ workload.Workload     = (*Workload)(nil)
	_ workload.Historian    = (*Workload)(nil)
	_ workload.FreshSchemer = (*Workload)(nil)
	_ workload.Worker       = (*worker)(nil)
)

// New builds the workload from name=value options (every problem at once).
func New(files, in []string) (*Workload, error) {
	known := []string{"distribution", "keys", "max-writes-per-key", "ops-per-txn", "read-fraction", "table"}
	r := workload.ReadOptions(Name+"/"+Variant, known, []string{"operationcount"}, in)
	if len(files) > 0 {
		r.Errs = append([]error{fmt.Errorf("%s/%s takes no property files (%s); give its options as flags (--keys=...)", Name, Variant, strings.Join(files, ", "))}, r.Errs...)
	}
	o := Options{Reference: Reference, Table: DefaultTable, Distribution: DefaultDistribution, ReadFraction: DefaultReadFraction}
	if t, ok := r.Values["table"]; ok {
		if err := target.CheckTableName(t); err != nil {
			r.Errs = append(r.Errs, fmt.Errorf("table=%q: %w", t, err))
		} else {
			o.Table = t
		}
	}
	o.Keys = r.Int("keys", DefaultKeys, 1, 1_000_000)
	o.OpsPerTxn = r.Int("ops-per-txn", DefaultOpsPerTxn, 1, 100)
	o.MaxWritesPerKey = r.Int("max-writes-per-key", DefaultMaxWritesPerKey, 1, 100_000)
	if s, ok := r.Values["read-fraction"]; ok {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || f < 0 || f > 1 {
			r.Errs = append(r.Errs, fmt.Errorf("read-fraction=%q: give a fraction between 0 and 1, such as 0.5", s))
		} else {
			o.ReadFraction = f
		}
	}
	if v, ok := r.Values["distribution"]; ok {
		switch v = strings.ToLower(v); v {
		case "uniform", "zipfian":
			o.Distribution = v
		default:
			r.Errs = append(r.Errs, fmt.Errorf("distribution=%q: use uniform or zipfian", v))
		}
	}
	w := &Workload{ops: DefaultOperations}
	if _, ok := r.Values["operationcount"]; ok {
		w.ops = r.Int("operationcount", DefaultOperations, 1, 1<<62)
	}
	if err := r.Err(Name + "/" + Variant); err != nil {
		return nil, err
	}
	w.opts = o
	if o.Distribution == "zipfian" {
		w.slots = keydist.NewZipfian(0, o.Keys-1, keydist.ZipfianConstant)
	} else {
		w.slots = keydist.NewUniform(0, o.Keys-1)
	}
	w.appends = make([]atomic.Int64, o.Keys)
	return w, nil
}

// MakeNonAtomic makes each micro-op commit on its own: a database without
// transactions, whose histories the checker must find cycles in (tests).
func (w *Workload) MakeNonAtomic() { w.opts.NonAtomic = true }

func (w *Workload) Name() string      { return Name + "/" + Variant }
func (w *Workload) Reference() string { return Reference }
func (w *Workload) Ops() []string     { return []string{"TXN"} }
func (w *Workload) Options() any      { return w.opts }
func (w *Workload) Ignored() []string { return w.ignored }

// Limits: DefaultOperations unless --time or --operations say otherwise;
// aborted transactions are retried, each attempt a transaction of the
// history.
func (w *Workload) Limits() workload.Limits {
	return workload.Limits{Operations: w.ops, Retries: DefaultRetries}
}

// FreshSchema: every run starts from empty lists, so that the values it
// appends are the only ones its reads can see.
func (w *Workload) FreshSchema() bool { return true }

// Bind builds the statements for env's dialect; a target that does not
// speak SQL is refused.
func (w *Workload) Bind(env workload.Env) error {
	if err := target.NeedsSQL(w.Name(), env.Capabilities); err != nil {
		return err
	}
	if env.Dialect.Placeholder == "" {
		return fmt.Errorf("%s: the target's dialect is not set (no placeholder style)", w.Name())
	}
	w.stmts = dialect.ListAppend(env.Dialect, w.opts.Table)
	w.classify = env.Classify
	w.bound = true
	return nil
}

// Schema is the one table (nil before Bind).
func (w *Workload) Schema() []workload.Table {
	if !w.bound {
		return nil
	}
	return []workload.Table{{Name: w.opts.Table, Create: w.stmts.Create}}
}

// LoadRange is empty: the lists start empty.
func (w *Workload) LoadRange() (start, count int64) { return 0, 0 }

// NewLoader returns a loader that is never given records.
func (w *Workload) NewLoader(int, *rand.Rand) workload.Loader {
	return workload.NoLoad{Workload: w.Name()}
}

// NewWorker returns session id's worker, recording its transactions.
func (w *Workload) NewWorker(id int, r *rand.Rand) workload.Worker {
	wk := &worker{w: w, id: id, r: r}
	w.mu.Lock()
	w.workers = append(w.workers, wk)
	w.mu.Unlock()
	return wk
}

// TakeHistory returns the transactions of the workers made since the last
// call, in the order they began, and forgets them.
func (w *Workload) TakeHistory() []elle.Txn {
	w.mu.Lock()
	ws := w.workers
	w.workers = nil
	w.mu.Unlock()
	var out []elle.Txn
	for _, wk := range ws {
		out = append(out, wk.hist...)
		wk.hist = nil
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// key is the key slot s holds after g appends.
func (w *Workload) key(s, g int64) int64 { return s + w.opts.Keys*(g/w.opts.MaxWritesPerKey) }

type microOp struct {
	read bool
	slot int64
}

type worker struct {
	w    *Workload
	id   int
	r    *rand.Rand
	plan []microOp
	hist []elle.Txn
}

// Next chooses the transaction: 1..ops-per-txn micro-ops, each a read
// with probability read-fraction, on slots drawn from the distribution.
func (wk *worker) Next() workload.OpID {
	n := 1 + wk.r.Int63n(wk.w.opts.OpsPerTxn)
	d := wk.w.slots.(keydist.Drawer)
	wk.plan = wk.plan[:0]
	for i := int64(0); i < n; i++ {
		wk.plan = append(wk.plan, microOp{read: wk.r.Float64() < wk.w.opts.ReadFraction, slot: d.Draw(wk.r)})
	}
	return OpTxn
}

// Exec runs the chosen transaction as a new one (a retry appends fresh
// values) and records it, whatever its outcome.
func (wk *worker) Exec(ctx context.Context, c target.Conn, _ workload.Span) error {
	w := wk.w
	if !w.bound {
		return errors.New("list-append: Exec before Bind")
	}
	t := elle.Txn{ID: w.txnIDs.Add(1), Session: wk.id, Start: time.Now()}
	err := wk.run(ctx, c, &t)
	t.End = time.Now()
	wk.hist = append(wk.hist, t)
	return err
}

// run performs t's micro-ops and sets its outcome: ok when COMMIT
// succeeded; fail when an op failed before COMMIT was sent (the server
// rolls the transaction back) or COMMIT was refused as a conflict;
// unknown when COMMIT's answer was lost otherwise (it may have committed),
// and when a non-atomic transaction failed (its ops commit one by one).
func (wk *worker) run(ctx context.Context, c target.Conn, t *elle.Txn) error {
	w := wk.w
	s := &w.stmts
	inTxn := !w.opts.NonAtomic
	t.Outcome = elle.Fail
	if inTxn {
		if _, err := c.Exec(ctx, s.Begin); err != nil {
			return err
		}
	}
	fail := func(err error) error {
		if inTxn {
			c.Exec(ctx, s.Rollback) // the error that matters is err
		} else {
			t.Outcome = elle.Unknown // the ops before committed, and maybe this one
		}
		return err
	}
	for _, m := range wk.plan {
		if m.read {
			k := w.key(m.slot, w.appends[m.slot].Load())
			op := elle.Op{Func: elle.FuncRead, Key: k}
			t.Ops = append(t.Ops, op)
			list, err := wk.read(ctx, c, k)
			if err != nil {
				return fail(err)
			}
			t.Ops[len(t.Ops)-1].List = list
			continue
		}
		k := w.key(m.slot, w.appends[m.slot].Add(1)-1)
		v := w.values.Add(1)
		t.Ops = append(t.Ops, elle.Op{Func: elle.FuncAppend, Key: k, Value: v})
		if _, err := c.Exec(ctx, s.Append, k, strconv.FormatInt(v, 10)); err != nil {
			return fail(err)
		}
	}
	if !inTxn {
		t.Outcome = elle.OK
		return nil
	}
	if _, err := c.Exec(ctx, s.Commit); err != nil {
		if w.classify != nil && w.classify(err) == target.ClassRetryable {
			return err // a refused commit: rolled back
		}
		t.Outcome = elle.Unknown
		return err
	}
	t.Outcome = elle.OK
	return nil
}

// read returns key k's list ([] when it has no row).
func (wk *worker) read(ctx context.Context, c target.Conn, k int64) ([]int64, error) {
	list := []int64{}
	_, err := c.Query(ctx, wk.w.stmts.Read, []any{k}, func(cols [][]byte) error {
		var err error
		list, err = ParseList(string(cols[0]))
		return err
	})
	return list, err
}

// ParseList reads a list as the table holds it: decimal elements
// separated by commas ("" is the empty list).
func ParseList(s string) ([]int64, error) {
	out := []int64{}
	if strings.TrimSpace(s) == "" {
		return out, nil
	}
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("list %q: element %q is not a whole number", s, f)
		}
		out = append(out, v)
	}
	return out, nil
}

// Done has nothing to finish.
func (wk *worker) Done(error) {}
