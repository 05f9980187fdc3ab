//go:build !unix

package engine

func openFileLimit() (uint64, bool) { return 0, false }
