package runner

import (
	"context"
	"errors"
	"sync"

	"github.com/candor-bench/candor/internal/evloop"
)

// loops are a run phase's event loops (target.IOLoop): each worker is a
// task of one of them, in contiguous blocks, as pgbench's threads take
// their clients.
type loops struct {
	loops []*evloop.Loop
	tasks []*evloop.Task // worker w's
	body  []func()       // worker w's code, set once the workers exist
}

// newLoops makes n loops (1 when n <= 0, at most one per worker) and a
// task in them for each of threads workers.
func newLoops(n, threads int) (*loops, error) {
	n = min(max(n, 1), max(threads, 1))
	lp := &loops{tasks: make([]*evloop.Task, threads), body: make([]func(), threads)}
	for range n {
		l, err := evloop.New()
		if err != nil {
			lp.close()
			return nil, err
		}
		lp.loops = append(lp.loops, l)
	}
	for w := range threads {
		lp.tasks[w] = lp.loops[w*n/threads].Go(func() { lp.body[w]() })
	}
	return lp, nil
}

// taskList is the workers' tasks; nil without loops.
func (lp *loops) taskList() []*evloop.Task {
	if lp == nil {
		return nil
	}
	return lp.tasks
}

// start runs every loop on a goroutine of its own, in wg, and wakes their
// sleeping tasks when ctx ends.
func (lp *loops) start(ctx context.Context, wg *sync.WaitGroup) {
	for _, l := range lp.loops {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.Run()
		}()
	}
	context.AfterFunc(ctx, func() {
		for _, l := range lp.loops {
			l.Wake()
		}
	})
}

func (lp *loops) close() error {
	var errs []error
	for _, l := range lp.loops {
		errs = append(errs, l.Close())
	}
	return errors.Join(errs...)
}
