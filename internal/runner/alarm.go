package runner

import (
	"context"
	"time"
)

// Waiting for the intended start of an open loop's operations.
//
// A Go timer fires through the runtime's network poller, whose epoll_wait
// timeout counts in whole milliseconds: when the process has nothing else to
// do, which is how an open loop spends its waits, a timer fires up to a
// millisecond late (0.6 ms at the median, 1.06 ms at the 99th percentile on
// this project's test machine). An operation then starts that much after
// its intended start, and since open-loop latency counts from the intended
// start, the client's own lateness lands in every latency: at --rate 200 on
// PostgreSQL, oltp_point_select's 95th percentile came out at 1.21 ms where
// sysbench measured 0.16 ms. On Linux an alarm is a timerfd in the poller
// instead (alarm_linux.go): the kernel's high-resolution timer makes it
// readable at the instant, and that wakes the poller at once.

// sleeper waits for a duration or until its context ends; sleep reports
// whether the duration elapsed.
type sleeper interface {
	sleep(ctx context.Context, d time.Duration) bool
	close()
}

// timerSleeper waits with Go's timers (sleepCtx).
type timerSleeper struct{}

func (timerSleeper) sleep(ctx context.Context, d time.Duration) bool { return sleepCtx(ctx, d) }
func (timerSleeper) close()                                          {}
