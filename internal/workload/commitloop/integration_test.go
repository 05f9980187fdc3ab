package commitloop

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/target"
	_ "github.com/candor-bench/candor/internal/target/postgres"
	_ "github.com/candor-bench/candor/internal/target/sqlite"
	"github.com/candor-bench/candor/internal/target/targettest"
	"github.com/candor-bench/candor/internal/workload"
)

// Integration tests on real servers: the loop inserts its rows one commit at
// a time and PostRun reads a positive server-side rate. PostgreSQL runs when
// CANDOR_TEST_POSTGRES_URL is set (scripts/pg-sandbox.sh), SQLite always,
// MySQL/MariaDB in mysql_integration_test.go.

func TestIntegrationPostgres(t *testing.T) {
	u := targettest.PostgresURL(t)
	tgt := integration(t, u)
	// The published in-server loop: one DO block per job, a COMMIT per row.
	t.Run("in-server", func(t *testing.T) {
		figures := runLoop(t, tgt, "in-server=true", "rows=2000")
		checkFigures(t, figures, 1, 2000)
	})
	t.Run("in-server jobs=2", func(t *testing.T) {
		figures := runLoop(t, tgt, "in-server=true", "rows=500", "jobs=2")
		checkFigures(t, figures, 2, 500)
	})
}

func TestIntegrationSQLite(t *testing.T) {
	integration(t, "sqlite://"+filepath.Join(t.TempDir(), "commit.db"))
}

// integration runs one job of 2,000 rows and three jobs of 300 rows.
func integration(t *testing.T, url string) target.Target {
	if testing.Short() {
		t.Skip("integration test")
	}
	tgt, err := target.Open(context.Background(), url, target.Options{ConnectTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tgt.Close() })
	t.Run("one job", func(t *testing.T) {
		checkFigures(t, runLoop(t, tgt, "rows=2000"), 1, 2000)
	})
	t.Run("three jobs", func(t *testing.T) {
		checkFigures(t, runLoop(t, tgt, "rows=300", "jobs=3"), 3, 300)
	})
	return tgt
}

// runLoop creates the table, runs Limits().Threads workers with their share
// of Limits().Operations concurrently, as the runner does, and returns
// PostRun's figures after checking the rows against the model.
func runLoop(t *testing.T, tgt target.Target, props ...string) map[string]float64 {
	t.Helper()
	ctx := context.Background()
	w, err := New(nil, append(props, "table="+targettest.TableName("clit")))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Bind(workload.Env{Dialect: tgt.Dialect(), Capabilities: tgt.Capabilities()}); err != nil {
		t.Fatal(err)
	}
	c := targettest.Connect(t, tgt)
	tb := w.Schema()[0]
	targettest.DropAtEnd(t, tgt, tb.Name)
	if err := target.CreateOwned(ctx, c, tgt.Dialect(), tb.Name, tb.Create, Name); err != nil {
		t.Fatal(err)
	}
	lim := w.Limits()
	per := lim.Operations / int64(lim.Threads)
	var wg sync.WaitGroup
	errs := make([]error, lim.Threads)
	for j := 0; j < lim.Threads; j++ {
		conn := targettest.Connect(t, tgt)
		wk := w.NewWorker(j, nil)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int64(0); i < per && errs[j] == nil; i++ {
				wk.Next()
				errs[j] = wk.Exec(ctx, conn, nil)
				wk.Done(errs[j])
			}
		}()
	}
	wg.Wait()
	for j, err := range errs {
		if err != nil {
			t.Fatalf("job %d: %v", j+1, err)
		}
	}
	// every job's rows are exactly i = 1..rows
	rows := w.Config().Rows
	jobCol := "1"
	if w.Config().Jobs > 1 {
		jobCol = "j"
	}
	got := targettest.Rows(t, c, "SELECT "+cast(tgt, jobCol)+", "+cast(tgt, "count(*)")+", "+cast(tgt, "min(i)")+", "+cast(tgt, "max(i)")+
		", "+cast(tgt, "count(t)")+" FROM "+tb.Name+" GROUP BY "+jobCol+" ORDER BY "+jobCol)
	if len(got) != w.Config().Jobs {
		t.Fatalf("jobs in the table: %v", got)
	}
	for j, r := range got {
		n := itoa(rows)
		if want := []string{itoa(int64(j + 1)), n, "1", n, n}; strings.Join(r, ",") != strings.Join(want, ",") {
			t.Errorf("job row (j, count, min i, max i, count t) = %v, want %v", r, want)
		}
	}
	figures, err := w.PostRun(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	return figures
}

// checkFigures: rows and per-job rows as inserted, positive spans and rates.
func checkFigures(t *testing.T, f map[string]float64, jobs int, rows int64) {
	t.Helper()
	if f["rows"] != float64(int64(jobs)*rows) || f["server_span_s"] <= 0 || f["server_rows_per_s"] <= 0 {
		t.Errorf("figures %v: want rows=%d and a positive span and rate", f, int64(jobs)*rows)
	}
	for j := 1; j <= jobs; j++ {
		s := "_job_" + itoa(int64(j))
		if f["rows"+s] != float64(rows) || f["server_rows_per_s"+s] <= 0 {
			t.Errorf("figures %v: job %d has no rows=%d or no rate", f, j, rows)
		}
	}
	// the overall rate is count / span, as the server computed it
	if r := f["rows"] / f["server_span_s"]; r/f["server_rows_per_s"] < 0.999 || r/f["server_rows_per_s"] > 1.001 {
		t.Errorf("rate %v is not rows/span = %v", f["server_rows_per_s"], r)
	}
	t.Logf("server-side: %.0f rows/s over %.3f s (%v)", f["server_rows_per_s"], f["server_span_s"], f)
}

func cast(tgt target.Target, expr string) string {
	if tgt.Dialect().Name == "mysql" {
		return "CAST(" + expr + " AS CHAR)"
	}
	return "CAST(" + expr + " AS TEXT)"
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
