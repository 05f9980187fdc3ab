// Package oracle is a test's own connection to a PostgreSQL or MySQL
// server, sharing no code with candor's drivers or read-back: the oracle
// that integration tests check candor's figures against.
package oracle

import (
	"context"
	"database/sql"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
)

// Conn is the test's own connection to a postgres:// or mysql:// URL
// (pgx's own API, or database/sql with go-sql-driver/mysql): the oracle the
// ledger's figures are checked against shares no code with candor's
// drivers or read-back.
type Conn struct {
	pg *pgx.Conn
	my *sql.DB
}

// Open connects to raw (postgres:// or mysql://) until the test ends.
func Open(t testing.TB, raw string) *Conn {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	o := &Conn{}
	switch u.Scheme {
	case "postgres", "postgresql":
		o.pg, err = pgx.Connect(ctx, raw)
		if err == nil {
			t.Cleanup(func() { o.pg.Close(context.Background()) })
		}
	case "mysql":
		cfg := mysql.NewConfig()
		cfg.User = u.User.Username()
		cfg.Passwd, _ = u.User.Password()
		cfg.Net, cfg.Addr, cfg.DBName = "tcp", u.Host, strings.TrimPrefix(u.Path, "/")
		o.my, err = sql.Open("mysql", cfg.FormatDSN())
		if err == nil {
			t.Cleanup(func() { o.my.Close() })
		}
	default:
		t.Fatalf("no oracle for %s", u.Scheme)
	}
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// Ints runs a query whose rows are one integer each.
func (o *Conn) Ints(t testing.TB, q string) []int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var rows interface {
		Next() bool
		Scan(...any) error
		Err() error
	}
	if o.pg != nil {
		r, err := o.pg.Query(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		defer r.Close()
		rows = r
	} else {
		r, err := o.my.QueryContext(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		defer r.Close()
		rows = r
	}
	var out []int64
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// Exec runs statements.
func (o *Conn) Exec(t testing.TB, stmts ...string) {
	t.Helper()
	ctx := context.Background()
	for _, s := range stmts {
		var err error
		if o.pg != nil {
			_, err = o.pg.Exec(ctx, s)
		} else {
			_, err = o.my.ExecContext(ctx, s)
		}
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// IDs reads a ledger table's write ids (id ≥ 0; the owner row is
// id -1) with the test's own connection: id → rows.
func IDs(t testing.TB, raw, table string) map[int64]int {
	t.Helper()
	ids := map[int64]int{}
	for _, id := range Open(t, raw).Ints(t, "SELECT id FROM "+table+" WHERE id >= 0") {
		ids[id]++
	}
	return ids
}
