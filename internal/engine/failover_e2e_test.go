package engine

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/ledger"
	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/target/targettest"
	"github.com/candor-bench/candor/internal/testutil/oracle"
	"github.com/candor-bench/candor/internal/testutil/pgcluster"
)

// runFailover runs the ledger at 400 writes/s on 4 threads against a
// cluster's primary and standby (--target-role primary) for d with the
// faults given, requires both faults done and an accounting, and returns
// the run phase and the directory the result is in.
func runFailover(t *testing.T, name string, urls []string, d time.Duration, faults ...string) (*result.Phase, string) {
	t.Helper()
	work := t.TempDir()
	out := filepath.Join(work, name+".json")
	s := specFor(PhaseRun, "ledger", "", out)
	s.Targets, s.TargetRole, s.Quiet = urls[:2], RolePrimary, false
	s.Threads, s.Rate, s.Duration, s.Faults = ptr(4), ptr(400.0), ptr(d), faults
	// The primary is killed on purpose, a second or more before the
	// promote, in a run of a few seconds: far above the default
	// --max-unavailable 5%, which is then off (the test judges the
	// fail-over by its accounting).
	s.MaxUnavailable = 0
	if r := runE2E(t, s); r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	p := runPhaseOf(t, out)
	if len(p.Faults) != 2 || p.Faults[0].Status != "done" || p.Faults[1].Status != "done" {
		t.Fatalf("faults %+v: want both done", p.Faults)
	}
	if p.Ledger == nil || p.Ledger.Accounting == nil || p.Ledger.Accounting.Fault == nil {
		t.Fatalf("no accounting: %+v", p.Ledger)
	}
	return p, work
}

// A synchronous standby, the primary SIGKILLed at 2 s and the standby
// promoted at 3 s: no acknowledged write is lost, the workers follow the
// promoted node (--target-role primary), and the RTO is the scripted
// outage (1 s) within 1 s.
func TestFailoverSynchronousLosesNothing(t *testing.T) {
	t.Parallel()
	sh := pgcluster.Script(t)
	dir, urls := pgcluster.Start(t, sh, "--standbys", "1", "--sync", "one")
	p, _ := runFailover(t, "sync", urls, 6*time.Second, "at=2s run="+sh+" kill "+dir+" 0", "at=3s run="+sh+" promote "+dir+" 1")
	a := p.Ledger.Accounting
	if a.Lost != 0 {
		t.Errorf("lost %d acknowledged writes with a synchronous standby (ids %v)", a.Lost, a.LostIDs)
	}
	outage := p.Faults[1].StartS - p.Faults[0].StartS
	if rto := a.Fault.RTOSeconds; rto == nil {
		t.Errorf("no RTO, want one within 1 s of the scripted outage %.2f s", outage)
	} else if *rto < outage || *rto > outage+1 {
		t.Errorf("RTO %.3f s, want within 1 s of the scripted outage %.2f s", *rto, outage)
	}
	var recon int64
	for _, w := range p.Workers {
		recon += w.Reconnects
		if w.Reconnects > 0 && w.NoSessionSec <= 0 {
			t.Errorf("worker %+v reconnected without time without a session", w)
		}
	}
	if recon == 0 || a.Acknowledged < 1000 {
		t.Errorf("reconnects %d, acknowledged %d: the run did not go on after the promote", recon, a.Acknowledged)
	}
}

// An asynchronous standby cut off its primary at 1 s (pg-cluster.sh
// detach: its WAL receiver stops), the primary killed at 3 s and the
// standby promoted: the acknowledged writes the standby never received are
// lost. What is guaranteed, and checked independently of the ledger's own
// arithmetic:
//   - the ledger's lost count equals the ids the old primary holds
//     (restarted alone) and the promoted standby lacks, acknowledged;
//   - every write sent after the detach returned and acknowledged before
//     the kill began is lost (so lost > 0);
//   - the standby holds a prefix of the primary's history: no kept write
//     was sent after a lost one was acknowledged;
//   - the earliest lost acknowledgement is the ledger's, and the RPO is
//     measured from the kill (the fault the writes failed after; the
//     detach before it failed none): positive, about the 2 s between.
//
// A SIGSTOP of the standby (pg-cluster.sh pause) does not guarantee a
// loss: the WAL already in the loopback socket buffers (megabytes; a
// ledger row's padding compresses to a few bytes of WAL) reaches the
// standby after the resume, even from a killed primary, so in some runs
// nothing was lost. detach drops the receiver's connection instead.
func TestFailoverAsynchronousLosesAcknowledged(t *testing.T) {
	t.Parallel()
	sh := pgcluster.Script(t)
	dir, urls := pgcluster.Start(t, sh, "--standbys", "1", "--sync", "none")
	p, work := runFailover(t, "async", urls, 10*time.Second, "at=1s run="+sh+" detach "+dir+" 1",
		// The promote after the kill, in one command: promoted first, the
		// standby would take no writes (the old primary still would).
		"at=3s run="+sh+" kill "+dir+" 0 && "+sh+" promote "+dir+" 1")
	a := p.Ledger.Accounting
	detached, killed := p.Faults[0].End, p.Faults[1].Start

	// The independent count.
	promoted := oracle.IDs(t, urls[1], "candor_ledger")
	if out, err := exec.Command(sh, "restart", dir, "0").CombinedOutput(); err != nil {
		t.Fatalf("restart the old primary: %v\n%s", err, out)
	}
	old := oracle.IDs(t, urls[0], "candor_ledger")
	records, _, err := ledger.ReadDir(filepath.Join(work, p.Ledger.Dir))
	if err != nil {
		t.Fatal(err)
	}
	acked := map[int64]ledger.Record{}
	for _, r := range records {
		if r.Outcome == ledger.Acknowledged {
			acked[r.ID] = r
		}
	}
	independent, unanswered := 0, 0
	var earliest int64
	for id := range old {
		if promoted[id] == 0 {
			if r, ok := acked[id]; ok {
				independent++
				if earliest == 0 || r.End < earliest {
					earliest = r.End
				}
			} else {
				unanswered++
			}
		}
	}
	if a.Lost != independent {
		t.Errorf("ledger lost %d, the old primary holds %d acknowledged ids the promoted standby lacks (and %d unanswered)", a.Lost, independent, unanswered)
	}
	var cutOff, keptLatestStart int64
	for id, r := range acked {
		switch {
		case r.Start >= detached.UnixNano() && r.End <= killed.UnixNano():
			cutOff++
			if promoted[id] != 0 {
				t.Errorf("write %d, sent after the detach and acknowledged before the kill, is on the promoted standby", id)
			}
		case promoted[id] != 0 && old[id] != 0:
			keptLatestStart = max(keptLatestStart, r.Start)
		}
	}
	if cutOff == 0 || a.Lost == 0 {
		t.Fatalf("%d writes acknowledged between the detach (%v) and the kill (%v), %d lost: want some", cutOff, detached, killed, a.Lost)
	}
	if earliest <= keptLatestStart {
		t.Errorf("a write kept by the standby was sent at %v, after a lost one was acknowledged (%v): not a prefix",
			time.Unix(0, keptLatestStart), time.Unix(0, earliest))
	}
	// RPO is measured from the kill, not the detach; compared within
	// 1 µs: the ledger divides nanoseconds by 1e9, Duration.Seconds adds
	// whole and fractional seconds, and the two differ in the last bit
	// for about 1 duration in 12 (an exact comparison failed on that alone).
	f := a.Fault
	if f.EarliestLostAck == nil || f.EarliestLostAck.UnixNano() != earliest ||
		math.Abs(f.RPOSeconds-p.Faults[1].Start.Sub(*f.EarliestLostAck).Seconds()) > 1e-6 || f.RPOSeconds <= 0 {
		t.Errorf("fault accounting %+v: want the earliest lost acknowledgement at %v, the RPO from the kill (%v)",
			f, time.Unix(0, earliest).UTC(), p.Faults[1].Start)
	}
	if l := p.Ledger; l == nil || l.FaultIndex == nil || *l.FaultIndex != p.Faults[1].Index {
		t.Errorf("the ledger's accounting names fault %v, want the kill's index %d", l, p.Faults[1].Index)
	}
	t.Logf("acknowledged %d, lost %d (%d sent after the detach and acknowledged before the kill), %d unanswered, RPO %.3f s",
		a.Acknowledged, a.Lost, cutOff, unanswered, f.RPOSeconds)

	// The old primary now runs beside the promoted one: both accept
	// writes. verify with both and --target-role primary is refused (it
	// read the old primary, the first, and reported its history); with
	// the promoted node alone it agrees with the run.
	out := filepath.Join(work, "async.json")
	code, stdout, stderr := verifyE2E(t, out, VerifyRequest{Targets: urls[:2], Role: RolePrimary, RoleSet: true})
	if code != ExitUnsupported || !strings.Contains(stderr, "2 nodes accept writes") {
		t.Errorf("verify against two primaries: exit %d, want %d naming both\n%s\n%s", code, ExitUnsupported, stdout, stderr)
	}
	code, stdout, stderr = verifyE2E(t, out, VerifyRequest{Targets: urls[1:2]})
	if code != 0 {
		t.Fatalf("verify against the promoted node: exit %d\n%s\n%s", code, stdout, stderr)
	}
	lr := runPhaseOf(t, out).Ledger
	if len(lr.Verifications) != 2 || lr.Verifications[0].Outcome != "refused" || lr.Verifications[1].Accounting == nil ||
		lr.Verifications[1].Accounting.Lost != independent || lr.Accounting.Lost != a.Lost {
		t.Errorf("verifications %+v, accounting %+v: want one refused, one with %d lost, the run's kept", lr.Verifications, lr.Accounting, independent)
	}
}

// A 3 s network pause through the in-process proxy: a band in the
// result, an RTO of 3 s ± 0.3 s, and nothing lost.
func TestProxyPauseRTO(t *testing.T) {
	url := os.Getenv("CANDOR_TEST_POSTGRES_URL")
	if url == "" {
		t.Skip("CANDOR_TEST_POSTGRES_URL unset: no PostgreSQL on this machine (scripts/test.sh sets it)")
	}
	t.Parallel()
	out := filepath.Join(t.TempDir(), "pause.json")
	table := targettest.TableName("candor_ledger_pause")
	defer cleanupE2E(t, url, "ledger", "table="+table)
	s := specFor(PhaseRun, "ledger", url, out, "table="+table)
	s.Threads, s.Duration, s.Faults, s.Quiet = ptr(2), ptr(6*time.Second), []string{"at=1500ms for=3s net=pause node=0"}, false
	if r := runE2E(t, s); r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	p := runPhaseOf(t, out)
	if len(p.Faults) != 1 || p.Faults[0].Kind != "net-pause" || p.Faults[0].Status != "done" {
		t.Fatalf("faults %+v: want one net-pause, done", p.Faults)
	}
	if band := p.Faults[0].EndS - p.Faults[0].StartS; band < 2.9 || band > 3.3 {
		t.Errorf("the pause's band is %.2f s, want 3 s", band)
	}
	a := p.Ledger.Accounting
	if a == nil || a.Fault == nil || a.Fault.RTOSeconds == nil {
		t.Fatalf("no RTO: %+v", p.Ledger)
	}
	if rto := *a.Fault.RTOSeconds; rto < 2.7 || rto > 3.3 {
		t.Errorf("RTO %.3f s, want 3 s ± 0.3 s", rto)
	}
	// A write in flight when the phase ends is unknown (at most one per
	// worker): the pause itself loses, fails and leaves unknown nothing.
	if a.Lost != 0 || a.Unknown > 2 || a.Failed != 0 {
		t.Errorf("accounting %+v: a pause loses and fails nothing", a)
	}
}

// A ledger run whose ids cannot be read back (the only node killed during
// the run, --recovery-timeout 1s) writes its result, says it has no
// accounting, and exits 3 rather than 0: its lost writes are not counted.
func TestLedgerUnaccountedExitsUnreachable(t *testing.T) {
	t.Parallel()
	sh := pgcluster.Script(t)
	dir, urls := pgcluster.Start(t, sh, "--standbys", "0")
	out := filepath.Join(t.TempDir(), "gone.json")
	s := specFor(PhaseRun, "ledger", urls[0], out)
	s.Threads, s.Rate, s.Duration, s.MaxErrorRate, s.RecoveryTimeout = ptr(2), ptr(200.0), ptr(3*time.Second), 1, time.Second
	s.Faults, s.Quiet = []string{"at=1s run=" + sh + " kill " + dir + " 0"}, false
	s.MaxUnavailable = 0 // the only node killed on purpose: the test is of the ledger's missing accounting
	r := runE2E(t, s)
	if r.code != ExitUnreachable || !strings.Contains(r.stderr, "ledger: no accounting") || !strings.Contains(r.stderr, "candor ledger verify") {
		t.Fatalf("exit %d, want %d naming the missing accounting and ledger verify\n%s", r.code, ExitUnreachable, r.stderr)
	}
	p := runPhaseOf(t, out)
	if p.Ledger == nil || p.Ledger.Accounting != nil || p.Ledger.Error == "" {
		t.Errorf("ledger %+v: want no accounting and the reason", p.Ledger)
	}
}
