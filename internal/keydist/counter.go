package keydist

import (
	"errors"
	"fmt"
	"math/rand"
	"sync/atomic"
)

// Counter mirrors YCSB's CounterGenerator: Next hands out start, start+1,
// ... across all goroutines (the load phase's shared keysequence, so keys are
// handed out in arrival order, interleaved between workers). Next ignores r
// and is safe for concurrent use (one atomic add).
type Counter struct {
	next atomic.Int64
}

// NewCounter returns a Counter whose first value is start.
func NewCounter(start int64) *Counter {
	c := &Counter{}
	c.next.Store(start)
	return c
}

// Next returns the next value (YCSB's getAndIncrement).
func (c *Counter) Next(*rand.Rand) int64 { return c.next.Add(1) - 1 }

// Last returns the value most recently handed out, start-1 before the first
// Next (YCSB's lastValue = counter-1).
func (c *Counter) Last() int64 { return c.next.Load() - 1 }

// AckWindow is the number of values an AcknowledgedCounter can have handed out
// beyond its contiguous acknowledged prefix (YCSB's
// AcknowledgedCounterGenerator.WINDOW_SIZE = 1<<20).
const AckWindow = 1 << 20

// Errors of AcknowledgedCounter.Acknowledge, wrapped with the value.
var (
	// ErrTooManyUnacknowledged mirrors YCSB's "Too many unacknowledged
	// insertion keys.": the value is AckWindow or more beyond the oldest
	// value not yet acknowledged.
	ErrTooManyUnacknowledged = errors.New("too many unacknowledged insertion keys")
	// ErrAlreadyAcknowledged: the value was acknowledged before.
	ErrAlreadyAcknowledged = errors.New("value already acknowledged")
	// ErrNotHandedOut: the value was never returned by Next.
	ErrNotHandedOut = errors.New("value not handed out")
)

// AcknowledgedCounter mirrors YCSB's AcknowledgedCounterGenerator, the run
// phase's transactioninsertkeysequence: Next hands out insert keys start,
// start+1, ... like Counter, and Last returns the highest value v such that
// every value from start to v has been acknowledged (start-1 initially), so
// key choosers never pick a key whose insert is still in flight.
// (CoreWorkload acknowledges in a finally block, so a failed insert is
// acknowledged too.)
//
// Concurrency: every method is safe for concurrent use. Acknowledge costs a
// few atomic operations: it marks the value in a ring of AckWindow bits and,
// if no other goroutine is doing so, advances the limit over the marked
// prefix. Unlike YCSB's tryLock scheme, an acknowledgement is never left
// unswept: a goroutine that finishes advancing re-checks the next bit after
// releasing, so once all Acknowledge calls have returned Last is exact.
type AcknowledgedCounter struct {
	next atomic.Int64 // written by every Next (every insert)
	// limit is read by every draw of a SkewedLatest over this counter; the
	// padding keeps inserts' Next calls from invalidating its cache line.
	_        [cacheLine - 8]byte
	limit    atomic.Int64 // highest contiguous acknowledged value
	sweeping atomic.Bool  // held by the one goroutine advancing limit
	window   []atomic.Uint64

	// scanned, if set (by tests only), runs after a sweep found the end of
	// the acknowledged prefix and before it lets go of sweeping: the moment
	// an acknowledgement can arrive unseen.
	scanned func()
}

// NewAcknowledgedCounter returns an AcknowledgedCounter whose first value is
// start and whose Last is start-1 until start is acknowledged. It allocates
// the AckWindow-bit ring (128 KiB).
func NewAcknowledgedCounter(start int64) *AcknowledgedCounter {
	a := &AcknowledgedCounter{window: make([]atomic.Uint64, AckWindow/64)}
	a.next.Store(start)
	a.limit.Store(start - 1)
	return a
}

// Next returns the next value to insert; r is ignored.
func (a *AcknowledgedCounter) Next(*rand.Rand) int64 { return a.next.Add(1) - 1 }

// Last returns the highest contiguous acknowledged value (YCSB's lastValue,
// the "limit"), start-1 if start is not acknowledged yet.
func (a *AcknowledgedCounter) Last() int64 { return a.limit.Load() }

// slot locates value v's bit in the ring.
func (a *AcknowledgedCounter) slot(v int64) (*atomic.Uint64, uint64) {
	i := uint64(v) % AckWindow
	return &a.window[i/64], 1 << (i % 64)
}

// Acknowledge records that value v (returned by Next) is done, successfully
// or not, and advances Last over every contiguous acknowledged value.
//
// It returns an error wrapping ErrTooManyUnacknowledged if v is more than
// AckWindow values beyond Last (as observed at the call; a concurrent advance may
// make a borderline value acceptable a moment later), ErrAlreadyAcknowledged
// if v is at most Last or was acknowledged before, and ErrNotHandedOut if Next
// has not returned v yet. The value is then not recorded. Acknowledging one
// value from two goroutines at once is a caller bug that is detected in most
// but not all interleavings.
func (a *AcknowledgedCounter) Acknowledge(v int64) error {
	lim := a.limit.Load()
	switch {
	case v <= lim:
		return fmt.Errorf("keydist: acknowledge %d (last contiguous %d): %w", v, lim, ErrAlreadyAcknowledged)
	case v >= a.next.Load():
		return fmt.Errorf("keydist: acknowledge %d: %w", v, ErrNotHandedOut)
	case uint64(v)-uint64(lim) > AckWindow:
		// The ring holds values lim+1 .. lim+AckWindow; v's bit would be
		// that of an older, still unacknowledged value.
		return fmt.Errorf("keydist: acknowledge %d with %d still unacknowledged: %w", v, lim+1, ErrTooManyUnacknowledged)
	}
	w, bit := a.slot(v)
	if w.Or(bit)&bit != 0 {
		return fmt.Errorf("keydist: acknowledge %d: %w", v, ErrAlreadyAcknowledged)
	}
	a.advance()
	return nil
}

// advance moves limit over the acknowledged prefix. Only one goroutine sweeps
// at a time; others return at once, and the sweeper re-checks after letting go
// so that a bit set while it was sweeping is not stranded.
//
// Why that suffices: an acknowledger sets its bit before it fails to take the
// sweeping flag, and the holder clears the flag after that failure and only
// then re-checks the bit at limit+1 (sync/atomic operations are sequentially
// consistent), so it sees the bit if it is the next one needed.
func (a *AcknowledgedCounter) advance() {
	for a.sweeping.CompareAndSwap(false, true) {
		lim := a.limit.Load()
		for {
			w, bit := a.slot(lim + 1)
			if w.Load()&bit == 0 {
				break
			}
			// Clear the bit before publishing the new limit: once limit
			// passes this value, the slot belongs to value+AckWindow.
			w.And(^bit)
			lim++
			a.limit.Store(lim)
		}
		if a.scanned != nil {
			a.scanned()
		}
		a.sweeping.Store(false)
		if w, bit := a.slot(lim + 1); w.Load()&bit == 0 {
			return
		}
	}
}
