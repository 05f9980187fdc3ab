//go:build !unix

package cli

func openFileLimit() (uint64, bool) { return 0, false }
