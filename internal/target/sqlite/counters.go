package sqlite

import (
	"context"
	"os"

	"github.com/candor-bench/candor/internal/target"
)

var _ target.CounterSource = (*Target)(nil)

// CounterQueries implements target.CounterSource: the database's size
// (page_count × page_size), its free pages (freelist_count) and the size
// of its write-ahead log file (0 when there is none, as in rollback journal
// modes).
func (t *Target) CounterQueries(ctx context.Context, conn target.Conn, tables []string) ([]target.CounterQuery, error) {
	wal := t.cfg.Path + "-wal"
	return []target.CounterQuery{
		{Group: "size", Kind: target.CounterGauge, Unit: "bytes", Source: "PRAGMA page_count, page_size",
			SQL: "SELECT 'database_bytes', CAST(page_count * page_size AS TEXT) FROM pragma_page_count(), pragma_page_size()" +
				" UNION ALL SELECT 'freelist_bytes', CAST(freelist_count * page_size AS TEXT) FROM pragma_freelist_count(), pragma_page_size()"},
		{Group: "size", Kind: target.CounterGauge, Unit: "bytes", Source: "the -wal file", Read: func(context.Context, target.Conn) (map[string]float64, error) {
			st, err := os.Stat(wal)
			if os.IsNotExist(err) {
				return map[string]float64{"wal_bytes": 0}, nil
			}
			if err != nil {
				return nil, err
			}
			return map[string]float64{"wal_bytes": float64(st.Size())}, nil
		}},
	}, nil
}
