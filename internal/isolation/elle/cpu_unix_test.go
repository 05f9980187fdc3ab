//go:build unix

package elle

import (
	"syscall"
	"time"
)

// cpuTime is the process's user and system CPU time so far: a
// benchmark's figure that a busy machine does not inflate the way it
// inflates wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
