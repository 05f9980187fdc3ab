package target

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// ServerClock is implemented by targets whose server can tell the time:
// ServerTimeQuery is a statement returning one row with one column, the
// server's current time as Unix seconds in text ("1764154143.123456").
// A sharded run (--shard) records each client's offset from it. It is
// optional: a target without it records its offset as unavailable (CQL),
// or as its own clock when embedded (SQLite).
type ServerClock interface {
	ServerTimeQuery() string
}

// ServerTimeQuery returns t's clock statement, looking through a Multi at
// its first node.
func ServerTimeQuery(t Target) (string, bool) {
	if m, ok := t.(*Multi); ok && len(m.targets) > 0 {
		t = m.targets[0]
	}
	if c, ok := t.(ServerClock); ok {
		return c.ServerTimeQuery(), true
	}
	return "", false
}

// ClockOffset reads the server's clock tries times on one new session and
// returns the offset (server − client at the midpoint of the round trip)
// of the reading with the shortest round trip, and that round trip.
func ClockOffset(ctx context.Context, t Target, tries int) (offset, rtt time.Duration, err error) {
	q, ok := ServerTimeQuery(t)
	if !ok {
		return 0, 0, fmt.Errorf("%w: %s cannot tell its clock", ErrUnsupported, t.Driver())
	}
	conn, err := t.Connect(ctx)
	if err != nil {
		return 0, 0, err
	}
	defer conn.Close()
	rtt = time.Duration(math.MaxInt64)
	for range max(tries, 1) {
		var server time.Time
		t0 := time.Now()
		_, err := conn.Query(ctx, q, nil, func(cols [][]byte) error {
			if len(cols) != 1 {
				return fmt.Errorf("clock query returned %d columns", len(cols))
			}
			var perr error
			server, perr = parseUnixSeconds(string(cols[0]))
			return perr
		})
		t1 := time.Now()
		if err != nil {
			return 0, 0, fmt.Errorf("read the server's clock: %w", err)
		}
		if server.IsZero() {
			return 0, 0, fmt.Errorf("read the server's clock: no row")
		}
		if d := t1.Sub(t0); d < rtt {
			rtt = d
			offset = server.Sub(t0.Add(d / 2))
		}
	}
	return offset, rtt, nil
}

// parseUnixSeconds reads "1764154143.123456" exactly to the microsecond
// (a float64 would round it).
func parseUnixSeconds(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	whole, frac, _ := strings.Cut(s, ".")
	sec, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("server time %q is not Unix seconds", s)
	}
	var ns int64
	if frac != "" {
		frac = (frac + "000000000")[:9]
		if ns, err = strconv.ParseInt(frac, 10, 64); err != nil {
			return time.Time{}, fmt.Errorf("server time %q is not Unix seconds", s)
		}
	}
	return time.Unix(sec, ns), nil
}
