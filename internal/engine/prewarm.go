package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload/sysbench"
)

// Prewarmer is a workload with sysbench's prewarm command.
type Prewarmer interface {
	Prewarm(ctx context.Context, c target.Conn, thread, threads int, say func(table string)) error
}

// Prewarm runs sysbench's prewarm command on threads connections and prints sysbench's
// "Prewarming table sbtestN" line for each table.
func Prewarm(ctx context.Context, out io.Writer, tgt target.Target, pw Prewarmer, threads int) error {
	var mu sync.Mutex
	say := func(table string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(out, "Prewarming table %s\n", table)
	}
	connErrs := make([]error, threads)
	errs := make([]error, threads)
	var wg sync.WaitGroup
	for i := 0; i < threads; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := target.ConnectWorker(ctx, tgt, i) // node i mod n, as the run's workers
			if err != nil {
				connErrs[i] = err
				return
			}
			defer c.Close()
			errs[i] = pw.Prewarm(ctx, c, i, threads, say)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if errors.Is(err, sysbench.ErrNoPrewarm) {
			return withCode(ExitUnsupported, err) // the same on every connection
		}
	}
	if err := errors.Join(connErrs...); err != nil {
		return err
	}
	if err := errors.Join(errs...); err != nil {
		return withCode(ExitRunFailed, err)
	}
	return nil
}

var _ Prewarmer = (*sysbench.Workload)(nil)
