package probe

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/target"
)

// ownerName is the name candor's ownership mark records for the probe table.
const ownerName = "isolation-probe"

// probeTable is the probe's two-row table, reached through an autocommit
// session that also watches the probe sessions' lock waits.
type probeTable struct {
	conn target.Conn
	tgt  target.Target
	name string
}

// create makes the table. A probe table an interrupted probe left behind
// (candor's mark on it) is dropped first; a table of that name candor did
// not create is refused with target.ErrForeignTable.
func (t *probeTable) create(ctx context.Context) error {
	d := t.tgt.Dialect()
	exists, owned, err := target.TableState(ctx, t.conn, d, t.name)
	if err != nil {
		return fmt.Errorf("isolation probe: inspecting table %s: %w", t.name, err)
	}
	if exists && owned {
		if err := target.DropOwned(ctx, t.conn, d, t.name, false); err != nil {
			return fmt.Errorf("isolation probe: dropping the probe table an earlier probe left: %w", err)
		}
	}
	if err := target.CreateOwned(ctx, t.conn, d, t.name, dialect.Probe(d).CreateTable(t.name), ownerName); err != nil {
		if errors.Is(err, target.ErrForeignTable) {
			return fmt.Errorf("isolation probe: %w", err)
		}
		return fmt.Errorf("isolation probe: creating table %s: %w", t.name, err)
	}
	return nil
}

// drop removes the table (only while candor's mark is on it).
func (t *probeTable) drop(ctx context.Context) error {
	if err := target.DropOwned(ctx, t.conn, t.tgt.Dialect(), t.name, false); err != nil {
		return fmt.Errorf("isolation probe: dropping table %s: %w", t.name, err)
	}
	return nil
}

// reset gives the table its two rows, (1, 10) and (2, 20), and nothing else.
func (t *probeTable) reset(ctx context.Context) error {
	for _, q := range []string{"DELETE FROM " + t.name, "INSERT INTO " + t.name + " (id, v) VALUES (1, 10), (2, 20)"} {
		if _, err := t.conn.Exec(ctx, q); err != nil {
			return fmt.Errorf("isolation probe: resetting table %s: %w", t.name, err)
		}
	}
	return nil
}

// rows reads the table's committed rows: id → v.
func (t *probeTable) rows(ctx context.Context) (map[int]int, error) {
	out := map[int]int{}
	_, err := t.conn.Query(ctx, "SELECT id, v FROM "+t.name, nil, func(cols [][]byte) error {
		id, e1 := strconv.Atoi(string(cols[0]))
		v, e2 := strconv.Atoi(string(cols[1]))
		if e1 != nil || e2 != nil {
			return fmt.Errorf("row (%q, %q) is not two integers", cols[0], cols[1])
		}
		out[id] = v
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("isolation probe: reading table %s: %w", t.name, err)
	}
	return out, nil
}
