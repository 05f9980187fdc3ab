package runner

import (
	"context"
	"errors"
	"fmt"

	"github.com/candor-bench/candor/internal/result"
)

// RowSizer is a workload that declares the approximate size of one loaded
// row, in bytes: its data, without the database's own overhead (pages,
// indexes, logs), so that rows × ApproxRowBytes is a lower bound of what a
// load writes.
type RowSizer interface {
	ApproxRowBytes() int64
}

// LocalStorage is a target whose data lives in files candor can see (an
// embedded database): LocalSpace returns the directory that holds them and
// the bytes already inside its files that the database will reuse before
// growing them (SQLite's free pages).
type LocalStorage interface {
	LocalSpace(ctx context.Context) (dir string, reusable int64, err error)
}

// ErrDiskSpace marks a load refused because the disk cannot hold it.
var ErrDiskSpace = errors.New("not enough disk space for the load")

// LargeLoad is the estimate above which a load says how much it will write
// before it starts: 1 GiB.
const LargeLoad = 1 << 30

// loadBytes is the load's approximate size: rows × the workload's declared
// row size; 0 when the workload declares none.
func (r *Runner) loadBytes(rows int64) int64 {
	rs, ok := r.Workload.(RowSizer)
	if !ok || rows <= 0 {
		return 0
	}
	return rows * rs.ApproxRowBytes()
}

// checkSpace runs before a load: on a target with LocalStorage it refuses
// (ErrDiskSpace) a load whose estimate is more than the disk's free space
// and the database's reusable bytes; it prints the estimate on Status when
// it is above LargeLoad.
func (r *Runner) checkSpace(ctx context.Context, rows int64) error {
	est := r.loadBytes(rows)
	if est <= 0 {
		return nil
	}
	room, where := int64(-1), ""
	if ls, ok := r.Target.(LocalStorage); ok {
		dir, reusable, err := ls.LocalSpace(ctx)
		if free, ferr := freeDiskBytes(dir); err == nil && ferr == nil {
			room, where = free+reusable, dir
		}
	}
	if room >= 0 && est > room {
		return fmt.Errorf("%w: %s rows of about %s each need at least %s, and %s has %s free: "+
			"load fewer rows or smaller values, or put the database file on a disk with more room",
			ErrDiskSpace, result.Thousands(rows), FormatBytes(est/rows), FormatBytes(est), where, FormatBytes(room))
	}
	if est > LargeLoad && r.Status != nil {
		line := fmt.Sprintf("[load] about %s to write (%s rows of about %s; more on disk with indexes and logs)",
			FormatBytes(est), result.Thousands(rows), FormatBytes(est/rows))
		if room >= 0 {
			line += fmt.Sprintf("; %s free in %s", FormatBytes(room), where)
		}
		fmt.Fprintln(r.Status, line)
	}
	return nil
}

// FormatBytes prints a size with a binary unit: 1536 → "1.5 KiB".
func FormatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 5; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
