// Package tpcc is TPC-C (TPC-C Standard Specification 5.11) as go-tpc and
// BenchBase implement it: nine tables at the spec's cardinalities per
// warehouse, the five transactions in the spec's mix (New-Order 45%,
// Payment 43%, Order-Status, Delivery and Stock-Level 4% each), keying and
// think times off unless --spec-waits, and the spec's consistency
// conditions (clause 3.3.2) as checks after a run (workload.Checker).
//
// One operation per transaction type, so the runner keeps a latency
// histogram per transaction; tpmC and the efficiency against the spec's
// 12.86 tpmC per warehouse are derived from the New-Orders (Derive).
// docs/TPCC.md is the user's account; its "Differences" section lists where
// this package departs from the spec, go-tpc and BenchBase.
package tpcc

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/keydist"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

// Name is the registry name.
const Name = "tpcc"

// Reference names what the workload follows.
const Reference = "TPC-C 5.11 (as go-tpc v1.0.12 and BenchBase implement it)"

// The spec's cardinalities (clause 4.3.3.1).
const (
	Items                 = 100000
	StockPerWarehouse     = 100000
	DistrictsPerWarehouse = 10
	CustomersPerDistrict  = 3000
	OrdersPerDistrict     = 3000
	NewOrdersPerDistrict  = 900 // orders 2101..3000 are undelivered
	firstNewOrder         = OrdersPerDistrict - NewOrdersPerDistrict + 1
)

// SpecTpmCPerWarehouse is the most tpmC one warehouse can give with the
// spec's keying and think times and 10 terminals per warehouse (go-tpc's
// specWarehouseFactor).
const SpecTpmCPerWarehouse = 12.86

// CLastLoad is the C of NURand(255, 0, 999) for C_LAST in the load (clause
// 2.1.6). The spec lets the load choose it at random; candor fixes it so
// that a run, which must choose its own C at a distance of 65..119 from
// the load's (clause 2.1.6.1), knows it without reading it back.
const CLastLoad = 157

// The operations, one per transaction type.
const (
	OpNewOrder workload.OpID = iota
	OpPayment
	OpOrderStatus
	OpDelivery
	OpStockLevel
)

// opNames are the operation names, indexed by OpID.
var opNames = []string{"NEW_ORDER", "PAYMENT", "ORDER_STATUS", "DELIVERY", "STOCK_LEVEL"}

// Mix is the share of each transaction in percent, indexed by OpID
// (clause 5.2.3's minimums with New-Order taking the rest, as go-tpc's and
// BenchBase's defaults).
var Mix = [5]int{45, 43, 4, 4, 4}

// Counter indexes, as named by Counters.
const (
	CounterRollbacks       = iota // New-Orders rolled back by the spec's unused item id
	CounterOrderLines             // order lines of committed New-Orders
	CounterRemoteLines            // of which supplied by another warehouse
	CounterRemotePayments         // Payments of a customer of another warehouse
	CounterPaymentsByLast         // Payments selecting the customer by last name
	CounterStatusByLast           // Order-Status selecting the customer by last name
	CounterDeliverySkipped        // districts a Delivery found without a new order
)

var counterNames = []string{"new_order_rollbacks", "order_lines", "remote_order_lines", "remote_payments",
	"payments_by_last_name", "order_status_by_last_name", "delivery_districts_skipped"}

// Keying and mean think times in seconds per transaction (clause 5.2.5.7).
var (
	keyingSec = [5]float64{18, 3, 2, 2, 2}
	thinkSec  = [5]float64{12, 12, 10, 5, 5}
)

// MaxWarehouses bounds --warehouses (ids stay well inside an INT).
const MaxWarehouses = 100000

func init() {
	workload.Register(workload.Entry{
		Name:        Name,
		Description: "TPC-C: 9 tables per --warehouses, New-Order/Payment/Order-Status/Delivery/Stock-Level 45/43/4/4/4; tpmC and consistency checks",
		Reference:   Reference,
		Options: []workload.Option{
			{Name: "warehouses", Default: "1", Usage: "warehouses (W): W×100,000 stock rows, W×30,000 customers and orders, ...; at least 1"},
			{Name: "spec-waits", Default: "false", Usage: "keying and think times of the spec between transactions (off as in go-tpc and BenchBase; on for the compliant mode, with 10 threads per warehouse)"},
		},
		New: func(variant string, files, props []string) (workload.Workload, error) {
			return New(files, props)
		},
	})
}

// Options are the workload's resolved options, as the result records them.
type Options struct {
	Reference  string `json:"reference"`
	Warehouses int    `json:"warehouses"`
	SpecWaits  bool   `json:"spec-waits"`
	// Mix is the transaction mix in percent: New-Order, Payment,
	// Order-Status, Delivery, Stock-Level.
	Mix [5]int `json:"mix"`
	// CLastLoad is NURand's C for C_LAST in the load.
	CLastLoad int `json:"c-last-load"`
	// AfterLoad are the statements run after a load to bring the tables
	// to a measurable state (statistics, a checkpoint); set by Bind.
	AfterLoad []string `json:"after-load,omitempty"`
}

// Workload is TPC-C configured. Besides workload.Workload it is a
// CounterNamer, PostLoader, Checker and Deriver.
type Workload struct {
	opts Options

	bound bool
	caps  target.Capabilities
	d     dialect.Dialect
	st    dialect.TPCCStatements
	// Statement texts by count, built by Bind.
	items, lines []string   // index n: n items / n order lines
	stock        [][]string // [district][n]
	lineRows     int        // order lines per INSERT when loading (MultiRowInsert)

	loadMu sync.Mutex // embedded targets: one load batch at a time

	// With TableLoad (tableload.go): the load's pieces of whole tables,
	// and the secondary indexes made before their tables' rows.
	tableLoad bool
	pieces    []piece
	loadSeed  int64 // set by NewLoader(0, ...)
	tableLoadIndexes

	// Run-wide NURand constants, drawn from the first worker's generator.
	cOnce             sync.Once
	cLast, cID, cItem int64
}

var (
	_ workload.Workload     = (*Workload)(nil)
	_ workload.CounterNamer = (*Workload)(nil)
	_ workload.PostLoader   = (*Workload)(nil)
	_ workload.Checker      = (*Workload)(nil)
	_ workload.Deriver      = (*Workload)(nil)
	_ workload.BatchSizer   = (*Workload)(nil)
	_ workload.BatchEnder   = (*Workload)(nil)
	_ workload.TableReuser  = (*Workload)(nil)
)

// New builds the workload from props ("warehouses=4", "spec-waits=on").
// Every problem is returned at once.
func New(files, props []string) (*Workload, error) {
	errs := []error{noFiles(files)}
	o := Options{Reference: Reference, Warehouses: 1, Mix: Mix, CLastLoad: CLastLoad}
	for _, p := range props {
		k, v, ok := strings.Cut(p, "=")
		k = strings.ReplaceAll(strings.ToLower(strings.TrimSpace(k)), "_", "-")
		v = strings.TrimSpace(v)
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("option %q: expected name=value", p))
		case k == "warehouses":
			n, err := strconv.Atoi(strings.ReplaceAll(v, ",", ""))
			switch {
			case err != nil:
				errs = append(errs, fmt.Errorf("--warehouses %q: not a whole number; give the number of warehouses, 1 or more (e.g. --warehouses 4)", v))
			case n < 1:
				errs = append(errs, fmt.Errorf("--warehouses %d: TPC-C needs at least 1 warehouse; give --warehouses 1 or more", n))
			case n > MaxWarehouses:
				errs = append(errs, fmt.Errorf("--warehouses %d: at most %d", n, MaxWarehouses))
			default:
				o.Warehouses = n
			}
		case k == "spec-waits":
			b, err := parseBool(v)
			if err != nil {
				errs = append(errs, fmt.Errorf("--spec-waits %q: %w", v, err))
			}
			o.SpecWaits = b
		case k == "operationcount":
			// --operations: the runner's, not the workload's.
		default:
			errs = append(errs, fmt.Errorf("unknown option %q; valid options of tpcc: warehouses, spec-waits", k))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("tpcc: invalid options:\n%w", err)
	}
	return &Workload{opts: o}, nil
}

// noFiles refuses property files, which tpcc has none of.
func noFiles(files []string) error {
	if len(files) == 0 {
		return nil
	}
	return fmt.Errorf("tpcc takes no property files (%s); give its options as flags (--warehouses 4) or -p name=value", strings.Join(files, ", "))
}

func parseBool(s string) (bool, error) {
	switch strings.ToLower(s) {
	case "on", "true", "1", "yes":
		return true, nil
	case "off", "false", "0", "no":
		return false, nil
	}
	return false, errors.New("expected on/off or true/false")
}

// Name is "tpcc".
func (w *Workload) Name() string { return Name }

// Reference names TPC-C 5.11 and the implementations it follows.
func (w *Workload) Reference() string { return Reference }

// Ops are the five transactions.
func (w *Workload) Ops() []string { return append([]string(nil), opNames...) }

// Counters names the workload's counts (CounterRollbacks, ...).
func (w *Workload) Counters() []string { return append([]string(nil), counterNames...) }

// Options returns the resolved options (an Options value).
func (w *Workload) Options() any { return w.opts }

// Config returns the resolved options, typed.
func (w *Workload) Config() Options { return w.opts }

// Ignored is empty: every option is used.
func (w *Workload) Ignored() []string { return nil }

// Limits: one minute by default (go-tpc runs until stopped); a
// transaction that fails on a serialization failure, a deadlock or a lost
// session is retried up to 10 times (the runner's default classes), as
// contention makes both routine under TPC-C's hot rows (a warehouse's
// w_ytd, a district's next order id); the run goes on after any other
// error, counted by class. A failed load batch, rolled back whole, is
// retried 3 times.
func (w *Workload) Limits() workload.Limits {
	return workload.Limits{Duration: time.Minute, Retries: DefaultRetries, LoadRetries: 3, LoadRetryInterval: time.Second}
}

// DefaultRetries is the default of --retries for tpcc.
const DefaultRetries = 10

// DataSignature names what the loaded data depends on: the warehouses
// (and the load's C for C_LAST).
func (w *Workload) DataSignature() string { return "schema=tpcc " + w.Holds() }

// ShapeSignature implements workload.TableReuser: the tables' definition
// depends on no option.
func (w *Workload) ShapeSignature() string { return "schema=tpcc" }

// Holds implements workload.TableReuser: what the loaded tables hold, so
// that a refusal names the warehouses they were loaded with.
func (w *Workload) Holds() string {
	return fmt.Sprintf("warehouses=%d c-last-load=%d", w.opts.Warehouses, w.opts.CLastLoad)
}

// Serves implements workload.TableReuser: only tables of this run's
// warehouses serve it. Tables loaded with another count are reloaded
// (--load auto) or refused (--load never, and a load into them), never
// run against: a run of W warehouses on tables of fewer would address
// rows that are not there, on tables of more it would leave some idle and
// report the wrong efficiency.
func (w *Workload) Serves(holds string) bool { return holds == w.Holds() }

// ApproxRowBytes is the mean size of a loaded row over the nine tables
// (runner.RowSizer), about 650 MB per warehouse on disk with indexes.
func (w *Workload) ApproxRowBytes() int64 { return 130 }

// Bind builds the statements of env's dialect.
func (w *Workload) Bind(env workload.Env) error {
	if err := target.NeedsSQL(Name, env.Capabilities); err != nil {
		return err
	}
	if !env.Capabilities.Transactions {
		return fmt.Errorf("tpcc needs transactions (BEGIN/COMMIT), which the target does not offer: %w", target.ErrUnsupported)
	}
	st, err := dialect.TPCC(env.Dialect)
	if err != nil {
		return err
	}
	w.st, w.caps, w.d = st, env.Capabilities, env.Dialect
	w.items = make([]string, 16)
	w.lines = make([]string, 16)
	w.stock = make([][]string, DistrictsPerWarehouse+1)
	for n := 1; n <= 15; n++ {
		w.items[n] = st.NOItems(n)
		w.lines[n] = st.NOInsertLines(n)
	}
	for d := 1; d <= DistrictsPerWarehouse; d++ {
		w.stock[d] = make([]string, 16)
		for n := 1; n <= 15; n++ {
			w.stock[d][n] = st.NOStock(d, n)
		}
	}
	w.opts.AfterLoad = append(append([]string(nil), st.Analyze...), st.Checkpoint...)
	w.tableLoad, w.pieces, w.indexed = env.Capabilities.TableLoad, nil, map[int]bool{}
	if w.tableLoad {
		w.layPieces()
	}
	w.lineRows = 1
	if env.Capabilities.MultiRowInsert {
		w.lineRows = 1000
	}
	w.bound = true
	return nil
}

// insertRows is the multi-row INSERT of n rows into table.
func (w *Workload) insertRows(table string, cols []string, n int) string {
	return w.d.InsertRows(table, cols, n)
}

// Statements returns the bound statements (tests).
func (w *Workload) Statements() dialect.TPCCStatements { return w.st }

// Schema lists the nine tables (nil before Bind).
func (w *Workload) Schema() []workload.Table {
	if !w.bound {
		return nil
	}
	out := make([]workload.Table, len(w.st.Tables))
	for i, t := range w.st.Tables {
		out[i] = workload.Table{Name: t.Name, Create: t.Create}
	}
	return out
}

// PostLoad creates the secondary indexes (those a whole-table load has
// not made before its rows), then brings the tables to a
// measurable state: statistics (VACUUM ANALYZE on PostgreSQL, ANALYZE
// TABLE on MySQL wire, ANALYZE on SQLite and the distributed products) and
// a checkpoint where the product has one (CHECKPOINT on PostgreSQL, a WAL
// checkpoint on SQLite). A run right after a load otherwise measures
// autovacuum and plans made without statistics (go-tpc at 4 warehouses:
// 8× slower than after VACUUM ANALYZE). A checkpoint the server refuses
// (PostgreSQL before 15 without superuser) is skipped: it only makes the
// first minutes steadier.
func (w *Workload) PostLoad(ctx context.Context, c target.Conn) error {
	if !w.bound {
		return errors.New("tpcc: PostLoad before Bind")
	}
	for ti, t := range w.st.Tables {
		w.indexMu.Lock()
		made := w.indexed[ti]
		w.indexMu.Unlock()
		if made {
			continue // defined before the table's rows (TableLoad)
		}
		for _, ix := range t.Indexes {
			if _, err := c.Exec(ctx, ix); err != nil {
				return fmt.Errorf("tpcc: %s: %w", ix, err)
			}
		}
	}
	for _, q := range w.st.Analyze {
		if _, err := c.Query(ctx, q, nil, nil); err != nil {
			return fmt.Errorf("tpcc: gathering statistics (%s): %w", q, err)
		}
	}
	for _, q := range w.st.Checkpoint {
		_, _ = c.Query(ctx, q, nil, nil)
	}
	return nil
}

// PostLoadSteps says what PostLoad does after the indexes, for the user
// (the engine prints it after a load).
func (w *Workload) PostLoadSteps() []string { return w.opts.AfterLoad }

// Derive computes TPC-C's figures from the run phase: tpmC, committed
// New-Orders per minute; tpmC_incl_rollbacks, with the 1% the spec rolls
// back (what go-tpc's tpmC counts); tpm_total, every transaction per
// minute; efficiency_pct, tpmC against the spec's 12.86 per warehouse; and
// the warehouses.
func (w *Workload) Derive(f workload.PhaseFigures) map[string]float64 {
	if f.DurationSec <= 0 {
		return nil
	}
	min := f.DurationSec / 60
	no := float64(f.Done[opNames[OpNewOrder]])
	rb := float64(f.Counters[counterNames[CounterRollbacks]])
	var total int64
	for _, n := range opNames {
		total += f.Done[n]
	}
	tpmC := (no - rb) / min
	return map[string]float64{
		"tpmC":                tpmC,
		"tpmC_incl_rollbacks": no / min,
		"tpm_total":           float64(total) / min,
		"efficiency_pct":      100 * tpmC / (SpecTpmCPerWarehouse * float64(w.opts.Warehouses)),
		"warehouses":          float64(w.opts.Warehouses),
	}
}

// constants draws the run's NURand constants once, from the first
// worker's generator: C for C_LAST at a valid distance from the load's, C
// for C_ID and OL_I_ID at random (clause 2.1.6).
func (w *Workload) constants(r *rand.Rand) {
	w.cOnce.Do(func() {
		w.cLast = keydist.RunLastC(r, CLastLoad)
		w.cID = r.Int63n(keydist.NURandCID + 1)
		w.cItem = r.Int63n(keydist.NURandItem + 1)
	})
}
