package sysbenchlua

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/keydist"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload/sysbench"
)

// sysbench.sql.type's values.
const (
	typeNone = iota
	typeTinyint
	typeSmallint
	typeInt
	typeBigint
	typeFloat
	typeDouble
	typeTime
	typeDate
	typeDatetime
	typeTimestamp
	typeChar
	typeVarchar
)

// bulkPacketSize is sysbench's BULK_PACKET_SIZE: the most bytes of one
// multi-row INSERT, its terminating NUL included.
const bulkPacketSize = 512 * 1024

// connection is a Lua sql_connection: in a worker, the worker's session
// (every connection a worker's script makes shares it); in a command, a
// session of its own.
type connection struct {
	st       *luaState
	conn     target.Conn // commands' own session; nil in a worker
	ud       *lua.LUserData
	bulk     []byte
	bulkRows int
	bulkHead int // length of the bulk INSERT's prefix
	rs       *result
}

// statement is a Lua sql_statement.
type statement struct {
	con    *connection
	sql    string // in the dialect's placeholders
	rows   bool   // returns rows
	params []*param
	args   []any
}

// param is a Lua sql_param: a bound value.
type param struct {
	typ    int // typeBigint, typeDouble or typeVarchar, as sysbench binds them
	maxLen int
	val    any // int64, float64, string or nil (NULL)
}

// result is a Lua sql_result: one per connection, as sysbench keeps one
// result buffer per connection (the next statement frees it).
type result struct {
	ud      *lua.LUserData
	nrows   int
	nfields int
	data    []byte
	cells   []cell // nrows*nfields
	next    int
}

type cell struct {
	off, end int
	null     bool
}

// sqlTable is sysbench.sql.
func (st *luaState) sqlTable() *lua.LTable {
	L := st.L
	t := L.NewTable()
	L.SetField(t, "type", st.consts(map[string]int{"NONE": typeNone, "TINYINT": typeTinyint, "SMALLINT": typeSmallint, "INT": typeInt,
		"BIGINT": typeBigint, "FLOAT": typeFloat, "DOUBLE": typeDouble, "TIME": typeTime, "DATE": typeDate, "DATETIME": typeDatetime,
		"TIMESTAMP": typeTimestamp, "CHAR": typeChar, "VARCHAR": typeVarchar}))
	L.SetField(t, "error", st.consts(map[string]int{"NONE": 0, "IGNORABLE": 1, "FATAL": 2}))
	st.mt = metatables{driver: st.methods(map[string]lua.LGFunction{
		"connect": st.drvConnect,
		"name":    func(L *lua.LState) int { L.Push(lua.LString(st.w.driver)); return 1 },
	}), conn: st.methods(map[string]lua.LGFunction{
		"query":            st.conQuery,
		"query_row":        st.conQueryRow,
		"prepare":          st.conPrepare,
		"bulk_insert_init": st.conBulkInit,
		"bulk_insert_next": st.conBulkNext,
		"bulk_insert_done": st.conBulkDone,
		"disconnect":       st.conDisconnect,
		"close":            st.conDisconnect,
		"reconnect":        func(L *lua.LState) int { return 0 },
	}), stmt: st.methods(map[string]lua.LGFunction{
		"bind_create": st.stmtBindCreate,
		"bind_param":  st.stmtBindParam,
		"execute":     st.stmtExecute,
		"close":       func(L *lua.LState) int { return 0 },
	}), param: st.methods(map[string]lua.LGFunction{
		"set":          st.paramSet,
		"set_rand_str": st.paramSetRandStr,
	})}
	rsMethods := map[string]*lua.LFunction{
		"fetch_row": L.NewFunction(st.rsFetchRow),
		"free":      L.NewFunction(func(L *lua.LState) int { return 0 }),
	}
	st.mt.result = L.NewTable()
	L.SetField(st.mt.result, "__index", L.NewFunction(func(L *lua.LState) int {
		rs := L.CheckUserData(1).Value.(*result)
		switch k := L.CheckString(2); k {
		case "nrows":
			L.Push(lua.LNumber(rs.nrows))
		case "nfields":
			L.Push(lua.LNumber(rs.nfields))
		default:
			if fn, ok := rsMethods[k]; ok {
				L.Push(fn)
			} else {
				L.Push(lua.LNil)
			}
		}
		return 1
	}))
	L.SetField(t, "driver", L.NewFunction(func(L *lua.LState) int {
		if name := L.OptString(1, st.w.driver); name != st.w.driver && name != "" {
			L.RaiseError("failed to initialize the DB driver: candor's target speaks %s, not %s", st.w.driver, name)
		}
		ud := L.NewUserData()
		ud.Value = st
		ud.Metatable = st.mt.driver
		L.Push(ud)
		return 1
	}))
	return t
}

// methods is a metatable whose __index is a table of methods.
func (st *luaState) methods(m map[string]lua.LGFunction) *lua.LTable {
	L := st.L
	mt := L.NewTable()
	idx := L.NewTable()
	for k, fn := range m {
		L.SetField(idx, k, L.NewFunction(fn))
	}
	L.SetField(mt, "__index", idx)
	return mt
}

// drvConnect is drv:connect(): a connection.
func (st *luaState) drvConnect(L *lua.LState) int {
	c := &connection{st: st}
	if st.kind == stateMain {
		if st.connect == nil {
			L.RaiseError("connection creation failed: no target")
		}
		conn, err := st.connect()
		if err != nil {
			L.RaiseError("connection creation failed: %v", err)
		}
		c.conn = conn
	}
	c.ud = L.NewUserData()
	c.ud.Value = c
	c.ud.Metatable = st.mt.conn
	rs := &result{ud: L.NewUserData()}
	rs.ud.Value = rs
	rs.ud.Metatable = st.mt.result
	c.rs = rs
	L.Push(c.ud)
	return 1
}

func (st *luaState) checkConn(L *lua.LState) *connection {
	c, ok := L.CheckUserData(1).Value.(*connection)
	if !ok {
		L.ArgError(1, "sql_connection expected")
	}
	return c
}

// session is the session statements go to.
func (c *connection) session(L *lua.LState) target.Conn {
	if c.conn != nil {
		return c.conn
	}
	if c.st.conn == nil {
		L.RaiseError("SQL API error: no session here (statements run in thread_init, event, thread_done and commands)")
	}
	return c.st.conn
}

// returnsRows says whether a statement returns rows: by its first word,
// or a RETURNING clause. It allocates nothing.
func returnsRows(sql string) bool {
	s := strings.TrimLeft(sql, " \t\r\n(")
	i := strings.IndexAny(s, " \t\r\n(")
	if i < 0 {
		i = len(s)
	}
	for _, w := range rowWords {
		if strings.EqualFold(s[:i], w) {
			return true
		}
	}
	for j := strings.IndexAny(sql, "Rr"); j >= 0 && j+9 <= len(sql); {
		if strings.EqualFold(sql[j:j+9], "RETURNING") && j > 0 && isSpace(sql[j-1]) && (j+9 == len(sql) || isSpace(sql[j+9]) || sql[j+9] == '*') {
			return true
		}
		k := strings.IndexAny(sql[j+1:], "Rr")
		if k < 0 {
			break
		}
		j += k + 1
	}
	return false
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

// rowWords are the first words of statements that return rows.
var rowWords = []string{"SELECT", "SHOW", "WITH", "VALUES", "EXPLAIN", "DESCRIBE", "DESC", "TABLE", "PRAGMA", "CHECKSUM", "ANALYZE", "CHECK", "OPTIMIZE", "REPAIR"}

// conQuery is con:query(sql): the statement as text; a result set when
// it returns rows, else nil.
func (st *luaState) conQuery(L *lua.LState) int {
	c := st.checkConn(L)
	sql := L.CheckString(2)
	if st.run(L, c, sql, returnsRows(sql), nil, false, sql) {
		L.Push(c.rs.ud)
	} else {
		L.Push(lua.LNil)
	}
	return 1
}

// conQueryRow is con:query_row(sql): the first row's values, or nothing.
func (st *luaState) conQueryRow(L *lua.LState) int {
	c := st.checkConn(L)
	sql := L.CheckString(2)
	if !st.runRows(L, c, sql, returnsRows(sql), nil, false, sql, true) || c.rs.nrows == 0 {
		L.Push(lua.LNil)
		return 1
	}
	rs := c.rs
	for i := 0; i < rs.nfields; i++ {
		L.Push(rs.value(0, i))
	}
	return rs.nfields
}

// run executes sql with args on c's session and counts it; it reports
// whether the statement returns rows. text says it goes as text (con:query).
func (st *luaState) run(L *lua.LState, c *connection, sql string, rows bool, args []any, prepared bool, shown string) bool {
	return st.runRows(L, c, sql, rows, args, prepared, shown, st.w.readsRows)
}

// runRows executes a statement; keep reads its rows into c's result set.
func (st *luaState) runRows(L *lua.LState, c *connection, sql string, rows bool, args []any, prepared bool, shown string, keep bool) bool {
	s := c.session(L)
	ctx := st.ctx
	rs := c.rs
	rs.nrows, rs.nfields, rs.next = 0, 0, 0
	if rows {
		var err error
		if keep {
			rs.data, rs.cells = rs.data[:0], rs.cells[:0]
			_, err = s.Query(ctx, sql, args, rs.add)
		} else {
			_, err = s.Query(ctx, sql, args, nil)
		}
		if err != nil {
			st.fail(L, c, err, sql, prepared, shown)
		}
		st.count(CounterReads)
		return true
	}
	var n int64
	var err error
	if p, ok := s.(target.Preparer); ok && prepared && len(args) == 0 {
		n, err = p.ExecPrepared(ctx, sql)
	} else {
		n, err = s.Exec(ctx, sql, args...)
	}
	if err != nil {
		st.fail(L, c, err, sql, prepared, shown)
	}
	if n > 0 {
		st.count(CounterWrites)
	} else {
		st.count(CounterOther)
	}
	return false
}

func (st *luaState) count(counter int) {
	if st.cnt != nil {
		st.cnt.Add(counter, 1)
	}
}

// add keeps one row of a result set.
func (rs *result) add(cols [][]byte) error {
	rs.nfields = len(cols)
	for _, v := range cols {
		off := len(rs.data)
		rs.data = append(rs.data, v...)
		rs.cells = append(rs.cells, cell{off: off, end: len(rs.data), null: v == nil})
	}
	rs.nrows++
	return nil
}

func (rs *result) value(row, col int) lua.LValue {
	c := rs.cells[row*rs.nfields+col]
	if c.null {
		return lua.LNil
	}
	return lua.LString(rs.data[c.off:c.end])
}

// rsFetchRow is rs:fetch_row(): the next row as an array of strings (NULL
// a hole), or nil.
func (st *luaState) rsFetchRow(L *lua.LState) int {
	rs := L.CheckUserData(1).Value.(*result)
	if rs.next >= rs.nrows || rs.nfields == 0 {
		L.Push(lua.LNil)
		return 1
	}
	t := L.CreateTable(rs.nfields, 0)
	for i := 0; i < rs.nfields; i++ {
		t.RawSetInt(i+1, rs.value(rs.next, i))
	}
	rs.next++
	L.Push(t)
	return 1
}

// fail raises a statement's error into Lua as sysbench's check_error
// does: errdesc with errcode RESTART_EVENT for an ignorable error (the
// target's retryable and constraint classes, a lost session, or one
// sysbench.hooks.sql_error_ignorable accepts), else "SQL error, errno = N,
// state = 'S': message".
func (st *luaState) fail(L *lua.LState, c *connection, err error, sql string, prepared bool, shown string) {
	st.sqlErr, st.sqlText, st.sqlPrep = err, sql, prepared
	if st.ctx.Err() != nil {
		L.RaiseError("the run ended")
	}
	w := st.w
	cls := target.ClassOther
	if w.env.Classify != nil {
		cls = w.env.Classify(err)
	}
	var se target.ServerError
	ok := false
	if w.env.ServerError != nil {
		se, ok = w.env.ServerError(err)
	}
	if !ok && cls != target.ClassConnection {
		L.RaiseError("SQL API error: %v", err)
	}
	if !ok {
		se = target.ServerError{Code: 2013, State: "HY000", Message: err.Error()} // CR_SERVER_LOST, as libmysqlclient says
	}
	desc := L.NewTable()
	L.SetField(desc, "connection", c.ud)
	L.SetField(desc, "query", lua.LString(shown))
	L.SetField(desc, "sql_errno", lua.LNumber(se.Code))
	L.SetField(desc, "sql_state", lua.LString(se.State))
	L.SetField(desc, "sql_errmsg", lua.LString(se.Message))
	L.SetGlobal("errdesc", desc)
	ignorable := slices.Contains(sysbench.RestartClasses, cls) || cls == target.ClassConnection
	if !ignorable {
		if hook, isFn := L.GetField(L.GetField(st.sbtable, "hooks"), "sql_error_ignorable").(*lua.LFunction); isFn {
			L.Push(hook)
			L.Push(desc)
			L.Call(1, 1)
			ignorable = lua.LVAsBool(L.Get(-1))
			L.Pop(1)
		}
	}
	if ignorable {
		L.SetField(desc, "errcode", lua.LNumber(1))
		L.Error(desc, 0)
	}
	L.RaiseError("SQL error, errno = %d, state = '%s': %s", se.Code, se.State, se.Message)
}

// conPrepare is con:prepare(sql): a statement with ? placeholders, sent
// prepared on its first execution (candor's sessions prepare and cache).
func (st *luaState) conPrepare(L *lua.LState) int {
	c := st.checkConn(L)
	sql := L.CheckString(2)
	s := &statement{con: c, sql: placeholders(st.w.env.Dialect, sql), rows: returnsRows(sql)}
	ud := L.NewUserData()
	ud.Value = s
	ud.Metatable = st.mt.stmt
	L.Push(ud)
	return 1
}

// placeholders rewrites ? outside quotes as the dialect's ($1, $2, ... on
// PostgreSQL wire, as sysbench's pgsql driver does).
func placeholders(d dialect.Dialect, sql string) string {
	if d.Placeholder != dialect.Dollar || !strings.Contains(sql, "?") {
		return sql
	}
	var b strings.Builder
	n := 0
	var quote byte
	for i := 0; i < len(sql); i++ {
		ch := sql[i]
		switch {
		case quote != 0:
			if ch == quote {
				quote = 0
			}
		case ch == '\'' || ch == '"':
			quote = ch
		case ch == '?':
			n++
			b.WriteString(d.Param(n))
			continue
		}
		b.WriteByte(ch)
	}
	return b.String()
}

func checkStmt(L *lua.LState) *statement {
	s, ok := L.CheckUserData(1).Value.(*statement)
	if !ok {
		L.ArgError(1, "sql_statement expected")
	}
	return s
}

// stmtBindCreate is stmt:bind_create(type[, max_len]).
func (st *luaState) stmtBindCreate(L *lua.LState) int {
	checkStmt(L)
	t := int(L.CheckNumber(2))
	p := &param{}
	switch t {
	case typeTinyint, typeSmallint, typeInt, typeBigint:
		p.typ, p.maxLen = typeBigint, 8
		p.val = int64(0)
	case typeFloat, typeDouble:
		p.typ, p.maxLen = typeDouble, 8
		p.val = float64(0)
	case typeChar, typeVarchar:
		p.typ, p.maxLen = typeVarchar, int(L.CheckNumber(3))
		p.val = ""
	default:
		L.RaiseError("Unsupported argument type: %d", t)
	}
	ud := L.NewUserData()
	ud.Value = p
	ud.Metatable = st.mt.param
	L.Push(ud)
	return 1
}

// stmtBindParam is stmt:bind_param(p1, p2, ...).
func (st *luaState) stmtBindParam(L *lua.LState) int {
	s := checkStmt(L)
	s.params = s.params[:0]
	for i := 2; i <= L.GetTop(); i++ {
		p, ok := L.CheckUserData(i).Value.(*param)
		if !ok {
			L.ArgError(i, "sql_param expected")
		}
		s.params = append(s.params, p)
	}
	s.args = make([]any, len(s.params))
	L.Push(lua.LNumber(0))
	return 1
}

// paramSet is param:set(v): nil binds NULL; a string longer than a CHAR's
// max_len is cut, as sysbench does.
func (st *luaState) paramSet(L *lua.LState) int {
	p := L.CheckUserData(1).Value.(*param)
	v := L.Get(2)
	if v == lua.LNil {
		p.val = nil
		return 0
	}
	switch p.typ {
	case typeBigint:
		n, ok := toNumber(v)
		if !ok {
			L.ArgError(2, "cannot convert '"+v.Type().String()+"' to 'int64_t'")
		}
		p.val = int64(n)
	case typeDouble:
		n, ok := toNumber(v)
		if !ok {
			L.ArgError(2, "cannot convert '"+v.Type().String()+"' to 'double'")
		}
		p.val = n
	default:
		s := lua.LVAsString(v)
		if len(s) > p.maxLen {
			s = s[:p.maxLen]
		}
		p.val = s
	}
	return 0
}

func toNumber(v lua.LValue) (float64, bool) {
	switch x := v.(type) {
	case lua.LNumber:
		return float64(x), true
	case lua.LString:
		f, err := strconv.ParseFloat(strings.TrimSpace(string(x)), 64)
		return f, err == nil
	}
	return 0, false
}

// paramSetRandStr is param:set_rand_str(fmt): sysbench.rand.string(fmt).
func (st *luaState) paramSetRandStr(L *lua.LState) int {
	p := L.CheckUserData(1).Value.(*param)
	st.buf = appendRandString(st, L.CheckString(2))
	s := string(st.buf)
	if p.typ == typeVarchar && len(s) > p.maxLen {
		s = s[:p.maxLen]
	}
	p.val = s
	return 0
}

// stmtExecute is stmt:execute(): the statement with its bound values,
// prepared (with --db-ps-mode=disable as text with the values written
// in, as sysbench's emulation sends it).
func (st *luaState) stmtExecute(L *lua.LState) int {
	s := checkStmt(L)
	for i, p := range s.params {
		s.args[i] = p.val
	}
	sql, args, prepared := s.sql, s.args, true
	if st.w.g.psDisable {
		var err error
		if st.lit, err = st.w.env.Dialect.AppendInterpolated(st.lit[:0], sql, args); err != nil {
			L.RaiseError("--db-ps-mode=disable: %v (values are written into the statement's text unescaped, as sysbench's are)", err)
		}
		sql, args, prepared = string(st.lit), nil, false
	}
	if st.run(L, s.con, sql, s.rows, args, prepared, "<prepared statement>") {
		L.Push(s.con.rs.ud)
	} else {
		L.Push(lua.LNil)
	}
	return 1
}

// conBulkInit is con:bulk_insert_init(prefix).
func (st *luaState) conBulkInit(L *lua.LState) int {
	c := st.checkConn(L)
	c.bulk = append(c.bulk[:0], L.CheckString(2)...)
	c.bulkHead, c.bulkRows = len(c.bulk), 0
	L.Push(lua.LNumber(0))
	return 1
}

// conBulkNext is con:bulk_insert_next(row): rows are joined with ',' and
// sent as one INSERT when the next would take it past 512 KiB.
func (st *luaState) conBulkNext(L *lua.LState) int {
	c := st.checkConn(L)
	row := L.CheckString(2)
	if c.bulkHead == 0 {
		L.RaiseError("bulk_insert_next without bulk_insert_init")
	}
	sep := 0
	if c.bulkRows > 0 {
		sep = 1
	}
	if c.bulkHead+len(row)+1 > bulkPacketSize {
		L.RaiseError("bulk_insert_next: a row of %d bytes does not fit in one INSERT of %d bytes", len(row), bulkPacketSize)
	}
	if c.bulkRows > 0 && len(c.bulk)+len(row)+1+sep > bulkPacketSize {
		st.bulkFlush(L, c)
		sep = 0
	}
	if sep == 1 {
		c.bulk = append(c.bulk, ',')
	}
	c.bulk = append(c.bulk, row...)
	c.bulkRows++
	L.Push(lua.LNumber(0))
	return 1
}

func (st *luaState) bulkFlush(L *lua.LState, c *connection) {
	sql := string(c.bulk)
	c.bulk, c.bulkRows = c.bulk[:c.bulkHead], 0
	st.runRows(L, c, sql, false, nil, false, sql, false)
}

// conBulkDone is con:bulk_insert_done(): the rows pending go.
func (st *luaState) conBulkDone(L *lua.LState) int {
	c := st.checkConn(L)
	if c.bulkRows > 0 {
		st.bulkFlush(L, c)
	}
	c.bulk, c.bulkHead = c.bulk[:0], 0
	return 0
}

// conDisconnect closes a command's own session; a worker's session is the
// runner's.
func (st *luaState) conDisconnect(L *lua.LState) int {
	c := st.checkConn(L)
	if c.conn != nil {
		c.conn.Close()
		c.conn = nil
		c.conn = closedConn{}
	}
	return 0
}

// closedConn is a disconnected command session.
type closedConn struct{}

var errDisconnected = errors.New("the connection was disconnected (con:disconnect())")

func (closedConn) Exec(context.Context, string, ...any) (int64, error) { return 0, errDisconnected }
func (closedConn) Query(context.Context, string, []any, func([][]byte) error) (int, error) {
	return 0, errDisconnected
}
func (closedConn) Close() error { return nil }

func appendRandString(st *luaState, tmpl string) []byte {
	return keydist.AppendSysbenchString(st.buf[:0], st.r, tmpl)
}
