package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"strings"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/candor-bench/candor/internal/target"
)

// Products recognised from SELECT VERSION().
const (
	ProductMySQL   = "MySQL"
	ProductMariaDB = "MariaDB"
	ProductTiDB    = "TiDB"
)

// Unavailable is recorded for a setting the server does not have or does
// not let this user read.
const Unavailable = "unavailable"

// NoOp is recorded for a setting the server accepts and ignores: one that
// information_schema.variables_info marks IS_NOOP = 'YES' (TiDB's InnoDB and
// binary log variables, innodb_flush_log_at_trx_commit among them: SET
// GLOBAL changes the value read back and nothing else). Its value says
// nothing about the server, so it is not recorded.
const NoOp = "no-op"

// FingerprintSettings are the server variables recorded in every fingerprint:
// the ones that decide whether two runs are comparable (isolation, redo and
// binary log durability, replication format, memory, connection limit).
// transaction_isolation is read from @@tx_isolation on servers that lack
// @@transaction_isolation (MariaDB before 11.1, MySQL before 5.7.20).
var FingerprintSettings = []string{
	"transaction_isolation",
	"innodb_flush_log_at_trx_commit",
	"sync_binlog",
	"log_bin",
	"binlog_format",
	"innodb_buffer_pool_size",
	"max_connections",
}

// productSettings are recorded in addition on one product: MariaDB's
// snapshot isolation for REPEATABLE READ (default on since 11.6, where
// conflicting writes fail with error 1020 instead of waiting) and TiDB's
// optimistic or pessimistic transactions.
//
// Semi-synchronous replication (MariaDB's built-in
// rpl_semi_sync_master_enabled, MySQL's plugin rpl_semi_sync_source_enabled,
// unavailable without the plugin) tells the audit whether a commit waits
// for a replica.
var productSettings = map[string][]string{
	ProductMariaDB: {"innodb_snapshot_isolation", "rpl_semi_sync_master_enabled"},
	ProductMySQL:   {"rpl_semi_sync_source_enabled"},
	ProductTiDB:    {"tidb_txn_mode"},
}

var (
	// "10.11.6-MariaDB-0+deb12u1", and with the replication prefix
	// "5.5.5-10.11.6-MariaDB-log".
	mariadbVersion = regexp.MustCompile(`^(?:5\.5\.5-)?(\d+(?:\.\d+)*)-MariaDB`)
	// "8.0.11-TiDB-v8.5.0", "5.7.25-TiDB-v7.5.1-serverless"
	tidbVersion = regexp.MustCompile(`-TiDB-v?(\d+(?:\.\d+)*[0-9A-Za-z.\-+]*)`)
	// "8.0.36", "8.0.36-0ubuntu0.22.04.1", "5.7.44-log"
	leadingVersion = regexp.MustCompile(`^(\d+(?:\.\d+)*)`)
	// tidb_version()'s first line: "Release Version: v8.5.0"
	tidbRelease = regexp.MustCompile(`^Release Version:\s*v?(\d\S*)`)
)

// ParseVersion returns the product and its own version number from the text
// of SELECT VERSION(). MariaDB: the number before "-MariaDB" (a "5.5.5-"
// replication prefix dropped). TiDB reports a MySQL version, then
// "-TiDB-v" and its own: the product version is the latter. Anything else
// starting with a number is MySQL (its build suffix dropped). Unrecognised
// text gives "unknown" and "".
func ParseVersion(s string) (product, version string) {
	s = strings.TrimSpace(s)
	switch {
	case strings.Contains(s, "TiDB"):
		if m := tidbVersion.FindStringSubmatch(s); m != nil {
			return ProductTiDB, m[1]
		}
		return ProductTiDB, ""
	case strings.Contains(s, "MariaDB"):
		if m := mariadbVersion.FindStringSubmatch(s); m != nil {
			return ProductMariaDB, m[1]
		}
		return ProductMariaDB, ""
	}
	if m := leadingVersion.FindStringSubmatch(s); m != nil {
		return ProductMySQL, m[1]
	}
	return "unknown", ""
}

// ParseTiDBVersion returns TiDB's release version from the text of SELECT
// tidb_version() ("Release Version: v8.5.0\nEdition: Community\n..." gives
// "8.5.0"), or "" when the first line is not a release version.
func ParseTiDBVersion(s string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	if m := tidbRelease.FindStringSubmatch(strings.TrimSpace(first)); m != nil {
		return m[1]
	}
	return ""
}

// Fingerprint implements target.Target: it opens a session, reads
// SELECT VERSION() (and tidb_version() on TiDB), the session value of each of
// FingerprintSettings and of the product's own settings, and closes it. A
// variable the server refuses with an SQL error is recorded as Unavailable,
// one it marks as a no-op (information_schema.variables_info) as NoOp;
// only a failure to connect or a lost session is an error. The session is set
// up like a worker's, so transaction_isolation shows target.Options.Isolation
// in effect.
func (t *Target) Fingerprint(ctx context.Context) (target.Fingerprint, error) {
	c, err := t.conn(ctx)
	if err != nil {
		return target.Fingerprint{}, err
	}
	defer c.Close()

	// one reads a single value; ok is false when the server refused the
	// statement with an SQL error.
	one := func(q string) (v string, ok bool, err error) {
		var ns sql.NullString
		err = c.QueryRowContext(ctx, q).Scan(&ns)
		var me *gomysql.MySQLError
		switch {
		case err == nil:
			return ns.String, true, nil
		case errors.As(err, &me):
			return "", false, nil
		}
		return "", false, fmt.Errorf("reading %q from %s: %w", q, t.redacted, target.RedactError(err, t.password))
	}

	fp := target.Fingerprint{Driver: Name, URL: t.redacted, Settings: map[string]string{}}
	v, ok, err := one("SELECT VERSION()")
	if err != nil {
		return target.Fingerprint{}, err
	}
	if !ok {
		return target.Fingerprint{}, fmt.Errorf("reading the server version of %s: SELECT VERSION() was refused", t.redacted)
	}
	fp.VersionString = v
	fp.Product, fp.Version = ParseVersion(v)
	if fp.Product == ProductTiDB {
		tv, ok, err := one("SELECT tidb_version()")
		if err != nil {
			return target.Fingerprint{}, err
		}
		if r := ParseTiDBVersion(tv); ok && r != "" {
			fp.Version = r
		}
	}

	noop, err := noOpVariables(ctx, c)
	if err != nil {
		return target.Fingerprint{}, fmt.Errorf("reading the no-op variables of %s: %w", t.redacted, target.RedactError(err, t.password))
	}
	names := append(append([]string(nil), FingerprintSettings...), productSettings[fp.Product]...)
	for _, name := range names {
		if noop[name] {
			fp.Settings[name] = NoOp
			continue
		}
		// name comes from the fixed lists above, never from input.
		v, ok, err := one("SELECT @@" + name)
		if err == nil && !ok && name == "transaction_isolation" {
			v, ok, err = one("SELECT @@tx_isolation")
		}
		if err != nil {
			return target.Fingerprint{}, err
		}
		if !ok {
			v = Unavailable
		}
		fp.Settings[name] = v
	}
	return fp, nil
}

// noOpVariables returns the variables the server says it accepts and
// ignores (information_schema.variables_info, IS_NOOP = 'YES'), by
// lower-case name. A server without that table (MySQL, MariaDB) has none.
func noOpVariables(ctx context.Context, c *sql.Conn) (map[string]bool, error) {
	rows, err := c.QueryContext(ctx, "SELECT LOWER(VARIABLE_NAME) FROM information_schema.variables_info WHERE IS_NOOP = 'YES'")
	var me *gomysql.MySQLError
	if errors.As(err, &me) {
		return nil, nil // no such table or column
	}
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		out[name] = true
	}
	return out, rows.Err()
}
