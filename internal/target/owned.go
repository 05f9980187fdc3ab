package target

import "errors"

// ErrForeignTable marks a table candor did not create: candor refuses to drop
// or reuse it unless the user passes --allow-foreign-tables.
var ErrForeignTable = errors.New("table was not created by candor")

// Ownership API (implemented in owned_impl.go):
//
//	MarkerTable = "candor_owned_tables"
//	TableState(ctx, c Conn, d dialect.Dialect, table string) (exists, owned bool, err error)
//	CreateOwned(ctx, c Conn, d dialect.Dialect, table, ddl, workload string) error  // runs ddl, then records the mark
//	CreateMarked(ctx, c Conn, d dialect.Dialect, table, ddl string, mark func(identity string) string) error // the same, the mark made from the new table's identity
//	TableIdentity(ctx, c Conn, d dialect.Dialect, table string) (string, error)       // the table's identity as the database knows it
//	DropOwned(ctx, c Conn, d dialect.Dialect, table string, allowForeign bool) error // ErrForeignTable when unmarked and !allowForeign
//	OwnedTables(ctx, c Conn, d dialect.Dialect) ([]OwnedTable, error)                  // the tables candor's marks record that exist
//	SetMark(ctx, c Conn, d dialect.Dialect, table, mark string) error                   // replaces a table's mark
//
// What a mark says, and what candor does with a table because of it (reuse,
// reload, refuse, locks), is internal/tables' policy; this package runs the
// statements.
