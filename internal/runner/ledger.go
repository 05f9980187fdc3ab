package runner

import (
	"errors"
	"fmt"
	"time"

	"github.com/candor-bench/candor/internal/ledger"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

// openLedgers creates one ledger writer per worker in Config.LedgerDir
// (nil when it is ""). The workload's workers must be
// workload.LedgerWorkers. A shard's workers are numbered from the
// workload's first writer (workload.SharedLedger), in their files and
// records as in their write ids.
func (r *Runner) openLedgers(start time.Time) ([]*ledger.Writer, error) {
	dir := r.Config.LedgerDir
	if dir == "" {
		return nil, nil
	}
	first := 0
	if sl, ok := r.Workload.(workload.SharedLedger); ok {
		first = sl.FirstWriter()
	}
	ws := make([]*ledger.Writer, r.Config.Threads)
	for i := range ws {
		w, err := ledger.Create(dir, first+i, start, 0)
		if err != nil {
			closeLedgers(ws)
			return nil, fmt.Errorf("the durability ledger: %w", err)
		}
		ws[i] = w
	}
	return ws, nil
}

// closeLedgers flushes, fsyncs and closes the writers.
func closeLedgers(ws []*ledger.Writer) error {
	var errs []error
	for _, w := range ws {
		if w != nil {
			errs = append(errs, w.Close())
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("closing the durability ledger: %w", err)
	}
	return nil
}

// record appends one attempt's outcome to the worker's ledger: sent and end
// are offsets from the phase start.
func (wr *worker) record(sent, end time.Duration, err error) {
	id := wr.writeID.WriteID()
	if aerr := wr.ledger.Append(id, wr.startNs+int64(sent), wr.startNs+int64(end), Outcome(wr.r.Target, err)); aerr != nil {
		wr.fail(fmt.Errorf("the durability ledger: %w", aerr))
	}
}

// Outcome is what the client knows of a write that returned err: nil is
// acknowledged; an error the server answered, or one the driver knows
// happened before anything was sent, is failed (nothing can have
// committed); anything else (the connection died with the write in
// flight, a timeout) is unknown.
func Outcome(t target.Target, err error) ledger.Outcome {
	switch {
	case err == nil:
		return ledger.Acknowledged
	case target.NotSent(t, err):
		return ledger.Failed
	}
	if _, ok := target.ServerErrorOf(t, err); ok {
		return ledger.Failed
	}
	return ledger.Unknown
}
