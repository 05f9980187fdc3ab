package tpcc

import (
	"context"
	"fmt"
	"math/rand"
	"strconv"
	"time"

	"github.com/candor-bench/candor/internal/keydist"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

// The load's record space. Records stand for rows, so the runner's progress,
// ETA and rows/s read as rows: ITEM first in units of itemChunk, then per
// warehouse its WAREHOUSE and DISTRICT rows (one unit of 11), its STOCK in
// units of stockChunk, and per district one unit of CUSTOMER and HISTORY
// (6,000 rows) and one of ORDER, NEW-ORDER and ORDER-LINE (3,000 + 900 +
// 30,000 rows on average, order lines being 5..15 per order). A batch
// loads, in one transaction, every unit that begins inside it.
const (
	itemChunk      = 10000
	stockChunk     = 10000
	warehouseUnit  = 1 + DistrictsPerWarehouse
	customerUnit   = 2 * CustomersPerDistrict
	orderUnit      = OrdersPerDistrict + NewOrdersPerDistrict + 10*OrdersPerDistrict
	districtUnits  = customerUnit + orderUnit
	perWarehouse   = warehouseUnit + StockPerWarehouse + DistrictsPerWarehouse*districtUnits
	itemUnits      = Items / itemChunk
	stockUnits     = StockPerWarehouse / stockChunk
	loadBatchHint  = 10000
	maxRowsPerStmt = 1000 // rows of one multi-row INSERT
)

// unit kinds.
const (
	unitItems = iota
	unitWarehouse
	unitStock
	unitCustomers
	unitOrders
)

// unit is one piece of the load: kind, warehouse and district (1-based),
// chunk, and its records [start, start+size).
type unit struct {
	kind, w, d, chunk int
	start, size       int64
}

// LoadRange is every record: ITEM and W warehouses.
func (w *Workload) LoadRange() (start, count int64) {
	return 0, Items + int64(w.opts.Warehouses)*perWarehouse
}

// LoadBatchSize implements workload.BatchSizer: about one unit.
func (w *Workload) LoadBatchSize() int64 { return loadBatchHint }

// unitAt returns the unit that holds record rec.
func unitAt(rec int64) unit {
	if rec < Items {
		c := int(rec / itemChunk)
		return unit{kind: unitItems, chunk: c, start: int64(c) * itemChunk, size: itemChunk}
	}
	rel := rec - Items
	wh := int(rel / perWarehouse)
	base := Items + int64(wh)*perWarehouse
	off := rel - int64(wh)*perWarehouse
	switch {
	case off < warehouseUnit:
		return unit{kind: unitWarehouse, w: wh + 1, start: base, size: warehouseUnit}
	case off < warehouseUnit+StockPerWarehouse:
		c := int((off - warehouseUnit) / stockChunk)
		return unit{kind: unitStock, w: wh + 1, chunk: c, start: base + warehouseUnit + int64(c)*stockChunk, size: stockChunk}
	}
	off -= warehouseUnit + StockPerWarehouse
	d := int(off / districtUnits)
	dbase := base + warehouseUnit + StockPerWarehouse + int64(d)*districtUnits
	if off-int64(d)*districtUnits < customerUnit {
		return unit{kind: unitCustomers, w: wh + 1, d: d + 1, start: dbase, size: customerUnit}
	}
	return unit{kind: unitOrders, w: wh + 1, d: d + 1, start: dbase + customerUnit, size: orderUnit}
}

// NewLoader returns a loader for one load worker; r is reseeded by the
// runner per batch, so the data depends on the seed and the batch size.
// Worker 0's generator, before its first batch, gives the seed of a
// whole-table load (tableload.go), which depends on the seed alone; a
// new load makes its tables' indexes anew.
func (w *Workload) NewLoader(worker int, r *rand.Rand) workload.Loader {
	if worker == 0 {
		w.loadSeed = r.Int63()
		w.indexMu.Lock()
		w.indexed = map[int]bool{}
		w.indexMu.Unlock()
	}
	return &loader{w: w, r: r, now: time.Now().UTC().Truncate(time.Second)}
}

// loader writes load batches; it is used by one goroutine.
type loader struct {
	w        *Workload
	r        *rand.Rand
	now      time.Time
	copy     bool // the connection has COPY: values typed for it
	out      map[string]*workload.RowWriter
	rows     [][]any
	args     []any
	progress func(written int64)
	written  int64
	tls      tableLoadState // with TableLoad
}

// SetProgress implements workload.ProgressLoader.
func (l *loader) SetProgress(f func(written int64)) { l.progress = f }

// LoadBatch loads, in one transaction, every unit that begins in [from,
// to). A failed batch is rolled back whole, so the runner's retry of it
// inserts no row twice. With TableLoad it loads the pieces of whole tables
// that begin there instead (tableload.go).
func (l *loader) LoadBatch(ctx context.Context, c target.Conn, from, to int64) error {
	if l.w.tableLoad {
		return l.loadTables(ctx, c, from, to)
	}
	var units []unit
	for rec := from; rec < to; {
		u := unitAt(rec)
		if u.start >= from {
			units = append(units, u)
		}
		rec = u.start + u.size
	}
	if len(units) == 0 {
		return nil
	}
	_, l.copy = c.(target.Copier)
	l.written = 0
	st := &l.w.st
	if l.w.caps.Embedded {
		// An embedded database (SQLite) has one writer at a time: the
		// batches take turns here rather than time out waiting for its
		// lock while another batch of thousands of rows holds it.
		l.w.loadMu.Lock()
		defer l.w.loadMu.Unlock()
	}
	if _, err := c.Exec(ctx, st.BeginWrite); err != nil {
		return err
	}
	for _, u := range units {
		if err := l.loadUnit(ctx, c, u); err != nil {
			rollback(c)
			return fmt.Errorf("tpcc load (%s): %w", u, err)
		}
		l.written += u.size
		if l.progress != nil {
			l.progress(min(l.written, to-from))
		}
	}
	if _, err := c.Exec(ctx, st.Commit); err != nil {
		rollback(c)
		return err
	}
	return nil
}

func (u unit) String() string {
	switch u.kind {
	case unitItems:
		return fmt.Sprintf("items %d..%d", u.chunk*itemChunk+1, (u.chunk+1)*itemChunk)
	case unitWarehouse:
		return fmt.Sprintf("warehouse %d and its districts", u.w)
	case unitStock:
		return fmt.Sprintf("stock of warehouse %d, items %d..%d", u.w, u.chunk*stockChunk+1, (u.chunk+1)*stockChunk)
	case unitCustomers:
		return fmt.Sprintf("customers and history of warehouse %d district %d", u.w, u.d)
	}
	return fmt.Sprintf("orders of warehouse %d district %d", u.w, u.d)
}

func (l *loader) loadUnit(ctx context.Context, c target.Conn, u unit) error {
	r := l.r
	switch u.kind {
	case unitItems:
		for i := u.chunk*itemChunk + 1; i <= (u.chunk+1)*itemChunk; i++ {
			l.add(l.itemRow(nil, r, i))
		}
		return l.flush(ctx, c, 7)
	case unitWarehouse:
		l.add(l.warehouseRow(nil, r, u.w))
		if err := l.flush(ctx, c, 0); err != nil {
			return err
		}
		for d := 1; d <= DistrictsPerWarehouse; d++ {
			l.add(l.districtRow(nil, r, u.w, d))
		}
		return l.flush(ctx, c, 1)
	case unitStock:
		for i := u.chunk*stockChunk + 1; i <= (u.chunk+1)*stockChunk; i++ {
			l.add(l.stockRow(nil, r, u.w, i))
		}
		return l.flush(ctx, c, 8)
	case unitCustomers:
		since := l.when(l.now)
		for i := 1; i <= CustomersPerDistrict; i++ {
			l.add(l.customerRow(nil, r, u.w, u.d, i, since))
		}
		if err := l.flush(ctx, c, 2); err != nil {
			return err
		}
		for i := 1; i <= CustomersPerDistrict; i++ {
			l.add(l.historyRow(nil, r, u.w, u.d, i, since))
		}
		return l.flush(ctx, c, 3)
	}
	// Orders: o_c_id a random permutation of the customers; orders below
	// 2101 delivered (carrier, delivery dates, amounts 0), the last 900
	// new orders.
	entry := l.when(l.now)
	perm := r.Perm(CustomersPerDistrict)
	cnt := make([]int64, OrdersPerDistrict+1)
	for o := 1; o <= OrdersPerDistrict; o++ {
		cnt[o] = randInt(r, 5, 15)
		l.add(l.orderRow(nil, r, u.w, u.d, o, perm[o-1]+1, entry, cnt[o]))
	}
	if err := l.flush(ctx, c, 5); err != nil {
		return err
	}
	for o := firstNewOrder; o <= OrdersPerDistrict; o++ {
		l.add([]any{int64(o), int64(u.d), int64(u.w)})
	}
	if err := l.flush(ctx, c, 4); err != nil {
		return err
	}
	for o := 1; o <= OrdersPerDistrict; o++ {
		for n := int64(1); n <= cnt[o]; n++ {
			l.add(l.orderLineRow(nil, r, u.w, u.d, o, n, entry))
		}
		if len(l.rows) >= maxRowsPerStmt {
			if err := l.flush(ctx, c, 6); err != nil {
				return err
			}
		}
	}
	return l.flush(ctx, c, 6)
}

// The rows of each table, appended to dst in the table's column order,
// with the values clause 4.3.3.1 gives; r's draws come in column order.

func (l *loader) itemRow(dst []any, r *rand.Rand, i int) []any {
	return append(dst, int64(i), randInt(r, 1, 10000), aString(r, 14, 24), l.money(randInt(r, 100, 10000)), data(r))
}

func (l *loader) warehouseRow(dst []any, r *rand.Rand, w int) []any {
	return append(dst, int64(w), aString(r, 6, 10), aString(r, 10, 20), aString(r, 10, 20), aString(r, 10, 20), letters(r, 2), zip(r),
		l.tax(randInt(r, 0, 2000)), l.money(30000000))
}

func (l *loader) districtRow(dst []any, r *rand.Rand, w, d int) []any {
	return append(dst, int64(d), int64(w), aString(r, 6, 10), aString(r, 10, 20), aString(r, 10, 20), aString(r, 10, 20), letters(r, 2), zip(r),
		l.tax(randInt(r, 0, 2000)), l.money(3000000), int64(OrdersPerDistrict+1))
}

func (l *loader) stockRow(dst []any, r *rand.Rand, w, i int) []any {
	dst = append(dst, int64(i), int64(w), randInt(r, 10, 100))
	for d := 0; d < 10; d++ {
		dst = append(dst, aString(r, 24, 24))
	}
	return append(dst, int64(0), int64(0), int64(0), data(r))
}

// customerRow is customer i: the first 1,000 take the last names of
// 0..999 in turn, the others NURand's; 10% have bad credit.
func (l *loader) customerRow(dst []any, r *rand.Rand, w, d, i int, since any) []any {
	last := LastName(0)
	if i <= 1000 {
		last = LastName(int64(i - 1))
	} else {
		last = LastName(keydist.NURand{A: keydist.NURandLast, X: 0, Y: 999, C: CLastLoad}.Next(r))
	}
	credit := "GC"
	if r.Intn(10) == 0 {
		credit = "BC"
	}
	return append(dst, int64(i), int64(d), int64(w), aString(r, 8, 16), "OE", last, aString(r, 10, 20), aString(r, 10, 20), aString(r, 10, 20),
		letters(r, 2), zip(r), nString(r, 16), since, credit, l.money(5000000), l.tax(randInt(r, 0, 5000)), l.money(-1000), l.money(1000),
		int64(1), int64(0), aString(r, 300, 500))
}

func (l *loader) historyRow(dst []any, r *rand.Rand, w, d, i int, since any) []any {
	return append(dst, int64(i), int64(d), int64(w), int64(d), int64(w), since, l.money(1000), aString(r, 12, 24))
}

// orderRow is order o of customer cid with cnt lines: delivered (a
// carrier drawn from r) below firstNewOrder.
func (l *loader) orderRow(dst []any, r *rand.Rand, w, d, o, cid int, entry any, cnt int64) []any {
	var carrier any
	if o < firstNewOrder {
		carrier = randInt(r, 1, 10)
	}
	return append(dst, int64(o), int64(d), int64(w), int64(cid), entry, carrier, cnt, int64(1))
}

// orderLineRow is line n of order o: delivered at entry with amount 0
// below firstNewOrder, else undelivered with a random amount.
func (l *loader) orderLineRow(dst []any, r *rand.Rand, w, d, o int, n int64, entry any) []any {
	var delivered any
	amount := l.money(0)
	if o < firstNewOrder {
		delivered = entry
	} else {
		amount = l.money(randInt(r, 1, 999999))
	}
	return append(dst, int64(o), int64(d), int64(w), n, randInt(r, 1, Items), int64(w), delivered, int64(5), amount, aString(r, 24, 24))
}

// add appends one row to the pending rows.
func (l *loader) add(row []any) {
	l.rows = append(l.rows, row)
}

// flush writes the pending rows into table ti (index in Tables): with COPY
// when the connection has it, else in multi-row INSERTs of at most
// maxRowsPerStmt rows (one row each without multi-row INSERT).
func (l *loader) flush(ctx context.Context, c target.Conn, ti int) error {
	t := l.w.st.Tables[ti]
	if l.out == nil {
		l.out = map[string]*workload.RowWriter{}
	}
	rw := l.out[t.Name]
	if rw == nil {
		name, cols := t.Name, t.Columns
		rw = &workload.RowWriter{Table: name, Columns: cols, Insert: func(n int) string { return l.w.insertRows(name, cols, n) }}
		l.out[t.Name] = rw
	}
	rows := l.rows
	l.rows = l.rows[:0]
	step := len(rows)
	if !l.copy {
		step = maxRowsPerStmt
		if !l.w.caps.MultiRowInsert {
			step = 1
		}
		if lim := l.w.caps.MaxBindParams; lim > 0 && step*len(t.Columns) > lim {
			step = lim / len(t.Columns)
		}
	}
	for i := 0; i < len(rows); i += step {
		part := rows[i:min(i+step, len(rows))]
		l.args = l.args[:0]
		if !l.copy {
			for _, row := range part {
				l.args = append(l.args, row...)
			}
		}
		if err := rw.Write(ctx, c, part, l.args); err != nil {
			return fmt.Errorf("%s: %w", t.Name, err)
		}
	}
	return nil
}

// money is an amount in cents as the connection takes a DECIMAL(n, 2):
// float64 for COPY's binary encoding, else text (exact, and what the
// PostgreSQL and MySQL fast paths send as is).
func (l *loader) money(cents int64) any {
	if l.copy {
		return float64(cents) / 100
	}
	return fmtDecimal(cents, 2)
}

// tax is a rate in ten-thousandths as a DECIMAL(4, 4).
func (l *loader) tax(v int64) any {
	if l.copy {
		return float64(v) / 10000
	}
	return fmtDecimal(v, 4)
}

// when is a timestamp as the connection takes it.
func (l *loader) when(t time.Time) any {
	if l.copy {
		return t
	}
	return t.Format(timeLayout)
}

const timeLayout = "2006-01-02 15:04:05"

// fmtDecimal writes v / 10^scale exactly ("-10.00", "0.0725").
func fmtDecimal(v int64, scale int) string {
	neg := v < 0
	if neg {
		v = -v
	}
	s := strconv.FormatInt(v, 10)
	for len(s) <= scale {
		s = "0" + s
	}
	s = s[:len(s)-scale] + "." + s[len(s)-scale:]
	if neg {
		s = "-" + s
	}
	return s
}

// rollback ends a failed transaction, best effort, within a few seconds.
func rollback(c target.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, _ = c.Exec(ctx, "ROLLBACK")
}
