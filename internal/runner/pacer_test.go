package runner

import (
	"math"
	"math/rand"
	"testing"
	"time"
)

func TestConstantOffset(t *testing.T) {
	cases := []struct {
		name string
		rate float64
		n, w int
		k    int64
		want time.Duration
	}{
		// one worker at 1000/s: the k-th op at k ms
		{"single worker first", 1000, 1, 0, 0, 0},
		{"single worker tenth", 1000, 1, 0, 10, 10 * time.Millisecond},
		// four workers at 1000/s interleave: worker 1's first op at 1 ms
		{"interleaved worker 1", 1000, 4, 1, 0, time.Millisecond},
		// worker 3's third op: j = 2*4+3 = 11 → 11 ms
		{"interleaved worker 3 k 2", 1000, 4, 3, 2, 11 * time.Millisecond},
		// a fractional rate: 0.5/s → every 2 s
		{"slow rate", 0.5, 1, 0, 3, 6 * time.Second},
	}
	for _, c := range cases {
		if got := ConstantOffset(c.rate, c.n, c.w, c.k); got != c.want {
			t.Errorf("%s: ConstantOffset(%v,%d,%d,%d) = %v, want %v", c.name, c.rate, c.n, c.w, c.k, got, c.want)
		}
	}
}

func TestConstantScheduleAggregateIsEven(t *testing.T) {
	// The union of all workers' schedules must be exactly j/rate for j = 0..N-1.
	const rate, n, per = 200.0, 5, 40
	seen := map[time.Duration]bool{}
	for w := 0; w < n; w++ {
		s := NewSchedule(ArrivalConstant, rate, n, w, nil)
		for k := 0; k < per; k++ {
			seen[s.Next()] = true
		}
	}
	for j := 0; j < n*per; j++ {
		if want := time.Duration(float64(j) / rate * float64(time.Second)); !seen[want] {
			t.Fatalf("aggregate schedule lacks arrival %d at %v", j, want)
		}
	}
}

func TestPoissonGap(t *testing.T) {
	cases := []struct {
		rate, u float64
		want    time.Duration
	}{
		{100, 0, 0},                                // u = 0 gives no gap
		{1, 1 - 1/math.E, time.Second},             // −ln(1/e) = 1 s at rate 1
		{10, 1 - 1/math.E, 100 * time.Millisecond}, // scaled by 1/rate
	}
	for _, c := range cases {
		got := PoissonGap(c.rate, c.u)
		if d := got - c.want; d < -time.Microsecond || d > time.Microsecond {
			t.Errorf("PoissonGap(%v,%v) = %v, want %v", c.rate, c.u, got, c.want)
		}
	}
}

func TestPoissonScheduleRateAndDispersion(t *testing.T) {
	// 8 workers at a total of 1000/s over 200 s of schedule: the mean gap per
	// worker is 8 ms and the coefficient of variation of an exponential is 1.
	const rate, n = 1000.0, 8
	r := rand.New(rand.NewSource(7))
	s := NewSchedule(ArrivalPoisson, rate, n, 0, r)
	var prev time.Duration
	var sum, sumsq float64
	const draws = 25000
	for i := 0; i < draws; i++ {
		t := s.Next()
		g := (t - prev).Seconds()
		prev = t
		sum += g
		sumsq += g * g
	}
	mean := sum / draws
	sd := math.Sqrt(sumsq/draws - mean*mean)
	if math.Abs(mean-0.008)/0.008 > 0.03 {
		t.Errorf("mean gap %.5f s, want 0.008 ±3%%", mean)
	}
	if cv := sd / mean; math.Abs(cv-1) > 0.05 {
		t.Errorf("coefficient of variation %.3f, want 1 ±0.05", cv)
	}
}
