package target

import (
	"context"
	"time"
)

// Sleep waits d or until ctx ends, whichever comes first; it reports
// whether d elapsed (a d of 0 or less: whether ctx is still live). The
// back-offs of drivers and of the runner's reconnects wait with it.
func Sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
