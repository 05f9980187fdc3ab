package ledger

import (
	"context"
	"crypto/rand"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/candor-bench/candor/internal/fault"
	"github.com/candor-bench/candor/internal/testutil/faultproxy"
	"github.com/candor-bench/candor/internal/testutil/pgcluster"
)

func connectPG(t *testing.T, url string) *pgx.Conn {
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

// classify maps a write's error to its ledger outcome: the server's
// refusal is Failed; an error pgconn knows happened before anything was
// sent is Failed too (nothing can have committed); anything else (the
// connection died with the commit in flight) is Unknown.
func classify(err error) Outcome {
	var pgErr *pgconn.PgError
	switch {
	case err == nil:
		return Acknowledged
	case errors.As(err, &pgErr), pgconn.SafeToRetry(err):
		return Failed
	}
	return Unknown
}

func ids(t *testing.T, c *pgx.Conn) map[int64]int {
	t.Helper()
	rows, err := c.Query(context.Background(), "SELECT id FROM ledger_t")
	if err != nil {
		t.Fatal(err)
	}
	m := map[int64]int{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		m[id]++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestAsyncFailoverLosesAcknowledgedWrites is the asynchronous half of the
// durability question, with the ledger's accounting checked against an
// independent count. An asynchronous standby is frozen (SIGSTOP: its WAL
// receiver takes nothing more); the primary acknowledges writes until its
// WAL sender is blocked, then is SIGKILLed; the standby is resumed and
// promoted. The writes the ledger calls lost must be exactly those the old
// primary has (restarted alone afterwards) and the promoted standby has
// not, all acknowledged after the freeze.
func TestAsyncFailoverLosesAcknowledgedWrites(t *testing.T) {
	sh := pgcluster.Script(t)
	dir, urls := pgcluster.Start(t, sh, "--standbys", "1", "--sync", "none")
	ctx := context.Background()
	primary := connectPG(t, urls[0])
	if _, err := primary.Exec(ctx, "CREATE TABLE ledger_t (id bigint PRIMARY KEY, pad bytea)"); err != nil {
		t.Fatal(err)
	}
	runStart := time.Now()
	ldir := t.TempDir()
	lw, err := Create(ldir, 0, runStart, 0)
	if err != nil {
		t.Fatal(err)
	}
	var seq int64
	write := func(c *pgx.Conn, pad []byte) Outcome {
		id := ID(0, seq)
		seq++
		start := time.Now()
		_, err := c.Exec(ctx, "INSERT INTO ledger_t (id, pad) VALUES ($1, $2)", id, pad)
		o := classify(err)
		if err := lw.Append(id, start.UnixNano(), time.Now().UnixNano(), o); err != nil {
			t.Fatal(err)
		}
		return o
	}

	// Phase A: 100 writes that reach the standby.
	for range 100 {
		if o := write(primary, nil); o != Acknowledged {
			t.Fatalf("phase A write: %v", o)
		}
	}
	standby := connectPG(t, urls[1])
	var n int
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline) && n < 100; time.Sleep(50 * time.Millisecond) {
		standby.QueryRow(ctx, "SELECT count(*) FROM ledger_t").Scan(&n)
	}
	if n != 100 {
		t.Fatalf("the standby replayed %d of 100 rows in 20 s", n)
	}
	standby.Close(ctx)

	// Phase B: freeze the standby, then write (8 KB of random bytes each,
	// which compress to nothing less) until the primary's WAL sender is
	// 2 MB behind: the socket buffers between them are full, so what
	// follows cannot reach the standby.
	pgcluster.Run(t, sh, "pause", dir, "1")
	frozenAt := seq
	pad := make([]byte, 8192)
	for i := 0; ; i++ {
		rand.Read(pad)
		if o := write(primary, pad); o != Acknowledged {
			t.Fatalf("phase B write: %v", o)
		}
		if i%50 == 49 {
			var behind int64
			if err := primary.QueryRow(ctx, "SELECT coalesce(max(pg_wal_lsn_diff(pg_current_wal_lsn(), sent_lsn)), 0)::bigint FROM pg_stat_replication").Scan(&behind); err != nil {
				t.Fatal(err)
			}
			if behind > 2<<20 {
				break
			}
		}
		if i > 20000 {
			t.Fatal("the WAL sender never fell 2 MB behind a frozen standby")
		}
	}

	// The fault: the primary dies.
	faultAt := time.Now()
	pgcluster.Run(t, sh, "kill", dir, "0")
	faultEnd := time.Now()
	if o := write(primary, nil); o == Acknowledged {
		t.Fatal("a write was acknowledged by a killed primary")
	}
	pgcluster.Run(t, sh, "resume", dir, "1")
	pgcluster.Run(t, sh, "promote", dir, "1")
	promoted := connectPG(t, urls[1])
	for range 20 {
		if o := write(promoted, nil); o != Acknowledged {
			t.Fatalf("write on the promoted standby: %v", o)
		}
	}
	if err := lw.Close(); err != nil {
		t.Fatal(err)
	}

	onNew := ids(t, promoted)
	recs, _, err := ReadDir(ldir)
	if err != nil {
		t.Fatal(err)
	}
	a := Account(Input{Records: recs, Present: onNew, FaultAt: faultAt.UnixNano(), FaultEnd: faultEnd.UnixNano(), MaxListed: 1 << 30})

	// Independent count: the old primary, restarted alone, holds every
	// acknowledged write up to the kill.
	pgcluster.Run(t, sh, "restart", dir, "0")
	onOld := ids(t, connectPG(t, urls[0]))
	var missing []int64
	for id := range onOld {
		if onNew[id] == 0 {
			missing = append(missing, id)
		}
	}
	t.Logf("acknowledged %d, lost %d (independent count %d), writes after the freeze %d, RPO %.3fs, RTO %v s",
		a.Acknowledged, a.Lost, len(missing), seq-frozenAt, a.Fault.RPOSeconds, ptr(a.Fault.RTOSeconds))
	if a.Lost == 0 {
		t.Fatal("no acknowledged write lost on an asynchronous fail-over with a frozen standby")
	}
	if a.Lost != len(missing) {
		t.Errorf("ledger says %d lost, the old primary has %d rows the new one lacks", a.Lost, len(missing))
	}
	for _, id := range a.LostIDs {
		if _, s := SplitID(id); s < frozenAt {
			t.Errorf("id %d (seq %d) lost, but it was written before the standby froze (seq %d)", id, s, frozenAt)
		}
		if onOld[id] == 0 {
			t.Errorf("id %d counted lost but absent from the old primary too", id)
		}
	}
	if a.Fault.RPOSeconds <= 0 || a.Fault.RTOSeconds == nil || *a.Fault.RTOSeconds <= 0 {
		t.Errorf("RPO %v s, RTO %v s: want both positive", a.Fault.RPOSeconds, ptr(a.Fault.RTOSeconds))
	}
	if a.Unrecorded != 0 || a.FailedPresent != 0 || a.Duplicates != 0 {
		t.Errorf("accounting %+v: want no unrecorded, failed-but-present or duplicate writes", a)
	}
}

// TestSyncFailoverLosesNothing: with one synchronous standby, a worker
// writes continuously; the primary is SIGKILLed mid-run and the standby
// promoted 0.5 s later. No acknowledged write is lost, and the RTO the
// ledger reports lies within 1 s of the scripted outage (kill to promoted).
func TestSyncFailoverLosesNothing(t *testing.T) {
	sh := pgcluster.Script(t)
	dir, urls := pgcluster.Start(t, sh, "--standbys", "1", "--sync", "one")
	ctx := context.Background()
	if _, err := connectPG(t, urls[0]).Exec(ctx, "CREATE TABLE ledger_t (id bigint PRIMARY KEY, pad bytea)"); err != nil {
		t.Fatal(err)
	}
	runStart := time.Now()
	ldir := t.TempDir()
	lw, err := Create(ldir, 0, runStart, 0)
	if err != nil {
		t.Fatal(err)
	}

	// The worker: writes to whichever node accepts them (a stand-in for
	// --target-role primary), reconnecting every 50 ms while none does.
	stop := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		var conn *pgx.Conn
		defer func() {
			if conn != nil {
				conn.Close(ctx)
			}
		}()
		var seq int64
		for {
			select {
			case <-stop:
				done <- lw.Close()
				return
			default:
			}
			if conn == nil {
				for _, u := range urls {
					cctx, cancel := context.WithTimeout(ctx, time.Second)
					c, err := pgx.Connect(cctx, u+"&target_session_attrs=read-write")
					cancel()
					if err == nil {
						conn = c
						break
					}
				}
				if conn == nil {
					time.Sleep(50 * time.Millisecond)
					continue
				}
			}
			id := ID(0, seq)
			seq++
			start := time.Now()
			_, err := conn.Exec(ctx, "INSERT INTO ledger_t (id) VALUES ($1)", id)
			o := classify(err)
			if aerr := lw.Append(id, start.UnixNano(), time.Now().UnixNano(), o); aerr != nil {
				done <- aerr
				return
			}
			if err != nil {
				conn.Close(ctx)
				conn = nil
			}
		}
	}()

	time.Sleep(time.Second)
	faultAt := time.Now()
	pgcluster.Run(t, sh, "kill", dir, "0")
	faultEnd := time.Now()
	time.Sleep(500 * time.Millisecond)
	promoteStart := time.Now()
	pgcluster.Run(t, sh, "promote", dir, "1")
	promoted := time.Now()
	time.Sleep(time.Second)
	close(stop)
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	recs, _, err := ReadDir(ldir)
	if err != nil {
		t.Fatal(err)
	}
	a := Account(Input{Records: recs, Present: ids(t, connectPG(t, urls[1])), FaultAt: faultAt.UnixNano(), FaultEnd: faultEnd.UnixNano()})
	outage := promoted.Sub(faultAt).Seconds()
	t.Logf("writes %d, acknowledged %d, failed %d, unknown %d (committed %d), lost %d, RTO %v s, outage %.3f s",
		a.Writes, a.Acknowledged, a.Failed, a.Unknown, a.UnknownCommitted, a.Lost, ptr(a.Fault.RTOSeconds), outage)
	if a.Lost != 0 {
		t.Errorf("%d acknowledged writes lost with a synchronous standby: %v", a.Lost, a.LostIDs)
	}
	if a.Acknowledged < 10 {
		t.Errorf("only %d writes acknowledged: the worker did not run", a.Acknowledged)
	}
	rto := a.Fault.RTOSeconds
	if rto == nil {
		t.Fatal("no RTO: nothing acknowledged after the fail-over")
	}
	if *rto < promoteStart.Sub(faultAt).Seconds() || *rto > outage+1 {
		t.Errorf("RTO %.3f s, want between the promote's start (%.3f s) and 1 s after the outage (%.3f s)",
			*rto, promoteStart.Sub(faultAt).Seconds(), outage)
	}
}

// TestProxyPauseRTO: a 3 s network pause between the worker and a
// PostgreSQL node, through the in-process proxy and the fault executor: the
// event is recorded, no write is lost, and the RTO is 3 s ± 0.3 s.
func TestProxyPauseRTO(t *testing.T) {
	sh := pgcluster.Script(t)
	_, urls := pgcluster.Start(t, sh, "--standbys", "0")
	url := urls[0]
	ctx := context.Background()
	if _, err := connectPG(t, url).Exec(ctx, "CREATE TABLE ledger_t (id bigint PRIMARY KEY, pad bytea)"); err != nil {
		t.Fatal(err)
	}
	ps, proxied := faultproxy.Start(t, url)
	conn := connectPG(t, proxied)

	sched, err := fault.ParseAll([]string{"at=1s for=3s net=pause node=0"})
	if err != nil {
		t.Fatal(err)
	}
	if errs := sched.Validate(fault.Limits{RunLength: 6 * time.Second, Nodes: ps.Len()}); len(errs) > 0 {
		t.Fatal(errs)
	}
	runStart := time.Now()
	ldir := t.TempDir()
	lw, err := Create(ldir, 0, runStart, 0)
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithTimeout(ctx, 6*time.Second)
	defer cancel()
	evc := make(chan []fault.Event, 1)
	go func() {
		evs, err := (&fault.Executor{Schedule: sched, Net: ps}).Run(runCtx, runStart)
		if err != nil {
			t.Error(err)
		}
		evc <- evs
	}()
	for seq := int64(0); runCtx.Err() == nil; seq++ {
		id := ID(0, seq)
		start := time.Now()
		_, err := conn.Exec(ctx, "INSERT INTO ledger_t (id) VALUES ($1)", id)
		if err := lw.Append(id, start.UnixNano(), time.Now().UnixNano(), classify(err)); err != nil {
			t.Fatal(err)
		}
		if err != nil {
			t.Fatalf("write %d through the proxy: %v", seq, err)
		}
	}
	evs := <-evc
	if err := lw.Close(); err != nil {
		t.Fatal(err)
	}
	ev := evs[0]
	if ev.Status != fault.StatusDone || ev.Kind != "net-pause" || ev.EndS-ev.StartS < 3 {
		t.Fatalf("pause event %+v", ev)
	}
	recs, _, err := ReadDir(ldir)
	if err != nil {
		t.Fatal(err)
	}
	a := Account(Input{Records: recs, Present: ids(t, conn), FaultAt: ev.Start.UnixNano(), FaultEnd: ev.End.UnixNano()})
	t.Logf("acknowledged %d, lost %d, RTO %v s", a.Acknowledged, a.Lost, ptr(a.Fault.RTOSeconds))
	if a.Lost != 0 || a.Failed != 0 || a.Unknown != 0 {
		t.Errorf("accounting %+v: want every write acknowledged and present", a)
	}
	if r := a.Fault.RTOSeconds; r == nil || *r < 2.7 || *r > 3.3 {
		t.Errorf("RTO %v s, want 3 s ± 0.3 s", ptr(r))
	}
}
