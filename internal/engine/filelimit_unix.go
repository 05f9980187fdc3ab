//go:build unix

package engine

import "syscall"

func openFileLimit() (uint64, bool) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil || r.Cur >= 1<<62 { // unlimited
		return 0, false
	}
	return uint64(r.Cur), true
}
