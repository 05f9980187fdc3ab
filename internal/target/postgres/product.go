package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/candor-bench/candor/internal/dialect"
)

// DialectOf returns the dialect of the product whose SELECT version() text is
// version: YugabyteDB and CockroachDB have their own (sharding and sequence
// clauses); PostgreSQL and anything unrecognised get dialect.Postgres.
func DialectOf(version string) dialect.Dialect {
	switch product, _ := ParseVersion(version); product {
	case ProductYugabyteDB:
		return dialect.YugabyteDB
	case ProductCockroachDB:
		return dialect.CockroachDB
	}
	return dialect.Postgres
}

// detectDialect reads SELECT version() on pc (simple protocol: nothing is
// prepared) and returns its dialect. A server that does not answer is taken
// for PostgreSQL: Fingerprint reports the failure later, and Open does not
// fail for want of a version string.
func detectDialect(ctx context.Context, pc *pgx.Conn) dialect.Dialect {
	var v string
	if err := pc.QueryRow(ctx, "SELECT version()", pgx.QueryExecModeSimpleProtocol).Scan(&v); err != nil {
		return dialect.Postgres
	}
	return DialectOf(v)
}
