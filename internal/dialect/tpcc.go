package dialect

import (
	"fmt"
	"strings"
)

// TPCCTable is one TPC-C table: its name, its CREATE TABLE, the secondary
// indexes created after the load, and the columns the load writes, in
// order.
type TPCCTable struct {
	Name    string
	Create  string
	Indexes []string
	Columns []string
}

// TPCCStatements are TPC-C 5.11's tables and its five transactions'
// statements in one dialect. Statements whose text depends on a count (the
// items of a New-Order) are functions of it. The transactions' statements
// take their bind parameters in the order their comment gives.
type TPCCStatements struct {
	Tables []TPCCTable // warehouse, district, customer, history, new_order, orders, order_line, item, stock

	// BeginWrite opens a transaction that writes (BEGIN IMMEDIATE on
	// SQLite, so that a reader never has to upgrade its lock); Begin one
	// that only reads.
	BeginWrite, Begin, Commit, Rollback string

	// New-Order (clause 2.4.2).
	NOCustomer       string // c_discount, c_last, c_credit, w_tax; (w_id, d_id, c_id)
	NODistrict       string // d_next_o_id, d_tax, locked; (w_id, d_id)
	NOUpdateDistrict string // (w_id, d_id)
	NOInsertOrder    string // (o_id, d_id, w_id, c_id, entry_d, ol_cnt, all_local)
	NOInsertNewOrder string // (o_id, d_id, w_id)
	NOUpdateStock    string // (quantity, ytd delta, remote delta, w_id, i_id)
	// NOItems selects i_id, i_price, i_name, i_data of n items; (i_id × n).
	NOItems func(n int) string
	// NOStock selects s_i_id, s_w_id, s_quantity, s_data, s_dist_DD of n
	// stock rows, locked (DD the district, 1..10); (w_id, i_id) × n.
	NOStock func(district, n int) string
	// NOInsertLines inserts n order lines; (o_id, d_id, w_id, number,
	// i_id, supply_w_id, quantity, amount, dist_info) × n.
	NOInsertLines func(n int) string

	// Payment (clause 2.5.2).
	PayUpdateWarehouse  string // (amount, w_id)
	PayWarehouse        string // w_name, w_street_1, w_street_2, w_city, w_state, w_zip; (w_id)
	PayUpdateDistrict   string // (amount, w_id, d_id)
	PayDistrict         string // d_name, d_street_1, d_street_2, d_city, d_state, d_zip; (w_id, d_id)
	CustomersByLast     string // c_id ordered by c_first; (w_id, d_id, c_last)
	PayCustomer         string // c_first … c_balance, c_credit (last), locked; (w_id, d_id, c_id)
	PayCustomerData     string // c_data; (w_id, d_id, c_id)
	PayUpdateCustomer   string // (amount, amount, w_id, d_id, c_id)
	PayUpdateCustomerBC string // (amount, amount, c_data, w_id, d_id, c_id)
	PayInsertHistory    string // (c_id, c_d_id, c_w_id, d_id, w_id, date, amount, data)

	// Order-Status (clause 2.6.2).
	OSCustomer   string // c_balance, c_first, c_middle, c_last; (w_id, d_id, c_id)
	OSLastOrder  string // o_id, o_entry_d, o_carrier_id; (w_id, d_id, c_id)
	OSOrderLines string // ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d; (w_id, d_id, o_id)

	// Delivery (clause 2.7.4), per district.
	DelOldestNewOrder string // no_o_id, locked; (w_id, d_id)
	DelDeleteNewOrder string // (w_id, d_id, o_id)
	DelOrderCustomer  string // o_c_id; (w_id, d_id, o_id)
	DelUpdateOrder    string // (carrier_id, w_id, d_id, o_id)
	DelUpdateLines    string // (delivery_d, w_id, d_id, o_id)
	DelSumLines       string // sum(ol_amount); (w_id, d_id, o_id)
	DelUpdateCustomer string // (amount, w_id, d_id, c_id)

	// Stock-Level (clause 2.8.2).
	SLNextOrder string // d_next_o_id; (w_id, d_id)
	SLLowStock  string // count of distinct items; (w_id, d_id, o_id high, o_id low, w_id, threshold)

	// After the load: statistics (Analyze) and a checkpoint (Checkpoint,
	// none where the product has no such statement).
	Analyze    []string
	Checkpoint []string

	// The consistency checks (clause 3.3.2), over every warehouse.
	Checks TPCCChecks
}

// TPCCChecks are the queries of TPC-C's consistency conditions. Each
// returns the rows the Go side compares, as its comment says.
type TPCCChecks struct {
	WarehouseYTD    string // 3.3.2.1: w_id, w_ytd, sum(d_ytd)
	DistrictOrders  string // 3.3.2.2: d_w_id, d_id, d_next_o_id, max(o_id), max(no_o_id)
	NewOrderRange   string // 3.3.2.3: no_w_id, no_d_id, max−min+1, count
	OrderLineCounts string // 3.3.2.4: o_w_id, o_d_id, sum(o_ol_cnt)
	LineCounts      string // 3.3.2.4: ol_w_id, ol_d_id, count(*)
	CarrierNewOrder string // 3.3.2.5: o_w_id, o_d_id, orders whose carrier and new-order row disagree
	OrderLineCnt    string // 3.3.2.6: o_w_id, o_d_id, orders whose o_ol_cnt ≠ their lines
	DeliveryDates   string // 3.3.2.7: o_w_id, o_d_id, lines whose delivery date and order's carrier disagree
	WarehouseHist   string // 3.3.2.8: w_id, w_ytd, sum(h_amount)
	DistrictYTD     string // 3.3.2.9: d_w_id, d_id, d_ytd
	DistrictHist    string // 3.3.2.9: h_w_id, h_d_id, sum(h_amount)
	Customers       string // 3.3.2.10, 12: c_w_id, c_d_id, c_id, c_balance, c_ytd_payment
	CustomerHist    string // 3.3.2.10: h_c_w_id, h_c_d_id, h_c_id, sum(h_amount)
	CustomerLines   string // 3.3.2.10, 12: o_w_id, o_d_id, o_c_id, sum(ol_amount) of delivered lines
}

// TPCCTableNames are the nine tables, in Tables order.
var TPCCTableNames = []string{"warehouse", "district", "customer", "history", "new_order", "orders", "order_line", "item", "stock"}

// TPCC returns TPC-C's statements in d. PostgreSQL, YugabyteDB, CockroachDB,
// MySQL, TiDB and SQLite are known; "null" (candor's no-op target) takes
// PostgreSQL's text.
func TPCC(d Dialect) (TPCCStatements, error) {
	mysql := isMySQLFamily(d)
	sqlite := d.Name == SQLite.Name
	if !mysql && !sqlite && !isPostgresFamily(d) && d.Name != "null" {
		return TPCCStatements{}, fmt.Errorf("tpcc: no SQL for dialect %q; tpcc runs on postgres, yugabytedb, cockroachdb, mysql, tidb and sqlite", d.Name)
	}
	ts := "TIMESTAMP"
	if mysql {
		ts = "DATETIME" // MySQL's TIMESTAMP may update itself on every UPDATE
	}
	forUpdate := " FOR UPDATE"
	if sqlite {
		forUpdate = "" // SQLite has one writer at a time: BEGIN IMMEDIATE serialises
	}
	p := func(sql string) string { return numberParams(d, sql) }
	s := TPCCStatements{
		Begin: "BEGIN", BeginWrite: "BEGIN", Commit: "COMMIT", Rollback: "ROLLBACK",
	}
	if sqlite {
		s.BeginWrite = "BEGIN IMMEDIATE"
	}
	addr := "VARCHAR(20)"
	s.Tables = []TPCCTable{
		{Name: "warehouse", Create: "CREATE TABLE warehouse (w_id INT NOT NULL, w_name VARCHAR(10), w_street_1 " + addr +
			", w_street_2 " + addr + ", w_city " + addr + ", w_state CHAR(2), w_zip CHAR(9), w_tax DECIMAL(4, 4), w_ytd DECIMAL(12, 2), PRIMARY KEY (w_id))",
			Columns: []string{"w_id", "w_name", "w_street_1", "w_street_2", "w_city", "w_state", "w_zip", "w_tax", "w_ytd"}},
		{Name: "district", Create: "CREATE TABLE district (d_id INT NOT NULL, d_w_id INT NOT NULL, d_name VARCHAR(10), d_street_1 " + addr +
			", d_street_2 " + addr + ", d_city " + addr + ", d_state CHAR(2), d_zip CHAR(9), d_tax DECIMAL(4, 4), d_ytd DECIMAL(12, 2), d_next_o_id INT, PRIMARY KEY (d_w_id, d_id))",
			Columns: []string{"d_id", "d_w_id", "d_name", "d_street_1", "d_street_2", "d_city", "d_state", "d_zip", "d_tax", "d_ytd", "d_next_o_id"}},
		{Name: "customer", Create: "CREATE TABLE customer (c_id INT NOT NULL, c_d_id INT NOT NULL, c_w_id INT NOT NULL, c_first VARCHAR(16), c_middle CHAR(2), c_last VARCHAR(16), c_street_1 " + addr +
			", c_street_2 " + addr + ", c_city " + addr + ", c_state CHAR(2), c_zip CHAR(9), c_phone CHAR(16), c_since " + ts +
			", c_credit CHAR(2), c_credit_lim DECIMAL(12, 2), c_discount DECIMAL(4, 4), c_balance DECIMAL(12, 2), c_ytd_payment DECIMAL(12, 2), c_payment_cnt INT, c_delivery_cnt INT, c_data VARCHAR(500), PRIMARY KEY (c_w_id, c_d_id, c_id))",
			Indexes: []string{"CREATE INDEX customer_last ON customer (c_w_id, c_d_id, c_last, c_first)"},
			Columns: []string{"c_id", "c_d_id", "c_w_id", "c_first", "c_middle", "c_last", "c_street_1", "c_street_2", "c_city", "c_state", "c_zip", "c_phone", "c_since",
				"c_credit", "c_credit_lim", "c_discount", "c_balance", "c_ytd_payment", "c_payment_cnt", "c_delivery_cnt", "c_data"}},
		{Name: "history", Create: "CREATE TABLE history (h_c_id INT, h_c_d_id INT, h_c_w_id INT, h_d_id INT, h_w_id INT, h_date " + ts + ", h_amount DECIMAL(6, 2), h_data VARCHAR(24))",
			Columns: []string{"h_c_id", "h_c_d_id", "h_c_w_id", "h_d_id", "h_w_id", "h_date", "h_amount", "h_data"}},
		{Name: "new_order", Create: "CREATE TABLE new_order (no_o_id INT NOT NULL, no_d_id INT NOT NULL, no_w_id INT NOT NULL, PRIMARY KEY (no_w_id, no_d_id, no_o_id))",
			Columns: []string{"no_o_id", "no_d_id", "no_w_id"}},
		{Name: "orders", Create: "CREATE TABLE orders (o_id INT NOT NULL, o_d_id INT NOT NULL, o_w_id INT NOT NULL, o_c_id INT, o_entry_d " + ts +
			", o_carrier_id INT, o_ol_cnt INT, o_all_local INT, PRIMARY KEY (o_w_id, o_d_id, o_id))",
			Indexes: []string{"CREATE INDEX orders_customer ON orders (o_w_id, o_d_id, o_c_id, o_id)"},
			Columns: []string{"o_id", "o_d_id", "o_w_id", "o_c_id", "o_entry_d", "o_carrier_id", "o_ol_cnt", "o_all_local"}},
		{Name: "order_line", Create: "CREATE TABLE order_line (ol_o_id INT NOT NULL, ol_d_id INT NOT NULL, ol_w_id INT NOT NULL, ol_number INT NOT NULL, ol_i_id INT, ol_supply_w_id INT, ol_delivery_d " + ts +
			", ol_quantity INT, ol_amount DECIMAL(6, 2), ol_dist_info CHAR(24), PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number))",
			Columns: []string{"ol_o_id", "ol_d_id", "ol_w_id", "ol_number", "ol_i_id", "ol_supply_w_id", "ol_delivery_d", "ol_quantity", "ol_amount", "ol_dist_info"}},
		{Name: "item", Create: "CREATE TABLE item (i_id INT NOT NULL, i_im_id INT, i_name VARCHAR(24), i_price DECIMAL(5, 2), i_data VARCHAR(50), PRIMARY KEY (i_id))",
			Columns: []string{"i_id", "i_im_id", "i_name", "i_price", "i_data"}},
		{Name: "stock", Create: "CREATE TABLE stock (s_i_id INT NOT NULL, s_w_id INT NOT NULL, s_quantity INT, s_dist_01 CHAR(24), s_dist_02 CHAR(24), s_dist_03 CHAR(24), s_dist_04 CHAR(24), s_dist_05 CHAR(24), " +
			"s_dist_06 CHAR(24), s_dist_07 CHAR(24), s_dist_08 CHAR(24), s_dist_09 CHAR(24), s_dist_10 CHAR(24), s_ytd INT, s_order_cnt INT, s_remote_cnt INT, s_data VARCHAR(50), PRIMARY KEY (s_w_id, s_i_id))",
			Columns: []string{"s_i_id", "s_w_id", "s_quantity", "s_dist_01", "s_dist_02", "s_dist_03", "s_dist_04", "s_dist_05", "s_dist_06", "s_dist_07", "s_dist_08", "s_dist_09", "s_dist_10",
				"s_ytd", "s_order_cnt", "s_remote_cnt", "s_data"}},
	}

	s.NOCustomer = p("SELECT c_discount, c_last, c_credit, w_tax FROM customer, warehouse WHERE w_id = ? AND c_w_id = w_id AND c_d_id = ? AND c_id = ?")
	s.NODistrict = p("SELECT d_next_o_id, d_tax FROM district WHERE d_w_id = ? AND d_id = ?" + forUpdate)
	s.NOUpdateDistrict = p("UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = ? AND d_id = ?")
	s.NOInsertOrder = p("INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local) VALUES (?, ?, ?, ?, ?, ?, ?)")
	s.NOInsertNewOrder = p("INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (?, ?, ?)")
	s.NOUpdateStock = p("UPDATE stock SET s_quantity = ?, s_ytd = s_ytd + ?, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + ? WHERE s_w_id = ? AND s_i_id = ?")
	s.NOItems = func(n int) string {
		return p("SELECT i_id, i_price, i_name, i_data FROM item WHERE i_id IN (" + repeatJoin("?", n) + ")")
	}
	s.NOStock = func(district, n int) string {
		return p(fmt.Sprintf("SELECT s_i_id, s_w_id, s_quantity, s_data, s_dist_%02d FROM stock WHERE (s_w_id, s_i_id) IN (%s)%s", district, repeatJoin("(?, ?)", n), forUpdate))
	}
	s.NOInsertLines = func(n int) string {
		return d.InsertRows("order_line", []string{"ol_o_id", "ol_d_id", "ol_w_id", "ol_number", "ol_i_id", "ol_supply_w_id", "ol_quantity", "ol_amount", "ol_dist_info"}, n)
	}

	s.PayUpdateWarehouse = p("UPDATE warehouse SET w_ytd = w_ytd + ? WHERE w_id = ?")
	s.PayWarehouse = p("SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip FROM warehouse WHERE w_id = ?")
	s.PayUpdateDistrict = p("UPDATE district SET d_ytd = d_ytd + ? WHERE d_w_id = ? AND d_id = ?")
	s.PayDistrict = p("SELECT d_name, d_street_1, d_street_2, d_city, d_state, d_zip FROM district WHERE d_w_id = ? AND d_id = ?")
	s.CustomersByLast = p("SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first")
	s.PayCustomer = p("SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since, c_credit_lim, c_discount, c_balance, c_credit " +
		"FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?" + forUpdate)
	s.PayCustomerData = p("SELECT c_data FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?")
	s.PayUpdateCustomer = p("UPDATE customer SET c_balance = c_balance - ?, c_ytd_payment = c_ytd_payment + ?, c_payment_cnt = c_payment_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?")
	s.PayUpdateCustomerBC = p("UPDATE customer SET c_balance = c_balance - ?, c_ytd_payment = c_ytd_payment + ?, c_payment_cnt = c_payment_cnt + 1, c_data = ? WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?")
	s.PayInsertHistory = p("INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")

	s.OSCustomer = p("SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?")
	s.OSLastOrder = p("SELECT o_id, o_entry_d, o_carrier_id FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ? ORDER BY o_id DESC LIMIT 1")
	s.OSOrderLines = p("SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?")

	s.DelOldestNewOrder = p("SELECT no_o_id FROM new_order WHERE no_w_id = ? AND no_d_id = ? ORDER BY no_o_id LIMIT 1" + forUpdate)
	s.DelDeleteNewOrder = p("DELETE FROM new_order WHERE no_w_id = ? AND no_d_id = ? AND no_o_id = ?")
	s.DelOrderCustomer = p("SELECT o_c_id FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?")
	s.DelUpdateOrder = p("UPDATE orders SET o_carrier_id = ? WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?")
	s.DelUpdateLines = p("UPDATE order_line SET ol_delivery_d = ? WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?")
	s.DelSumLines = p("SELECT SUM(ol_amount) FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?")
	s.DelUpdateCustomer = p("UPDATE customer SET c_balance = c_balance + ?, c_delivery_cnt = c_delivery_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?")

	s.SLNextOrder = p("SELECT d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?")
	s.SLLowStock = p("SELECT COUNT(DISTINCT s_i_id) FROM order_line, stock WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id < ? AND ol_o_id >= ? AND s_w_id = ? AND s_i_id = ol_i_id AND s_quantity < ?")

	switch {
	case mysql:
		s.Analyze = []string{"ANALYZE TABLE " + strings.Join(TPCCTableNames, ", ")}
	case sqlite:
		s.Analyze = []string{"ANALYZE"}
		s.Checkpoint = []string{"PRAGMA wal_checkpoint(TRUNCATE)"}
	case d.Name == Postgres.Name:
		for _, t := range TPCCTableNames {
			s.Analyze = append(s.Analyze, "VACUUM ANALYZE "+t)
		}
		s.Checkpoint = []string{"CHECKPOINT"}
	case d.Name == "null":
	default: // YugabyteDB and CockroachDB: no VACUUM, no CHECKPOINT
		for _, t := range TPCCTableNames {
			s.Analyze = append(s.Analyze, "ANALYZE "+t)
		}
	}

	s.Checks = TPCCChecks{
		WarehouseYTD: "SELECT w_id, w_ytd, SUM(d_ytd) FROM warehouse, district WHERE d_w_id = w_id GROUP BY w_id, w_ytd ORDER BY w_id",
		DistrictOrders: "SELECT d_w_id, d_id, d_next_o_id, (SELECT MAX(o_id) FROM orders WHERE o_w_id = d_w_id AND o_d_id = d_id), " +
			"(SELECT MAX(no_o_id) FROM new_order WHERE no_w_id = d_w_id AND no_d_id = d_id) FROM district ORDER BY d_w_id, d_id",
		NewOrderRange:   "SELECT no_w_id, no_d_id, MAX(no_o_id) - MIN(no_o_id) + 1, COUNT(*) FROM new_order GROUP BY no_w_id, no_d_id ORDER BY no_w_id, no_d_id",
		OrderLineCounts: "SELECT o_w_id, o_d_id, SUM(o_ol_cnt) FROM orders GROUP BY o_w_id, o_d_id ORDER BY o_w_id, o_d_id",
		LineCounts:      "SELECT ol_w_id, ol_d_id, COUNT(*) FROM order_line GROUP BY ol_w_id, ol_d_id ORDER BY ol_w_id, ol_d_id",
		CarrierNewOrder: "SELECT o_w_id, o_d_id, COUNT(*) FROM orders LEFT JOIN new_order ON no_w_id = o_w_id AND no_d_id = o_d_id AND no_o_id = o_id " +
			"WHERE (o_carrier_id IS NULL AND no_o_id IS NULL) OR (o_carrier_id IS NOT NULL AND no_o_id IS NOT NULL) GROUP BY o_w_id, o_d_id ORDER BY o_w_id, o_d_id",
		OrderLineCnt: "SELECT o_w_id, o_d_id, COUNT(*) FROM orders LEFT JOIN (SELECT ol_w_id, ol_d_id, ol_o_id, COUNT(*) AS n FROM order_line GROUP BY ol_w_id, ol_d_id, ol_o_id) l " +
			"ON l.ol_w_id = o_w_id AND l.ol_d_id = o_d_id AND l.ol_o_id = o_id WHERE l.n IS NULL OR l.n <> o_ol_cnt GROUP BY o_w_id, o_d_id ORDER BY o_w_id, o_d_id",
		DeliveryDates: "SELECT o_w_id, o_d_id, COUNT(*) FROM orders, order_line WHERE ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id " +
			"AND ((ol_delivery_d IS NULL AND o_carrier_id IS NOT NULL) OR (ol_delivery_d IS NOT NULL AND o_carrier_id IS NULL)) GROUP BY o_w_id, o_d_id ORDER BY o_w_id, o_d_id",
		WarehouseHist: "SELECT w_id, w_ytd, (SELECT SUM(h_amount) FROM history WHERE h_w_id = w_id) FROM warehouse ORDER BY w_id",
		DistrictYTD:   "SELECT d_w_id, d_id, d_ytd FROM district ORDER BY d_w_id, d_id",
		DistrictHist:  "SELECT h_w_id, h_d_id, SUM(h_amount) FROM history GROUP BY h_w_id, h_d_id",
		Customers:     "SELECT c_w_id, c_d_id, c_id, c_balance, c_ytd_payment FROM customer",
		CustomerHist:  "SELECT h_c_w_id, h_c_d_id, h_c_id, SUM(h_amount) FROM history GROUP BY h_c_w_id, h_c_d_id, h_c_id",
		CustomerLines: "SELECT o_w_id, o_d_id, o_c_id, SUM(ol_amount) FROM orders, order_line WHERE ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id " +
			"AND ol_delivery_d IS NOT NULL GROUP BY o_w_id, o_d_id, o_c_id",
	}
	return s, nil
}

// repeatJoin is n copies of s joined by ", ".
func repeatJoin(s string, n int) string {
	return strings.TrimSuffix(strings.Repeat(s+", ", n), ", ")
}

// numberParams rewrites the ? placeholders of sql in d's style ($1, $2, ...
// for Dollar). The statements here have no ? inside literals.
func numberParams(d Dialect, sql string) string {
	if d.Placeholder != Dollar {
		return sql
	}
	var b strings.Builder
	b.Grow(len(sql) + 16)
	n := 0
	for i := 0; i < len(sql); i++ {
		if sql[i] == '?' {
			n++
			b.WriteString(d.Param(n))
			continue
		}
		b.WriteByte(sql[i])
	}
	return b.String()
}
