package runner

import "syscall"

// freeDiskBytes is the space an unprivileged process may still write on
// the file system that holds dir.
func freeDiskBytes(dir string) (int64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return int64(st.Bavail) * int64(st.Bsize), nil // Bsize is an int32 on 32-bit Linux
}
