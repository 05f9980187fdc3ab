package dialect

import "testing"

func TestPgbenchEnd(t *testing.T) {
	for d, want := range map[string]string{Postgres.Name: "END;", SQLite.Name: "END;", MySQL.Name: "COMMIT;", TiDB.Name: "COMMIT;"} {
		if got := PgbenchEnd(Dialect{Name: d}); got != want {
			t.Errorf("%s: %q, want %q", d, got, want)
		}
	}
}
