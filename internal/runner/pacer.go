package runner

import (
	"math"
	"math/rand"
	"time"
)

// Arrival processes for an open loop (--rate).
const (
	ArrivalConstant = "constant"
	ArrivalPoisson  = "poisson"
)

// Schedule yields the intended start of a worker's successive operations as
// offsets from the phase start. It is an absolute timeline: it never depends
// on when earlier operations finished, so a stalled target makes operations
// late (and their latency counts from the intended start) instead of quietly
// lowering the offered load.
type Schedule interface {
	Next() time.Duration
}

// ConstantOffset is the intended start of worker w's k-th operation (k from
// 0) when rate operations per second are spread evenly over n workers: the
// aggregate arrivals fall at j/rate seconds for j = k·n + w, so workers
// interleave instead of firing together. It is a pure function.
func ConstantOffset(rate float64, n, w int, k int64) time.Duration {
	j := float64(k)*float64(n) + float64(w)
	return durationOf(j / rate * float64(time.Second))
}

// durationOf converts nanoseconds to a Duration, saturating instead of
// overflowing.
func durationOf(ns float64) time.Duration {
	if ns >= math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(ns)
}

type constantSchedule struct {
	rate float64
	n, w int
	k    int64
}

func (s *constantSchedule) Next() time.Duration {
	d := ConstantOffset(s.rate, s.n, s.w, s.k)
	s.k++
	return d
}

// countTo consumes the arrivals at or before now and returns how many
// there were. Its work does not grow with the rate: the count is computed,
// then corrected by the pure ConstantOffset at its edges.
func (s *constantSchedule) countTo(now time.Duration) int64 {
	if ConstantOffset(s.rate, s.n, s.w, s.k) > now {
		return 0
	}
	// ConstantOffset truncates to whole nanoseconds, so arrival k is due
	// when (k·n + w)/rate < now + 1 ns: the last such k, near enough (float
	// rounding) for a few steps to correct.
	x := ((float64(now)+1)/float64(time.Second)*s.rate - float64(s.w)) / float64(s.n)
	last := s.k
	if x > float64(s.k) {
		last = int64(min(math.Ceil(x)-1, 1<<62))
	}
	for i := 0; i < 64 && last < 1<<62 && ConstantOffset(s.rate, s.n, s.w, last+1) <= now; i++ {
		last++
	}
	for i := 0; i < 64 && last > s.k && ConstantOffset(s.rate, s.n, s.w, last) > now; i++ {
		last--
	}
	n := last + 1 - s.k
	s.k = last + 1
	return n
}

// PoissonGap draws one exponential inter-arrival gap for a process of the
// given rate from a uniform u in [0, 1): −ln(1−u)/rate seconds. It is a pure
// function of u.
func PoissonGap(rate, u float64) time.Duration {
	return durationOf(-math.Log1p(-u) / rate * float64(time.Second))
}

// poissonSchedule is one worker's share of a Poisson process: the superposition
// of n independent Poisson processes of rate R/n is a Poisson process of rate R.
type poissonSchedule struct {
	rate float64 // this worker's rate
	r    *rand.Rand
	t    time.Duration
	// countTo's arrival drawn and not yet due.
	ahead time.Duration
	drawn bool
	// estimated: countTo counted some arrivals by their expected number.
	estimated bool
}

func (s *poissonSchedule) Next() time.Duration {
	s.t += PoissonGap(s.rate, s.r.Float64())
	return s.t
}

// maxReplay bounds the arrivals countTo draws one at a time per call: past
// it, the rest are counted by the process's expected count (rate × time),
// so the work of counting does not grow with the rate.
const maxReplay = 1 << 14

// countTo consumes the arrivals at or before now and returns how many
// there were: exactly, as Next would draw them, up to maxReplay of them;
// beyond that by their expected number, the schedule resuming at now.
// Next must not be called after countTo.
func (s *poissonSchedule) countTo(now time.Duration) int64 {
	var n int64
	for steps := 0; ; steps++ {
		if !s.drawn {
			s.ahead, s.drawn = s.t+PoissonGap(s.rate, s.r.Float64()), true
		}
		if s.ahead > now {
			return n
		}
		if steps == maxReplay {
			rest := (now - s.ahead).Seconds() * s.rate
			s.t, s.drawn, s.estimated = now, false, true
			return n + 1 + int64(min(rest, 1<<62))
		}
		s.t, s.drawn = s.ahead, false
		n++
	}
}

// dueCounter is a Schedule that counts its arrivals up to a time in work
// bounded whatever the rate (both of NewSchedule's schedules are).
type dueCounter interface {
	Schedule
	countTo(now time.Duration) int64
	// exact reports whether every count so far was exact (not by the
	// expected number of arrivals).
	exact() bool
}

func (s *poissonSchedule) exact() bool  { return !s.estimated }
func (s *constantSchedule) exact() bool { return true }

// NewSchedule returns worker w's schedule of n for the given total rate.
func NewSchedule(arrival string, rate float64, n, w int, r *rand.Rand) Schedule {
	return newSchedule(arrival, rate, n, w, r)
}

func newSchedule(arrival string, rate float64, n, w int, r *rand.Rand) dueCounter {
	if arrival == ArrivalPoisson {
		return &poissonSchedule{rate: rate / float64(n), r: r}
	}
	return &constantSchedule{rate: rate, n: n, w: w}
}
