package postgres

import (
	"context"
	"strconv"
	"strings"

	"github.com/candor-bench/candor/internal/target"
)

var _ target.CounterSource = (*Target)(nil)

// CounterQueries implements target.CounterSource: the database's
// transactions, blocks and tuples (pg_stat_database), checkpoints and
// buffers written (pg_stat_checkpointer from PostgreSQL 17, else
// pg_stat_bgwriter), WAL bytes (pg_stat_wal, PostgreSQL 14+), the size of
// the workload's tables and their indexes, and each standby's replay lag
// (pg_stat_replication; its rows are NULL to a role without
// pg_read_all_stats, and such lags are recorded as unavailable).
func (t *Target) CounterQueries(ctx context.Context, conn target.Conn, tables []string) ([]target.CounterQuery, error) {
	version := 0
	if _, err := conn.Query(ctx, "SHOW server_version_num", nil, func(cols [][]byte) error {
		version, _ = strconv.Atoi(string(cols[0]))
		return nil
	}); err != nil {
		return nil, err
	}
	return counterQueries(version, tables), nil
}

// counterQueries are the queries for a server of version (server_version_num).
func counterQueries(version int, tables []string) []target.CounterQuery {
	pairs := func(from string, where string, cols ...string) string {
		var names, vals []string
		for _, c := range cols {
			names = append(names, "'"+c+"'")
			vals = append(vals, c+"::float8")
		}
		return "SELECT unnest(ARRAY[" + strings.Join(names, ",") + "]), unnest(ARRAY[" + strings.Join(vals, ",") + "])::text FROM " + from + where
	}
	db := " WHERE datname = current_database()"
	qs := []target.CounterQuery{
		{Group: "transactions", Kind: target.CounterCumulative, Source: "pg_stat_database",
			SQL: pairs("pg_stat_database", db, "xact_commit", "xact_rollback")},
		{Group: "blocks", Kind: target.CounterCumulative, Source: "pg_stat_database",
			SQL: pairs("pg_stat_database", db, "blks_hit", "blks_read")},
		{Group: "tuples", Kind: target.CounterCumulative, Source: "pg_stat_database",
			SQL: pairs("pg_stat_database", db, "tup_returned", "tup_fetched", "tup_inserted", "tup_updated", "tup_deleted")},
	}
	if version >= 170000 {
		qs = append(qs,
			target.CounterQuery{Group: "checkpoints", Kind: target.CounterCumulative, Source: "pg_stat_checkpointer",
				SQL: "SELECT unnest(ARRAY['checkpoints_timed','checkpoints_req','buffers_checkpoint']), unnest(ARRAY[num_timed::float8, num_requested::float8, buffers_written::float8])::text FROM pg_stat_checkpointer"},
			target.CounterQuery{Group: "checkpoints", Kind: target.CounterCumulative, Source: "pg_stat_bgwriter",
				SQL: pairs("pg_stat_bgwriter", "", "buffers_clean")})
	} else {
		qs = append(qs, target.CounterQuery{Group: "checkpoints", Kind: target.CounterCumulative, Source: "pg_stat_bgwriter",
			SQL: pairs("pg_stat_bgwriter", "", "checkpoints_timed", "checkpoints_req", "buffers_checkpoint", "buffers_clean")})
	}
	if version >= 140000 {
		qs = append(qs, target.CounterQuery{Group: "wal", Kind: target.CounterCumulative, Unit: "bytes", Source: "pg_stat_wal",
			SQL: pairs("pg_stat_wal", "", "wal_bytes")})
	}
	if len(tables) > 0 {
		var names []string
		for _, t := range tables {
			names = append(names, "'"+strings.ReplaceAll(t, "'", "''")+"'")
		}
		// Tables of the workload in the session's search path: each
		// one's size and its indexes' size.
		qs = append(qs, target.CounterQuery{Group: "size", Kind: target.CounterGauge, Unit: "bytes", Source: "pg_table_size, pg_indexes_size",
			SQL: "SELECT unnest(ARRAY['table_bytes:' || c.relname, 'index_bytes:' || c.relname]), unnest(ARRAY[pg_table_size(c.oid)::float8, pg_indexes_size(c.oid)::float8])::text" +
				" FROM pg_class c WHERE c.relkind IN ('r','p') AND pg_table_is_visible(c.oid) AND c.relname IN (" + strings.Join(names, ",") + ")"})
	}
	qs = append(qs, target.CounterQuery{Group: "replication", Kind: target.CounterGauge, Unit: "ms", Source: "pg_stat_replication",
		SQL: "SELECT 'replay_lag_ms:' || coalesce(application_name, '') || '@' || coalesce(host(client_addr), 'local'), (CASE WHEN state IS NULL THEN NULL ELSE coalesce(extract(epoch FROM replay_lag) * 1000, 0) END)::float8::text FROM pg_stat_replication"})
	// What each standby's replication slot has not yet confirmed flushed:
	// WAL the primary wrote that the standby lacks (a slot stays behind
	// when its standby is detached or stopped, where pg_stat_replication
	// shows nothing). It is what a fail-over to that standby loses.
	qs = append(qs, target.CounterQuery{Group: "unreplicated", Kind: target.CounterGauge, Unit: "bytes", Source: "pg_replication_slots",
		SQL: "SELECT 'unreplicated_bytes:' || slot_name, pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn)::float8::text FROM pg_replication_slots" +
			" WHERE slot_type = 'physical' AND restart_lsn IS NOT NULL AND NOT pg_is_in_recovery()"})
	return qs
}
