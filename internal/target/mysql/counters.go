package mysql

import (
	"context"
	"strings"

	"github.com/candor-bench/candor/internal/target"
)

var _ target.CounterSource = (*Target)(nil)

// CounterQueries implements target.CounterSource from SHOW GLOBAL STATUS:
// rows read and written (InnoDB's own rows counters on MySQL; MariaDB
// 10.6+ dropped them, and the handler calls count there), data and log
// written, buffer pool reads from disk against read requests, log waits,
// and commits and rollbacks. Names a server does not report (TiDB has no
// InnoDB) are recorded as unavailable.
func (t *Target) CounterQueries(ctx context.Context, conn target.Conn, tables []string) ([]target.CounterQuery, error) {
	status := func(names ...string) string {
		return "SHOW GLOBAL STATUS WHERE Variable_name IN ('" + strings.Join(names, "','") + "')"
	}
	qs := []target.CounterQuery{
		{Group: "transactions", Kind: target.CounterCumulative, Source: "SHOW GLOBAL STATUS",
			SQL: status("Com_commit", "Com_rollback")},
		{Group: "rows", Kind: target.CounterCumulative, Source: "SHOW GLOBAL STATUS",
			SQL: status("Innodb_rows_read", "Innodb_rows_inserted", "Innodb_rows_updated", "Innodb_rows_deleted")},
		{Group: "handler", Kind: target.CounterCumulative, Source: "SHOW GLOBAL STATUS",
			SQL: status("Handler_read_key", "Handler_read_next", "Handler_read_rnd_next", "Handler_write", "Handler_update", "Handler_delete")},
		{Group: "buffer_pool", Kind: target.CounterCumulative, Source: "SHOW GLOBAL STATUS",
			SQL: status("Innodb_buffer_pool_reads", "Innodb_buffer_pool_read_requests")},
		{Group: "io", Kind: target.CounterCumulative, Unit: "bytes", Source: "SHOW GLOBAL STATUS",
			SQL: status("Innodb_data_written", "Innodb_os_log_written")},
		{Group: "log_waits", Kind: target.CounterCumulative, Source: "SHOW GLOBAL STATUS",
			SQL: status("Innodb_log_waits")},
	}
	for i := range qs {
		// The names between the quotes of IN (...).
		in := qs[i].SQL[strings.Index(qs[i].SQL, "(")+1 : len(qs[i].SQL)-1]
		for _, n := range strings.Split(in, ",") {
			qs[i].Expect = append(qs[i].Expect, strings.Trim(n, "'"))
		}
	}
	return qs, nil
}
