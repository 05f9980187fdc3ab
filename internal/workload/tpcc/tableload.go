package tpcc

import (
	"context"
	"fmt"
	"math/rand"
	"sync"

	"github.com/candor-bench/candor/internal/target"
)

// Loading on targets that load a whole empty table fastest in one go
// (target.Capabilities.TableLoad: MariaDB's LOAD DATA LOCAL into an empty
// table, which builds every index in one pass at commit). The record space
// then runs table by table instead of warehouse by warehouse, largest
// first so that the longest starts first: ORDER-LINE, STOCK, ITEM,
// CUSTOMER, HISTORY, ORDER, NEW-ORDER, DISTRICT, WAREHOUSE. Each table is
// one load batch (workload.BatchEnder) and one target.TableLoader call,
// its secondary index defined first. Its rows are drawn from generators
// seeded per table (and per district for the orders and their lines) from
// the load's seed (drawn from worker 0's generator when the loaders are
// made), so the order lines agree with the orders' line counts though
// loaded apart, and a retried batch writes the same rows; a table its
// failed attempt committed (found not empty) is skipped, so no row is
// inserted twice. Record counts stay the
// nominal ones of the unit layout (an order has 10 lines on average), so
// progress and ETA read as rows.

// Table indexes in Statements().Tables.
const (
	tWarehouse = iota
	tDistrict
	tCustomer
	tHistory
	tNewOrder
	tOrders
	tOrderLine
	tItem
	tStock
)

// piece is a batch of the TableLoad layout: tables loaded in this order,
// records [start, start+size).
type piece struct {
	tables      []int
	start, size int64
}

// nominalRows is the records table ti counts for (order lines: 10 per
// order).
func (w *Workload) nominalRows(ti int) int64 {
	wh := int64(w.opts.Warehouses)
	return [...]int64{
		tWarehouse: wh,
		tDistrict:  wh * DistrictsPerWarehouse,
		tCustomer:  wh * DistrictsPerWarehouse * CustomersPerDistrict,
		tHistory:   wh * DistrictsPerWarehouse * CustomersPerDistrict,
		tNewOrder:  wh * DistrictsPerWarehouse * NewOrdersPerDistrict,
		tOrders:    wh * DistrictsPerWarehouse * OrdersPerDistrict,
		tOrderLine: wh * DistrictsPerWarehouse * OrdersPerDistrict * 10,
		tItem:      Items,
		tStock:     wh * StockPerWarehouse,
	}[ti]
}

// layPieces fills w.pieces (Bind, with TableLoad).
func (w *Workload) layPieces() {
	w.pieces = nil
	var at int64
	for _, ts := range [][]int{{tOrderLine}, {tStock}, {tItem}, {tCustomer}, {tHistory}, {tOrders}, {tNewOrder}, {tDistrict}, {tWarehouse}} {
		p := piece{tables: ts, start: at}
		for _, ti := range ts {
			p.size += w.nominalRows(ti)
		}
		w.pieces = append(w.pieces, p)
		at += p.size
	}
}

// LoadBatchEnd implements workload.BatchEnder: with TableLoad, the end of
// the piece that holds record from; else 0 (fixed batches of units).
func (w *Workload) LoadBatchEnd(from int64) int64 {
	for _, p := range w.pieces {
		if from >= p.start && from < p.start+p.size {
			return p.start + p.size
		}
	}
	return 0
}

// tableLoadState is a loader's memory of the batch it is on, kept across
// the runner's retries of it.
type tableLoadState struct {
	from, to int64
	base     int64        // the load's seed
	tried    map[int]bool // tables an attempt of this batch has sent
	g1, g2   *rand.Rand
}

// loadTables loads, with TableLoad, every piece that begins in [from, to).
func (l *loader) loadTables(ctx context.Context, c target.Conn, from, to int64) error {
	tl, ok := c.(target.TableLoader)
	if !ok {
		return fmt.Errorf("tpcc: the target loads whole tables but its connection (%T) does not: %w", c, target.ErrUnsupported)
	}
	s := &l.tls
	if s.tried == nil || s.from != from || s.to != to {
		*s = tableLoadState{from: from, to: to, base: l.w.loadSeed, tried: map[int]bool{},
			g1: rand.New(rand.NewSource(1)), g2: rand.New(rand.NewSource(1))}
	}
	l.written = 0
	for _, p := range l.w.pieces {
		if p.start < from || p.start >= to {
			continue
		}
		for _, ti := range p.tables {
			if err := l.loadTable(ctx, c, tl, ti, to-from); err != nil {
				return err
			}
			l.written += l.w.nominalRows(ti)
		}
	}
	return nil
}

// loadTable sends table ti whole, unless an earlier attempt committed it.
func (l *loader) loadTable(ctx context.Context, c target.Conn, tl target.TableLoader, ti int, batch int64) error {
	s := &l.tls
	t := l.w.st.Tables[ti]
	rows, err := c.Query(ctx, "SELECT 1 FROM "+t.Name+" LIMIT 1", nil, func([][]byte) error { return nil })
	if err != nil {
		return fmt.Errorf("tpcc load (%s): %w", t.Name, err)
	}
	if rows > 0 {
		if s.tried[ti] {
			return nil // the failed attempt's commit went through
		}
		return fmt.Errorf("tpcc load: table %s is not empty; a whole-table load needs the tables it creates (drop them, or load again with --load always)", t.Name)
	}
	s.tried[ti] = true
	if err := l.w.indexFirst(ctx, c, ti); err != nil {
		return err
	}
	n, gen := l.generator(ti)
	nominal := l.w.nominalRows(ti)
	progress := func(sent int64) {
		if l.progress != nil {
			l.progress(min(l.written+min(sent, nominal), batch))
		}
	}
	got, err := tl.LoadTable(ctx, t.Name, t.Columns, n, gen, progress)
	if err == nil && got != n {
		err = fmt.Errorf("the server reports %d rows loaded, want %d", got, n)
	}
	if err != nil {
		return fmt.Errorf("tpcc load (%s, %d rows): %w", t.Name, n, err)
	}
	return nil
}

// indexFirst creates table ti's secondary indexes before its rows, once
// per load: the bulk path builds them with the table. PostLoad skips them.
func (w *Workload) indexFirst(ctx context.Context, c target.Conn, ti int) error {
	w.indexMu.Lock()
	defer w.indexMu.Unlock()
	if w.indexed[ti] {
		return nil
	}
	for _, ix := range w.st.Tables[ti].Indexes {
		if _, err := c.Exec(ctx, ix); err != nil {
			return fmt.Errorf("tpcc: %s: %w", ix, err)
		}
	}
	w.indexed[ti] = true
	return nil
}

// seed is the seed of table ti's generator, or of one of its districts'.
func (s *tableLoadState) seed(ti, wh, d int) int64 {
	return s.base ^ ((int64(ti)*(MaxWarehouses+1)+int64(wh))*16+int64(d)+1)*0x2545F4914F6CDD1D
}

// generator returns table ti's row count and its rows in order (row i is
// asked for after row i-1, as target.TableLoader does), with the values
// of the unit layout's rows.
func (l *loader) generator(ti int) (int64, func(i int64, dst []any) []any) {
	s := &l.tls
	g := s.g1
	g.Seed(s.seed(ti, 0, 0))
	now := l.when(l.now)
	n := l.w.nominalRows(ti)
	// district splits row i of a table of per rows per district.
	district := func(i, per int64) (wh, d, k int) {
		return int(i/(per*DistrictsPerWarehouse)) + 1, int(i/per%DistrictsPerWarehouse) + 1, int(i%per) + 1
	}
	switch ti {
	case tWarehouse:
		return n, func(i int64, dst []any) []any { return l.warehouseRow(dst[:0], g, int(i)+1) }
	case tDistrict:
		return n, func(i int64, dst []any) []any {
			return l.districtRow(dst[:0], g, int(i/DistrictsPerWarehouse)+1, int(i%DistrictsPerWarehouse)+1)
		}
	case tItem:
		return n, func(i int64, dst []any) []any { return l.itemRow(dst[:0], g, int(i)+1) }
	case tStock:
		return n, func(i int64, dst []any) []any {
			return l.stockRow(dst[:0], g, int(i/StockPerWarehouse)+1, int(i%StockPerWarehouse)+1)
		}
	case tCustomer, tHistory:
		row := l.customerRow
		if ti == tHistory {
			row = l.historyRow
		}
		return n, func(i int64, dst []any) []any {
			wh, d, c := district(i, CustomersPerDistrict)
			return row(dst[:0], g, wh, d, c, now)
		}
	case tNewOrder:
		return n, func(i int64, dst []any) []any {
			wh, d, k := district(i, NewOrdersPerDistrict)
			return append(dst[:0], int64(firstNewOrder+k-1), int64(d), int64(wh))
		}
	case tOrders:
		// Per district: o_c_id a permutation drawn from g, carriers after
		// it; the line counts from g2, seeded as the order lines' are.
		var perm []int
		return n, func(i int64, dst []any) []any {
			wh, d, o := district(i, OrdersPerDistrict)
			if o == 1 {
				g.Seed(s.seed(ti, wh, d))
				s.g2.Seed(s.seed(tOrderLine, wh, d))
				perm = g.Perm(CustomersPerDistrict)
			}
			return l.orderRow(dst[:0], g, wh, d, o, perm[o-1]+1, now, randInt(s.g2, 5, 15))
		}
	}
	// Order lines: the orders' line counts drawn again from g2, seeded
	// per district as the orders' were, the lines' values from g.
	n = 0
	for wh := 1; wh <= l.w.opts.Warehouses; wh++ {
		for d := 1; d <= DistrictsPerWarehouse; d++ {
			s.g2.Seed(s.seed(tOrderLine, wh, d))
			for o := 0; o < OrdersPerDistrict; o++ {
				n += randInt(s.g2, 5, 15)
			}
		}
	}
	var wh, d, o int
	var line, cnt int64
	return n, func(_ int64, dst []any) []any {
		if line == cnt { // the next order
			line, o = 0, o+1
			if o > OrdersPerDistrict || wh == 0 {
				o, d = 1, d+1
				if d > DistrictsPerWarehouse || wh == 0 {
					d, wh = 1, wh+1
				}
				s.g2.Seed(s.seed(tOrderLine, wh, d))
			}
			cnt = randInt(s.g2, 5, 15)
		}
		line++
		return l.orderLineRow(dst[:0], g, wh, d, o, line, now)
	}
}

// tableLoadIndexes are the per-load indexes already made (with TableLoad).
type tableLoadIndexes struct {
	indexMu sync.Mutex
	indexed map[int]bool
}
