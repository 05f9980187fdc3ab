package cassandra

import (
	"context"
	"strconv"

	"github.com/candor-bench/candor/internal/target"
)

var _ target.CounterSource = (*Target)(nil)

// CounterQueries implements target.CounterSource from the virtual tables
// of Cassandra 4.0+ (system_views): the compactions pending and running
// on the node the session asks (its CompactionExecutor thread pool) and
// the SSTable tasks in progress. Servers without system_views (before
// 4.0, ScyllaDB) record them as unavailable. No system view counts the
// SSTables of a table; nodetool tablestats does, outside candor.
func (t *Target) CounterQueries(ctx context.Context, conn target.Conn, tables []string) ([]target.CounterQuery, error) {
	return []target.CounterQuery{
		{Group: "compactions", Kind: target.CounterGauge, Source: "system_views.thread_pools",
			Read: func(ctx context.Context, c target.Conn) (map[string]float64, error) {
				out := map[string]float64{}
				_, err := c.Query(ctx, "SELECT name, pending_tasks, active_tasks FROM system_views.thread_pools", nil, func(cols [][]byte) error {
					if string(cols[0]) == "CompactionExecutor" {
						out["compactions_pending"], _ = strconv.ParseFloat(string(cols[1]), 64)
						out["compactions_active"], _ = strconv.ParseFloat(string(cols[2]), 64)
					}
					return nil
				})
				return out, err
			}},
		{Group: "compactions", Kind: target.CounterGauge, Source: "system_views.sstable_tasks",
			Read: func(ctx context.Context, c target.Conn) (map[string]float64, error) {
				n := 0
				_, err := c.Query(ctx, "SELECT kind FROM system_views.sstable_tasks", nil, func([][]byte) error { n++; return nil })
				return map[string]float64{"sstable_tasks": float64(n)}, err
			}},
	}, nil
}
