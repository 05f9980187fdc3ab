package tables

import (
	"context"
	"fmt"

	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/target"
)

// readerSlots is how many processes may hold one table's lock shared at
// once where the product's locks have no shared mode (slotLocker); one
// more waits until a holder ends. 128 leaves room for the shard loads of
// a large job (64 pods or more), each process holding one; an exclusive
// hold then takes 129 locks, some milliseconds on a local server.
const readerSlots = 128

// slotLocker builds a shared mode from exclusive named locks (MySQL's
// GET_LOCK) on a session of its own. Each table has a gate lock and
// readerSlots slot locks. A shared hold takes the gate, then one free slot,
// and gives the gate back; an exclusive hold takes the gate and every slot,
// so it waits for every shared holder to end, and shared requests wait
// while it holds (or waits with) the gate. A downgrade keeps one slot and
// gives back the gate and the others, with no moment in which another
// process could take the table exclusively.
type slotLocker struct {
	c target.Conn
	d dialect.Dialect
	s dialect.TableLocks
	// names are the locks held per table (gate and slots), in the order
	// taken; shared marks tables held shared.
	names  map[string][]string
	shared map[string]bool
}

func newSlotLocker(c target.Conn, d dialect.Dialect, s dialect.TableLocks) *slotLocker {
	return &slotLocker{c: c, d: d, s: s, names: map[string][]string{}, shared: map[string]bool{}}
}

func (l *slotLocker) kind() string { return "GET_LOCK" }

func gate(table string) string        { return table + "#gate" }
func slot(table string, k int) string { return fmt.Sprintf("%s#slot%d", table, k) }
func (l *slotLocker) has(name, table string) bool {
	for _, n := range l.names[table] {
		if n == name {
			return true
		}
	}
	return false
}

func (l *slotLocker) get(ctx context.Context, table, name string) (bool, error) {
	if l.has(name, table) {
		return true, nil
	}
	ok := false
	_, err := l.c.Query(ctx, l.s.TryExclusive, []any{dialect.LockKey(l.d, name)}, func(cols [][]byte) error {
		ok = len(cols) > 0 && string(cols[0]) == "ok"
		return nil
	})
	if ok {
		l.names[table] = append(l.names[table], name)
	}
	return ok, err
}

func (l *slotLocker) put(ctx context.Context, table, name string) error {
	kept := l.names[table][:0]
	for _, n := range l.names[table] {
		if n != name {
			kept = append(kept, n)
		}
	}
	l.names[table] = kept
	_, err := l.c.Query(ctx, l.s.Unlock, []any{dialect.LockKey(l.d, name)}, func([][]byte) error { return nil })
	return err
}

// try keeps what it took when it cannot take everything: an exclusive
// request holds the gate (and the slots it has) while it waits for the
// other slots, so that new shared holders queue behind it.
func (l *slotLocker) try(ctx context.Context, table string, shared bool) (bool, error) {
	if _, held := l.shared[table]; held {
		return true, nil
	}
	if ok, err := l.get(ctx, table, gate(table)); !ok || err != nil {
		return false, err
	}
	if shared {
		for k := range readerSlots {
			ok, err := l.get(ctx, table, slot(table, k))
			if err != nil {
				return false, err
			}
			if ok {
				l.shared[table] = true
				return true, l.put(ctx, table, gate(table))
			}
		}
		return false, l.put(ctx, table, gate(table)) // every slot taken: wait
	}
	for k := range readerSlots {
		if ok, err := l.get(ctx, table, slot(table, k)); !ok || err != nil {
			return false, err
		}
	}
	l.shared[table] = false
	return true, nil
}

func (l *slotLocker) downgrade(ctx context.Context, table string) error {
	if shared, held := l.shared[table]; !held || shared {
		return nil
	}
	for k := 1; k < readerSlots; k++ {
		if err := l.put(ctx, table, slot(table, k)); err != nil {
			return err
		}
	}
	l.shared[table] = true
	return l.put(ctx, table, gate(table))
}

func (l *slotLocker) release(ctx context.Context, table string) error {
	var first error
	for len(l.names[table]) > 0 {
		names := l.names[table]
		if err := l.put(ctx, table, names[len(names)-1]); err != nil && first == nil {
			first = err
		}
	}
	delete(l.names, table)
	delete(l.shared, table)
	return first
}

func (l *slotLocker) close() error { return l.c.Close() }
