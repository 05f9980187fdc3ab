package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/candor-bench/candor/internal/fault"
	"github.com/candor-bench/candor/internal/testutil/faultproxy"
)

func postgresURL(t *testing.T) string {
	t.Helper()
	u := os.Getenv("CANDOR_TEST_POSTGRES_URL")
	if u == "" {
		t.Skip("CANDOR_TEST_POSTGRES_URL unset: no PostgreSQL on this machine (scripts/test.sh sets it)")
	}
	return u
}

// withParam adds a query parameter to a URL (pgx sends unknown ones as
// session settings at connect time).
func withParam(u, kv string) string {
	if strings.Contains(u, "?") {
		return u + "&" + kv
	}
	return u + "?" + kv
}

// TestAuditSynchronousCommitOnPostgres: the same run with
// synchronous_commit on and off is an unfair pair: durability-differs is
// an error and candor audit exits 1; the two runs at on are silent on it.
func TestAuditSynchronousCommitOnPostgres(t *testing.T) {
	pg := postgresURL(t)
	t.Parallel()
	dir := t.TempDir()
	// A table of its own: other PostgreSQL tests run at once.
	const table = "cli_audit_sync_commit"
	t.Cleanup(func() { runAbs(t, dir, "cleanup", "ycsb", "--target", pg, "-p", "table="+table, "-q") })
	at := func(name string) string { return filepath.Join(dir, name) }
	for _, c := range []struct{ out, url string }{
		{"on.json", withParam(pg, "synchronous_commit=on")},
		{"on2.json", withParam(pg, "synchronous_commit=on")},
		{"off.json", withParam(pg, "synchronous_commit=off")},
	} {
		if code, _, errOut := runAbs(t, dir, "run", "ycsb/a", "--target", c.url, "--time", "1s", "-q", "-o", at(c.out), "-p", "recordcount=200", "-p", "table="+table, "--seed", "1"); code != 0 {
			t.Fatalf("run %s: exit %d\n%s", c.out, code, errOut)
		}
	}
	code, out, _ := runAbs(t, dir, "audit", at("on.json"), at("off.json"))
	if code != ExitAuditFindings || !strings.Contains(out, "ERROR   durability-differs") ||
		!strings.Contains(out, "flushed locally per commit (synchronous_commit=on") || !strings.Contains(out, "periodic (synchronous_commit=off") {
		t.Errorf("on vs off: exit %d\n%s", code, out)
	}
	code, out, _ = runAbs(t, dir, "audit", at("on.json"), at("on2.json"))
	if code != 0 || strings.Contains(out, "durability") {
		t.Errorf("on vs on: exit %d\n%s", code, out)
	}
}

// sameVerdict is rerun's verdict of no significant difference, reproduced
// (an interval within ±10%) or too wide to tell.
var sameVerdict = regexp.MustCompile(`verdict: (reproduced: )?no significant difference \(`)

// TestRerunOnPostgres: a 1 s PostgreSQL run with 3 repetitions reruns
// no significant difference against itself, and "significantly slower" through a proxy adding 10 ms per round
// trip.
//
// The run is an open loop of 200 Poisson arrivals per second on one
// session, a rate PostgreSQL serves at a few percent of one core: its
// throughput is the schedule's, not the shared machine's speed of the
// moment (a closed loop's drifted by 30% between consecutive runs here).
// The rate leaves the session time to spare on a machine busy with the
// other tests under -race: at 1,000 per second an original that fell
// behind its schedule read as "significantly slower" than its reruns.
// Through the proxy one session serves at most ~95 operations per second:
// slower, by far enough that the repetitions' spread on a busy machine (at
// 2 ms a round trip, 143 to 450 per second under -race) does not hide it. A test at the 5% level says "faster" or "slower" of two
// identical configurations once in 20 by design: a verdict other than
// "no significant difference" gets one more rerun, and so does one other
// than "significantly slower" through the proxy (in CI the repetitions of
// a busy machine once spread too wide to call -72%: p = 0.052).
func TestRerunOnPostgres(t *testing.T) {
	pg := postgresURL(t)
	t.Parallel()
	dir := t.TempDir()
	orig := filepath.Join(dir, "orig.json")
	if code, _, errOut := runAbs(t, dir, "run", "ycsb/c", "--target", pg, "--time", "1s", "--rate", "200", "--arrival", "poisson",
		"--repeat", "3", "-q", "-o", orig, "-p", "recordcount=1000"); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, errOut)
	}
	// The rerun against itself and the one through a slow proxy run at once
	// (both only read the table), as subtests that take no slot of
	// -test.parallel: queued behind the other tests' they made this test
	// the package's last.
	itself := func(t *testing.T) {
		var code int
		var out, errOut string
		for try := 1; try <= 2; try++ {
			code, out, errOut = runAbs(t, dir, "rerun", orig, "-o", filepath.Join(dir, fmt.Sprintf("same%d.json", try)))
			if code != 0 || sameVerdict.MatchString(out) {
				break
			}
			t.Logf("rerun %d against itself: %s", try, strings.SplitN(out, "\n", 3)[1])
		}
		if code != 0 || !sameVerdict.MatchString(out) {
			t.Errorf("rerun against itself: exit %d\n%s\n%s", code, out, errOut)
		}
		if !strings.Contains(errOut, "--repeat 3") {
			t.Errorf("rerun did not repeat 3 times:\n%s", errOut)
		}
	}
	throughProxy := func(t *testing.T) {
		ps, slow := faultproxy.Start(t, pg)
		f, err := fault.Parse("at=0s net=latency delay=10ms node=all")
		if err != nil {
			t.Fatal(err)
		}
		lift, err := ps.Apply(0, f)
		if err != nil {
			t.Fatal(err)
		}
		defer lift()
		const slower = "verdict: not reproduced: the rerun is significantly slower ("
		var code int
		var out, errOut string
		for try := 1; try <= 2; try++ {
			code, out, errOut = runAbs(t, dir, "rerun", orig, "--target", slow, "-o", filepath.Join(dir, fmt.Sprintf("slow%d.json", try)))
			if code != 0 || strings.Contains(out, slower) {
				break
			}
			t.Logf("rerun %d through the proxy: %s", try, strings.SplitN(out, "\n", 3)[1])
		}
		if code != 0 || !strings.Contains(out, slower) {
			t.Errorf("rerun through a 10 ms proxy: exit %d\n%s\n%s", code, out, errOut)
		}
		if _, err := os.Stat(filepath.Join(dir, "slow1.json")); err != nil {
			t.Error(err)
		}
	}
	var wg sync.WaitGroup
	wg.Go(func() { t.Run("itself", itself) })
	wg.Go(func() { t.Run("through a slow proxy", throughProxy) })
	wg.Wait()
}
