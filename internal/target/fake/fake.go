// Package fake is an in-process target that runs no SQL: every statement
// succeeds after an optional injected latency. Registered as `null://`, it
// measures candor's own overhead (as YCSB's BasicDB does); tests build it
// directly to inject latency, periodic stalls, errors and server restarts.
package fake

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/target"
)

// Config shapes the fake's behaviour. The zero value answers instantly.
type Config struct {
	// Latency is added to every statement.
	Latency time.Duration
	// StallEvery and StallFor make the whole target stall: during the first
	// StallFor of every StallEvery (counted from the first statement, so
	// that connecting slowly on a busy machine does not shift the stalls
	// against the phase) every statement waits until the stall ends.
	StallEvery, StallFor time.Duration
	// StallAt, when set, makes one stall instead: StallFor from StallAt
	// after creation.
	StallAt time.Duration
	// FailEvery makes every n-th statement (counted over the whole target)
	// fail with an error of class FailClass.
	FailEvery int64
	FailClass target.ErrorClass
	// Rows and Cols shape what Query returns; ValueLen is each value's length.
	Rows, Cols, ValueLen int
	// Blocking makes the target claim blocking sessions (its sessions do
	// not block; the runner's handling of GOMAXPROCS is what it tests).
	Blocking bool
	// PollerFrom is the capability of that name (with Blocking).
	PollerFrom int
	// OnThisMachine is what the target says of its (absent) server's
	// place (target.Placed).
	OnThisMachine bool
}

// Target is the fake endpoint. It is safe for concurrent use.
type Target struct {
	cfg   Config
	epoch time.Time
	// stallEpoch is when the first statement ran: StallEvery counts from it.
	stallOnce  sync.Once
	stallEpoch time.Time
	stmts      atomic.Int64 // statements of closed connections, and all of them with FailEvery
	gen        atomic.Int64 // bumped by Restart: older connections are dead
	mu         sync.Mutex
	down       time.Time // Connect fails until then
	conns      []*Conn   // open connections, whose own counters Statements adds
	row        [][]byte
}

var _ target.Target = (*Target)(nil)

// New returns a fake target.
func New(cfg Config) *Target {
	if cfg.Rows == 0 {
		cfg.Rows = 1
	}
	if cfg.Cols == 0 {
		cfg.Cols = 11
	}
	if cfg.ValueLen == 0 {
		cfg.ValueLen = 100
	}
	if cfg.FailClass == "" {
		cfg.FailClass = target.ClassOther
	}
	t := &Target{cfg: cfg, epoch: time.Now()}
	v := make([]byte, cfg.ValueLen)
	for i := range v {
		v[i] = 'x'
	}
	for i := 0; i < cfg.Cols; i++ {
		t.row = append(t.row, v)
	}
	return t
}

// Error is what the fake returns; its class is known.
type Error struct{ Class target.ErrorClass }

func (e *Error) Error() string { return fmt.Sprintf("fake %s error", e.Class) }

// Restart simulates a server restart: every open connection fails with a
// connection error from now on and Connect fails for downFor.
func (t *Target) Restart(downFor time.Duration) {
	t.mu.Lock()
	t.down = time.Now().Add(downFor)
	t.mu.Unlock()
	t.gen.Add(1)
}

// Statements returns how many statements have been executed. Call it when
// no statement is running.
func (t *Target) Statements() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := t.stmts.Load()
	for _, c := range t.conns {
		n += c.n.Load()
	}
	return n
}

func (t *Target) Driver() string      { return "null" }
func (t *Target) RedactedURL() string { return "null://" }
func (t *Target) Dialect() dialect.Dialect {
	return dialect.Dialect{Name: "null", Placeholder: dialect.Dollar, ScanLimit: "limit"}
}

// OnThisMachine implements target.Placed with Config.OnThisMachine.
func (t *Target) OnThisMachine() bool { return t.cfg.OnThisMachine }

func (t *Target) Capabilities() target.Capabilities {
	// No multi-row INSERT: every statement reports one affected row.
	return target.Capabilities{Transactions: true, Embedded: true, BlockingSessions: t.cfg.Blocking,
		PollerFrom: t.cfg.PollerFrom}
}

// SessionIOs counts the connections opened so far by the session I/O their
// Connect context asked for (target.SessionIOFrom).
func (t *Target) SessionIOs() map[target.SessionIO]int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := map[target.SessionIO]int{}
	for _, c := range t.conns {
		n[c.io]++
	}
	return n
}
func (t *Target) Close() error { return nil }

func (t *Target) Connect(ctx context.Context) (target.Conn, error) {
	t.mu.Lock()
	down := t.down
	t.mu.Unlock()
	if time.Now().Before(down) {
		return nil, &Error{Class: target.ClassConnection}
	}
	c := &Conn{t: t, gen: t.gen.Load(), intr: make(chan struct{}), io: target.SessionIOFrom(ctx)}
	t.mu.Lock()
	t.conns = append(t.conns, c)
	t.mu.Unlock()
	return c, nil
}

func (t *Target) Fingerprint(ctx context.Context) (target.Fingerprint, error) {
	return target.Fingerprint{
		Driver: "null", Product: "null (candor's no-op target)", Version: "1", URL: "null://",
		Settings: map[string]string{
			"latency": t.cfg.Latency.String(), "stall_every": t.cfg.StallEvery.String(), "stall_for": t.cfg.StallFor.String(),
		},
	}, nil
}

func (t *Target) Classify(err error) target.ErrorClass {
	var fe *Error
	if errors.As(err, &fe) {
		return fe.Class
	}
	return ""
}

// Conn is one fake session. It implements target.Interrupter: Interrupt
// ends a statement's wait at once and fails it and every later statement
// with a connection error.
type Conn struct {
	t        *Target
	gen      int64
	closed   bool
	intr     chan struct{} // closed by Interrupt
	intrOnce sync.Once
	io       target.SessionIO // what the Connect context asked for
	// n counts this connection's statements; a shared counter would make the
	// no-op target measure cache-line contention between workers.
	n atomic.Int64
}

var _ target.Interrupter = (*Conn)(nil)

// Interrupt implements target.Interrupter.
func (c *Conn) Interrupt() { c.intrOnce.Do(func() { close(c.intr) }) }

func (c *Conn) do(ctx context.Context) error {
	t := c.t
	if c.closed || c.gen != t.gen.Load() {
		return &Error{Class: target.ClassConnection}
	}
	select {
	case <-c.intr:
		return &Error{Class: target.ClassConnection}
	default:
	}
	var n int64
	if t.cfg.FailEvery > 0 {
		n = t.stmts.Add(1) // failures are counted over the whole target
	} else {
		c.n.Add(1)
	}
	wait := t.cfg.Latency
	if since := time.Since(t.epoch); t.cfg.StallAt > 0 && since >= t.cfg.StallAt && since < t.cfg.StallAt+t.cfg.StallFor {
		wait += t.cfg.StallAt + t.cfg.StallFor - since
	} else if t.cfg.StallAt == 0 && t.cfg.StallEvery > 0 && t.cfg.StallFor > 0 {
		t.stallOnce.Do(func() { t.stallEpoch = time.Now() })
		since := time.Since(t.stallEpoch) % t.cfg.StallEvery
		if since < t.cfg.StallFor {
			wait += t.cfg.StallFor - since
		}
	}
	if wait > 0 {
		tm := time.NewTimer(wait)
		select {
		case <-tm.C:
		case <-ctx.Done():
			tm.Stop()
			return ctx.Err()
		case <-c.intr:
			tm.Stop()
			return &Error{Class: target.ClassConnection}
		}
	}
	if t.cfg.FailEvery > 0 && n%t.cfg.FailEvery == 0 {
		return &Error{Class: t.cfg.FailClass}
	}
	return nil
}

// Exec reports one affected row.
func (c *Conn) Exec(ctx context.Context, sql string, args ...any) (int64, error) {
	if err := c.do(ctx); err != nil {
		return 0, err
	}
	return 1, nil
}

// Query returns Config.Rows rows.
func (c *Conn) Query(ctx context.Context, sql string, args []any, fn func(cols [][]byte) error) (int, error) {
	if err := c.do(ctx); err != nil {
		return 0, err
	}
	if fn == nil {
		return 0, nil // discarded rows are not counted (target.Conn)
	}
	for i := 0; i < c.t.cfg.Rows; i++ {
		if err := fn(c.t.row); err != nil {
			return i, err
		}
	}
	return c.t.cfg.Rows, nil
}

func (c *Conn) Close() error { c.closed = true; return nil }

func init() {
	target.Register(target.Driver{
		Name:        "null",
		Schemes:     []string{"null"},
		Description: "no database: every statement succeeds (optionally after ?latency=1ms; ?fail_every=n fails every n-th); measures candor's own overhead, like YCSB's BasicDB",
		Open: func(ctx context.Context, raw string, opts target.Options) (target.Target, error) {
			u, err := url.Parse(raw)
			if err != nil {
				return nil, fmt.Errorf("%w %q: %v", target.ErrBadURL, target.Redact(raw), err)
			}
			var cfg Config
			q := u.Query()
			for k := range q {
				v := q.Get(k)
				switch k {
				case "latency", "stall_every", "stall_for":
					d, err := time.ParseDuration(v)
					if err != nil || d < 0 {
						return nil, fmt.Errorf("%w %q: %s=%q is not a duration such as 1ms", target.ErrBadURL, target.Redact(raw), k, v)
					}
					switch k {
					case "latency":
						cfg.Latency = d
					case "stall_every":
						cfg.StallEvery = d
					default:
						cfg.StallFor = d
					}
				case "rows":
					n, err := strconv.Atoi(v)
					if err != nil || n < 0 {
						return nil, fmt.Errorf("%w %q: rows=%q is not a count", target.ErrBadURL, target.Redact(raw), v)
					}
					cfg.Rows = n
				case "fail_every":
					n, err := strconv.ParseInt(v, 10, 64)
					if err != nil || n < 0 {
						return nil, fmt.Errorf("%w %q: fail_every=%q is not a count", target.ErrBadURL, target.Redact(raw), v)
					}
					cfg.FailEvery = n
				default:
					return nil, fmt.Errorf("%w %q: unknown parameter %q; valid: latency, stall_every, stall_for, rows, fail_every", target.ErrBadURL, target.Redact(raw), k)
				}
			}
			return New(cfg), nil
		},
	})
}
