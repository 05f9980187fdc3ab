//go:build linux

package runner

import (
	"context"
	"testing"
)

// On Linux the sleeper is a timerfd (Go's timers only when the system
// refuses one).
func TestSleeperIsAlarm(t *testing.T) {
	s := newSleeper(context.Background())
	defer s.close()
	if _, ok := s.(*alarm); !ok {
		t.Fatalf("newSleeper returned %T, want *alarm", s)
	}
}
