-- point_update.lua — a user's transaction for bench/sysbench-lua.sh: one
-- point SELECT and one UPDATE of the indexed column of a random row of
-- sysbench's sbtest1, between BEGIN and COMMIT, with prepared statements.
sysbench.cmdline.options = {
   table_size = {"Number of rows in sbtest1", 100000},
}

function thread_init()
   drv = sysbench.sql.driver()
   con = drv:connect()
   sel = con:prepare("SELECT c FROM sbtest1 WHERE id = ?")
   sel_id = sel:bind_create(sysbench.sql.type.INT)
   sel:bind_param(sel_id)
   upd = con:prepare("UPDATE sbtest1 SET k = k + 1 WHERE id = ?")
   upd_id = upd:bind_create(sysbench.sql.type.INT)
   upd:bind_param(upd_id)
end

function event()
   con:query("BEGIN")
   sel_id:set(sysbench.rand.uniform(1, sysbench.opt.table_size))
   sel:execute()
   upd_id:set(sysbench.rand.uniform(1, sysbench.opt.table_size))
   upd:execute()
   con:query("COMMIT")
end

function thread_done()
   con:disconnect()
end
