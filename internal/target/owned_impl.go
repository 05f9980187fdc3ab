package target

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/candor-bench/candor/internal/dialect"
)

// MarkerTable is the table in which candor records the tables it created.
const MarkerTable = dialect.MarkerTable

// AllowForeignTablesFlag is the command-line flag that lets candor drop or
// replace a table it did not create; ownership errors name it.
const AllowForeignTablesFlag = "--allow-foreign-tables"

// ErrTableExists marks a table candor created earlier and that is still there
// when a new run wants to create it.
var ErrTableExists = errors.New("table already exists")

// ErrBadTableName marks a table name candor will not put into SQL text.
var ErrBadTableName = errors.New("bad table name")

// identifier is the table-name shape ownership accepts: a plain, unquoted SQL
// identifier of at most 63 bytes (PostgreSQL's NAMEDATALEN-1; a longer name
// would be truncated silently and no longer match its mark).
var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}$`)

// CheckTableName returns an error wrapping ErrBadTableName unless table is a
// plain SQL identifier (letters, digits, underscore; not starting with a
// digit; at most 63 bytes) other than the marker table itself.
func CheckTableName(table string) error {
	if !identifier.MatchString(table) {
		return fmt.Errorf("%w %q: use letters, digits and underscores, starting with a letter, at most 63 characters", ErrBadTableName, table)
	}
	if strings.EqualFold(table, MarkerTable) {
		return fmt.Errorf("%w %q: it is candor's own marker table; choose another name", ErrBadTableName, table)
	}
	return nil
}

// TableState reports whether table exists on c and whether candor's marker
// table records it as created by candor. It changes nothing: when the marker
// table is absent, no table is owned. Table names are compared as their
// lower-case spelling (unquoted identifiers).
func TableState(ctx context.Context, c Conn, d dialect.Dialect, table string) (exists, owned bool, err error) {
	if err := CheckTableName(table); err != nil {
		return false, false, err
	}
	o := dialect.Ownership(d)
	name := strings.ToLower(table)
	if exists, err = tableExists(ctx, c, o, name); err != nil {
		return false, false, err
	}
	if !exists {
		return false, false, nil
	}
	owned, err = isMarked(ctx, c, o, name)
	return exists, owned, err
}

// CreateOwned creates table by running ddl on c, then records it in the
// marker table (created if absent) with the workload name and the time.
//
// It refuses, before running ddl, when the table already exists: with an
// error wrapping ErrForeignTable when candor did not create it, or
// ErrTableExists when it did. If recording the mark fails, the table just
// created is dropped again (best effort) and the error returned. A stale mark
// left for a table that no longer exists is replaced.
func CreateOwned(ctx context.Context, c Conn, d dialect.Dialect, table, ddl, workload string) error {
	if err := CheckTableName(table); err != nil {
		return err
	}
	o := dialect.Ownership(d)
	name := strings.ToLower(table)
	exists, owned, err := TableState(ctx, c, d, table)
	if err != nil {
		return err
	}
	switch {
	case exists && owned:
		return fmt.Errorf("%w: table %q was created by an earlier candor run; drop it first (candor drops only tables it created) or use another table name", ErrTableExists, table)
	case exists:
		return foreignError(table, "create it", "to let candor drop and re-create it")
	}
	if err := ensureMarker(ctx, c, o); err != nil {
		return err
	}
	// A mark without its table (dropped by hand) would make the insert fail.
	if _, err := c.Exec(ctx, o.Unmark, name); err != nil {
		return fmt.Errorf("clearing stale ownership mark of table %q in %s: %w", table, MarkerTable, err)
	}
	if _, err := c.Exec(ctx, ddl); err != nil {
		return fmt.Errorf("creating table %q: %w", table, err)
	}
	created := time.Now().UTC().Format(time.RFC3339)
	if _, err := c.Exec(ctx, o.Mark, name, workload, created); err != nil {
		_, dropErr := c.Exec(ctx, o.DropTable(table))
		if dropErr != nil {
			return fmt.Errorf("recording table %q in %s failed (%w), and dropping the new table failed too (%v): drop table %q by hand", table, MarkerTable, err, dropErr, table)
		}
		return fmt.Errorf("recording table %q in %s (the new table was dropped again): %w", table, MarkerTable, err)
	}
	return nil
}

// DropOwned drops table when candor created it, and removes its mark. A table
// candor did not create is refused with an error wrapping ErrForeignTable,
// unless allowForeign, in which case it is dropped too. A table that does not
// exist is not an error (a stale mark is removed).
func DropOwned(ctx context.Context, c Conn, d dialect.Dialect, table string, allowForeign bool) error {
	if err := CheckTableName(table); err != nil {
		return err
	}
	o := dialect.Ownership(d)
	name := strings.ToLower(table)
	exists, err := tableExists(ctx, c, o, name)
	if err != nil {
		return err
	}
	marker, err := tableExists(ctx, c, o, MarkerTable)
	if err != nil {
		return err
	}
	owned := false
	if exists && marker {
		if owned, err = isMarked(ctx, c, o, name); err != nil {
			return err
		}
	}
	if exists && !owned && !allowForeign {
		return foreignError(table, "drop it", "to drop it anyway")
	}
	if exists {
		if _, err := c.Exec(ctx, o.DropTable(table)); err != nil {
			return fmt.Errorf("dropping table %q: %w", table, err)
		}
	}
	if marker {
		if _, err := c.Exec(ctx, o.Unmark, name); err != nil {
			return fmt.Errorf("removing the ownership mark of table %q from %s: %w", table, MarkerTable, err)
		}
	}
	return nil
}

func foreignError(table, action, allowEffect string) error {
	return fmt.Errorf("%w: table %q exists but candor did not create it (no row in %s), so candor will not %s; "+
		"choose another table name, drop or rename it yourself, or pass %s %s",
		ErrForeignTable, table, MarkerTable, action, AllowForeignTablesFlag, allowEffect)
}

func tableExists(ctx context.Context, c Conn, o dialect.OwnershipStatements, name string) (bool, error) {
	n, err := c.Query(ctx, o.TableExists, []any{name}, func([][]byte) error { return nil })
	if err != nil {
		return false, fmt.Errorf("checking whether table %q exists: %w", name, err)
	}
	return n > 0, nil
}

func isMarked(ctx context.Context, c Conn, o dialect.OwnershipStatements, name string) (bool, error) {
	marker, err := tableExists(ctx, c, o, MarkerTable)
	if err != nil || !marker {
		return false, err
	}
	n, err := c.Query(ctx, o.Owner, []any{name}, func([][]byte) error { return nil })
	if err != nil {
		return false, fmt.Errorf("reading the ownership mark of table %q from %s: %w", name, MarkerTable, err)
	}
	return n > 0, nil
}

// ensureMarker creates the marker table if absent. Concurrent CREATE TABLE IF
// NOT EXISTS can fail on PostgreSQL (a catalog unique violation) when two
// clients race; the table existing afterwards is success.
func ensureMarker(ctx context.Context, c Conn, o dialect.OwnershipStatements) error {
	if ok, err := tableExists(ctx, c, o, MarkerTable); err != nil || ok {
		return err
	}
	if _, err := c.Exec(ctx, o.CreateMarker); err != nil {
		if ok, err2 := tableExists(ctx, c, o, MarkerTable); err2 == nil && ok {
			return nil
		}
		return fmt.Errorf("creating candor's marker table %s: %w", MarkerTable, err)
	}
	return nil
}

// OwnedTable is a table candor created and that exists, with its mark.
type OwnedTable struct {
	Name string // lower case
	Mark string // what CreateOwned recorded: the workload, and its data signature
}

// OwnedTables lists the tables candor's marks record and that exist, by
// name. It changes nothing; with no marker table there are none.
func OwnedTables(ctx context.Context, c Conn, d dialect.Dialect) ([]OwnedTable, error) {
	o := dialect.Ownership(d)
	if ok, err := tableExists(ctx, c, o, MarkerTable); err != nil || !ok {
		return nil, err
	}
	var marked []OwnedTable
	if _, err := c.Query(ctx, o.Marks, nil, func(cols [][]byte) error {
		marked = append(marked, OwnedTable{Name: string(cols[0]), Mark: string(cols[1])})
		return nil
	}); err != nil {
		return nil, fmt.Errorf("reading candor's ownership marks from %s: %w", MarkerTable, err)
	}
	var owned []OwnedTable
	for _, t := range marked {
		exists, err := tableExists(ctx, c, o, t.Name)
		if err != nil {
			return nil, err
		}
		if exists {
			owned = append(owned, t)
		}
	}
	return owned, nil
}

// TableOwner returns what candor recorded when it created table (the
// workload that created it, and its data signature), and whether a mark
// exists at all.
func TableOwner(ctx context.Context, c Conn, d dialect.Dialect, table string) (string, bool, error) {
	if err := CheckTableName(table); err != nil {
		return "", false, err
	}
	o := dialect.Ownership(d)
	if ok, err := tableExists(ctx, c, o, MarkerTable); err != nil || !ok {
		return "", false, err
	}
	var owner string
	n, err := c.Query(ctx, o.Owner, []any{strings.ToLower(table)}, func(cols [][]byte) error {
		owner = string(cols[0])
		return nil
	})
	if err != nil {
		return "", false, fmt.Errorf("reading the ownership mark of table %q from %s: %w", table, MarkerTable, err)
	}
	return owner, n > 0, nil
}

// SetMark replaces what candor recorded for table, which it created: a load
// that finished records so in its mark. A table without a mark is left as
// it is (MySQL counts only changed rows, so the count proves nothing).
func SetMark(ctx context.Context, c Conn, d dialect.Dialect, table, mark string) error {
	if err := CheckTableName(table); err != nil {
		return err
	}
	o := dialect.Ownership(d)
	if _, err := c.Exec(ctx, o.Remark, mark, strings.ToLower(table)); err != nil {
		return fmt.Errorf("updating the ownership mark of table %q in %s: %w", table, MarkerTable, err)
	}
	return nil
}

// SwapMark replaces the mark of table with mark only while it still reads
// old, in one statement (dialect's RemarkIf), and reports whether it did:
// false when another process changed the mark meanwhile (read it again and
// retry). MySQL counts only changed rows, so a statement that changed none
// is checked by reading the mark back. A dialect without such a statement
// has the mark replaced as SetMark does.
func SwapMark(ctx context.Context, c Conn, d dialect.Dialect, table, old, mark string) (bool, error) {
	if err := CheckTableName(table); err != nil {
		return false, err
	}
	o := dialect.Ownership(d)
	if o.RemarkIf == "" {
		return true, SetMark(ctx, c, d, table, mark)
	}
	n, err := c.Exec(ctx, o.RemarkIf, mark, strings.ToLower(table), old)
	if err != nil {
		return false, fmt.Errorf("updating the ownership mark of table %q in %s: %w", table, MarkerTable, err)
	}
	if n > 0 {
		return true, nil
	}
	now, ok, err := TableOwner(ctx, c, d, table)
	if err != nil {
		return false, err
	}
	return ok && now == mark && old == mark, nil
}
