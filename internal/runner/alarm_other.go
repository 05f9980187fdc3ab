//go:build !linux

package runner

import "context"

// newSleeper returns Go's timers: only Linux has timerfd.
func newSleeper(context.Context) sleeper { return timerSleeper{} }
