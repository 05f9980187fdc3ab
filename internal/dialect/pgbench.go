package dialect

// PgbenchEnd is what the "END;" of pgbench's built-in scripts is sent as:
// "END;" where the dialect has END, "COMMIT;" on the MySQL family, which
// has none. Users' scripts are sent as they are written.
func PgbenchEnd(d Dialect) string {
	if isMySQLFamily(d) {
		return "COMMIT;"
	}
	return "END;"
}

// PgbenchStep is one statement pgbench 15 sends around a run or a load to
// bring its tables to a measurable state.
type PgbenchStep struct {
	Table string
	SQL   string
	// Truncate: the statement empties the table (pgbench_history before a
	// run), which candor does only to a table it created.
	Truncate bool
}

// PgbenchRunVacuum is what pgbench 15 sends before a run unless -n: VACUUM
// pgbench_branches, VACUUM pgbench_tellers, TRUNCATE pgbench_history and,
// with -v (accounts), VACUUM ANALYZE pgbench_accounts. Products without
// PostgreSQL's VACUUM get the truncation alone.
func PgbenchRunVacuum(d Dialect, accounts bool) []PgbenchStep {
	vacuum := d.Name == Postgres.Name
	var out []PgbenchStep
	if vacuum {
		out = append(out, PgbenchStep{Table: "pgbench_branches", SQL: "VACUUM pgbench_branches"},
			PgbenchStep{Table: "pgbench_tellers", SQL: "VACUUM pgbench_tellers"})
	}
	trunc := "TRUNCATE pgbench_history"
	if d.Name == SQLite.Name {
		trunc = "DELETE FROM pgbench_history" // SQLite has no TRUNCATE
	}
	out = append(out, PgbenchStep{Table: "pgbench_history", SQL: trunc, Truncate: true})
	if vacuum && accounts {
		out = append(out, PgbenchStep{Table: "pgbench_accounts", SQL: "VACUUM ANALYZE pgbench_accounts"})
	}
	return out
}

// PgbenchLoadVacuum is pgbench -i's step v after the load: VACUUM ANALYZE
// of its four tables, on PostgreSQL; none elsewhere.
func PgbenchLoadVacuum(d Dialect) []PgbenchStep {
	if d.Name != Postgres.Name {
		return nil
	}
	var out []PgbenchStep
	for _, t := range []string{"pgbench_branches", "pgbench_tellers", "pgbench_accounts", "pgbench_history"} {
		out = append(out, PgbenchStep{Table: t, SQL: "VACUUM ANALYZE " + t})
	}
	return out
}
