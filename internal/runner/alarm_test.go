package runner

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"
)

// A sleep lasts at least its duration, again and again on the same alarm,
// and ends early, reporting false, when its context ends: during the sleep,
// or before it starts.
func TestSleeper(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	s := newSleeper(ctx)
	defer s.close()
	for _, d := range []time.Duration{time.Microsecond, 300 * time.Microsecond, 2 * time.Millisecond, 7 * time.Millisecond} {
		start := time.Now()
		if !s.sleep(ctx, d) {
			t.Fatalf("sleep(%v) reported an ended context", d)
		}
		if took := time.Since(start); took < d {
			t.Errorf("sleep(%v) returned after %v", d, took)
		}
	}
	if !s.sleep(ctx, 0) || !s.sleep(ctx, -time.Second) {
		t.Error("a sleep of no time reported an ended context")
	}
	time.AfterFunc(20*time.Millisecond, cancel)
	start := time.Now()
	if s.sleep(ctx, time.Minute) {
		t.Fatal("a sleep cut short by its context reported that it elapsed")
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("the cancelled sleep returned after %v", took)
	}
	if s.sleep(ctx, time.Millisecond) {
		t.Error("a sleep after the context ended reported that it elapsed")
	}
}

// BenchmarkSleepLateness measures how late sleeps of 0.1–5 ms end, with
// Go's timers and with the alarm, in an otherwise idle process (an open
// loop between operations): ns/op is the mean sleep, and the metrics are
// the lateness percentiles.
//
//	go test ./internal/runner -run '^$' -bench SleepLateness -benchtime 2000x
func BenchmarkSleepLateness(b *testing.B) {
	for _, c := range []struct {
		name string
		s    func() sleeper
	}{
		{"timer", func() sleeper { return timerSleeper{} }},
		{"alarm", func() sleeper { return newSleeper(context.Background()) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			s := c.s()
			defer s.close()
			ctx := context.Background()
			late := make([]time.Duration, 0, b.N)
			for i := 0; i < b.N; i++ {
				d := time.Duration(100+i%50*100) * time.Microsecond
				start := time.Now()
				s.sleep(ctx, d)
				late = append(late, time.Since(start)-d)
			}
			sort.Slice(late, func(i, j int) bool { return late[i] < late[j] })
			for _, p := range []int{50, 99} {
				b.ReportMetric(float64(late[len(late)*p/100].Microseconds()), fmt.Sprintf("µs-late-p%d", p))
			}
		})
	}
}
