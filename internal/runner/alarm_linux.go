//go:build linux

package runner

import (
	"context"
	"errors"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// alarm is a sleeper on a timerfd (see alarm.go). It belongs to one worker:
// sleep is not safe for concurrent use.
type alarm struct {
	fd   int
	f    *os.File // fd in Go's network poller
	stop func() bool
	buf  [8]byte // the expiry count a read returns
}

// newSleeper returns an alarm whose sleeps end early when ctx does, or Go's
// timers when the system refuses a timerfd.
func newSleeper(ctx context.Context) sleeper {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return timerSleeper{}
	}
	a := &alarm{fd: fd, f: os.NewFile(uintptr(fd), "candor-alarm")}
	if a.f.SetReadDeadline(time.Time{}) != nil { // not in the poller
		a.f.Close()
		return timerSleeper{}
	}
	// A deadline in the past ends the read in progress, and every later one.
	a.stop = context.AfterFunc(ctx, func() { _ = a.f.SetReadDeadline(time.Unix(1, 0)) })
	return a
}

func (a *alarm) sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 || ctx.Err() != nil {
		return ctx.Err() == nil
	}
	// A relative expiry: an it_value of zero would disarm the timer, and d
	// is at least a nanosecond.
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(d))}
	until := time.Now().Add(d)
	if err := unix.TimerfdSettime(a.fd, 0, &spec, nil); err != nil {
		return sleepCtx(ctx, d)
	}
	for {
		_, err := a.f.Read(a.buf[:])
		switch {
		case err == nil:
			return ctx.Err() == nil
		case errors.Is(err, os.ErrDeadlineExceeded):
			return false
		case errors.Is(err, unix.EINTR):
			continue
		default:
			// Not expected of a timerfd; the rest of the wait on a timer.
			return sleepCtx(ctx, time.Until(until))
		}
	}
}

func (a *alarm) close() {
	a.stop()
	a.f.Close()
}
