package runner

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/candor-bench/candor/internal/measure"
	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

// LoadOp is the operation name of one load batch in results.
const LoadOp = "INSERT-BATCH"

// DefaultLoadBatch is the rows per batch when none is set: large enough that
// per-statement overhead vanishes, small enough that a progress bar moves.
const DefaultLoadBatch = 1000

// LoadBatch is the records per load batch: cfg.LoadBatch when set, else
// the workload's preference (workload.BatchSizer), else DefaultLoadBatch;
// at most the workload's MaxLoadBatch. The workload must be bound.
func LoadBatch(cfg Config, w workload.Workload) int64 {
	batch := int64(cfg.LoadBatch)
	if bs, ok := w.(workload.BatchSizer); ok && batch <= 0 {
		batch = bs.LoadBatchSize()
	}
	if batch <= 0 {
		batch = DefaultLoadBatch
	}
	if lim, ok := w.(interface{ MaxLoadBatch() int }); ok && lim.MaxLoadBatch() > 0 && int64(lim.MaxLoadBatch()) < batch {
		batch = int64(lim.MaxLoadBatch())
	}
	return batch
}

// Load inserts the workload's initial data: Threads workers take batches of
// record numbers from a shared counter (one atomic add per batch) and insert
// them. A batch that fails is retried up to LoadRetries times; a batch that still
// fails ends the load with its error. On cancellation the phase is returned
// marked interrupted. Before it connects, a load too large for the disk
// of an embedded target is refused (ErrDiskSpace), and a large one says
// how much it will write (checkSpace).
func (r *Runner) Load(ctx context.Context) (*result.Phase, error) {
	cfg := r.Config
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	first, count := r.Workload.LoadRange()
	if err := r.checkSpace(ctx, count); err != nil {
		return nil, err
	}
	batch := LoadBatch(cfg, r.Workload)
	ender, _ := r.Workload.(workload.BatchEnder)
	if cfg.LoadBatch > 0 {
		ender = nil
	}
	// batchEnd is the end of the batch that begins at record from.
	batchEnd := func(from int64) int64 {
		to := from + batch
		if ender != nil {
			if e := ender.LoadBatchEnd(from); e > from {
				to = e
			}
		}
		return min(to, first+count)
	}
	threads := cfg.Threads
	if n := (count + batch - 1) / batch; ender == nil && n < int64(threads) {
		threads = int(n)
	}
	if ender != nil {
		n := 0
		for from := first; from < first+count && n < threads; from = batchEnd(from) {
			n++
		}
		threads = n
	}
	if threads < 1 {
		threads = 1
	}
	var reconnects atomic.Int64
	sessions, err := connectAll(ctx, r.Target, threads, &reconnects, nil)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, s := range sessions {
			s.close()
		}
	}()

	start := time.Now()
	coll := measure.NewCollector([]string{LoadOp}, 0, start)
	var next, rows atomic.Int64
	// claim takes the next batch: one atomic add of the fixed size, or
	// with variable batches a compare-and-swap of the next one's start.
	claim := func() (from, to int64) {
		if ender == nil {
			from = first + next.Add(batch) - batch
			return from, min(from+batch, first+count)
		}
		for {
			off := next.Load()
			if off >= count {
				return first + count, first + count
			}
			to := batchEnd(first + off)
			if next.CompareAndSwap(off, to-first) {
				return first + off, to
			}
		}
	}
	var failOnce sync.Once
	var failErr error
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for w := 0; w < threads; w++ {
		// Each batch reseeds the loader's generator from the base seed and
		// the batch's first record, so the loaded data depends only on the
		// seed and the batch size, not on which worker took which batch.
		rng := workerRand(cfg.Seed, w)
		loader := r.Workload.NewLoader(w, rng)
		sess := sessions[w]
		rec := coll.Recorder()
		// written is what the loader reported of the current batch.
		var written int64
		if pl, ok := loader.(workload.ProgressLoader); ok {
			pl.SetProgress(func(n int64) { rows.Add(n - written); written = n })
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			var o measure.Outcome
			for lctx.Err() == nil {
				from, to := claim()
				if from >= first+count {
					return
				}
				rng.Seed(cfg.Seed ^ (from * 0x2545F4914F6CDD1D))
				o = measure.Outcome{}
				t0 := time.Now()
				var err error
				for attempt := 0; ; attempt++ {
					if sess.conn == nil {
						if err = sess.reconnect(lctx, nil); err != nil {
							break
						}
					}
					o.Attempts++
					if err = loader.LoadBatch(lctx, sess.conn, from, to); err == nil || lctx.Err() != nil {
						if err == nil {
							sess.ok()
						}
						break
					}
					rows.Add(-written) // a failed batch wrote nothing
					written = 0
					cls := r.classify(err)
					rec.AddError(0, classIndex(cls), err, errorMessage)
					if cls == target.ClassConnection {
						_ = sess.reconnect(lctx, nil)
					}
					if attempt >= cfg.LoadRetries {
						break
					}
					sleepCtx(lctx, cfg.RetryInterval)
				}
				if lctx.Err() != nil {
					rows.Add(-written) // an interrupted batch is not counted
					return
				}
				o.LatencyNs = time.Since(t0).Nanoseconds()
				o.Failed = err != nil
				rec.Record(&o)
				if err != nil {
					failOnce.Do(func() {
						failErr = fmt.Errorf("load of records %d..%d failed: %w", from, to-1, err)
						cancel()
					})
					return
				}
				rows.Add(to - from - written)
				written = 0
			}
		}()
	}
	// The phase ends when the last worker returns, not after the final tick
	// (encoding histograms, sampling /proc): short phases would be slowed.
	done := make(chan struct{})
	var finished time.Time
	go func() { wg.Wait(); finished = time.Now(); close(done) }()
	mon := newMonitor(r, "load", start, coll)
	mon.loadTotal = count
	mon.loadBytes = r.loadBytes(count)
	mon.reconnects = &reconnects
	mon.loop(done, rows.Load)
	end := finished // written before done was closed

	phase := mon.phase(end)
	phase.Reconnects = reconnects.Load()
	fillOps(phase, coll.Total(), end.Sub(start))
	phase.Rows = rows.Load()
	phase.LoadBytes = r.loadBytes(phase.Rows)
	phase.Throughput = float64(phase.Rows) / secondsOf(end.Sub(start))
	phase.Client.CPUNsPerOp = mon.cpuNsPer(phase.Rows)
	switch {
	case failErr != nil:
		phase.Status = result.StatusFailed
		phase.Failure = failErr.Error()
		return phase, failErr
	case ctx.Err() != nil:
		phase.Status = result.StatusInterrupted
	default:
		phase.Status = result.StatusComplete
	}
	return phase, nil
}
