package fault

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/candor-bench/candor/internal/testutil/pgcluster"
)

func connect(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// TestPGClusterFailover: one synchronous standby; a row written on the
// primary is on the standby; the primary is SIGKILLed (through the fault
// executor, as a run would do it), the standby promoted, and it takes
// writes.
func TestPGClusterFailover(t *testing.T) {
	script := pgcluster.Script(t)
	dir, urls := pgcluster.Start(t, script, "--standbys", "1", "--sync", "one")
	if len(urls) != 2 {
		t.Fatalf("start printed %d URLs, want 2 (primary, standby): %q", len(urls), urls)
	}
	ctx := context.Background()
	primary := connect(t, urls[0])
	if _, err := primary.Exec(ctx, "CREATE TABLE failover_t (i int PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	if _, err := primary.Exec(ctx, "INSERT INTO failover_t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	var ssn string
	primary.QueryRow(ctx, "SHOW synchronous_standby_names").Scan(&ssn)
	if ssn != "FIRST 1 (s1)" {
		t.Errorf("synchronous_standby_names = %q, want FIRST 1 (s1)", ssn)
	}
	// Synchronous commit waits for the standby's flush, not its replay:
	// poll until the row is visible there.
	standby := connect(t, urls[1])
	var n int
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if err := standby.QueryRow(ctx, "SELECT count(*) FROM failover_t WHERE i = 1").Scan(&n); err == nil && n == 1 {
			break
		}
	}
	if n != 1 {
		t.Fatal("the row written on the primary did not reach the standby within 10 s")
	}

	e := &Executor{Schedule: schedule(t,
		"at=0s run="+script+" kill "+dir+" 0",
		"at=500ms run="+script+" promote "+dir+" 1")}
	evs, err := e.Run(ctx, time.Now())
	if err != nil {
		t.Fatalf("fault commands: %v (events %+v)", err, evs)
	}
	if !strings.Contains(evs[0].Output, "node 0 killed") {
		t.Errorf("kill output %q", evs[0].Output)
	}

	// The old primary is gone.
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if c, err := pgx.Connect(cctx, urls[0]); err == nil {
		c.Close(ctx)
		t.Fatal("the killed primary still accepts connections")
	}
	// The promoted standby takes writes and kept the synchronously
	// committed row.
	promoted := connect(t, urls[1])
	if _, err := promoted.Exec(ctx, "INSERT INTO failover_t VALUES (2)"); err != nil {
		t.Fatalf("write on the promoted standby: %v", err)
	}
	if err := promoted.QueryRow(ctx, "SELECT count(*) FROM failover_t").Scan(&n); err != nil || n != 2 {
		t.Fatalf("rows on the promoted standby: %d, %v; want 2", n, err)
	}
	status := pgcluster.Run(t, script, "status", dir)
	if !strings.Contains(status, "0 ") || !strings.Contains(status, " down ") || !strings.Contains(status, "running primary") {
		t.Errorf("status after fail-over:\n%s", status)
	}
}

// TestPGClusterBadInput: mistakes end with one message naming the fix and
// a non-zero exit, before anything is started.
func TestPGClusterBadInput(t *testing.T) {
	script, err := filepath.Abs("../../scripts/pg-cluster.sh")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"start", dir + "/c", "--sync", "maybe"}, "--sync 'maybe' is not none, one or any"},
		{[]string{"start", dir + "/c", "--standbys", "two"}, "--standbys 'two' is not a number"},
		{[]string{"start", dir + "/c", "--standbys", "0", "--sync", "one"}, "needs at least one standby"},
		{[]string{"start", dir + "/c", "--replicas", "2"}, "unknown argument '--replicas'"},
		{[]string{"kill", dir, "0"}, "no cluster in"},
		{[]string{"pause", dir}, "pause needs a node number"},
		{[]string{"stop", dir}, "was not created by pg-cluster.sh"},
	}
	for _, c := range cases {
		out, err := exec.Command(script, c.args...).CombinedOutput()
		if err == nil || !strings.Contains(string(out), c.want) {
			t.Errorf("pg-cluster.sh %s: %v, output %q; want a failure saying %q", strings.Join(c.args, " "), err, out, c.want)
		}
	}
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("stop removed a directory it did not create: %v", err)
	}
}

// TestPGClusterStopWithPausedSyncStandby: a frozen synchronous standby
// holds the primary's commits; stop still ends the cluster promptly (it
// resumes the standby and releases the primary first).
func TestPGClusterStopWithPausedSyncStandby(t *testing.T) {
	script := pgcluster.Script(t)
	dir, urls := pgcluster.Start(t, script, "--standbys", "1", "--sync", "any")
	primary := connect(t, urls[0])
	ctx := context.Background()
	if _, err := primary.Exec(ctx, "CREATE TABLE paused_t (i int)"); err != nil {
		t.Fatal(err)
	}
	pgcluster.Run(t, script, "pause", dir, "1")
	if !strings.Contains(pgcluster.Run(t, script, "status", dir), "1 ") {
		t.Fatal("status lists no node 1")
	}
	cctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	_, err := primary.Exec(cctx, "INSERT INTO paused_t VALUES (1)")
	cancel()
	if err == nil {
		t.Fatal("a commit returned while the only synchronous standby was frozen")
	}
	begin := time.Now()
	pgcluster.Run(t, script, "stop", dir)
	if d := time.Since(begin); d > 60*time.Second {
		t.Errorf("stop took %v", d)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("stop left %s behind: %v", dir, err)
	}
}

// TestPGClusterDetach: detach cuts an asynchronous standby off its
// primary for certain (a pause does not: the WAL in the socket buffers
// reaches the standby after the resume). A row committed after detach
// returns never reaches the standby, attach brings it, and a row
// committed after a second detach is missing from the standby promoted
// after the primary's kill. Detaching the primary is refused.
func TestPGClusterDetach(t *testing.T) {
	script := pgcluster.Script(t)
	dir, urls := pgcluster.Start(t, script, "--standbys", "1", "--sync", "none")
	ctx := context.Background()
	primary := connect(t, urls[0])
	standby := connect(t, urls[1])
	count := func(c *pgx.Conn, i int) int {
		var n int
		if err := c.QueryRow(ctx, "SELECT count(*) FROM detach_t WHERE i = $1", i).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	waitFor := func(i int) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			var n int
			if err := standby.QueryRow(ctx, "SELECT count(*) FROM detach_t WHERE i = $1", i).Scan(&n); err == nil && n == 1 {
				return
			}
		}
		t.Fatalf("row %d did not reach the standby within 20 s", i)
	}
	if _, err := primary.Exec(ctx, "CREATE TABLE detach_t (i int PRIMARY KEY); INSERT INTO detach_t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	waitFor(1)

	if out, err := exec.Command(script, "detach", dir, "0").CombinedOutput(); err == nil || !strings.Contains(string(out), "node 0 is not a standby") {
		t.Errorf("detach of the primary: %v, %q; want a refusal", err, out)
	}
	if lsn := strings.TrimSpace(pgcluster.Run(t, script, "detach", dir, "1")); !strings.Contains(lsn, "/") {
		t.Errorf("detach printed %q, want the last received WAL position", lsn)
	}
	var receivers int
	standby.QueryRow(ctx, "SELECT count(*) FROM pg_stat_wal_receiver").Scan(&receivers)
	if receivers != 0 {
		t.Errorf("%d WAL receivers after detach, want none", receivers)
	}
	if _, err := primary.Exec(ctx, "INSERT INTO detach_t VALUES (2)"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second) // a streaming standby replays a row in milliseconds
	if count(standby, 2) != 0 {
		t.Fatal("a row committed after detach reached the standby")
	}
	pgcluster.Run(t, script, "attach", dir, "1")
	waitFor(2)

	pgcluster.Run(t, script, "detach", dir, "1")
	if _, err := primary.Exec(ctx, "INSERT INTO detach_t VALUES (3)"); err != nil {
		t.Fatal(err)
	}
	standby.Close(ctx)
	pgcluster.Run(t, script, "kill", dir, "0")
	pgcluster.Run(t, script, "promote", dir, "1")
	promoted := connect(t, urls[1])
	if count(promoted, 2) != 1 || count(promoted, 3) != 0 {
		t.Errorf("promoted standby holds row 2 %d times and row 3 %d times; want 1 and 0", count(promoted, 2), count(promoted, 3))
	}
}
