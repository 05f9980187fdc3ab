package probe

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/target"
)

// Bounds that tell a hang from an end; no verdict depends on them.
const (
	// stepBound is how long the probe waits for one step that is neither
	// done nor seen waiting for a lock, and at the end for every step
	// still outstanding: past the server's own lock wait bound
	// (dialect.ProbeLockWait), so that a lock wait ends as the server's
	// error first.
	stepBound = 2*dialect.ProbeLockWait*time.Second + 30*time.Second
	// clientBlocked: on a server without a view of lock waits, a step
	// not done after this long is taken as waiting for a lock.
	clientBlocked = 2 * time.Second
	// pollEvery is how often the probe asks the server whether a step
	// waits for a lock.
	pollEvery = 5 * time.Millisecond
)

// stepRecord is what one step of a script did.
type stepRecord struct {
	done    chan struct{} // closed when the step ended (ran, failed or was skipped)
	blocked bool          // the step waited for a lock held by another session
	skipped bool          // its session had aborted before it
	err     error
	rows    map[int]int // a read's rows: id → v
	mu      sync.Mutex  // guards blocked while the step runs
}

func (r *stepRecord) isDone() bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

func (r *stepRecord) setBlocked() {
	r.mu.Lock()
	r.blocked = true
	r.mu.Unlock()
}

func (r *stepRecord) wasBlocked() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.blocked
}

// session is one transaction's connection, served by its own goroutine that
// runs the steps it is given in order.
type session struct {
	conn    target.Conn
	id      string        // the server's session id ("" when none)
	queue   chan int      // step indexes, in script order
	nudge   chan struct{} // another session finished a step: retry one that would block
	aborted bool          // a step failed: the transaction is over (only the goroutine reads it)
	last    int           // the index of the last step queued, -1 when none
}

// execution runs one script on fresh sessions and records what each step did.
type execution struct {
	tgt     target.Target
	probe   dialect.IsolationProbe
	monitor target.Conn // asks the server about lock waits; idle otherwise
	waiting string      // the Waiting statement that runs here; "" when none does
	table   string
	steps   []step
	recs    []*stepRecord
	ss      []*session
}

// execute runs sc on new sessions of tgt (their isolation is the target's)
// and returns the record of every step. It fails only when the probe itself
// cannot run: a session that cannot connect, a step that hangs past
// stepBound.
func (x *execution) execute(ctx context.Context, sc script) (recs []*stepRecord, err error) {
	x.steps = sc.steps
	x.recs = make([]*stepRecord, len(sc.steps))
	for i := range x.recs {
		x.recs[i] = &stepRecord{done: make(chan struct{})}
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() {
		cancel()
		for _, s := range x.ss {
			close(s.queue)
		}
		wg.Wait()
		for _, s := range x.ss {
			s.conn.Close()
		}
		x.ss = nil
	}()
	for i := 0; i < sc.sessions; i++ {
		s, err := x.open(ctx)
		if err != nil {
			return nil, err
		}
		x.ss = append(x.ss, s)
		wg.Add(1)
		go func() {
			defer wg.Done()
			x.serve(ctx, s)
		}()
	}
	for i, st := range x.steps {
		s := x.ss[st.t]
		busy := s.last >= 0 && !x.recs[s.last].isDone()
		s.last = i
		s.queue <- i
		if busy {
			// Queued behind a step that waits for a lock: it runs when
			// that one ends, as a person at a terminal would type it.
			continue
		}
		if err := x.await(ctx, i, s); err != nil {
			return nil, err
		}
	}
	deadline := time.NewTimer(stepBound)
	defer deadline.Stop()
	for i, r := range x.recs {
		select {
		case <-r.done:
		case <-deadline.C:
			return nil, fmt.Errorf("isolation probe %s: step %d (%s) did not end within %v: the probe hangs", sc.name, i+1, x.steps[i].text(x.table), stepBound)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return x.recs, nil
}

// open connects one session and applies the probe's session setup.
func (x *execution) open(ctx context.Context) (*session, error) {
	c, err := x.tgt.Connect(ctx)
	if err != nil {
		return nil, fmt.Errorf("isolation probe: opening a session: %w", err)
	}
	s := &session{conn: c, queue: make(chan int, len(x.steps)), nudge: make(chan struct{}, 1), last: -1}
	for _, q := range x.probe.Setup {
		if _, err := c.Exec(ctx, q); err != nil {
			c.Close()
			return nil, fmt.Errorf("isolation probe: session setup %q: %w", q, err)
		}
	}
	if x.probe.SessionID != "" {
		_, err := c.Query(ctx, x.probe.SessionID, nil, func(cols [][]byte) error {
			s.id = string(cols[0])
			return nil
		})
		if err != nil {
			c.Close()
			return nil, fmt.Errorf("isolation probe: reading the session id: %w", err)
		}
	}
	return s, nil
}

// await returns once step i has ended or is seen waiting for a lock.
func (x *execution) await(ctx context.Context, i int, s *session) error {
	r := x.recs[i]
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	start := time.Now()
	for {
		select {
		case <-r.done:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
		if r.wasBlocked() {
			return nil
		}
		waits, err := x.waits(ctx, s)
		if err != nil {
			return err
		}
		if x.waiting == "" && x.probe.WouldBlock == 0 && time.Since(start) > clientBlocked {
			waits = true // no view of lock waits: judged by time
		}
		if waits && !r.isDone() {
			r.setBlocked()
			return nil
		}
		if time.Since(start) > stepBound {
			return fmt.Errorf("isolation probe: step %d (%s) neither ended nor waited for a lock within %v", i+1, x.steps[i].text(x.table), stepBound)
		}
	}
}

// waits reports whether s's statement waits for a lock: as the server sees
// it, or, where it cannot tell, when the statement has run for clientBlocked.
func (x *execution) waits(ctx context.Context, s *session) (bool, error) {
	if x.waiting == "" || s.id == "" {
		return false, nil
	}
	n := 0
	_, err := x.monitor.Query(ctx, x.waiting, []any{s.id}, func(cols [][]byte) error {
		n, _ = strconv.Atoi(string(cols[0]))
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("isolation probe: asking the server whether a session waits for a lock: %w", err)
	}
	return n > 0, nil
}

// serve runs s's steps in order until its queue is closed.
func (x *execution) serve(ctx context.Context, s *session) {
	for i := range s.queue {
		x.runStep(ctx, s, i)
		close(x.recs[i].done)
		for _, o := range x.ss {
			if o != s {
				select {
				case o.nudge <- struct{}{}:
				default:
				}
			}
		}
	}
}

func (x *execution) runStep(ctx context.Context, s *session, i int) {
	st, r := x.steps[i], x.recs[i]
	if s.aborted {
		// The transaction failed earlier; MySQL would run the rest in
		// autocommit mode, so nothing more is sent but the rollback.
		r.skipped = true
		if st.end {
			s.conn.Exec(ctx, "ROLLBACK")
		}
		return
	}
	sql := st.sql
	if x.table != "" {
		sql = expand(sql, x.table)
	}
	var args []any
	if st.args != nil {
		args = st.args(x.recs)
	}
	for {
		var err error
		if st.read {
			rows := map[int]int{}
			_, err = s.conn.Query(ctx, sql, args, func(cols [][]byte) error {
				id, e1 := strconv.Atoi(string(cols[0]))
				v, e2 := strconv.Atoi(string(cols[1]))
				if e1 != nil || e2 != nil {
					return fmt.Errorf("row (%q, %q) is not two integers", cols[0], cols[1])
				}
				rows[id] = v
				return nil
			})
			if err == nil {
				r.rows = rows
			}
		} else {
			_, err = s.conn.Exec(ctx, sql, args...)
		}
		if err != nil && x.wouldBlock(err) {
			// SQLite: the lock is another session's. Wait, as a busy
			// handler would, until another session has done a step.
			r.setBlocked()
			select {
			case <-s.nudge:
				continue
			case <-ctx.Done():
				err = ctx.Err()
			}
		}
		if err != nil {
			r.err = err
			s.aborted = true
			s.conn.Exec(ctx, "ROLLBACK")
		}
		return
	}
}

func (x *execution) wouldBlock(err error) bool {
	if x.probe.WouldBlock == 0 {
		return false
	}
	se, ok := target.ServerErrorOf(x.tgt, err)
	return ok && se.Code == x.probe.WouldBlock
}

// chooseWaiting finds the first of the dialect's Waiting statements that runs
// on the monitor session; "" when none does (the client then judges by time).
func chooseWaiting(ctx context.Context, monitor target.Conn, p dialect.IsolationProbe) string {
	if p.SessionID == "" {
		return ""
	}
	var id string
	if _, err := monitor.Query(ctx, p.SessionID, nil, func(cols [][]byte) error { id = string(cols[0]); return nil }); err != nil {
		return ""
	}
	for _, q := range p.Waiting {
		if _, err := monitor.Query(ctx, q, []any{id}, nil); err == nil {
			return q
		}
	}
	return ""
}

// errCode is the server's code for err: SQLSTATE, or the error number with
// the SQLSTATE where the server gives both; "" when there is none.
func errCode(t target.Target, err error) string {
	se, ok := target.ServerErrorOf(t, err)
	if !ok {
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
			return "client deadline"
		}
		return ""
	}
	switch {
	case se.Code != 0 && se.State != "":
		return strconv.Itoa(se.Code) + "/" + se.State
	case se.Code != 0:
		return strconv.Itoa(se.Code)
	}
	return se.State
}
