package dialect

import (
	"strings"
	"testing"
)

func TestPgbenchEnd(t *testing.T) {
	for d, want := range map[string]string{Postgres.Name: "END;", SQLite.Name: "END;", MySQL.Name: "COMMIT;", TiDB.Name: "COMMIT;"} {
		if got := PgbenchEnd(Dialect{Name: d}); got != want {
			t.Errorf("%s: %q, want %q", d, got, want)
		}
	}
}

// pgbench 15's statements before a run (checked with log_statement=all):
// the vacuums on PostgreSQL only, the truncation everywhere.
func TestPgbenchRunVacuum(t *testing.T) {
	sqls := func(steps []PgbenchStep) []string {
		var out []string
		for _, s := range steps {
			out = append(out, s.SQL)
		}
		return out
	}
	for _, c := range []struct {
		d        Dialect
		accounts bool
		want     string
	}{
		{Postgres, false, "VACUUM pgbench_branches|VACUUM pgbench_tellers|TRUNCATE pgbench_history"},
		{Postgres, true, "VACUUM pgbench_branches|VACUUM pgbench_tellers|TRUNCATE pgbench_history|VACUUM ANALYZE pgbench_accounts"},
		{MySQL, true, "TRUNCATE pgbench_history"},
		{SQLite, false, "DELETE FROM pgbench_history"},
	} {
		if got := strings.Join(sqls(PgbenchRunVacuum(c.d, c.accounts)), "|"); got != c.want {
			t.Errorf("%s accounts=%v: %s, want %s", c.d.Name, c.accounts, got, c.want)
		}
	}
	if got := strings.Join(sqls(PgbenchLoadVacuum(Postgres)), "|"); got != "VACUUM ANALYZE pgbench_branches|VACUUM ANALYZE pgbench_tellers|VACUUM ANALYZE pgbench_accounts|VACUUM ANALYZE pgbench_history" {
		t.Errorf("after -i: %s", got)
	}
	if len(PgbenchLoadVacuum(MySQL)) != 0 {
		t.Errorf("MySQL has no VACUUM")
	}
}
