package tpcc

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

// tolerance is how far two sums of money may differ and still be equal:
// half a cent. DECIMAL columns are exact on PostgreSQL and MySQL; SQLite
// keeps them as REAL, whose sums drift by far less.
const tolerance = 0.005

// maxNamed is how many offenders a check's Detail names.
const maxNamed = 5

// Check runs TPC-C's consistency conditions (clause 3.3.2, those go-tpc's
// check covers after a run: 1 to 10 and 12; 11 holds only before the
// first Delivery) over every warehouse, one CheckResult each, with the
// offending warehouses, districts or customers counted and the first ones
// named.
func (w *Workload) Check(ctx context.Context, c target.Conn) ([]workload.CheckResult, error) {
	if !w.bound {
		return nil, fmt.Errorf("tpcc: Check before Bind")
	}
	one := func(f func(context.Context, target.Conn) (workload.CheckResult, error)) func(context.Context, target.Conn) ([]workload.CheckResult, error) {
		return func(ctx context.Context, c target.Conn) ([]workload.CheckResult, error) {
			r, err := f(ctx, c)
			return []workload.CheckResult{r}, err
		}
	}
	checks := []func(context.Context, target.Conn) ([]workload.CheckResult, error){
		one(w.check1), one(w.check2), one(w.check3), one(w.check4), one(w.check5), one(w.check6), one(w.check7), one(w.check8), one(w.check9), w.check10and12,
	}
	var out []workload.CheckResult
	for _, ch := range checks {
		r, err := ch(ctx, c)
		if err != nil {
			return out, err
		}
		out = append(out, r...)
	}
	return out, nil
}

// offenders collects the offending groups of a check.
type offenders struct {
	n     int64
	named []string
}

func (o *offenders) add(format string, args ...any) {
	o.n++
	if len(o.named) < maxNamed {
		o.named = append(o.named, fmt.Sprintf(format, args...))
	}
}

func (o *offenders) result(name, what string) workload.CheckResult {
	r := workload.CheckResult{Name: name, Passed: o.n == 0, Offending: o.n}
	if o.n > 0 {
		r.Detail = fmt.Sprintf("%d %s: %s", o.n, what, strings.Join(o.named, "; "))
		if o.n > int64(len(o.named)) {
			r.Detail += "; ..."
		}
	}
	return r
}

// rows runs q and calls fn with each row's columns as text (nil: NULL).
func rows(ctx context.Context, c target.Conn, q string, fn func(cols [][]byte) error) error {
	_, err := c.Query(ctx, q, nil, fn)
	if err != nil {
		return fmt.Errorf("tpcc check: %s: %w", q, err)
	}
	return nil
}

func ints(cols [][]byte, n int) ([]int64, error) {
	out := make([]int64, n)
	for i := range out {
		if cols[i] == nil {
			out[i] = -1
			continue
		}
		v, err := integer(cols[i])
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func money(b []byte) (float64, error) {
	if b == nil {
		return 0, nil
	}
	return num(b)
}

func differ(a, b float64) bool { return math.Abs(a-b) > tolerance }

// check1 is 3.3.2.1: W_YTD = sum(D_YTD).
func (w *Workload) check1(ctx context.Context, c target.Conn) (workload.CheckResult, error) {
	return w.warehouseYTD(ctx, c, w.st.Checks.WarehouseYTD, "3.3.2.1 W_YTD = sum(D_YTD)", "d_ytd")
}

// warehouseYTD runs a check whose query returns w_id, w_ytd and a sum
// (of sumOf) that must equal it, per warehouse.
func (w *Workload) warehouseYTD(ctx context.Context, c target.Conn, q, name, sumOf string) (workload.CheckResult, error) {
	var o offenders
	err := rows(ctx, c, q, func(cols [][]byte) error {
		id, err := integer(cols[0])
		if err != nil {
			return err
		}
		m, err := moneys(cols[1:3])
		if err == nil && differ(m[0], m[1]) {
			o.add("warehouse %d: w_ytd %.2f, sum of %s %.2f", id, m[0], sumOf, m[1])
		}
		return err
	})
	return o.result(name, "warehouses"), err
}

// moneys parses amounts (NULL: 0).
func moneys(cols [][]byte) ([]float64, error) {
	out := make([]float64, len(cols))
	for i, b := range cols {
		v, err := money(b)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// check2 is 3.3.2.2: D_NEXT_O_ID − 1 = max(O_ID) = max(NO_O_ID), the
// latter where the district has new orders.
func (w *Workload) check2(ctx context.Context, c target.Conn) (workload.CheckResult, error) {
	var o offenders
	err := rows(ctx, c, w.st.Checks.DistrictOrders, func(cols [][]byte) error {
		v, err := ints(cols, 5)
		if err != nil {
			return err
		}
		if v[3] != v[2]-1 || (v[4] >= 0 && v[4] != v[2]-1) {
			o.add("warehouse %d district %d: d_next_o_id %d, max(o_id) %s, max(no_o_id) %s", v[0], v[1], v[2], orNone(v[3]), orNone(v[4]))
		}
		return nil
	})
	return o.result("3.3.2.2 D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)", "districts"), err
}

func orNone(v int64) string {
	if v < 0 {
		return "none"
	}
	return fmt.Sprint(v)
}

// check3 is 3.3.2.3: max(NO_O_ID) − min(NO_O_ID) + 1 = count of new
// orders, per district.
func (w *Workload) check3(ctx context.Context, c target.Conn) (workload.CheckResult, error) {
	var o offenders
	err := rows(ctx, c, w.st.Checks.NewOrderRange, func(cols [][]byte) error {
		v, err := ints(cols, 4)
		if err != nil {
			return err
		}
		if v[2] != v[3] {
			o.add("warehouse %d district %d: new-order ids span %d, %d rows", v[0], v[1], v[2], v[3])
		}
		return nil
	})
	return o.result("3.3.2.3 max(NO_O_ID) - min(NO_O_ID) + 1 = rows in NEW-ORDER", "districts"), err
}

// check4 is 3.3.2.4: sum(O_OL_CNT) = rows in ORDER-LINE, per district.
func (w *Workload) check4(ctx context.Context, c target.Conn) (workload.CheckResult, error) {
	sums := map[[2]int64]int64{}
	if err := rows(ctx, c, w.st.Checks.OrderLineCounts, func(cols [][]byte) error {
		v, err := ints(cols, 3)
		sums[[2]int64{v[0], v[1]}] = v[2]
		return err
	}); err != nil {
		return workload.CheckResult{}, err
	}
	counts := map[[2]int64]int64{}
	if err := rows(ctx, c, w.st.Checks.LineCounts, func(cols [][]byte) error {
		v, err := ints(cols, 3)
		counts[[2]int64{v[0], v[1]}] = v[2]
		return err
	}); err != nil {
		return workload.CheckResult{}, err
	}
	var o offenders
	for _, k := range sortedKeys(sums, counts) {
		if sums[k] != counts[k] {
			o.add("warehouse %d district %d: sum(o_ol_cnt) %d, %d order lines", k[0], k[1], sums[k], counts[k])
		}
	}
	return o.result("3.3.2.4 sum(O_OL_CNT) = rows in ORDER-LINE", "districts"), nil
}

// countPerDistrict runs a check whose query returns w, d and a count of
// offending rows per district.
func (w *Workload) countPerDistrict(ctx context.Context, c target.Conn, q, name, what string) (workload.CheckResult, error) {
	var o offenders
	var total int64
	err := rows(ctx, c, q, func(cols [][]byte) error {
		v, err := ints(cols, 3)
		if err != nil {
			return err
		}
		if v[2] > 0 {
			total += v[2]
			o.add("warehouse %d district %d: %d %s", v[0], v[1], v[2], what)
		}
		return nil
	})
	r := o.result(name, "districts")
	r.Offending = total
	if total > 0 {
		r.Detail = fmt.Sprintf("%d %s in %s", total, what, r.Detail)
	}
	return r, err
}

// check5 is 3.3.2.5: an order has a new-order row exactly when its
// carrier is NULL.
func (w *Workload) check5(ctx context.Context, c target.Conn) (workload.CheckResult, error) {
	return w.countPerDistrict(ctx, c, w.st.Checks.CarrierNewOrder, "3.3.2.5 O_CARRIER_ID is NULL exactly for orders in NEW-ORDER", "orders")
}

// check6 is 3.3.2.6: O_OL_CNT = the order's lines.
func (w *Workload) check6(ctx context.Context, c target.Conn) (workload.CheckResult, error) {
	return w.countPerDistrict(ctx, c, w.st.Checks.OrderLineCnt, "3.3.2.6 O_OL_CNT = the order's rows in ORDER-LINE", "orders")
}

// check7 is 3.3.2.7: OL_DELIVERY_D is NULL exactly when the order's
// carrier is.
func (w *Workload) check7(ctx context.Context, c target.Conn) (workload.CheckResult, error) {
	return w.countPerDistrict(ctx, c, w.st.Checks.DeliveryDates, "3.3.2.7 OL_DELIVERY_D is NULL exactly when O_CARRIER_ID is", "order lines")
}

// check8 is 3.3.2.8: W_YTD = sum(H_AMOUNT) of the warehouse.
func (w *Workload) check8(ctx context.Context, c target.Conn) (workload.CheckResult, error) {
	return w.warehouseYTD(ctx, c, w.st.Checks.WarehouseHist, "3.3.2.8 W_YTD = sum(H_AMOUNT)", "h_amount")
}

// check9 is 3.3.2.9: D_YTD = sum(H_AMOUNT) of the district.
func (w *Workload) check9(ctx context.Context, c target.Conn) (workload.CheckResult, error) {
	hist := map[[2]int64]float64{}
	if err := rows(ctx, c, w.st.Checks.DistrictHist, func(cols [][]byte) error {
		v, err := ints(cols, 2)
		if err != nil {
			return err
		}
		hist[[2]int64{v[0], v[1]}], err = money(cols[2])
		return err
	}); err != nil {
		return workload.CheckResult{}, err
	}
	var o offenders
	err := rows(ctx, c, w.st.Checks.DistrictYTD, func(cols [][]byte) error {
		v, err := ints(cols, 2)
		if err != nil {
			return err
		}
		dy, err := money(cols[2])
		if err != nil {
			return err
		}
		if h := hist[[2]int64{v[0], v[1]}]; differ(dy, h) {
			o.add("warehouse %d district %d: d_ytd %.2f, sum of h_amount %.2f", v[0], v[1], dy, h)
		}
		return nil
	})
	return o.result("3.3.2.9 D_YTD = sum(H_AMOUNT)", "districts"), err
}

// check10and12 is 3.3.2.10, C_BALANCE = sum(OL_AMOUNT of delivered lines)
// − sum(H_AMOUNT), and 3.3.2.12, C_BALANCE + C_YTD_PAYMENT = sum(OL_AMOUNT
// of delivered lines), per customer; it returns one result holding both
// from one pass over the customers.
func (w *Workload) check10and12(ctx context.Context, c target.Conn) ([]workload.CheckResult, error) {
	type key [3]int64
	paid := map[key]float64{}
	if err := rows(ctx, c, w.st.Checks.CustomerHist, func(cols [][]byte) error {
		v, err := ints(cols, 3)
		if err != nil {
			return err
		}
		paid[key(v)], err = money(cols[3])
		return err
	}); err != nil {
		return nil, err
	}
	delivered := map[key]float64{}
	if err := rows(ctx, c, w.st.Checks.CustomerLines, func(cols [][]byte) error {
		v, err := ints(cols, 3)
		if err != nil {
			return err
		}
		delivered[key(v)], err = money(cols[3])
		return err
	}); err != nil {
		return nil, err
	}
	var ten, twelve offenders
	err := rows(ctx, c, w.st.Checks.Customers, func(cols [][]byte) error {
		v, err := ints(cols, 3)
		if err != nil {
			return err
		}
		m, err := moneys(cols[3:5])
		if err != nil {
			return err
		}
		bal, ytd, k := m[0], m[1], key(v)
		if want := delivered[k] - paid[k]; differ(bal, want) {
			ten.add("warehouse %d district %d customer %d: c_balance %.2f, delivered %.2f − paid %.2f", k[0], k[1], k[2], bal, delivered[k], paid[k])
		}
		if differ(bal+ytd, delivered[k]) {
			twelve.add("warehouse %d district %d customer %d: c_balance + c_ytd_payment %.2f, delivered %.2f", k[0], k[1], k[2], bal+ytd, delivered[k])
		}
		return nil
	})
	a := ten.result("3.3.2.10 C_BALANCE = sum(delivered OL_AMOUNT) - sum(H_AMOUNT)", "customers")
	b := twelve.result("3.3.2.12 C_BALANCE + C_YTD_PAYMENT = sum(delivered OL_AMOUNT)", "customers")
	return []workload.CheckResult{a, b}, err
}

func sortedKeys(a, b map[[2]int64]int64) [][2]int64 {
	seen := map[[2]int64]bool{}
	var out [][2]int64
	for _, m := range []map[[2]int64]int64{a, b} {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sortPairs(out)
	return out
}

func sortPairs(p [][2]int64) {
	for i := 1; i < len(p); i++ {
		for j := i; j > 0 && (p[j][0] < p[j-1][0] || p[j][0] == p[j-1][0] && p[j][1] < p[j-1][1]); j-- {
			p[j], p[j-1] = p[j-1], p[j]
		}
	}
}
