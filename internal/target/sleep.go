package target

import (
	"context"
	"time"

	"github.com/candor-bench/candor/internal/evloop"
)

// Sleep waits d or until ctx ends, whichever comes first; it reports
// whether d elapsed (a d of 0 or less: whether ctx is still live). The
// back-offs of drivers and of the runner's reconnects wait with it.
func Sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	if t := evloop.Current(ctx); t != nil {
		return t.Sleep(ctx, d) // the other sessions of its loop go on
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
