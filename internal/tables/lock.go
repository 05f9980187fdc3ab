package tables

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/target"
)

// pollInterval is how often a lock that another process holds is tried
// again. The locks are tried rather than waited for so that a wait ends
// with its context (Ctrl-C) on every backend.
const pollInterval = 200 * time.Millisecond

// locker takes and releases candor's lock of one table on one backend.
// Its holds last until released or until close.
type locker interface {
	// try takes the lock of table (lower case), shared or exclusive,
	// without waiting: false when another session holds it.
	try(ctx context.Context, table string, shared bool) (bool, error)
	// downgrade turns this locker's exclusive hold of table into a shared
	// one with no moment between in which another process could take it
	// exclusively.
	downgrade(ctx context.Context, table string) error
	// release drops this locker's hold of table, if any.
	release(ctx context.Context, table string) error
	// kind names the mechanism for messages and docs.
	kind() string
	close() error
}

// FileBacked is implemented by targets that are a database file on this
// machine (SQLite): candor locks a file beside it, DatabaseFile()+LockSuffix.
type FileBacked interface {
	DatabaseFile() string
}

// LockSuffix is appended to an embedded database's path to name its lock
// file. The file is empty and stays after the lock is released.
const LockSuffix = ".candor-lock"

// Locks are candor's locks on some tables of one target: exclusive while a
// command inspects, drops, creates, loads or cleans them up; shared while a
// run uses them (PostgreSQL's shared advisory locks, a shared lock of the
// SQLite lock file; on MySQL, whose GET_LOCK has no shared mode, one of a
// table's reader slots: slotLocker). A lock held by another candor process
// is waited for, saying so once on the status writer, until the context
// ends.
type Locks struct {
	lk     locker
	tables []string // sorted, lower case
	held   map[string]bool
	shared bool // the holds are shared
	status io.Writer
}

// newLocker returns the locker for tgt: a file lock beside an embedded
// database, the dialect's session locks on a session of their own, or none
// where the product has no locks candor uses.
func newLocker(ctx context.Context, tgt target.Target) (locker, error) {
	if fb, ok := tgt.(FileBacked); ok {
		return openFileLocker(fb.DatabaseFile() + LockSuffix)
	}
	stmts, ok := dialect.Locks(tgt.Dialect())
	if !ok {
		return noLocker{}, nil
	}
	c, err := tgt.Connect(ctx)
	if err != nil {
		return nil, err
	}
	if stmts.TryShared == "" {
		return newSlotLocker(c, tgt.Dialect(), stmts), nil
	}
	return &sqlLocker{c: c, d: tgt.Dialect(), s: stmts, held: map[string]bool{}}, nil
}

// Lock takes the exclusive locks of tables on tgt, in name order (so two
// processes never wait for each other in a circle), waiting for other
// processes' holds; the caller closes the Locks. cleanup takes them
// before it drops tables.
func Lock(ctx context.Context, tgt target.Target, tables []string, status io.Writer) (*Locks, error) {
	lk, err := newLocker(ctx, tgt)
	if err != nil {
		return nil, &Error{Kind: Unreachable, Err: fmt.Errorf("open a session for candor's table locks: %w", err)}
	}
	l := newLocks(lk, tables, status)
	if err := l.acquire(ctx, false); err != nil {
		l.Close()
		return nil, err
	}
	return l, nil
}

func newLocks(lk locker, tables []string, status io.Writer) *Locks {
	names := make([]string, 0, len(tables))
	for _, t := range tables {
		names = append(names, strings.ToLower(t))
	}
	slices.Sort(names)
	names = slices.Compact(names)
	if status == nil {
		status = io.Discard
	}
	return &Locks{lk: lk, tables: names, held: map[string]bool{}, status: status}
}

// acquire takes every table's lock in the given mode, waiting as needed.
func (l *Locks) acquire(ctx context.Context, shared bool) error {
	l.shared = shared
	for _, t := range l.tables {
		said := false
		for {
			ok, err := l.lk.try(ctx, t, shared)
			if err != nil {
				return &Error{Kind: Unreachable, Err: fmt.Errorf("take candor's lock of table %s (%s): %w", t, l.lk.kind(), err)}
			}
			if ok {
				l.held[t] = true
				break
			}
			if !said {
				why := "for a run, a load or a cleanup"
				if shared {
					why = "to load, drop or clean it up"
				}
				fmt.Fprintf(l.status, "waiting for table %s: another candor process holds its lock (%s) %s; Ctrl-C to give up\n", t, l.lk.kind(), why)
				said = true
			}
			select {
			case <-ctx.Done():
				return &Error{Kind: Interrupted, Err: fmt.Errorf("gave up waiting for candor's lock of table %s: %w", t, ctx.Err())}
			case <-time.After(pollInterval):
			}
		}
	}
	return nil
}

// tryExclusive takes every table's lock exclusively if it can at once;
// when one is held by another process it gives back what it took and
// returns false.
func (l *Locks) tryExclusive(ctx context.Context) (bool, error) {
	l.shared = false
	for _, t := range l.tables {
		ok, err := l.lk.try(ctx, t, false)
		if err == nil && ok {
			l.held[t] = true
			continue
		}
		_ = l.lk.release(ctx, t) // what a partial try kept (slotLocker's gate)
		l.releaseAll(ctx)
		if err != nil {
			return false, &Error{Kind: Unreachable, Err: fmt.Errorf("take candor's lock of table %s (%s): %w", t, l.lk.kind(), err)}
		}
		return false, nil
	}
	return true, nil
}

// releaseAll drops every hold; errors are ignored (closing the locker's
// session releases them anyway).
func (l *Locks) releaseAll(ctx context.Context) {
	for _, t := range l.tables {
		if l.held[t] {
			_ = l.lk.release(ctx, t)
			delete(l.held, t)
		}
	}
}

// downgrade turns exclusive holds into shared ones.
func (l *Locks) downgrade(ctx context.Context) error {
	if l.shared {
		return nil
	}
	for _, t := range l.tables {
		if err := l.lk.downgrade(ctx, t); err != nil {
			return &Error{Kind: Unreachable, Err: fmt.Errorf("share candor's lock of table %s (%s): %w", t, l.lk.kind(), err)}
		}
	}
	l.shared = true
	return nil
}

// Close releases the locks and ends their session. It is safe to call
// more than once.
func (l *Locks) Close() error {
	if l == nil || l.lk == nil {
		return nil
	}
	l.releaseAll(context.Background())
	err := l.lk.close()
	l.lk = nil
	return err
}

// sqlLocker takes the dialect's session locks with a shared mode
// (PostgreSQL advisory locks) on a session of its own.
type sqlLocker struct {
	c    target.Conn
	d    dialect.Dialect
	s    dialect.TableLocks
	held map[string]bool // table -> held shared (false: exclusive)
}

func (s *sqlLocker) kind() string { return "advisory lock" }

func (s *sqlLocker) run(ctx context.Context, sql, table string) (bool, error) {
	ok := false
	_, err := s.c.Query(ctx, sql, []any{dialect.LockKey(s.d, table)}, func(cols [][]byte) error {
		ok = len(cols) > 0 && string(cols[0]) == "ok"
		return nil
	})
	return ok, err
}

func (s *sqlLocker) try(ctx context.Context, table string, shared bool) (bool, error) {
	if _, held := s.held[table]; held {
		return true, nil
	}
	sql := s.s.TryExclusive
	if shared {
		sql = s.s.TryShared
	}
	ok, err := s.run(ctx, sql, table)
	if ok {
		s.held[table] = shared
	}
	return ok, err
}

func (s *sqlLocker) downgrade(ctx context.Context, table string) error {
	shared, held := s.held[table]
	if !held || shared {
		return nil
	}
	// Take it shared while still holding it exclusively (granted to the
	// same session at once), then drop the exclusive hold.
	ok, err := s.run(ctx, s.s.TryShared, table)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("the shared lock was refused while this session held the lock exclusively")
	}
	s.held[table] = true
	_, err = s.run(ctx, s.s.Unlock, table)
	return err
}

func (s *sqlLocker) release(ctx context.Context, table string) error {
	shared, held := s.held[table]
	if !held {
		return nil
	}
	delete(s.held, table)
	sql := s.s.Unlock
	if shared {
		sql = s.s.UnlockShared
	}
	_, err := s.run(ctx, sql, table)
	return err
}

func (s *sqlLocker) close() error { return s.c.Close() }

// noLocker is the locker of a target without locks candor uses.
type noLocker struct{}

func (noLocker) try(context.Context, string, bool) (bool, error) { return true, nil }
func (noLocker) downgrade(context.Context, string) error         { return nil }
func (noLocker) release(context.Context, string) error           { return nil }
func (noLocker) kind() string                                    { return "no lock" }
func (noLocker) close() error                                    { return nil }
