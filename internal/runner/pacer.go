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
	return time.Duration(j / rate * float64(time.Second))
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

// PoissonGap draws one exponential inter-arrival gap for a process of the
// given rate from a uniform u in [0, 1): −ln(1−u)/rate seconds. It is a pure
// function of u.
func PoissonGap(rate, u float64) time.Duration {
	return time.Duration(-math.Log1p(-u) / rate * float64(time.Second))
}

// poissonSchedule is one worker's share of a Poisson process: the superposition
// of n independent Poisson processes of rate R/n is a Poisson process of rate R.
type poissonSchedule struct {
	rate float64 // this worker's rate
	r    *rand.Rand
	t    time.Duration
}

func (s *poissonSchedule) Next() time.Duration {
	s.t += PoissonGap(s.rate, s.r.Float64())
	return s.t
}

// NewSchedule returns worker w's schedule of n for the given total rate.
func NewSchedule(arrival string, rate float64, n, w int, r *rand.Rand) Schedule {
	if arrival == ArrivalPoisson {
		return &poissonSchedule{rate: rate / float64(n), r: r}
	}
	return &constantSchedule{rate: rate, n: n, w: w}
}
