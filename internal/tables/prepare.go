package tables

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

// Kind classifies an Error for the CLI's exit codes.
type Kind int

const (
	// Refused: the tables' state forbids what was asked (a table candor
	// did not create, an unfinished load, data loaded with other
	// options); nothing was changed. A safety refusal.
	Refused Kind = iota + 1
	// Unreachable: the tables or their locks could not be read.
	Unreachable
	// Failed: creating a table failed.
	Failed
	// Interrupted: the context ended while waiting for a lock.
	Interrupted
)

// Error is an error of this package with its Kind.
type Error struct {
	Kind Kind
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// KindOf returns the Kind of err's first *Error, 0 when it has none.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return 0
}

func refusef(format string, a ...any) error {
	return &Error{Kind: Refused, Err: fmt.Errorf(format, a...)}
}

// Load modes of a run (--load).
const (
	LoadAuto   = "auto"   // load when the tables are absent or do not hold what the run needs
	LoadAlways = "always" // drop candor's tables and load again
	LoadNever  = "never"  // refuse unless the tables serve the run as they are
)

// Request says what a command asks of a workload's tables.
type Request struct {
	// LoadPhase: `candor load` (prepare), which always loads; else a run.
	LoadPhase bool
	// Mode is a run's --load: LoadAuto, LoadAlways or LoadNever.
	Mode string
	// Shard: a load phase that is one of several shards loading disjoint
	// key ranges of the tables at once (load --shard). It holds their locks
	// shared, so that the shards' loads run concurrently; the first creates
	// the tables (exclusively, then shared), and each records its range in
	// the marks atomically: pending while it loads, loaded when it
	// finished (MarkLoaded).
	Shard bool
	// AllowForeign lets candor use, and with LoadAlways drop, tables it did
	// not create (--allow-foreign-tables).
	AllowForeign bool
	// Status receives one line per decision worth telling (a table dropped
	// and reloaded, reused, waited for); nil: none.
	Status io.Writer
	// LoadWith is how this command's load loads, recorded in the marks of
	// the tables it fills (MarkLoaded): the load batch, the target's
	// load_* settings (a CQL target's load_consistency). A run that loads
	// nothing reports the marks' instead (Session.LoadedWith).
	LoadWith map[string]string
}

// tableInfo is what inspecting one table found.
type tableInfo struct {
	name   string
	exists bool
	owned  bool
	mark   Mark
	// replaced says why the table is not the one its mark records (its
	// identity differs, or the mark records none); "" when it is.
	replaced string
}

// plan is what Prepare does to the tables: pure data decided from the
// tables' state by decide.
type plan struct {
	drop     []string // existing tables to drop (then create)
	create   []string // tables to create, dropped ones included, in schema order
	loadInto []string // existing tables a load phase adds records to
	reused   []string // "table: what it holds", reused with other data options
	notes    []string // lines for the status writer
	load     bool     // a load phase runs
}

func (p plan) changes() bool { return len(p.drop) > 0 || len(p.create) > 0 || p.load }

// Session holds a workload's tables for one load or run, from Prepare to
// Close: their locks, and the tables whose marks MarkLoaded completes.
type Session struct {
	// Load says a load phase must run: the caller runs it (and the
	// workload's post-load step), then calls MarkLoaded.
	Load bool
	// Reused lists tables a run uses as they are though they hold data
	// loaded with other options (workload.TableReuser), each as "table:
	// what it holds".
	Reused []string
	// LoadedWith is, when no load is to run (Load false), how the tables
	// were loaded as their marks record it, for each key of
	// Request.LoadWith: its value, "mixed" when the tables differ, or
	// NotRecorded. nil when a load runs (then Request.LoadWith holds).
	LoadedWith map[string]string

	tgt     target.Target
	conn    target.Conn // during withConn only
	wl      workload.Workload
	req     Request
	locks   *Locks
	fresh   bool
	loading []string // tables a load fills, for MarkLoaded
	// pendingSeen: decide read a mark with shard loads pending.
	pendingSeen bool
	marks       []Mark // the marks decide read last, one per existing table
}

// Prepare readies wl's tables on tgt for req: it checks that candor created
// them, decides from their marks whether they serve the request, drops the
// ones that do not (only candor's own, or any with AllowForeign and
// LoadAlways), creates the missing ones marked "loading" (or "loaded" when
// the workload loads nothing) and says in Session.Load whether a load
// phase must run. A run that changes nothing holds the tables' locks
// shared; anything else holds them exclusively until Hold or Close. The
// caller closes the Session.
func Prepare(ctx context.Context, tgt target.Target, wl workload.Workload, req Request) (*Session, error) {
	if req.Status == nil {
		req.Status = io.Discard
	}
	fs, _ := wl.(workload.FreshSchemer)
	s := &Session{tgt: tgt, wl: wl, req: req,
		fresh: fs != nil && fs.FreshSchema() && !req.LoadPhase && req.Mode != LoadNever}
	lk, err := newLocker(ctx, tgt)
	if err != nil {
		return nil, &Error{Kind: Unreachable, Err: fmt.Errorf("open a session for candor's table locks: %w", err)}
	}
	var names []string
	for _, t := range wl.Schema() {
		names = append(names, t.Name)
	}
	s.locks = newLocks(lk, names, req.Status)
	prep := s.prepare
	if req.LoadPhase && req.Shard {
		prep = s.prepareShard
	}
	if err := s.withConn(ctx, prep); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// withConn runs fn with s.conn, a session of its own: the tables are
// inspected and changed on a new session each time (a load or a run may
// have lasted longer than an idle session lives), while the locks stay on
// theirs.
func (s *Session) withConn(ctx context.Context, fn func(context.Context) error) error {
	c, err := s.tgt.Connect(ctx)
	if err != nil {
		return err
	}
	s.conn = c
	defer func() {
		c.Close()
		s.conn = nil
	}()
	return fn(ctx)
}

func (s *Session) prepare(ctx context.Context) error {
	joinable := !s.req.LoadPhase && s.req.Mode != LoadAlways && !s.fresh
	said := false
	for {
		if !joinable {
			if err := s.locks.acquire(ctx, false); err != nil {
				return err
			}
			break
		}
		// A run that finds its tables as it needs them changes nothing:
		// it looks under a shared lock, which other runs share.
		if err := s.locks.acquire(ctx, true); err != nil {
			return err
		}
		p, err := s.decide(ctx)
		if err == nil && !p.changes() {
			s.apply(ctx, p) // notes only
			return nil
		}
		if err != nil && !s.pendingSeen {
			return err
		}
		// Shard loads in progress (pending) are waited for under the
		// exclusive lock, as a load that holds the lock is; once it is
		// taken, what is still pending was interrupted.
		s.locks.releaseAll(ctx)
		ok, err := s.locks.tryExclusive(ctx)
		if err != nil {
			return err
		}
		if ok {
			break
		}
		// Another process holds the tables. It may be making them as
		// this run needs them (the first shard of a run creating the
		// table the others join, then running on it under a shared
		// lock): look again now and then rather than queue behind its
		// whole run for the exclusive lock.
		if !said {
			fmt.Fprintf(s.req.Status, "waiting for table %s: another candor process holds its lock (%s) for a run, a load or a cleanup; Ctrl-C to give up\n",
				strings.Join(s.locks.tables, ", "), s.locks.lk.kind())
			said = true
		}
		select {
		case <-ctx.Done():
			return &Error{Kind: Interrupted, Err: fmt.Errorf("gave up waiting for candor's lock of table %s: %w", strings.Join(s.locks.tables, ", "), ctx.Err())}
		case <-time.After(pollInterval):
		}
	}
	// Decided again under the exclusive lock: another process may have
	// loaded the tables meanwhile.
	p, err := s.decide(ctx)
	if err != nil {
		return err
	}
	return s.apply(ctx, p)
}

// prepareShard readies the tables for one shard's load under a shared
// lock, which the other shards' loads share. Tables to create are created
// by the first shard that takes their lock exclusively; it tries that lock
// without waiting (waiting would queue it behind the loads of the shards
// that found the tables), creates them with its range pending, and shares
// the lock again with no gap. The others find them created.
func (s *Session) prepareShard(ctx context.Context) error {
	said := false
	for {
		if err := s.locks.acquire(ctx, true); err != nil {
			return err
		}
		p, err := s.decide(ctx)
		if err != nil {
			return err
		}
		if len(p.create) == 0 {
			return s.apply(ctx, p)
		}
		s.locks.releaseAll(ctx)
		ok, err := s.locks.tryExclusive(ctx)
		if err != nil {
			return err
		}
		if ok {
			// Decided again under the exclusive lock: another shard may
			// have created the tables meanwhile.
			if p, err = s.decide(ctx); err != nil {
				return err
			}
			if err := s.apply(ctx, p); err != nil {
				return err
			}
			return s.locks.downgrade(ctx)
		}
		if !said {
			fmt.Fprintf(s.req.Status, "waiting for table %s: another shard's load is creating it; Ctrl-C to give up\n", strings.Join(p.create, ", "))
			said = true
		}
		select {
		case <-ctx.Done():
			return &Error{Kind: Interrupted, Err: fmt.Errorf("gave up waiting for table %s to be created: %w", strings.Join(p.create, ", "), ctx.Err())}
		case <-time.After(pollInterval):
		}
	}
}

// decide inspects the tables and decides.
func (s *Session) decide(ctx context.Context) (plan, error) {
	d := s.tgt.Dialect()
	var infos []tableInfo
	s.marks = nil
	for _, t := range s.wl.Schema() {
		exists, owned, err := target.TableState(ctx, s.conn, d, t.Name)
		if err != nil {
			return plan{}, &Error{Kind: Unreachable, Err: fmt.Errorf("inspect table %s: %w", t.Name, err)}
		}
		info := tableInfo{name: t.Name, exists: exists, owned: owned}
		if exists && owned {
			raw, _, err := target.TableOwner(ctx, s.conn, d, t.Name)
			if err != nil {
				return plan{}, &Error{Kind: Unreachable, Err: err}
			}
			info.mark = Parse(raw)
			if info.mark.ShardLoading() {
				s.pendingSeen = true
			}
			// Read once per table each time candor opens it.
			now, err := target.TableIdentity(ctx, s.conn, d, t.Name)
			if err != nil {
				return plan{}, &Error{Kind: Unreachable, Err: err}
			}
			info.replaced = replacedReason(d, info.mark, now)
		}
		if exists {
			s.marks = append(s.marks, info.mark)
		}
		infos = append(infos, info)
	}
	return decide(s.wl, s.req, s.fresh, infos)
}

// decide is the reuse rules: what to do with tables in the state infos
// describes for a request req of wl. fresh: the workload needs empty tables
// at every run.
func decide(wl workload.Workload, req Request, fresh bool, infos []tableInfo) (plan, error) {
	var p plan
	start, count := wl.LoadRange()
	need := KeyRange{start, count}
	reuser, _ := wl.(workload.TableReuser)
	run := !req.LoadPhase
	name := wl.Name()
	drop := map[string]bool{}
	dropIt := func(t string) {
		if !drop[t] {
			drop[t] = true
			p.drop = append(p.drop, t)
		}
	}
	var missing []string
	for i, t := range infos {
		if t.exists && t.owned && t.replaced != "" {
			if !req.AllowForeign {
				return p, replacedError(t.name, t.replaced, "use, write or drop", "to use it as it is")
			}
			infos[i].owned = false // another's table, used as allowed
		}
	}
	for _, t := range infos {
		m := t.mark
		switch {
		case !t.exists:
			missing = append(missing, t.name)
		case !t.owned && !req.AllowForeign:
			return p, refusef("%w: %s exists but candor did not create it, so candor will not use or change it; "+
				"pass --allow-foreign-tables to use it anyway (for instance a table loaded by YCSB itself), or choose another table name (-p table=...)", target.ErrForeignTable, t.name)
		case !t.owned:
			if run && req.Mode == LoadAlways {
				dropIt(t.name) // allowed: the user said so twice
			}
		case req.LoadPhase:
			switch {
			case !m.Loaded() && !(req.Shard && m.ShardLoading()):
				return p, refusef("table %s holds an unfinished load: the load that created it was interrupted, failed or killed; "+
					"run 'candor cleanup %s' (same --target and options) first, then load again", t.name, name)
			case reuser != nil && (count > 0 || !m.SameData(wl)):
				// As sysbench's prepare, whose CREATE TABLE fails on it. A
				// prepare that loads nothing (bulk_insert's CREATE TABLE IF
				// NOT EXISTS) leaves a table of its own shape as it is.
				return p, refusef("table %s already exists (%s): run the tests on it as it is, or 'candor cleanup %s' first to prepare it again", t.name, m.HoldsText(), name)
			case !m.SameData(wl):
				return p, refusef("table %s %s; run 'candor cleanup %s' with those options first, or use 'run --load always'", t.name, m.OtherData(wl), name)
			case count > 0 && (m.Overlaps(need) || m.PendingOverlaps(need)):
				return p, overlapError(t.name, m, need, name)
			case count > 0:
				p.loadInto = append(p.loadInto, t.name)
			}
		case req.Mode == LoadAlways || fresh:
			dropIt(t.name)
		case !m.Loaded():
			if req.Mode == LoadNever {
				return p, refusef("table %s holds an unfinished load (the load that created it was interrupted, failed or killed) and --load=never: "+
					"run with --load auto to reload it, or 'candor cleanup %s' and load again", t.name, name)
			}
			p.notes = append(p.notes, fmt.Sprintf("table %s: its load did not finish (interrupted, failed or killed): dropping and reloading it", t.name))
			dropIt(t.name)
		case !m.SameData(wl):
			switch {
			case m.ServesRun(wl):
				p.notes = append(p.notes, fmt.Sprintf("table %s %s: it serves the run as it is, as in %s", t.name, m.OtherData(wl), wl.Reference()))
				p.reused = append(p.reused, t.name+": "+m.Holds)
			case req.Mode == LoadNever:
				return p, refusef("table %s %s; run 'candor cleanup %s' with those options first, or use 'run --load always'", t.name, m.OtherData(wl), name)
			default:
				p.notes = append(p.notes, fmt.Sprintf("table %s %s: dropping and reloading it", t.name, m.OtherData(wl)))
				dropIt(t.name)
			}
		case reuser == nil && count > 0 && !m.Covers(need):
			if req.Mode == LoadNever {
				return p, refusef("table %s holds %s where this run needs records %s, and --load=never: run with --load auto to reload it, or load the missing records", t.name, m.KeysText(), need)
			}
			p.notes = append(p.notes, fmt.Sprintf("table %s holds %s where this run needs records %s: dropping and reloading it", t.name, m.KeysText(), need))
			dropIt(t.name)
		}
	}
	if run && len(missing) > 0 && req.Mode == LoadNever {
		verb := "does"
		if len(missing) > 1 {
			verb = "do"
		}
		return p, refusef("table %s %s not exist and --load=never: run 'candor load %s' first", strings.Join(missing, ", "), verb, name)
	}
	if run && count > 0 && len(missing)+len(p.drop) > 0 {
		// The load fills every table of the workload at once: the tables
		// it would find filled already go too.
		for _, t := range infos {
			switch {
			case !t.exists || drop[t.name]:
			case !t.owned:
				return p, refusef("table %s was not created by candor and the load of the other tables would insert into it too: drop it yourself, or run with --load always", t.name)
			default:
				p.notes = append(p.notes, fmt.Sprintf("table %s: dropping and reloading it with the others (the load fills every table of %s)", t.name, name))
				dropIt(t.name)
			}
		}
	}
	for _, t := range infos {
		if !t.exists || drop[t.name] {
			p.create = append(p.create, t.name)
		}
	}
	p.load = count > 0 && (req.LoadPhase || len(p.create) > 0)
	return p, nil
}

// overlapError refuses a load of records need into a table whose mark m
// says it holds some of them, or that a shard's load began to insert some.
func overlapError(table string, m Mark, need KeyRange, name string) error {
	if m.Overlaps(need) && !m.isFolded() {
		return refusef("table %s already holds %s, some of the records %s this load inserts: run 'candor cleanup %s' (same --target) first, or load another insertstart/insertcount slice", table, m.KeysText(), need, name)
	}
	return refusef("table %s: the load of records %s by another shard overlaps the records %s this load inserts; it is still running, or it was interrupted (then the table holds part of it): "+
		"give each shard the same --shard N and its own index, or run 'candor cleanup %s' (same --target) and load again", table, m.PendingText(), need, name)
}

// claim records in table's mark that this shard's load inserts its records
// (pending), after checking again against the mark as it is now: another
// shard may have claimed records since decide read it. The mark is swapped
// atomically (target.SwapMark), read again and retried when another shard
// changed it first.
func (s *Session) claim(ctx context.Context, table string) error {
	start, count := s.wl.LoadRange()
	need := KeyRange{start, count}
	name := s.wl.Name()
	return s.swapMark(ctx, table, func(m Mark) (Mark, error) {
		switch {
		case !m.Loaded() && !m.ShardLoading():
			return m, refusef("table %s holds an unfinished load: the load that created it was interrupted, failed or killed; "+
				"run 'candor cleanup %s' (same --target and options) first, then load again", table, name)
		case !m.SameData(s.wl):
			return m, refusef("table %s %s; run 'candor cleanup %s' with those options first, or use 'run --load always'", table, m.OtherData(s.wl), name)
		case m.Overlaps(need) || m.PendingOverlaps(need):
			return m, overlapError(table, m, need, name)
		}
		c := m.Claim(need)
		if !c.pendingFits() {
			return m, refusef("table %s: the mark cannot record one more shard load in progress (%s pending; at most %d characters): load with fewer shards at once", table, m.PendingText(), maxMarkLen)
		}
		return c, nil
	})
}

// swapMark changes table's mark by change, atomically: read, change,
// compare-and-swap, again until no other process changed it in between. A
// table without a mark (foreign, allowed) is left as it is.
func (s *Session) swapMark(ctx context.Context, table string, change func(Mark) (Mark, error)) error {
	d := s.tgt.Dialect()
	for {
		raw, ok, err := target.TableOwner(ctx, s.conn, d, table)
		if err != nil {
			return &Error{Kind: Unreachable, Err: err}
		}
		if !ok {
			return nil
		}
		m, err := change(Parse(raw))
		if err != nil {
			return err
		}
		done, err := target.SwapMark(ctx, s.conn, d, table, raw, m.String())
		if err != nil {
			return &Error{Kind: Unreachable, Err: err}
		}
		if done {
			return nil
		}
		if ctx.Err() != nil {
			return &Error{Kind: Interrupted, Err: fmt.Errorf("recording the load of table %s in its mark: %w", table, ctx.Err())}
		}
	}
}

// apply carries out p: its notes, drops and creations.
func (s *Session) apply(ctx context.Context, p plan) error {
	for _, n := range p.notes {
		fmt.Fprintln(s.req.Status, n)
	}
	s.Reused = p.reused
	s.Load = p.load
	s.LoadedWith = nil
	if !p.load {
		var want []string
		for k := range s.req.LoadWith {
			want = append(want, k)
		}
		s.LoadedWith = loadedWith(s.marks, want)
	}
	d := s.tgt.Dialect()
	for _, t := range p.drop {
		if err := target.DropOwned(ctx, s.conn, d, t, s.req.AllowForeign); err != nil {
			return &Error{Kind: Refused, Err: err}
		}
	}
	if err := s.create(ctx, p.create); err != nil {
		return err
	}
	if s.req.Shard && s.req.LoadPhase {
		for _, t := range p.loadInto {
			if err := s.claim(ctx, t); err != nil {
				return err
			}
		}
	}
	s.loading = append(slices.Clone(p.create), p.loadInto...)
	if !p.load {
		s.loading = nil
	}
	return nil
}

// create creates the named tables of the workload, marked as candor's:
// "loading" when a load is to fill them, else "loaded".
func (s *Session) create(ctx context.Context, names []string) error {
	start, count := s.wl.LoadRange()
	st := StateLoaded
	if count > 0 {
		st = StateLoading
	}
	m := New(s.wl, st)
	if s.req.Shard && s.req.LoadPhase && count > 0 {
		m = m.Claim(KeyRange{start, count})
	}
	mark := func(id string) string {
		m.ID = id
		if id == "" {
			m.ID = NoIdentity
		}
		return m.String()
	}
	for _, t := range s.wl.Schema() {
		if !slices.Contains(names, t.Name) {
			continue
		}
		err := target.CreateMarked(ctx, s.conn, s.tgt.Dialect(), t.Name, t.Create, mark)
		if errors.Is(err, target.ErrTableExists) {
			// Still there after its drop, and candor's: a target that
			// keeps no tables (null://) answers every check with a row.
			continue
		}
		if err != nil {
			return &Error{Kind: Failed, Err: fmt.Errorf("create table %s for %s: %w", t.Name, s.wl.Name(), err)}
		}
	}
	return nil
}

// MarkLoaded records that the load (and the workload's post-load step)
// finished: the marks of the tables it filled say "loaded", with the
// records the load inserted, and Load turns false. Until then they say
// "loading", and a later run reloads them.
func (s *Session) MarkLoaded(ctx context.Context) error {
	return s.withConn(ctx, s.markLoaded)
}

func (s *Session) markLoaded(ctx context.Context) error {
	start, count := s.wl.LoadRange()
	_, reuser := s.wl.(workload.TableReuser)
	d := s.tgt.Dialect()
	with := LoadWithText(s.req.LoadWith)
	for _, t := range s.loading {
		now, err := target.TableIdentity(ctx, s.conn, d, t)
		if err != nil {
			return err
		}
		if s.req.Shard && s.req.LoadPhase {
			// Other shards change the marks at the same time: each moves
			// its own range from pending to loaded, atomically.
			if err := s.swapMark(ctx, t, func(m Mark) (Mark, error) {
				m = withRewritten(d, m, now)
				if !isOurs(d, m, now) {
					return m, nil // another's table (allowed): its mark stays
				}
				m.LoadWith = mergeLoadWith(m.LoadWith, with, false)
				return m.Finish(KeyRange{start, count}), nil
			}); err != nil {
				return err
			}
			continue
		}
		raw, ok, err := target.TableOwner(ctx, s.conn, d, t)
		if err != nil {
			return err
		}
		if !ok {
			continue // a foreign table (allowed): nothing to record
		}
		m := withRewritten(d, Parse(raw), now)
		if !isOurs(d, m, now) {
			continue // another's table under candor's mark (allowed): its mark stays
		}
		m.LoadWith = mergeLoadWith(m.LoadWith, with, !m.Loaded())
		if m.State != stateUnrecorded {
			m.State = StateLoaded
		}
		if !reuser {
			m = m.WithKeys(KeyRange{start, count})
		}
		if err := target.SetMark(ctx, s.conn, d, t, m.String()); err != nil {
			return err
		}
	}
	s.loading, s.Load = nil, false
	return nil
}

// Hold makes the locks of a run shared once its tables are ready, so that
// other runs may use them too while loads and cleanups wait. A workload that
// needs fresh tables keeps them exclusively: they are dropped again before
// its next repetition (Reset).
func (s *Session) Hold(ctx context.Context) error {
	if s.fresh {
		return nil
	}
	return s.locks.downgrade(ctx)
}

// Reset drops and creates the tables of a workload that needs them fresh
// (workload.FreshSchemer) before a repetition of its run; Load then says
// whether a load must fill them again (then MarkLoaded). Other workloads'
// tables are left as they are.
func (s *Session) Reset(ctx context.Context) error {
	if !s.fresh {
		return nil
	}
	return s.withConn(ctx, s.reset)
}

func (s *Session) reset(ctx context.Context) error {
	if !s.req.AllowForeign {
		// Checked again, all before any is dropped: another tool may have
		// replaced one since the last repetition.
		for _, t := range s.wl.Schema() {
			if err := Verify(ctx, s.conn, s.tgt.Dialect(), t.Name, "drop"); err != nil {
				return err
			}
		}
	}
	var names []string
	for _, t := range s.wl.Schema() {
		if err := target.DropOwned(ctx, s.conn, s.tgt.Dialect(), t.Name, s.req.AllowForeign); err != nil {
			return &Error{Kind: Refused, Err: err}
		}
		names = append(names, t.Name)
	}
	if err := s.create(ctx, names); err != nil {
		return err
	}
	_, count := s.wl.LoadRange()
	s.Load = count > 0
	if s.Load {
		s.loading = names
	}
	return nil
}

// Close releases the locks and ends their session. It is safe to call more
// than once.
func (s *Session) Close() error {
	if s == nil {
		return nil
	}
	return s.locks.Close()
}
