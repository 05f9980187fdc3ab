package tables

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"os"

	"golang.org/x/sys/unix"
)

// fileLocker locks one byte per table of a lock file beside an embedded
// database, with Linux's open-file-description locks: they belong to the
// open file (not to the process, as POSIX record locks do), so two lockers
// in one process exclude each other too, and a lock changes mode
// atomically, so a downgrade leaves no gap. A killed process's locks go
// with its files.
type fileLocker struct {
	f    *os.File
	held map[string]bool
}

func openFileLocker(path string) (locker, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open the lock file: %w", err)
	}
	return &fileLocker{f: f, held: map[string]bool{}}, nil
}

func (l *fileLocker) kind() string { return "lock file " + l.f.Name() }

// offset is table's byte in the lock file: two tables whose bytes collide
// merely wait for each other.
func offset(table string) int64 {
	h := fnv.New32a()
	h.Write([]byte(table))
	return int64(h.Sum32() & 0x3fffffff)
}

func (l *fileLocker) set(table string, typ int16) (bool, error) {
	lk := unix.Flock_t{Type: typ, Whence: 0, Start: offset(table), Len: 1}
	err := unix.FcntlFlock(l.f.Fd(), unix.F_OFD_SETLK, &lk)
	if errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EACCES) {
		return false, nil
	}
	return err == nil, err
}

func (l *fileLocker) try(_ context.Context, table string, shared bool) (bool, error) {
	if _, held := l.held[table]; held {
		return true, nil
	}
	typ := int16(unix.F_WRLCK)
	if shared {
		typ = unix.F_RDLCK
	}
	ok, err := l.set(table, typ)
	if ok {
		l.held[table] = shared
	}
	return ok, err
}

func (l *fileLocker) downgrade(_ context.Context, table string) error {
	if shared, held := l.held[table]; !held || shared {
		return nil
	}
	ok, err := l.set(table, unix.F_RDLCK)
	if err == nil && !ok {
		err = errors.New("the shared lock was refused while this file held it exclusively")
	}
	if err == nil {
		l.held[table] = true
	}
	return err
}

func (l *fileLocker) release(_ context.Context, table string) error {
	if _, held := l.held[table]; !held {
		return nil
	}
	delete(l.held, table)
	_, err := l.set(table, unix.F_UNLCK)
	return err
}

func (l *fileLocker) close() error { return l.f.Close() }
