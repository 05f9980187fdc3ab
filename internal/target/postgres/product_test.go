package postgres

import (
	"testing"

	"github.com/candor-bench/candor/internal/dialect"
)

func TestDialectOf(t *testing.T) {
	cases := []struct {
		version string
		want    dialect.Dialect
	}{
		// PostgreSQL itself
		{"PostgreSQL 15.8 (Debian 15.8-0+deb12u1) on x86_64-pc-linux-gnu, compiled by gcc", dialect.Postgres},
		// YugabyteDB reports a PostgreSQL version with -YB-
		{"PostgreSQL 11.2-YB-2.20.1.0-b0 on x86_64-pc-linux-gnu, compiled by clang", dialect.YugabyteDB},
		// CockroachDB names itself
		{"CockroachDB CCL v23.1.11 (x86_64-pc-linux-gnu, built 2023/09/27 01:53:43, go1.19.10)", dialect.CockroachDB},
		// anything else speaks PostgreSQL's SQL as far as candor knows
		{"Greenplum 7.0", dialect.Postgres},
	}
	for _, c := range cases {
		if got := DialectOf(c.version); got != c.want {
			t.Errorf("DialectOf(%q) = %s, want %s", c.version, got.Name, c.want.Name)
		}
	}
	// A Target built without Open (zero dialect) is PostgreSQL.
	if got := (&Target{}).Dialect(); got != dialect.Postgres {
		t.Errorf("zero Target dialect = %s", got.Name)
	}
}
