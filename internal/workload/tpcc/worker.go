package tpcc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strconv"
	"time"

	"github.com/candor-bench/candor/internal/keydist"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

// line is one order line of a New-Order: item, supplying warehouse and
// quantity.
type line struct {
	item, supply, qty int64
}

// worker is one terminal. Next draws a transaction and all its inputs;
// Exec runs it and may be called again with the same inputs (a retry):
// everything else it needs it reads from the server anew.
type worker struct {
	w   *Workload
	r   *rand.Rand
	op  workload.OpID
	ctx context.Context // the last Exec's, for --spec-waits

	// Inputs of the chosen transaction.
	wid, did   int64
	cid        int64  // customer by id (0: by last name)
	last       string // customer by last name
	cwid, cdid int64  // Payment: the customer's warehouse and district
	lines      []line // New-Order
	rollback   bool   // New-Order: the last item is unused (clause 2.4.1.4)
	amount     int64  // Payment: cents
	carrier    int64  // Delivery
	threshold  int64  // Stock-Level
	nuCID      keydist.NURand
	nuItem     keydist.NURand
	nuLast     keydist.NURand
	args       []any
	ids        []int64
	byIDs      map[int64]int // item id → index in lines
	price      []int64       // per line: the item's price in cents
	stockRows  map[[2]int64]stockRow
}

type stockRow struct {
	qty  int64
	dist string
}

// NewWorker returns a terminal with its own generator.
func (w *Workload) NewWorker(_ int, r *rand.Rand) workload.Worker {
	w.constants(r)
	return &worker{w: w, r: r,
		nuCID:     keydist.NURand{A: keydist.NURandCID, X: 1, Y: CustomersPerDistrict, C: w.cID},
		nuItem:    keydist.NURand{A: keydist.NURandItem, X: 1, Y: Items, C: w.cItem},
		nuLast:    keydist.NURand{A: keydist.NURandLast, X: 0, Y: 999, C: w.cLast},
		byIDs:     map[int64]int{},
		stockRows: map[[2]int64]stockRow{},
	}
}

// pick draws the transaction of the mix for a number in [0, 100).
func pick(n int) workload.OpID {
	for op, pct := range Mix {
		if n < pct {
			return workload.OpID(op)
		}
		n -= pct
	}
	return OpStockLevel
}

// Next chooses the next transaction and its inputs (clause 2.x.1): a
// warehouse at random per transaction (as go-tpc), a district at random.
func (t *worker) Next() workload.OpID {
	r := t.r
	wh := int64(t.w.opts.Warehouses)
	t.op = pick(r.Intn(100))
	t.wid, t.did = randInt(r, 1, wh), randInt(r, 1, DistrictsPerWarehouse)
	t.cid, t.last = 0, ""
	switch t.op {
	case OpNewOrder:
		t.cid = t.nuCID.Next(r)
		n := int(randInt(r, 5, 15))
		t.rollback = randInt(r, 1, 100) == 1
		t.lines = t.lines[:0]
		clear(t.byIDs)
		for len(t.lines) < n {
			it := t.nuItem.Next(r)
			if len(t.lines) == n-1 && t.rollback {
				it = Items + 1 // unused: the transaction rolls back
			}
			if _, dup := t.byIDs[it]; dup {
				continue // items of one order are distinct
			}
			supply := t.wid
			if wh > 1 && randInt(r, 1, 100) == 1 {
				supply = t.other(wh)
			}
			t.byIDs[it] = len(t.lines)
			t.lines = append(t.lines, line{item: it, supply: supply, qty: randInt(r, 1, 10)})
		}
	case OpPayment:
		t.cwid, t.cdid = t.wid, t.did
		if wh > 1 && randInt(r, 1, 100) > 85 {
			t.cwid, t.cdid = t.other(wh), randInt(r, 1, DistrictsPerWarehouse)
		}
		t.byName()
		t.amount = randInt(r, 100, 500000)
	case OpOrderStatus:
		t.byName()
	case OpDelivery:
		t.carrier = randInt(r, 1, 10)
	case OpStockLevel:
		t.threshold = randInt(r, 10, 20)
	}
	return t.op
}

// byName chooses the customer: 60% by last name, else by id.
func (t *worker) byName() {
	if randInt(t.r, 1, 100) <= 60 {
		t.last = LastName(t.nuLast.Next(t.r))
	} else {
		t.cid = t.nuCID.Next(t.r)
	}
}

// other is a warehouse other than t.wid (wh > 1).
func (t *worker) other(wh int64) int64 {
	o := randInt(t.r, 1, wh-1)
	if o >= t.wid {
		o++
	}
	return o
}

// Exec runs the chosen transaction. On an error it rolls back (best
// effort) and returns it; counters are added only once it has committed,
// so a retried attempt counts once.
func (t *worker) Exec(ctx context.Context, c target.Conn, s workload.Span) error {
	t.ctx = ctx
	var err error
	var counts []int // counter indexes to add 1 to after the commit
	var lines, remote int64
	switch t.op {
	case OpNewOrder:
		var rolledBack bool
		rolledBack, err = t.newOrder(ctx, c)
		if err == nil && rolledBack {
			add(s, CounterRollbacks, 1)
			return nil
		}
		for _, l := range t.lines {
			lines++
			if l.supply != t.wid {
				remote++
			}
		}
	case OpPayment:
		err = t.payment(ctx, c)
		if t.cwid != t.wid {
			counts = append(counts, CounterRemotePayments)
		}
		if t.last != "" {
			counts = append(counts, CounterPaymentsByLast)
		}
	case OpOrderStatus:
		err = t.orderStatus(ctx, c)
		if t.last != "" {
			counts = append(counts, CounterStatusByLast)
		}
	case OpDelivery:
		var skipped int64
		skipped, err = t.delivery(ctx, c)
		if err == nil && skipped > 0 {
			add(s, CounterDeliverySkipped, skipped)
		}
	case OpStockLevel:
		err = t.stockLevel(ctx, c)
	}
	if err != nil {
		rollback(c)
		return err
	}
	for _, i := range counts {
		add(s, i, 1)
	}
	if lines > 0 {
		add(s, CounterOrderLines, lines)
		add(s, CounterRemoteLines, remote)
	}
	return nil
}

func add(s workload.Span, counter int, n int64) {
	if c, ok := s.(workload.Counter); ok {
		c.Add(counter, n)
	}
}

// Done waits the spec's keying and think times with --spec-waits (clause
// 5.2.5): outside the measured transaction, and cut short when the phase
// ends.
func (t *worker) Done(error) {
	if !t.w.opts.SpecWaits || t.ctx == nil {
		return
	}
	mean := thinkSec[t.op]
	think := -math.Log(1-t.r.Float64()) * mean
	think = min(think, 10*mean)
	wait := time.Duration((keyingSec[t.op] + think) * float64(time.Second))
	// The context may have no Done channel (the runner's quiet context on
	// interruptible sessions): poll its Err.
	for end := time.Now().Add(wait); time.Now().Before(end) && t.ctx.Err() == nil; {
		time.Sleep(min(100*time.Millisecond, time.Until(end)))
	}
}

// errNoRow is a row the transaction needs that is not there.
func errNoRow(what string, args ...any) error {
	return fmt.Errorf("tpcc: %s: %w", fmt.Sprintf(what, args...), target.ErrNotFound)
}

// one runs a query that must return exactly one row and hands its columns
// to fn.
func one(ctx context.Context, c target.Conn, sql string, args []any, fn func(cols [][]byte) error) (bool, error) {
	found := false
	_, err := c.Query(ctx, sql, args, func(cols [][]byte) error {
		if found {
			return nil
		}
		found = true
		return fn(cols)
	})
	return found, err
}

// newOrder is clause 2.4.2. It reports true when the transaction rolled
// back as the spec asks (an unused item id).
func (t *worker) newOrder(ctx context.Context, c target.Conn) (bool, error) {
	st := &t.w.st
	if _, err := c.Exec(ctx, st.BeginWrite); err != nil {
		return false, err
	}
	var discount, wTax, dTax float64
	ok, err := one(ctx, c, st.NOCustomer, []any{t.wid, t.did, t.cid}, func(cols [][]byte) (err error) {
		discount, err = num(cols[0])
		if err == nil {
			wTax, err = num(cols[3])
		}
		return err
	})
	if err != nil || !ok {
		return false, orMissing(err, ok, "customer %d/%d/%d", t.wid, t.did, t.cid)
	}
	var next int64
	ok, err = one(ctx, c, st.NODistrict, []any{t.wid, t.did}, func(cols [][]byte) (err error) {
		if next, err = integer(cols[0]); err == nil {
			dTax, err = num(cols[1])
		}
		return err
	})
	if err != nil || !ok {
		return false, orMissing(err, ok, "district %d/%d", t.wid, t.did)
	}
	if _, err := c.Exec(ctx, st.NOUpdateDistrict, t.wid, t.did); err != nil {
		return false, err
	}
	n := len(t.lines)
	allLocal := int64(1)
	t.args = t.args[:0]
	for _, l := range t.lines {
		t.args = append(t.args, l.item)
		if l.supply != t.wid {
			allLocal = 0
		}
	}
	t.price = slices.Grow(t.price[:0], n)[:n]
	found := 0
	if _, err := c.Query(ctx, t.w.items[n], t.args, func(cols [][]byte) error {
		id, err := integer(cols[0])
		if err != nil {
			return err
		}
		i, ok := t.byIDs[id]
		if !ok {
			return fmt.Errorf("tpcc: item %d was not asked for", id)
		}
		p, err := cents(cols[1])
		t.price[i] = p
		found++
		return err
	}); err != nil {
		return false, err
	}
	if found < n {
		if t.rollback && found == n-1 {
			if _, err := c.Exec(ctx, st.Rollback); err != nil {
				return false, err
			}
			return true, nil
		}
		return false, errNoRow("New-Order found %d of its %d items", found, n)
	}
	now := time.Now().UTC().Format(timeLayout)
	if _, err := c.Exec(ctx, st.NOInsertOrder, next, t.did, t.wid, t.cid, now, int64(n), allLocal); err != nil {
		return false, err
	}
	if _, err := c.Exec(ctx, st.NOInsertNewOrder, next, t.did, t.wid); err != nil {
		return false, err
	}
	t.args = t.args[:0]
	for _, l := range t.lines {
		t.args = append(t.args, l.supply, l.item)
	}
	clear(t.stockRows)
	if _, err := c.Query(ctx, t.w.stock[t.did][n], t.args, func(cols [][]byte) error {
		i, err := integer(cols[0])
		if err != nil {
			return err
		}
		wh, err := integer(cols[1])
		if err != nil {
			return err
		}
		q, err := integer(cols[2])
		t.stockRows[[2]int64{wh, i}] = stockRow{qty: q, dist: string(cols[4])}
		return err
	}); err != nil {
		return false, err
	}
	if len(t.stockRows) < n {
		return false, errNoRow("New-Order found %d of its %d stock rows", len(t.stockRows), n)
	}
	// Stock updates in key order, so that concurrent New-Orders take the
	// rows' locks in one order.
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		la, lb := t.lines[a], t.lines[b]
		if la.supply != lb.supply {
			return int(la.supply - lb.supply)
		}
		return int(la.item - lb.item)
	})
	for _, i := range order {
		l := t.lines[i]
		sr := t.stockRows[[2]int64{l.supply, l.item}]
		q := sr.qty - l.qty
		if sr.qty < l.qty+10 {
			q += 91
		}
		remote := int64(0)
		if l.supply != t.wid {
			remote = 1
		}
		if _, err := c.Exec(ctx, st.NOUpdateStock, q, l.qty, remote, l.supply, l.item); err != nil {
			return false, err
		}
	}
	_ = discount * (1 + wTax + dTax) // the total shown on the terminal (clause 2.4.3.3)
	t.args = t.args[:0]
	per := n
	if !t.w.caps.MultiRowInsert {
		per = 1
	}
	for i, l := range t.lines {
		sr := t.stockRows[[2]int64{l.supply, l.item}]
		t.args = append(t.args, next, t.did, t.wid, int64(i+1), l.item, l.supply, l.qty, fmtDecimal(l.qty*t.price[i], 2), sr.dist)
		if (i+1)%per == 0 || i == n-1 {
			rows := len(t.args) / 9
			if _, err := c.Exec(ctx, t.w.lines[rows], t.args...); err != nil {
				return false, err
			}
			t.args = t.args[:0]
		}
	}
	_, err = c.Exec(ctx, st.Commit)
	return false, err
}

// orMissing is err, or when the row was not found an error saying which.
func orMissing(err error, found bool, what string, args ...any) error {
	if err != nil {
		return err
	}
	if !found {
		return errNoRow(what, args...)
	}
	return nil
}

// customerByLast returns the id of the customer at position n/2 rounded up
// of those of the last name, ordered by first name (clause 2.5.2.2).
func (t *worker) customerByLast(ctx context.Context, c target.Conn, wid, did int64) (int64, error) {
	t.ids = t.ids[:0]
	if _, err := c.Query(ctx, t.w.st.CustomersByLast, []any{wid, did, t.last}, func(cols [][]byte) error {
		id, err := integer(cols[0])
		t.ids = append(t.ids, id)
		return err
	}); err != nil {
		return 0, err
	}
	if len(t.ids) == 0 {
		return 0, errNoRow("no customer named %s in %d/%d", t.last, wid, did)
	}
	return t.ids[(len(t.ids)+1)/2-1], nil
}

// payment is clause 2.5.2, with the district updated before the
// warehouse, as go-tpc orders them (the clause lists the warehouse first):
// the warehouse row is the hottest of TPC-C, every Payment of the
// warehouse updates it, and a Payment that held it while waiting for a
// district locked by a New-Order made every other Payment of the
// warehouse wait too. The outcome is the same.
func (t *worker) payment(ctx context.Context, c target.Conn) error {
	st := &t.w.st
	amount := fmtDecimal(t.amount, 2)
	if _, err := c.Exec(ctx, st.BeginWrite); err != nil {
		return err
	}
	var wName, dName string
	if _, err := c.Exec(ctx, st.PayUpdateDistrict, amount, t.wid, t.did); err != nil {
		return err
	}
	ok, err := one(ctx, c, st.PayDistrict, []any{t.wid, t.did}, func(cols [][]byte) error { dName = string(cols[0]); return nil })
	if err != nil || !ok {
		return orMissing(err, ok, "district %d/%d", t.wid, t.did)
	}
	if _, err := c.Exec(ctx, st.PayUpdateWarehouse, amount, t.wid); err != nil {
		return err
	}
	ok, err = one(ctx, c, st.PayWarehouse, []any{t.wid}, func(cols [][]byte) error { wName = string(cols[0]); return nil })
	if err != nil || !ok {
		return orMissing(err, ok, "warehouse %d", t.wid)
	}
	cid := t.cid
	if t.last != "" {
		if cid, err = t.customerByLast(ctx, c, t.cwid, t.cdid); err != nil {
			return err
		}
	}
	var credit string
	ok, err = one(ctx, c, st.PayCustomer, []any{t.cwid, t.cdid, cid}, func(cols [][]byte) error {
		credit = string(cols[len(cols)-1])
		return nil
	})
	if err != nil || !ok {
		return orMissing(err, ok, "customer %d/%d/%d", t.cwid, t.cdid, cid)
	}
	if credit == "BC" {
		var old string
		ok, err = one(ctx, c, st.PayCustomerData, []any{t.cwid, t.cdid, cid}, func(cols [][]byte) error { old = string(cols[0]); return nil })
		if err != nil || !ok {
			return orMissing(err, ok, "customer %d/%d/%d", t.cwid, t.cdid, cid)
		}
		nd := fmt.Sprintf("%d %d %d %d %d %s|%s", cid, t.cdid, t.cwid, t.did, t.wid, amount, old)
		if len(nd) > 500 {
			nd = nd[:500]
		}
		if _, err := c.Exec(ctx, st.PayUpdateCustomerBC, amount, amount, nd, t.cwid, t.cdid, cid); err != nil {
			return err
		}
	} else if _, err := c.Exec(ctx, st.PayUpdateCustomer, amount, amount, t.cwid, t.cdid, cid); err != nil {
		return err
	}
	hData := wName + "    " + dName
	if len(hData) > 24 {
		hData = hData[:24]
	}
	now := time.Now().UTC().Format(timeLayout)
	if _, err := c.Exec(ctx, st.PayInsertHistory, cid, t.cdid, t.cwid, t.did, t.wid, now, amount, hData); err != nil {
		return err
	}
	_, err = c.Exec(ctx, st.Commit)
	return err
}

// orderStatus is clause 2.6.2.
func (t *worker) orderStatus(ctx context.Context, c target.Conn) error {
	st := &t.w.st
	if _, err := c.Exec(ctx, st.Begin); err != nil {
		return err
	}
	cid := t.cid
	var err error
	if t.last != "" {
		if cid, err = t.customerByLast(ctx, c, t.wid, t.did); err != nil {
			return err
		}
	}
	ok, err := one(ctx, c, st.OSCustomer, []any{t.wid, t.did, cid}, func([][]byte) error { return nil })
	if err != nil || !ok {
		return orMissing(err, ok, "customer %d/%d/%d", t.wid, t.did, cid)
	}
	var oid int64
	ok, err = one(ctx, c, st.OSLastOrder, []any{t.wid, t.did, cid}, func(cols [][]byte) (err error) {
		oid, err = integer(cols[0])
		return err
	})
	if err != nil || !ok {
		return orMissing(err, ok, "an order of customer %d/%d/%d", t.wid, t.did, cid)
	}
	if _, err := c.Query(ctx, st.OSOrderLines, []any{t.wid, t.did, oid}, nil); err != nil {
		return err
	}
	_, err = c.Exec(ctx, st.Commit)
	return err
}

// delivery is clause 2.7.4, the ten districts in one transaction (as
// go-tpc and BenchBase). It returns the districts it found without a new
// order.
func (t *worker) delivery(ctx context.Context, c target.Conn) (int64, error) {
	st := &t.w.st
	if _, err := c.Exec(ctx, st.BeginWrite); err != nil {
		return 0, err
	}
	now := time.Now().UTC().Format(timeLayout)
	var skipped int64
	for d := int64(1); d <= DistrictsPerWarehouse; d++ {
		var oid int64
		ok, err := one(ctx, c, st.DelOldestNewOrder, []any{t.wid, d}, func(cols [][]byte) (err error) {
			oid, err = integer(cols[0])
			return err
		})
		if err != nil {
			return 0, err
		}
		if !ok {
			skipped++
			continue
		}
		n, err := c.Exec(ctx, st.DelDeleteNewOrder, t.wid, d, oid)
		if err != nil {
			return 0, err
		}
		if n == 0 {
			skipped++ // another Delivery took it
			continue
		}
		var cid int64
		ok, err = one(ctx, c, st.DelOrderCustomer, []any{t.wid, d, oid}, func(cols [][]byte) (err error) {
			cid, err = integer(cols[0])
			return err
		})
		if err != nil || !ok {
			return 0, orMissing(err, ok, "order %d/%d/%d", t.wid, d, oid)
		}
		if _, err := c.Exec(ctx, st.DelUpdateOrder, t.carrier, t.wid, d, oid); err != nil {
			return 0, err
		}
		if _, err := c.Exec(ctx, st.DelUpdateLines, now, t.wid, d, oid); err != nil {
			return 0, err
		}
		var sum int64
		if _, err := one(ctx, c, st.DelSumLines, []any{t.wid, d, oid}, func(cols [][]byte) (err error) {
			if cols[0] != nil {
				sum, err = cents(cols[0])
			}
			return err
		}); err != nil {
			return 0, err
		}
		if _, err := c.Exec(ctx, st.DelUpdateCustomer, fmtDecimal(sum, 2), t.wid, d, cid); err != nil {
			return 0, err
		}
	}
	_, err := c.Exec(ctx, st.Commit)
	return skipped, err
}

// stockLevel is clause 2.8.2: the district's last 20 orders' items with
// stock below the threshold.
func (t *worker) stockLevel(ctx context.Context, c target.Conn) error {
	st := &t.w.st
	if _, err := c.Exec(ctx, st.Begin); err != nil {
		return err
	}
	var next int64
	ok, err := one(ctx, c, st.SLNextOrder, []any{t.wid, t.did}, func(cols [][]byte) (err error) {
		next, err = integer(cols[0])
		return err
	})
	if err != nil || !ok {
		return orMissing(err, ok, "district %d/%d", t.wid, t.did)
	}
	if _, err := c.Query(ctx, st.SLLowStock, []any{t.wid, t.did, next, next - 20, t.wid, t.threshold}, nil); err != nil {
		return err
	}
	_, err = c.Exec(ctx, st.Commit)
	return err
}

// integer parses an integer column.
func integer(b []byte) (int64, error) {
	v, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		f, ferr := strconv.ParseFloat(string(b), 64) // SQLite may return 3001.0
		if ferr != nil || f != math.Trunc(f) {
			return 0, fmt.Errorf("tpcc: %q is not an integer", b)
		}
		return int64(f), nil
	}
	return v, nil
}

// num parses a numeric column.
func num(b []byte) (float64, error) {
	if b == nil {
		return 0, errors.New("tpcc: unexpected NULL")
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return 0, fmt.Errorf("tpcc: %q is not a number", b)
	}
	return v, nil
}

// cents parses an amount into cents.
func cents(b []byte) (int64, error) {
	v, err := num(b)
	return int64(math.Round(v * 100)), err
}
