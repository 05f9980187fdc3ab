package tables

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/target"
	_ "github.com/candor-bench/candor/internal/target/mysql"
	_ "github.com/candor-bench/candor/internal/target/postgres"
	_ "github.com/candor-bench/candor/internal/target/sqlite"
	"github.com/candor-bench/candor/internal/target/targettest"
	"github.com/candor-bench/candor/internal/workload"
)

// realTargets are the databases these tests run on: SQLite always,
// PostgreSQL and MariaDB when scripts/test.sh started them.
func realTargets(t *testing.T) map[string]string {
	out := map[string]string{"sqlite": "sqlite://" + filepath.Join(t.TempDir(), "tables.db")}
	if u := os.Getenv("CANDOR_TEST_POSTGRES_URL"); u != "" {
		out["postgres"] = u
	} else {
		t.Log("CANDOR_TEST_POSTGRES_URL unset: PostgreSQL part skipped")
	}
	if os.Getenv("CANDOR_TEST_MYSQL_URL") != "" {
		out["mysql"] = targettest.MySQLDatabaseURL(t)
	} else {
		t.Log("CANDOR_TEST_MYSQL_URL unset: MariaDB part skipped")
	}
	return out
}

// openBound opens url with wl bound to it; closed when the test ends.
func openBound(t *testing.T, url string, wl workload.Workload) target.Target {
	t.Helper()
	tgt, err := target.Open(context.Background(), url, target.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tgt.Close() })
	if err := wl.Bind(workload.Env{Dialect: tgt.Dialect(), Capabilities: tgt.Capabilities(), Threads: 1}); err != nil {
		t.Fatal(err)
	}
	return tgt
}

func markOf(t *testing.T, tgt target.Target, table string) Mark {
	t.Helper()
	c := targettest.Connect(t, tgt)
	raw, ok, err := target.TableOwner(context.Background(), c, tgt.Dialect(), table)
	if err != nil || !ok {
		t.Fatalf("mark of %s: %q %v %v", table, raw, ok, err)
	}
	return Parse(raw)
}

// syncBuffer is a status writer read while another goroutine writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor polls until cond holds, failing after 20 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(20 * time.Second); !cond(); {
		if time.Now().After(end) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestUnfinishedLoadOnRealTargets: a table created for a load that never
// finished (a crash between CREATE and the end of the load) is refused by
// --load never and by a load, and reloaded by --load auto; once marked
// loaded it serves runs, and a bigger recordcount reloads it.
func TestUnfinishedLoadOnRealTargets(t *testing.T) {
	for name, url := range realTargets(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			table := targettest.TableName("tables_it")
			wl := newWorkload(t, "ycsb/c", "table="+table, "recordcount=100")
			tgt := openBound(t, url, wl)
			targettest.DropAtEnd(t, tgt, table)

			s, err := Prepare(ctx, tgt, wl, Request{Mode: LoadAuto})
			if err != nil || !s.Load {
				t.Fatalf("first run: load %v, err %v", s != nil && s.Load, err)
			}
			s.Close() // the load "crashed": no MarkLoaded
			if m := markOf(t, tgt, table); m.State != StateLoading {
				t.Fatalf("mark after an unfinished load: %q", m.Raw)
			}

			for _, req := range []Request{{Mode: LoadNever}, {LoadPhase: true}} {
				if _, err := Prepare(ctx, tgt, wl, req); KindOf(err) != Refused || !strings.Contains(err.Error(), "unfinished load") {
					t.Errorf("%+v on an unfinished load: %v", req, err)
				}
			}

			var status bytes.Buffer
			s, err = Prepare(ctx, tgt, wl, Request{Mode: LoadAuto, Status: &status})
			if err != nil || !s.Load || !strings.Contains(status.String(), "did not finish") {
				t.Fatalf("run after the crash: load %v, err %v, status %q", s != nil && s.Load, err, status.String())
			}
			if err := s.MarkLoaded(ctx); err != nil {
				t.Fatal(err)
			}
			s.Close()
			if m := markOf(t, tgt, table); !m.Loaded() || m.KeysText() != "100 records (0..99)" {
				t.Fatalf("mark after the load: %q", m.Raw)
			}

			s, err = Prepare(ctx, tgt, wl, Request{Mode: LoadNever})
			if err != nil || s.Load {
				t.Fatalf("run on the loaded table: load %v, err %v", s != nil && s.Load, err)
			}
			s.Close()

			bigger := newWorkload(t, "ycsb/c", "table="+table, "recordcount=500")
			bigger.Bind(workload.Env{Dialect: tgt.Dialect(), Capabilities: tgt.Capabilities(), Threads: 1})
			if _, err := Prepare(ctx, tgt, bigger, Request{Mode: LoadNever}); KindOf(err) != Refused {
				t.Errorf("recordcount 500 on 100 records with --load never: %v", err)
			}
			s, err = Prepare(ctx, tgt, bigger, Request{Mode: LoadAuto})
			if err != nil || !s.Load {
				t.Fatalf("recordcount 500 on 100 records: load %v, err %v", s != nil && s.Load, err)
			}
			s.Close()
		})
	}
}

// TestLocksOnRealTargets: a second `--load always` waits for the first
// command's tables (loading, or running on them) and goes on when it ends;
// where the target has shared locks, another run shares them and a
// cleanup waits for the run.
func TestLocksOnRealTargets(t *testing.T) {
	for name, url := range realTargets(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			table := targettest.TableName("tables_lock")
			wl := newWorkload(t, "ycsb/c", "table="+table, "recordcount=10")
			tgt := openBound(t, url, wl)
			targettest.DropAtEnd(t, tgt, table)

			first, err := Prepare(ctx, tgt, wl, Request{Mode: LoadAlways})
			if err != nil {
				t.Fatal(err)
			}
			defer first.Close()

			// While the first loads (exclusive), a second --load always waits.
			var status syncBuffer
			done := make(chan error, 1)
			var second *Session
			go func() {
				s, err := Prepare(ctx, tgt, wl, Request{Mode: LoadAlways, Status: &status})
				second = s
				done <- err
			}()
			waitFor(t, "the second command to wait", func() bool { return strings.Contains(status.String(), "waiting for table "+table) })
			select {
			case err := <-done:
				t.Fatalf("the second --load always did not wait for the first: %v", err)
			default:
			}
			if err := first.MarkLoaded(ctx); err != nil {
				t.Fatal(err)
			}
			if err := first.Hold(ctx); err != nil {
				t.Fatal(err)
			}
			_, shared := dialectShared(tgt)
			if shared {
				// The first now runs (shared): the second still waits, and
				// a run that needs no load shares the tables.
				other, err := Prepare(ctx, tgt, wl, Request{Mode: LoadNever})
				if err != nil {
					t.Fatalf("a run sharing the tables: %v", err)
				}
				other.Close()
				select {
				case err := <-done:
					t.Fatalf("the second --load always dropped the table under a run: %v", err)
				default:
				}
			}
			first.Close()
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("the second command still waits after the first ended")
			}
			if !second.Load {
				t.Error("the second --load always did not reload")
			}
			second.Close()

			// A cleanup waits for a run's shared hold.
			if shared {
				run, err := Prepare(ctx, tgt, wl, Request{Mode: LoadAuto})
				if err != nil {
					t.Fatal(err)
				}
				if run.Load {
					run.MarkLoaded(ctx)
				}
				run.Hold(ctx)
				var st syncBuffer
				locked := make(chan *Locks, 1)
				go func() {
					l, err := Lock(ctx, tgt, []string{table}, &st)
					if err != nil {
						t.Error(err)
					}
					locked <- l
				}()
				waitFor(t, "the cleanup to wait", func() bool { return strings.Contains(st.String(), "waiting for table") })
				run.Close()
				select {
				case l := <-locked:
					l.Close()
				case <-time.After(20 * time.Second):
					t.Fatal("the cleanup still waits after the run ended")
				}
			}
		})
	}
}

// TestLockWaitEndsWithContext: a wait for a lock ends when its context does.
func TestLockWaitEndsWithContext(t *testing.T) {
	url := "sqlite://" + filepath.Join(t.TempDir(), "t.db")
	wl := newWorkload(t, "ycsb/c", "recordcount=10")
	tgt := openBound(t, url, wl)
	held, err := Lock(context.Background(), tgt, []string{"usertable"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := Prepare(ctx, tgt, wl, Request{Mode: LoadAuto}); KindOf(err) != Interrupted {
		t.Errorf("err = %v, want Interrupted", err)
	}
}

// dialectShared says whether tgt's locks have a shared mode.
func dialectShared(tgt target.Target) (string, bool) {
	if _, ok := tgt.(FileBacked); ok {
		return "file", true
	}
	lk, err := newLocker(context.Background(), tgt)
	if err != nil {
		return "", false
	}
	defer lk.close()
	switch lk.(type) {
	case *sqlLocker, *slotLocker:
		return lk.kind(), true
	}
	return "", false
}

// TestLocksPerSchema: on PostgreSQL a table's lock is that of the table in
// the schema its name resolves to. Tables of one name in two schemas (two
// users' search paths, the fault matrix's per-cell schemas) do not wait for
// each other; the same table does. Before, the key was the bare name and a
// load in one schema printed "waiting for table usertable" behind a run in
// another.
func TestLocksPerSchema(t *testing.T) {
	u := os.Getenv("CANDOR_TEST_POSTGRES_URL")
	if u == "" {
		t.Skip("CANDOR_TEST_POSTGRES_URL unset")
	}
	ctx := context.Background()
	a, b := targettest.TableName("lka"), targettest.TableName("lkb")
	open := func(schema string) target.Target {
		sep := "?"
		if strings.Contains(u, "?") {
			sep = "&"
		}
		tgt, err := target.Open(ctx, u+sep+"search_path="+schema, target.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tgt.Close() })
		return tgt
	}
	admin := open("public")
	c, err := admin.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, s := range []string{a, b} {
		if _, err := c.Exec(ctx, "CREATE SCHEMA "+s); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Exec(context.Background(), "DROP SCHEMA "+s+" CASCADE") })
	}
	held, err := Lock(ctx, open(a), []string{"usertable"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	quick, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	other, err := Lock(quick, open(b), []string{"usertable"}, nil)
	if err != nil {
		t.Fatalf("usertable in schema %s waited for usertable in %s: %v", b, a, err)
	}
	other.Close()
	brief, cancel2 := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel2()
	if _, err := Lock(brief, open(a), []string{"usertable"}, nil); KindOf(err) != Interrupted {
		t.Errorf("the same table in the same schema: err %v, want it to wait (Interrupted)", err)
	}
}
