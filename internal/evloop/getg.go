//go:build linux && (amd64 || arm64)

package evloop

// getg returns the running goroutine's identity: the address of the
// runtime's record of it, which does not move while the goroutine lives
// (getg_*.s). A session's socket is read by its task's coroutine, and at
// times by a goroutine of the driver's own (pgx reads in the background
// when a write seems to block): only the coroutine may wait through the
// task, and no other cheap test tells the two apart.
func getg() uintptr
