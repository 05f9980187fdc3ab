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
