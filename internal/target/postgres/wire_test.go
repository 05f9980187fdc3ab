package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/target/targettest"
)

// rowsAffected reads a command tag as pgconn's CommandTag.RowsAffected does.
func TestRowsAffected(t *testing.T) {
	for _, tag := range []string{"SELECT 1", "INSERT 0 5", "UPDATE 123456789", "DELETE 0", "BEGIN", "COMMIT", "", "MERGE 7", "SELECT x"} {
		want := pgconn.NewCommandTag(tag).RowsAffected()
		if got := rowsAffected([]byte(tag)); got != want {
			t.Errorf("rowsAffected(%q) = %d, pgconn says %d", tag, got, want)
		}
	}
}

// Under a context without a Done channel (the runner's sessions) statements
// with arguments take the wire path, under one that can be cancelled
// pgconn's; both give the same rows, counts and errors.
func TestWirePathMatchesPgconn(t *testing.T) {
	tgt := openTarget(t, testURL(t))
	c := targettest.Connect(t, tgt).(*Conn)
	cancellable, cancel := context.WithCancel(context.Background())
	defer cancel()
	table := targettest.TableName("wire")
	if _, err := c.Exec(context.Background(), "CREATE TABLE "+table+" (id int primary key, v text)"); err != nil {
		t.Fatal(err)
	}
	defer c.Exec(context.Background(), "DROP TABLE "+table)

	// run gives what one statement returned, as text.
	run := func(ctx context.Context, q string, args ...any) string {
		t.Helper()
		var rows []string
		n, err := c.Query(ctx, q, args, func(cols [][]byte) error {
			rows = append(rows, fmt.Sprintf("%q", cols))
			return nil
		})
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) {
			return fmt.Sprintf("%d rows %s, error %s (%s)", n, strings.Join(rows, " "), pgErr.Code, tgt.Classify(err))
		} else if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return fmt.Sprintf("%d rows %s", n, strings.Join(rows, " "))
	}
	exec := func(ctx context.Context, q string, args ...any) string {
		t.Helper()
		n, err := c.Exec(ctx, q, args...)
		return fmt.Sprintf("%d affected, %v", n, err)
	}
	for i, ctx := range []context.Context{context.Background(), cancellable} {
		var got []string
		got = append(got,
			exec(ctx, "INSERT INTO "+table+" SELECT g + $1::int, 'x' FROM generate_series(1, 5) g", 10*i),
			exec(ctx, "UPDATE "+table+" SET v = $1 WHERE id > $2", "y", 10*i+3),
			run(ctx, "SELECT id, v FROM "+table+" WHERE id > $1 ORDER BY id", 10*i),
			run(ctx, "SELECT $1::text, NULL::text, decode('00ff', 'hex')", "é"),
			run(ctx, "SELECT 10 / (3 - g) FROM generate_series(1, $1::int) g", 5), // two rows, then 22012
			run(ctx, "SELECT $1::int", 7), // the session goes on
			run(ctx, "SELECT length($1::text)", strings.Repeat("x", maxWireParamBytes+1)), // through pgconn
			exec(ctx, "DELETE FROM "+table+" WHERE id > $1", 10*i+4),
		)
		want := []string{
			"5 affected, <nil>",
			"2 affected, <nil>",
			fmt.Sprintf(`5 rows ["%d" "x"] ["%d" "x"] ["%d" "x"] ["%d" "y"] ["%d" "y"]`, 10*i+1, 10*i+2, 10*i+3, 10*i+4, 10*i+5),
			`1 rows ["é" "" "\x00\xff"]`,
			`2 rows ["5"] ["10"], error 22012 (other)`,
			`1 rows ["7"]`,
			fmt.Sprintf(`1 rows ["%d"]`, maxWireParamBytes+1),
			"1 affected, <nil>",
		}
		for j := range want {
			if got[j] != want[j] {
				t.Errorf("context %d, statement %d: got %s, want %s", i, j, got[j], want[j])
			}
		}
		if wire := wirePath(ctx); wire != (i == 0) {
			t.Errorf("context %d: wire path %v", i, wire)
		}
	}
}

// A session whose backend ends (FATAL), or is killed from another session,
// or whose statement the runner interrupts, fails as pgconn would have it
// fail, and is closed after: connection, connection, timeout.
func TestWirePathBrokenSession(t *testing.T) {
	tgt := openTarget(t, testURL(t))
	ctx := context.Background()
	closedAfter := func(c *Conn, what string) {
		t.Helper()
		if !c.pc.PgConn().IsClosed() {
			t.Errorf("%s: the connection is not closed", what)
		}
		_, err := c.Exec(ctx, "SELECT $1::int", 1)
		if cl := tgt.Classify(err); cl != target.ClassConnection {
			t.Errorf("%s: the next statement: Classify(%v) = %q, want connection", what, err, cl)
		}
	}

	// FATAL: the session ends its own backend.
	c := targettest.Connect(t, tgt).(*Conn)
	_, err := c.Exec(ctx, "SELECT pg_terminate_backend(pg_backend_pid()) WHERE $1::int = 1", 1)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "57P01" || tgt.Classify(err) != target.ClassConnection {
		t.Errorf("own backend terminated: %v (%s), want 57P01, connection", err, tgt.Classify(err))
	}
	closedAfter(c, "own backend terminated")

	// Killed from another session while idle.
	victim, killer := targettest.Connect(t, tgt).(*Conn), targettest.Connect(t, tgt)
	pid := targettest.Rows(t, victim, "SELECT pg_backend_pid()::text")[0][0]
	if got := targettest.Rows(t, killer, "SELECT pg_terminate_backend($1::int, 5000)::text", pid); got[0][0] != "true" {
		t.Fatalf("pg_terminate_backend(%s) = %v", pid, got)
	}
	_, err = victim.Exec(ctx, "SELECT $1::int", 1)
	if cl := tgt.Classify(err); err == nil || cl != target.ClassConnection {
		t.Errorf("killed backend: Classify(%v) = %q, want connection", err, cl)
	}
	closedAfter(victim, "killed backend")

	// Interrupted in the middle of a statement.
	c = targettest.Connect(t, tgt).(*Conn)
	timer := time.AfterFunc(200*time.Millisecond, c.Interrupt)
	defer timer.Stop()
	start := time.Now()
	_, err = c.Exec(ctx, "SELECT pg_sleep($1::float8)", "10")
	if cl := tgt.Classify(err); cl != target.ClassTimeout {
		t.Errorf("interrupted: Classify(%v) = %q, want timeout", err, cl)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the interrupted statement returned after %v", d)
	}
	closedAfter(c, "interrupted")
}

// A statement on the wire path allocates nothing: its messages go into
// pgconn's buffers and its rows are read in place.
func TestWirePathAllocations(t *testing.T) {
	tgt := openTarget(t, testURL(t))
	ctx := context.Background()
	c := targettest.Connect(t, tgt).(*Conn)
	args := []any{"abc"}
	var got int
	fn := func(cols [][]byte) error { got += len(cols[0]); return nil }
	if _, err := c.Query(ctx, "SELECT $1::text", args, fn); err != nil { // prepares
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(200, func() {
		if _, err := c.Query(ctx, "SELECT $1::text", args, fn); err != nil {
			t.Fatal(err)
		}
		if _, err := c.ExecPrepared(ctx, "BEGIN"); err != nil {
			t.Fatal(err)
		}
		if _, err := c.ExecPrepared(ctx, "COMMIT"); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("%.1f allocations per SELECT, BEGIN and COMMIT on the wire path, want 0", a)
	}
	if got != 202*3 { // AllocsPerRun runs it once more than asked
		t.Errorf("fn saw %d bytes, want %d", got, 202*3)
	}
}
