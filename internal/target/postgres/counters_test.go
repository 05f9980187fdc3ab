package postgres

import (
	"strings"
	"testing"
)

// The counter queries follow the server version: pg_stat_checkpointer from
// 17 (pg_stat_bgwriter lost its checkpoint columns), pg_stat_wal from 14,
// and sizes only when the workload has tables.
func TestCounterQueriesByVersion(t *testing.T) {
	sources := func(version int, tables []string) string {
		var s []string
		for _, q := range counterQueries(version, tables) {
			s = append(s, q.Group+"="+q.Source)
		}
		return strings.Join(s, " ")
	}
	cases := []struct {
		version    int
		tables     []string
		has, lacks []string
	}{
		{130000, nil, []string{"checkpoints=pg_stat_bgwriter", "replication=pg_stat_replication"}, []string{"pg_stat_wal", "size="}},
		{150004, []string{"usertable"}, []string{"checkpoints=pg_stat_bgwriter", "wal=pg_stat_wal", "size="}, []string{"pg_stat_checkpointer"}},
		{170002, nil, []string{"checkpoints=pg_stat_checkpointer", "checkpoints=pg_stat_bgwriter", "wal=pg_stat_wal"}, nil},
	}
	for _, c := range cases {
		got := sources(c.version, c.tables)
		for _, h := range c.has {
			if !strings.Contains(got, h) {
				t.Errorf("%d: %s lacks %s", c.version, got, h)
			}
		}
		for _, l := range c.lacks {
			if strings.Contains(got, l) {
				t.Errorf("%d: %s has %s", c.version, got, l)
			}
		}
	}
	// A table name is quoted as a literal.
	for _, q := range counterQueries(150000, []string{"it's"}) {
		if q.Group == "size" && !strings.Contains(q.SQL, "'it''s'") {
			t.Errorf("table name not quoted: %s", q.SQL)
		}
	}
	// PostgreSQL 17's pg_stat_bgwriter has no checkpoint columns.
	for _, q := range counterQueries(170000, nil) {
		if q.Source == "pg_stat_bgwriter" && strings.Contains(q.SQL, "checkpoints_timed") {
			t.Errorf("PostgreSQL 17 query reads checkpoints from pg_stat_bgwriter: %s", q.SQL)
		}
	}
}
