package cacheline

import (
	"testing"
	"unsafe"
)

// checkPadded fails t unless Slice's slice of n Ts has length and capacity n
// and at least a cache line of its allocation lies before and after it.
func checkPadded[T any](t *testing.T, n int) {
	t.Helper()
	all, s := slice[T](n)
	var zero T
	size := unsafe.Sizeof(zero)
	line := unsafe.Sizeof(Pad{})
	if len(s) != n || cap(s) != n {
		t.Fatalf("%T × %d: len %d cap %d", zero, n, len(s), cap(s))
	}
	if size == 0 {
		return // no memory to share
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(all)))
	end := base + uintptr(len(all))*size
	first := base + uintptr(len(all)-len(s))/2*size
	if n > 0 && uintptr(unsafe.Pointer(&s[0])) != first {
		t.Fatalf("%T × %d: the slice does not start %d elements in", zero, n, (len(all)-len(s))/2)
	}
	if before := first - base; before < line {
		t.Errorf("%T × %d: %d bytes before the slice, want at least %d", zero, n, before, line)
	}
	if after := end - (first + uintptr(n)*size); after < line {
		t.Errorf("%T × %d: %d bytes after the slice, want at least %d", zero, n, after, line)
	}
}

func TestSliceIsPadded(t *testing.T) {
	if line := unsafe.Sizeof(Pad{}); line < 32 {
		t.Fatalf("a cache line of %d bytes", line)
	}
	for _, n := range []int{0, 1, 2, 7} {
		checkPadded[int64](t, n)
		checkPadded[any](t, n)
		checkPadded[[100]byte](t, n)
		checkPadded[struct{}](t, n)
	}
	if s := Slice[any](3); len(s) != 3 || cap(s) != 3 || s[0] != nil {
		t.Fatalf("Slice[any](3) = %v (cap %d)", s, cap(s))
	}
}
