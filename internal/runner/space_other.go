//go:build !linux

package runner

import "errors"

// freeDiskBytes is unknown outside Linux: the load is not checked.
func freeDiskBytes(string) (int64, error) {
	return 0, errors.New("free disk space unknown on this system")
}
