package mysql

import (
	"context"
	"strings"

	"github.com/candor-bench/candor/internal/target"
)

var _ target.CounterSource = (*Target)(nil)

// CounterQueries implements target.CounterSource from SHOW GLOBAL STATUS:
// InnoDB's rows read and written, data written, buffer pool reads from
// disk against read requests, log waits, and commits and rollbacks. A
// server without InnoDB (TiDB) gives none of these names, which are then
// recorded as unavailable.
func (t *Target) CounterQueries(ctx context.Context, conn target.Conn, tables []string) ([]target.CounterQuery, error) {
	status := func(names ...string) string {
		return "SHOW GLOBAL STATUS WHERE Variable_name IN ('" + strings.Join(names, "','") + "')"
	}
	return []target.CounterQuery{
		{Group: "transactions", Kind: target.CounterCumulative, Source: "SHOW GLOBAL STATUS",
			SQL: status("Com_commit", "Com_rollback")},
		{Group: "rows", Kind: target.CounterCumulative, Source: "SHOW GLOBAL STATUS",
			SQL: status("Innodb_rows_read", "Innodb_rows_inserted", "Innodb_rows_updated", "Innodb_rows_deleted")},
		{Group: "buffer_pool", Kind: target.CounterCumulative, Source: "SHOW GLOBAL STATUS",
			SQL: status("Innodb_buffer_pool_reads", "Innodb_buffer_pool_read_requests")},
		{Group: "io", Kind: target.CounterCumulative, Unit: "bytes", Source: "SHOW GLOBAL STATUS",
			SQL: status("Innodb_data_written", "Innodb_os_log_written")},
		{Group: "log_waits", Kind: target.CounterCumulative, Source: "SHOW GLOBAL STATUS",
			SQL: status("Innodb_log_waits")},
	}, nil
}
