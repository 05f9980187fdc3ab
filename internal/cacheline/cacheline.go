// Package cacheline keeps the data each benchmark session writes on every
// operation off the cache lines of other sessions' data.
//
// The runner allocates its per-session objects (workers, recorders,
// connections) one after another from one goroutine, so objects of the same
// size class end up next to each other in memory. When two sessions on
// different cores write to the same cache line, every write has to fetch the
// line from the other core first (false sharing). On oltp_point_select with
// 4 sessions on PostgreSQL, the workload counters' atomic add and the
// phase context's Err check were 5% and 2.5% of candor's user-space samples
// until these objects were padded (docs/BENCHMARKS.md §7).
package cacheline

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// Pad is a cache line of unused memory, for the first and last field of a
// struct whose fields one session writes on every operation.
type Pad = cpu.CacheLinePad

// Slice returns a slice of n zero Ts with at least a cache line of unused
// memory on either side, so that it shares no cache line with another
// allocation. Appending beyond n reallocates without padding.
func Slice[T any](n int) []T {
	_, s := slice[T](n)
	return s
}

// slice returns the padded allocation and the slice of it Slice returns.
func slice[T any](n int) (all, s []T) {
	var t T
	pad := 1
	if size := int(unsafe.Sizeof(t)); size > 0 {
		pad = (int(unsafe.Sizeof(Pad{})) + size - 1) / size
	}
	all = make([]T, n+2*pad)
	return all, all[pad : pad+n : pad+n]
}
