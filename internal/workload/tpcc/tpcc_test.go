package tpcc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/keydist"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

func TestNewRefusesBadInput(t *testing.T) {
	for _, c := range []struct {
		props []string
		files []string
		want  string
	}{
		// no warehouse: nothing to load or run
		{props: []string{"warehouses=0"}, want: "--warehouses 0: TPC-C needs at least 1 warehouse; give --warehouses 1 or more"},
		// negative
		{props: []string{"warehouses=-1"}, want: "--warehouses -1: TPC-C needs at least 1 warehouse"},
		// not a number
		{props: []string{"warehouses=four"}, want: `--warehouses "four": not a whole number`},
		// above the bound
		{props: []string{"warehouses=100001"}, want: "at most 100000"},
		{props: []string{"spec-waits=maybe"}, want: `--spec-waits "maybe"`},
		{props: []string{"tables=3"}, want: `unknown option "tables"; valid options of tpcc: warehouses, spec-waits`},
		{files: []string{"x.properties"}, want: "tpcc takes no property files"},
	} {
		_, err := New(c.files, c.props)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v %v: %v, want %q", c.props, c.files, err, c.want)
		}
	}
	w, err := New(nil, []string{"warehouses=4", "spec_waits=on", "operationcount=10"})
	if err != nil {
		t.Fatal(err)
	}
	if o := w.Config(); o.Warehouses != 4 || !o.SpecWaits || o.Mix != [5]int{45, 43, 4, 4, 4} {
		t.Errorf("options %+v", o)
	}
}

// The load's records are the spec's rows, in units that tile the range:
// 10 of items, then per warehouse 1 of the warehouse and its districts,
// 10 of stock and 2 per district.
func TestLoadUnitsTileTheRange(t *testing.T) {
	w, _ := New(nil, []string{"warehouses=3"})
	_, count := w.LoadRange()
	if count != 100000+3*(1+10+100000+30000+30000+30000+9000+300000) {
		t.Errorf("%d records", count)
	}
	kinds := map[int]int{}
	var next int64
	for next < count {
		u := unitAt(next)
		if u.start != next || u.size <= 0 {
			t.Fatalf("unit at %d: %+v", next, u)
		}
		for _, probe := range []int64{u.start, u.start + u.size/2, u.start + u.size - 1} {
			if v := unitAt(probe); v != u {
				t.Fatalf("record %d: %+v, want %+v", probe, v, u)
			}
		}
		kinds[u.kind]++
		next += u.size
	}
	want := map[int]int{unitItems: 10, unitWarehouse: 3, unitStock: 30, unitCustomers: 30, unitOrders: 30}
	if !reflect.DeepEqual(kinds, want) {
		t.Errorf("units %v, want %v", kinds, want)
	}
}

func TestLastName(t *testing.T) {
	// clause 4.3.2.3's example: 371 is PRI CALLY OUGHT
	if got := LastName(371); got != "PRICALLYOUGHT" {
		t.Errorf("LastName(371) = %s", got)
	}
	if got := LastName(0); got != "BARBARBAR" {
		t.Errorf("LastName(0) = %s", got)
	}
}

func TestNURandRunConstant(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 1000; i++ {
		c := keydist.RunLastC(r, CLastLoad)
		d := c - CLastLoad
		if d < 0 {
			d = -d
		}
		if d < 65 || d > 119 || d == 96 || d == 112 || c < 0 || c > 255 {
			t.Fatalf("C_LAST run %d against load %d", c, CLastLoad)
		}
	}
	n := keydist.NURand{A: keydist.NURandItem, X: 1, Y: Items, C: 77}
	for i := 0; i < 10000; i++ {
		if v := n.Next(r); v < 1 || v > Items {
			t.Fatalf("item %d out of range", v)
		}
	}
}

// scripted is a connection that answers TPC-C's statements as a loaded
// database would, so that every transaction commits: the mix and the
// spec's rates are then measured over what Exec ran.
type scripted struct {
	st       dialect.TPCCStatements
	stmts    []string
	args     [][]any
	failAt   int // the n-th statement fails (0: none)
	n        int
	rollback int
}

var errInjected = errors.New("injected")

func (c *scripted) Exec(_ context.Context, sql string, args ...any) (int64, error) {
	c.n++
	c.stmts = append(c.stmts, sql)
	c.args = append(c.args, append([]any(nil), args...))
	if sql == "ROLLBACK" {
		c.rollback++
	}
	if c.n == c.failAt {
		return 0, errInjected
	}
	return 1, nil
}

func (c *scripted) Query(_ context.Context, sql string, args []any, fn func([][]byte) error) (int, error) {
	c.n++
	c.stmts = append(c.stmts, sql)
	c.args = append(c.args, append([]any(nil), args...))
	if c.n == c.failAt {
		return 0, errInjected
	}
	row := func(vals ...string) [][]byte {
		out := make([][]byte, len(vals))
		for i, v := range vals {
			out[i] = []byte(v)
		}
		return out
	}
	var rows [][][]byte
	st := &c.st
	switch {
	case sql == st.NOCustomer:
		rows = append(rows, row("0.1000", "BARBARBAR", "GC", "0.0500"))
	case sql == st.NODistrict:
		rows = append(rows, row("3001", "0.0700"))
	case strings.HasPrefix(sql, "SELECT i_id"):
		for _, a := range args {
			if id := a.(int64); id <= Items {
				rows = append(rows, row(fmt.Sprint(id), "12.34", "name", "data"))
			}
		}
	case strings.HasPrefix(sql, "SELECT s_i_id"):
		for i := 0; i < len(args); i += 2 {
			rows = append(rows, row(fmt.Sprint(args[i+1]), fmt.Sprint(args[i]), "15", "data", "dist"))
		}
	case sql == st.CustomersByLast:
		rows = append(rows, row("7"), row("8"), row("9"))
	case sql == st.PayCustomer:
		rows = append(rows, row("f", "OE", "l", "a", "b", "c", "ST", "123411111", "1", "2020-01-01 00:00:00", "50000.00", "0.1", "-10.00", "BC"))
	case sql == st.PayCustomerData:
		rows = append(rows, row("old data"))
	case sql == st.PayWarehouse || sql == st.PayDistrict:
		rows = append(rows, row("name", "s1", "s2", "city", "ST", "123411111"))
	case sql == st.OSCustomer:
		rows = append(rows, row("-10.00", "f", "OE", "l"))
	case sql == st.OSLastOrder:
		rows = append(rows, [][]byte{[]byte("3000"), []byte("2020-01-01 00:00:00"), nil})
	case sql == st.DelOldestNewOrder:
		rows = append(rows, row("2101"))
	case sql == st.DelOrderCustomer:
		rows = append(rows, row("5"))
	case sql == st.DelSumLines:
		rows = append(rows, row("123.45"))
	case sql == st.SLNextOrder:
		rows = append(rows, row("3001"))
	}
	if fn == nil {
		return 0, nil
	}
	for _, r := range rows {
		if err := fn(r); err != nil {
			return 0, err
		}
	}
	return len(rows), nil
}

func (c *scripted) Close() error { return nil }

// counts is a workload.Span that keeps the counters.
type counts struct{ n []int64 }

func (c *counts) Span(workload.OpID, time.Time, time.Time, error) {}
func (c *counts) Add(i int, n int64)                              { c.n[i] += n }

func bound(t *testing.T, props ...string) *Workload {
	t.Helper()
	w, err := New(nil, props)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Bind(workload.Env{Dialect: dialect.Postgres, Capabilities: target.Capabilities{Transactions: true, MultiRowInsert: true}}); err != nil {
		t.Fatal(err)
	}
	return w
}

// Over 10,000 transactions the mix is within 1 point of 45/43/4/4/4, and
// the spec's rates hold: 1% of New-Orders roll back (and count as done),
// 1% of order lines and 15% of Payments are remote, 60% of Payments and
// Order-Status find the customer by last name.
func TestMixAndRates(t *testing.T) {
	w := bound(t, "warehouses=4")
	c := &scripted{st: w.st}
	s := &counts{n: make([]int64, len(counterNames))}
	wk := w.NewWorker(0, rand.New(rand.NewSource(42)))
	const n = 10000
	var by [5]int
	for i := 0; i < n; i++ {
		op := wk.Next()
		if err := wk.Exec(context.Background(), c, s); err != nil {
			t.Fatalf("%s: %v", opNames[op], err)
		}
		wk.Done(nil)
		by[op]++
	}
	for op, pct := range Mix {
		if got := 100 * float64(by[op]) / n; math.Abs(got-float64(pct)) > 1 {
			t.Errorf("%s: %.2f%% of %d, want %d%% ± 1", opNames[op], got, n, pct)
		}
	}
	near := func(name string, got, of int64, want, tol float64) {
		if p := 100 * float64(got) / float64(of); math.Abs(p-want) > tol {
			t.Errorf("%s: %.2f%% (%d of %d), want %.0f%% ± %.1f", name, p, got, of, want, tol)
		}
	}
	near("rolled-back New-Orders", s.n[CounterRollbacks], int64(by[OpNewOrder]), 1, 0.6)
	near("remote order lines", s.n[CounterRemoteLines], s.n[CounterOrderLines], 1, 0.3)
	near("remote Payments", s.n[CounterRemotePayments], int64(by[OpPayment]), 15, 2)
	near("Payments by last name", s.n[CounterPaymentsByLast], int64(by[OpPayment]), 60, 2.5)
	near("Order-Status by last name", s.n[CounterStatusByLast], int64(by[OpOrderStatus]), 60, 8)
	if c.rollback != int(s.n[CounterRollbacks]) {
		t.Errorf("%d ROLLBACKs sent, %d counted", c.rollback, s.n[CounterRollbacks])
	}
	lines := s.n[CounterOrderLines] / int64(by[OpNewOrder]-int(s.n[CounterRollbacks]))
	if lines < 9 || lines > 11 {
		t.Errorf("%d order lines per New-Order, want about 10", lines)
	}
}

// Exec is retry-safe: a failed attempt rolls back and counts nothing, and
// the retry sends the same statements with the same inputs.
func TestExecRetrySafe(t *testing.T) {
	w := bound(t, "warehouses=2")
	wk := w.NewWorker(0, rand.New(rand.NewSource(7))).(*worker)
	for wk.Next() != OpNewOrder || wk.rollback {
	}
	ok := &scripted{st: w.st}
	s := &counts{n: make([]int64, len(counterNames))}
	if err := wk.Exec(context.Background(), ok, s); err != nil {
		t.Fatal(err)
	}
	want := s.n[CounterOrderLines]
	for fail := 2; fail < len(ok.stmts); fail++ {
		c := &scripted{st: w.st, failAt: fail}
		s := &counts{n: make([]int64, len(counterNames))}
		if err := wk.Exec(context.Background(), c, s); !errors.Is(err, errInjected) {
			t.Fatalf("statement %d failing: %v", fail, err)
		}
		if c.stmts[len(c.stmts)-1] != "ROLLBACK" || s.n[CounterOrderLines] != 0 {
			t.Errorf("statement %d failing: last sent %q, counters %v", fail, c.stmts[len(c.stmts)-1], s.n)
		}
		again := &scripted{st: w.st}
		if err := wk.Exec(context.Background(), again, s); err != nil || s.n[CounterOrderLines] != want {
			t.Fatalf("retry: %v, %d lines", err, s.n[CounterOrderLines])
		}
		if !reflect.DeepEqual(again.stmts, ok.stmts) || !sameArgs(again.args, ok.args) {
			t.Fatalf("the retry sent other statements or inputs")
		}
	}
}

// sameArgs compares arguments but timestamps (strings with a date).
func sameArgs(a, b [][]any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for j := range a[i] {
			if s, ok := a[i][j].(string); ok && len(s) == len(timeLayout) && strings.Count(s, ":") == 2 {
				continue
			}
			if a[i][j] != b[i][j] {
				return false
			}
		}
	}
	return true
}

func TestDerive(t *testing.T) {
	w := bound(t, "warehouses=2")
	got := w.Derive(workload.PhaseFigures{DurationSec: 30,
		Done:     map[string]int64{"NEW_ORDER": 1000, "PAYMENT": 900, "ORDER_STATUS": 50, "DELIVERY": 40, "STOCK_LEVEL": 10},
		Counters: map[string]int64{"new_order_rollbacks": 10}})
	want := map[string]float64{"tpmC": 1980, "tpmC_incl_rollbacks": 2000, "tpm_total": 4000,
		"efficiency_pct": 100 * 1980 / (12.86 * 2), "warehouses": 2}
	for k, v := range want {
		if math.Abs(got[k]-v) > 1e-9*v {
			t.Errorf("Derive %s = %v, want %v", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("Derive = %v, want %v", got, want)
	}
	if w.Derive(workload.PhaseFigures{}) != nil {
		t.Error("figures of a phase without duration")
	}
}

func TestFmtDecimal(t *testing.T) {
	for v, want := range map[int64]string{-1000: "-10.00", 5: "0.05", 30000000: "300000.00", 0: "0.00"} {
		if got := fmtDecimal(v, 2); got != want {
			t.Errorf("fmtDecimal(%d, 2) = %s, want %s", v, got, want)
		}
	}
	if got := fmtDecimal(725, 4); got != "0.0725" {
		t.Errorf("tax %s", got)
	}
}

// With --spec-waits the keying and think times are waited after the
// transaction (outside Exec, so outside its latency), and cut short when
// the phase ends; without it Done returns at once.
func TestSpecWaits(t *testing.T) {
	for _, waits := range []bool{false, true} {
		w := bound(t, fmt.Sprintf("spec-waits=%t", waits))
		wk := w.NewWorker(0, rand.New(rand.NewSource(3)))
		wk.Next()
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		s := &counts{n: make([]int64, len(counterNames))}
		t0 := time.Now()
		if err := wk.Exec(ctx, &scripted{st: w.st}, s); err != nil {
			t.Fatal(err)
		}
		exec := time.Since(t0)
		wk.Done(nil)
		waited := time.Since(t0) - exec
		cancel()
		switch {
		case !waits && waited > 50*time.Millisecond:
			t.Errorf("without --spec-waits Done waited %v", waited)
		case waits && (waited < 250*time.Millisecond || waited > 2*time.Second):
			t.Errorf("with --spec-waits Done waited %v, want until the phase ended (300 ms; every keying time is 2 s or more)", waited)
		}
	}
}
