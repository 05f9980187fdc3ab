package target

import (
	"context"
	"crypto/rand"
	"encoding/hex"
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
// marker table (created if absent) with the workload name and the time; see
// CreateMarked.
func CreateOwned(ctx context.Context, c Conn, d dialect.Dialect, table, ddl, workload string) error {
	return CreateMarked(ctx, c, d, table, ddl, func(string) string { return workload })
}

// CreateMarked creates table by running ddl on c, then records it in the
// marker table (created if absent) with the text mark returns for the new
// table's identity (TableIdentity, read right after the table was created;
// "" when the product gives none) and the time. On SQLite the ddl is first
// given a token of its own in a comment, on MySQL in the table's comment
// (the dialect's Tag), which the identity reads back.
//
// It refuses, before running ddl, when the table already exists: with an
// error wrapping ErrForeignTable when candor did not create it, or
// ErrTableExists when it did. If reading the identity or recording the mark
// fails, the table just created is dropped again (best effort) and the
// error returned. A stale mark left for a table that no longer exists is
// replaced.
func CreateMarked(ctx context.Context, c Conn, d dialect.Dialect, table, ddl string, mark func(identity string) string) error {
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
	stmts := []string{ddl}
	if o.Tag != nil {
		stmts = o.Tag(ddl, table, newToken())
	}
	if _, err := c.Exec(ctx, stmts[0]); err != nil {
		return fmt.Errorf("creating table %q: %w", table, err)
	}
	var err2 error
	for _, st := range stmts[1:] {
		if _, err2 = c.Exec(ctx, st); err2 != nil {
			break
		}
	}
	id, err := TableIdentity(ctx, c, d, table)
	if err2 != nil {
		err = fmt.Errorf("writing the token of the new table: %w", err2)
	}
	created := time.Now().UTC().Format(time.RFC3339)
	if err == nil {
		_, err = c.Exec(ctx, o.Mark, name, mark(id), created)
	}
	if err != nil {
		_, dropErr := c.Exec(ctx, o.DropTable(table))
		if dropErr != nil {
			return fmt.Errorf("recording table %q in %s failed (%w), and dropping the new table failed too (%v): drop table %q by hand", table, MarkerTable, err, dropErr, table)
		}
		return fmt.Errorf("recording table %q in %s (the new table was dropped again): %w", table, MarkerTable, err)
	}
	return nil
}

// newToken is 16 random hex digits: what tells an SQLite or MySQL table
// candor created from one created under its name by someone else.
func newToken() string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		// crypto/rand does not fail on Linux; the time is unique enough.
		return fmt.Sprintf("%016x", time.Now().UnixNano())
	}
	return hex.EncodeToString(b[:])
}

// TableIdentity reads table's identity as the database knows it (the
// dialect's Identity parts), as "key:value,key:value" in the parts' order:
// PostgreSQL "oid:16385,created:725" (the oid and the creating
// transaction), MySQL "token:<hex>,ctime:1796674252,tid:18" (candor's token in the table's
// comment, its create time, and InnoDB's table id where the privileges show it), TiDB
// "tid:112", CQL
// "id:<uuid>", SQLite "token:<hex>". It is "" when the product gives none,
// or when the table does not exist. One read costs a catalog query per
// part (one; on MySQL one to three).
func TableIdentity(ctx context.Context, c Conn, d dialect.Dialect, table string) (string, error) {
	if err := CheckTableName(table); err != nil {
		return "", err
	}
	o := dialect.Ownership(d)
	name := strings.ToLower(table)
	var parts []string
	seen := map[string]bool{}
	for _, p := range o.Identity {
		if seen[p.Keys[0]] {
			continue // an alternative statement for a value already read
		}
		var vals []string
		_, err := c.Query(ctx, p.Query, []any{name}, func(cols [][]byte) error {
			vals = vals[:0]
			for _, v := range cols {
				vals = append(vals, identityValue(v))
			}
			return nil
		})
		switch {
		case err != nil && p.Optional:
			continue
		case err != nil:
			return "", fmt.Errorf("reading the identity of table %q: %w", table, err)
		}
		for i, k := range p.Keys {
			if i < len(vals) && vals[i] != "" {
				parts = append(parts, k+":"+vals[i])
				seen[k] = true
			}
		}
	}
	return strings.Join(parts, ","), nil
}

// identityValue is v as one word of a mark: no spaces, commas or colons.
func identityValue(v []byte) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == ',' || r == ':' || r == '=' || r < ' ' {
			return '_'
		}
		return r
	}, string(v))
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
