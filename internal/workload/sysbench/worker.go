package sysbench

import (
	"context"
	"errors"
	"fmt"
	"math/rand"

	"github.com/candor-bench/candor/internal/cacheline"
	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/keydist"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

// Templates of sysbench's c and pad values (oltp_common.lua): '#' becomes a
// random digit.
const (
	cTemplate   = "###########-###########-###########-###########-###########-###########-###########-###########-###########-###########" // 10 groups, 119 characters
	padTemplate = "###########-###########-###########-###########-###########"                                                             // 5 groups, 59 characters
)

// NewWorker returns a run-phase worker. id is its thread number (sysbench's
// sysbench.tid): select_random_* take their slice of the k range from it and
// bulk_insert its table, sbtest<id+1>.
func (w *Workload) NewWorker(id int, runner *rand.Rand) workload.Worker {
	r := w.workerRand(id, runner)
	wk := &worker{w: w, r: r, id: id}
	switch w.test {
	case OLTPInsert:
		if !w.opts.AutoInc {
			wk.unique = w.uniqueSeq(runner) // not from --rand-seed (see uniqueSeq)
		}
	case SelectRandomPoints, SelectRandomRanges:
		// rlen = table_size / threads and thread_id = tid % threads are
		// Lua numbers (doubles); the bounds reach sysbench.rand.default as
		// uint32, truncated.
		threads := max(w.threads, 1)
		rlen := float64(w.opts.TableSize) / float64(threads)
		tid := float64(id % threads)
		wk.rmin = int64(rlen * tid)
		wk.rmax = int64(rlen*tid + rlen)
		n := w.opts.RandomPoints
		if w.test == SelectRandomRanges {
			n = 2 * w.opts.NumberOfRanges
		}
		wk.params = make([]any, n)
	}
	wk.readOnly, wk.writeOnly, wk.readWrite = wk.readOnlyBody, wk.writeOnlyBody, wk.readWriteBody
	return wk
}

// worker runs events; it is used by one goroutine.
type worker struct {
	_      cacheline.Pad // see package cacheline
	w      *Workload
	r      *rand.Rand
	id     int
	cnt    workload.Counter // the Span of the current Exec, when it counts
	unique *keydist.SysbenchUnique

	// select_random_*: the worker's k range and parameters.
	rmin, rmax int64
	params     []any

	// bulk_insert: the pending multi-row INSERT and its row count.
	bulk     []byte
	bulkRows int

	// Reused buffers.
	args [4]any
	cbuf []byte
	pbuf []byte
	sql  []byte
	lit  []byte // a statement with its values written in (--db-ps-mode=disable)

	// Event bodies as method values, bound once.
	readOnly, writeOnly, readWrite func(ctx context.Context, c target.Conn) error

	_ cacheline.Pad
}

// Next returns TRANSACTION. Values are drawn by Exec, afresh on every call,
// so a restarted event gets new ones as sysbench's re-run of event() does.
func (wk *worker) Next() workload.OpID { return OpTransaction }

// Done has nothing to finish.
func (wk *worker) Done(error) {}

// Finish is bulk_insert.lua's thread_done (workload.Finisher): the rows still
// pending go as the last multi-row INSERT (db_bulk_insert_done), counted as
// a write. Other tests have no rows pending.
func (wk *worker) Finish(ctx context.Context, c target.Conn, s workload.Span) error {
	if wk.bulkRows == 0 {
		return nil
	}
	wk.cnt, _ = s.(workload.Counter)
	sql := string(wk.bulk)
	wk.bulk, wk.bulkRows = wk.bulk[:0], 0
	return wk.exec(ctx, c, sql)
}

// Exec runs one event of the test on c and counts its statements through s
// when s is a workload.Counter. On an error inside a transaction it rolls back
// (best effort) and returns the error.
func (wk *worker) Exec(ctx context.Context, c target.Conn, s workload.Span) error {
	w := wk.w
	if !w.bound {
		return errors.New("sysbench: Exec before Bind")
	}
	wk.cnt, _ = s.(workload.Counter)
	o := &w.opts
	switch w.test {
	case OLTPPointSelect:
		return wk.pointSelects(ctx, c, 1) // oltp_point_select.lua: point_selects=1
	case OLTPReadOnly:
		return wk.transaction(ctx, c, wk.readOnly)
	case OLTPWriteOnly:
		return wk.transaction(ctx, c, wk.writeOnly)
	case OLTPReadWrite:
		return wk.transaction(ctx, c, wk.readWrite)
	case OLTPUpdateIndex:
		return wk.indexUpdates(ctx, c, o.IndexUpdates)
	case OLTPUpdateNonIndex:
		return wk.nonIndexUpdates(ctx, c, o.NonIndexUpdates)
	case OLTPDelete:
		t := wk.table()
		wk.args[0] = wk.id64()
		return wk.exec(ctx, c, w.stmts.Tables[t-1].Delete, wk.args[:1]...)
	case OLTPInsert:
		return wk.insert(ctx, c)
	case SelectRandomPoints:
		for i := range wk.params {
			wk.params[i] = w.dist.Draw(wk.r, wk.rmin, wk.rmax)
		}
		return wk.query(ctx, c, w.stmts.RandomPoints, wk.params)
	case SelectRandomRanges:
		for i := 0; i < len(wk.params); i += 2 {
			v := w.dist.Draw(wk.r, wk.rmin, wk.rmax)
			wk.params[i], wk.params[i+1] = v, v+o.Delta
		}
		return wk.query(ctx, c, w.stmts.RandomRanges, wk.params)
	case BulkInsert:
		return wk.bulkInsert(ctx, c)
	}
	return fmt.Errorf("sysbench: unknown test %q", w.test)
}

// transaction runs body between BEGIN and COMMIT (without them with
// --skip-trx). After a failed statement it sends ROLLBACK, uncounted and
// bounded by rollbackTimeout even when ctx has ended, and returns the error.
func (wk *worker) transaction(ctx context.Context, c target.Conn, body func(context.Context, target.Conn) error) error {
	st := &wk.w.stmts
	if wk.w.opts.SkipTrx {
		return body(ctx, c)
	}
	err := wk.control(ctx, c, st.Begin)
	if err == nil {
		err = body(ctx, c)
	}
	if err == nil {
		err = wk.control(ctx, c, st.Commit)
	}
	if err != nil {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rollbackTimeout)
		_, _ = c.Exec(rctx, st.Rollback)
		cancel()
	}
	return err
}

func (wk *worker) readOnlyBody(ctx context.Context, c target.Conn) error {
	if err := wk.pointSelects(ctx, c, wk.w.opts.PointSelects); err != nil {
		return err
	}
	return wk.rangeSelects(ctx, c)
}

func (wk *worker) writeOnlyBody(ctx context.Context, c target.Conn) error {
	o := &wk.w.opts
	if err := wk.indexUpdates(ctx, c, o.IndexUpdates); err != nil {
		return err
	}
	if err := wk.nonIndexUpdates(ctx, c, o.NonIndexUpdates); err != nil {
		return err
	}
	return wk.deleteInserts(ctx, c, o.DeleteInserts)
}

func (wk *worker) readWriteBody(ctx context.Context, c target.Conn) error {
	if err := wk.readOnlyBody(ctx, c); err != nil {
		return err
	}
	return wk.writeOnlyBody(ctx, c)
}

// table is get_table_num(): sysbench.rand.uniform(1, tables), drawn once per
// statement group.
func (wk *worker) table() int {
	return int(keydist.SysbenchUniform(wk.r, 1, int64(wk.w.opts.Tables)))
}

// id64 is get_id(): sysbench.rand.default(1, table_size).
func (wk *worker) id64() int64 { return wk.w.dist.Draw(wk.r, 1, wk.w.opts.TableSize) }

func (wk *worker) pointSelects(ctx context.Context, c target.Conn, n int) error {
	t := &wk.w.stmts.Tables[wk.table()-1]
	for i := 0; i < n; i++ {
		wk.args[0] = wk.id64()
		if err := wk.query(ctx, c, t.PointSelect, wk.args[:1]); err != nil {
			return err
		}
	}
	return nil
}

// rangeSelects runs the four range groups (simple, sum, order, distinct)
// when --range-selects is on, each on its own table.
func (wk *worker) rangeSelects(ctx context.Context, c target.Conn) error {
	o := &wk.w.opts
	if !o.RangeSelects {
		return nil
	}
	groups := [4]struct {
		n   int
		sql func(t *dialect.SysbenchTable) string
	}{
		{o.SimpleRanges, func(t *dialect.SysbenchTable) string { return t.SimpleRange }},
		{o.SumRanges, func(t *dialect.SysbenchTable) string { return t.SumRange }},
		{o.OrderRanges, func(t *dialect.SysbenchTable) string { return t.OrderRange }},
		{o.DistinctRanges, func(t *dialect.SysbenchTable) string { return t.DistinctRange }},
	}
	for _, g := range groups {
		t := &wk.w.stmts.Tables[wk.table()-1]
		sql := g.sql(t)
		for i := 0; i < g.n; i++ {
			id := wk.id64()
			wk.args[0], wk.args[1] = id, id+o.RangeSize-1
			if err := wk.query(ctx, c, sql, wk.args[:2]); err != nil {
				return err
			}
		}
	}
	return nil
}

func (wk *worker) indexUpdates(ctx context.Context, c target.Conn, n int) error {
	t := &wk.w.stmts.Tables[wk.table()-1]
	for i := 0; i < n; i++ {
		wk.args[0] = wk.id64()
		if err := wk.exec(ctx, c, t.IndexUpdate, wk.args[:1]...); err != nil {
			return err
		}
	}
	return nil
}

func (wk *worker) nonIndexUpdates(ctx context.Context, c target.Conn, n int) error {
	t := &wk.w.stmts.Tables[wk.table()-1]
	for i := 0; i < n; i++ {
		// Drawn in sysbench's order: the c value, then the id.
		wk.cbuf = keydist.AppendSysbenchString(wk.cbuf[:0], wk.r, cTemplate)
		wk.args[0] = string(wk.cbuf)
		wk.args[1] = wk.id64()
		if err := wk.exec(ctx, c, t.NonIndexUpdate, wk.args[:2]...); err != nil {
			return err
		}
	}
	return nil
}

// deleteInserts deletes a row and inserts it again with the same id and a
// new k, c and pad.
func (wk *worker) deleteInserts(ctx context.Context, c target.Conn, n int) error {
	t := &wk.w.stmts.Tables[wk.table()-1]
	for i := 0; i < n; i++ {
		id := wk.id64()
		k := wk.id64()
		wk.cbuf = keydist.AppendSysbenchString(wk.cbuf[:0], wk.r, cTemplate)
		wk.pbuf = keydist.AppendSysbenchString(wk.pbuf[:0], wk.r, padTemplate)
		wk.args[0] = id
		if err := wk.exec(ctx, c, t.Delete, wk.args[:1]...); err != nil {
			return err
		}
		wk.args[0], wk.args[1], wk.args[2], wk.args[3] = id, k, string(wk.cbuf), string(wk.pbuf)
		if err := wk.exec(ctx, c, t.Insert, wk.args[:4]...); err != nil {
			return err
		}
	}
	return nil
}

// insert is oltp_insert.lua's event: one plain-text INSERT of a new row,
// drawn as sysbench draws it (table, k, c, pad, then the unique id).
func (wk *worker) insert(ctx context.Context, c target.Conn) error {
	w := wk.w
	t := wk.table()
	k := wk.id64()
	wk.cbuf = keydist.AppendSysbenchString(wk.cbuf[:0], wk.r, cTemplate)
	wk.pbuf = keydist.AppendSysbenchString(wk.pbuf[:0], wk.r, padTemplate)
	var id int64
	if wk.unique != nil {
		// A uint32 made an SQL INT.
		id = int64(wk.unique.Next()) - 2147483648
	}
	wk.sql = w.stmts.AppendInsert(wk.sql[:0], t, id, k, wk.cbuf, wk.pbuf)
	return wk.exec(ctx, c, string(wk.sql))
}

// bulkInsert is bulk_insert.lua's event: one row (n, n) appended to the
// worker's multi-row INSERT into its own table, which is sent (and counted)
// by the event whose row would take it past BULK_PACKET_SIZE.
func (wk *worker) bulkInsert(ctx context.Context, c target.Conn) error {
	w := wk.w
	if wk.id >= len(w.stmts.Tables) {
		return fmt.Errorf("sysbench: bulk_insert worker %d has no table: the workload was set up for %d threads (bind it with workload.Env.Threads set to the thread count)", wk.id, len(w.stmts.Tables))
	}
	t := &w.stmts.Tables[wk.id]
	if wk.bulkRows == 0 {
		wk.bulk = append(wk.bulk[:0], t.BulkInsert...)
	}
	n := w.bulkNext[wk.id].Add(1)
	wk.sql = dialect.AppendBulkRow(wk.sql[:0], true, n)
	sep := 0
	if wk.bulkRows > 0 {
		sep = 1
	}
	// db_bulk_insert_next: flush first when the row and a NUL would not fit.
	if wk.bulkRows > 0 && len(wk.bulk)+len(wk.sql)+1+sep > bulkPacketSize {
		err := wk.exec(ctx, c, string(wk.bulk))
		wk.bulk = append(wk.bulk[:0], t.BulkInsert...)
		wk.bulkRows, sep = 0, 0
		if err != nil {
			return err
		}
	}
	if sep == 1 {
		wk.bulk = append(wk.bulk, ',')
	}
	wk.bulk = append(wk.bulk, wk.sql...)
	wk.bulkRows++
	return nil
}

// text writes the arguments into the statement with --db-ps-mode=disable,
// so that it goes as plain text without parameters (sysbench's emulation of
// prepared statements); otherwise it returns sql and args as they are.
func (wk *worker) text(sql string, args []any) (string, []any, error) {
	if !wk.w.opts.TextStatements() || len(args) == 0 {
		return sql, args, nil
	}
	var err error
	if wk.lit, err = wk.w.stmts.AppendInterpolated(wk.lit[:0], sql, args); err != nil {
		return "", nil, err
	}
	return string(wk.lit), nil, nil
}

// query runs a statement that returns rows, discarding them undecoded, and
// counts a read.
func (wk *worker) query(ctx context.Context, c target.Conn, sql string, args []any) error {
	sql, args, err := wk.text(sql, args)
	if err != nil {
		return err
	}
	if _, err := c.Query(ctx, sql, args, nil); err != nil {
		return &StatementError{SQL: sql, Prepared: !wk.w.opts.TextStatements(), Err: err}
	}
	wk.add(CounterReads)
	return nil
}

// exec runs a statement without rows and counts a write when it affected a
// row, else other.
func (wk *worker) exec(ctx context.Context, c target.Conn, sql string, args ...any) error {
	sql, args, err := wk.text(sql, args)
	if err != nil {
		return err
	}
	n, err := c.Exec(ctx, sql, args...)
	if err != nil {
		return &StatementError{SQL: sql, Prepared: !wk.w.opts.TextStatements(), Err: err}
	}
	if n > 0 {
		wk.add(CounterWrites)
	} else {
		wk.add(CounterOther)
	}
	return nil
}

// control runs BEGIN or COMMIT and counts it as other. On PostgreSQL and
// MySQL they affect no rows, which makes them "other" by the rule of exec;
// counting them directly keeps that true where a driver reports the previous
// statement's row count for them (SQLite's sqlite3_changes() is not reset by
// COMMIT). Like sysbench's, they are prepared statements unless
// --db-ps-mode=disable.
func (wk *worker) control(ctx context.Context, c target.Conn, sql string) error {
	var err error
	p, prepared := c.(target.Preparer)
	prepared = prepared && !wk.w.opts.TextStatements()
	if prepared {
		_, err = p.ExecPrepared(ctx, sql)
	} else {
		_, err = c.Exec(ctx, sql)
	}
	if err != nil {
		return &StatementError{SQL: sql, Prepared: prepared, Err: err}
	}
	wk.add(CounterOther)
	return nil
}

// StatementError is a statement's error with the statement, as sysbench's
// FATAL line names the query that failed.
type StatementError struct {
	SQL      string
	Prepared bool // sent as a prepared statement (sysbench's --db-ps-mode=auto)
	Err      error
}

func (e *StatementError) Error() string { return fmt.Sprintf("%v, for query '%s'", e.Err, e.SQL) }
func (e *StatementError) Unwrap() error { return e.Err }

// FatalLines are the lines sysbench 1.0.20 prints when the server's error se
// for the statement of e ends the run, for sysbench's driver ("mysql" or
// "pgsql"; nil for any other): the driver's line, which names the client
// library call and the query (drv_mysql.c, drv_pgsql.c), and the line of
// the Lua error it raises. sysbench's second line also names the script and
// line of the Lua call ("/usr/share/sysbench/oltp_common.lua:458: "), which
// candor, running no Lua, leaves out.
func FatalLines(driver string, e *StatementError, se target.ServerError) []string {
	var out []string
	switch {
	case driver == "mysql" && e.Prepared:
		out = append(out, fmt.Sprintf("FATAL: mysql_stmt_execute() returned error %d (%s) for query '%s'", se.Code, se.Message, e.SQL))
	case driver == "mysql":
		out = append(out, fmt.Sprintf("FATAL: mysql_drv_query() returned error %d (%s) for query '%s'", se.Code, se.Message, e.SQL))
	case driver == "pgsql" && e.Prepared:
		// 7 is libpq's PGRES_FATAL_ERROR; the query is not named
		out = append(out, "FATAL: PQexecPrepared() failed: 7 "+se.Message)
	case driver == "pgsql":
		out = append(out, "FATAL: PQexec() failed: 7 "+se.Message, "FATAL: failed query was: "+e.SQL)
	default:
		return nil
	}
	return append(out, fmt.Sprintf("FATAL: `thread_run' function failed: SQL error, errno = %d, state = '%s': %s", se.Code, se.State, se.Message))
}

func (wk *worker) add(counter int) {
	if wk.cnt != nil {
		wk.cnt.Add(counter, 1)
	}
}
