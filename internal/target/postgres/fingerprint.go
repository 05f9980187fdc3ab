package postgres

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/candor-bench/candor/internal/target"
)

// Products recognised from SELECT version().
const (
	ProductPostgreSQL  = "PostgreSQL"
	ProductYugabyteDB  = "YugabyteDB"
	ProductCockroachDB = "CockroachDB"
)

// Unavailable is recorded for a setting the server does not have (many of
// PostgreSQL's on CockroachDB) or does not let this user read.
const Unavailable = "unavailable"

// FingerprintSettings are the server settings recorded in every fingerprint:
// the ones that decide whether two runs are comparable (isolation,
// durability, replication, memory, connection limit).
var FingerprintSettings = []string{
	"transaction_isolation",
	"synchronous_commit",
	"fsync",
	"full_page_writes",
	"wal_level",
	"synchronous_standby_names",
	"shared_buffers",
	"max_connections",
}

// StreamingReplicas is the fingerprint key of the number of standbys
// streaming from the server (a row count of pg_stat_replication).
const StreamingReplicas = "streaming_replicas"

var (
	// "CockroachDB CCL v23.1.11 (x86_64-pc-linux-gnu, ...)"
	cockroachVersion = regexp.MustCompile(`CockroachDB\s+(?:\S+\s+)?v(\d+(?:\.\d+)*[0-9A-Za-z.\-+]*)`)
	// "PostgreSQL 11.2-YB-2.20.1.0-b0 on x86_64-pc-linux-gnu, ..."
	yugabyteVersion = regexp.MustCompile(`-YB-(\d+(?:\.\d+)*)`)
	// "PostgreSQL 15.8 (Debian 15.8-0+deb12u1) on ...", "PostgreSQL 17devel on ...", "PostgreSQL 16beta1 ..."
	postgresVersion = regexp.MustCompile(`^PostgreSQL\s+(\d+(?:\.\d+)*(?:devel|beta\d*|rc\d*)?)`)
	firstTwoWords   = regexp.MustCompile(`^(\S+)\s+v?(\d[^\s,]*)`)
)

// ParseVersion returns the product and its own version number from the text
// of SELECT version(). YugabyteDB reports a PostgreSQL version with a "-YB-"
// suffix: its product version is the part after "-YB-" (build tag dropped).
// CockroachDB's "v" prefix is dropped. Unrecognised text gives the first word
// and a following number when there is one, else "unknown" and "".
func ParseVersion(s string) (product, version string) {
	s = strings.TrimSpace(s)
	if m := cockroachVersion.FindStringSubmatch(s); m != nil {
		return ProductCockroachDB, m[1]
	}
	if strings.Contains(s, "-YB-") {
		if m := yugabyteVersion.FindStringSubmatch(s); m != nil {
			return ProductYugabyteDB, m[1]
		}
		return ProductYugabyteDB, ""
	}
	if m := postgresVersion.FindStringSubmatch(s); m != nil {
		return ProductPostgreSQL, m[1]
	}
	if m := firstTwoWords.FindStringSubmatch(s); m != nil {
		return m[1], m[2]
	}
	return "unknown", ""
}

// Fingerprint implements target.Target: it opens a session, reads
// SELECT version() and SHOW of each of FingerprintSettings, and closes it. A
// setting the server refuses with an SQL error is recorded as Unavailable;
// only a failure to connect or a lost session is an error.
func (t *Target) Fingerprint(ctx context.Context) (target.Fingerprint, error) {
	pc, err := t.connect(ctx)
	if err != nil {
		return target.Fingerprint{}, err
	}
	defer closeConn(pc)

	fp := target.Fingerprint{Driver: Name, URL: t.redacted, Settings: map[string]string{}}
	// Simple protocol: nothing is prepared or cached for one-off statements,
	// and results come back as text whatever their type.
	if err := pc.QueryRow(ctx, "SELECT version()", pgx.QueryExecModeSimpleProtocol).Scan(&fp.VersionString); err != nil {
		return target.Fingerprint{}, fmt.Errorf("reading the server version of %s: %w", t.redacted, target.RedactError(err, t.password))
	}
	fp.Product, fp.Version = ParseVersion(fp.VersionString)

	for _, name := range FingerprintSettings {
		var v string
		// name comes from the fixed list above, never from input.
		err := pc.QueryRow(ctx, "SHOW "+name, pgx.QueryExecModeSimpleProtocol).Scan(&v)
		var pgErr *pgconn.PgError
		switch {
		case err == nil:
			fp.Settings[name] = v
		case errors.As(err, &pgErr):
			fp.Settings[name] = Unavailable
		default:
			return target.Fingerprint{}, fmt.Errorf("reading setting %s of %s: %w", name, t.redacted, target.RedactError(err, t.password))
		}
	}
	// The standbys streaming from this server, synchronous or not
	// (asynchronous ones cost commit rate too, and may lose commits at a
	// fail-over): the audit's replication rule reads it.
	var replicas string
	err = pc.QueryRow(ctx, "SELECT count(*) FROM pg_stat_replication", pgx.QueryExecModeSimpleProtocol).Scan(&replicas)
	var pgErr *pgconn.PgError
	switch {
	case err == nil:
		fp.Settings[StreamingReplicas] = replicas
	case errors.As(err, &pgErr):
		fp.Settings[StreamingReplicas] = Unavailable
	default:
		return target.Fingerprint{}, fmt.Errorf("reading pg_stat_replication of %s: %w", t.redacted, target.RedactError(err, t.password))
	}
	return fp, nil
}
