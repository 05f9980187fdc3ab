package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/tables"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

// The checks of the data a run leaves (docs/CHECKS.md). With --check the
// workload's Checker runs after the load (candor load) or after each
// repetition of the run phase, on a session of its own: with --target-role
// primary that session goes to whichever node accepts writes, so after a
// fail-over the checks read the surviving node. A workload that is also an
// IntervalChecker (bank) is checked every report interval during the run
// phase too, whether or not --check is given: its invariant is part of
// what it measures. A failed check makes the result's status check_failed
// and the run exit 5.

// checking reports whether the run checks its data: asked (--check), or a
// workload whose checks are part of its measure.
func checking(spec *Spec, wl workload.Workload) bool {
	_, always := wl.(workload.IntervalChecker)
	return spec.Check || always
}

// checkable refuses --check for a workload that has no checks (exit 2).
func checkable(spec *Spec, wl workload.Workload) error {
	if !spec.Check {
		return nil
	}
	if _, ok := wl.(workload.Checker); !ok {
		return usagef("--check: %s has no checks of its data; workloads with checks: %s", wl.Name(), strings.Join(CheckedWorkloads(), ", "))
	}
	return nil
}

// CheckedWorkloads lists the registered workloads that check their data
// (those whose default configuration is a workload.Checker).
func CheckedWorkloads() []string {
	var out []string
	for _, e := range workload.Entries() {
		w, err := e.New("", nil, nil)
		if err != nil && len(e.Variants) > 0 {
			w, err = e.New(e.Variants[0], nil, nil)
		}
		if err != nil {
			continue
		}
		if _, ok := w.(workload.Checker); ok {
			out = append(out, e.Name)
		}
	}
	sort.Strings(out)
	return out
}

// RunChecks runs wl's checks on a new session of tgt and returns them
// marked with when; with indexes, each index of wl's tables is checked
// against its table too (indexChecks). The session is retried for up to wait (a fail-over
// in progress). A check that cannot be made is returned as one failed
// check saying why: a run asked to check its data has not done so.
func RunChecks(ctx context.Context, tgt target.Target, wl workload.Workload, when string, wait time.Duration, indexes bool) []result.DataCheck {
	ch, ok := wl.(workload.Checker)
	if !ok {
		return nil
	}
	found, err := checkOnce(ctx, tgt, wait, func(ctx context.Context, c target.Conn) ([]workload.CheckResult, error) {
		out, err := ch.Check(ctx, c)
		if err != nil || !indexes {
			return out, err
		}
		for _, t := range wl.Schema() {
			ix, err := indexChecks(ctx, c, tgt.Dialect(), t.Name)
			if err != nil {
				return nil, err
			}
			out = append(out, ix...)
		}
		return out, nil
	})
	if err != nil {
		return []result.DataCheck{{Name: "checks of " + wl.Name(), When: when, Detail: "could not be made: " + RedactWords(err.Error())}}
	}
	out := make([]result.DataCheck, 0, len(found))
	for _, c := range found {
		out = append(out, result.DataCheck{Name: c.Name, Passed: c.Passed, Offending: c.Offending, Detail: c.Detail, When: when})
	}
	return out
}

// checkOnce connects (retrying until wait has passed) and runs fn.
func checkOnce(ctx context.Context, tgt target.Target, wait time.Duration, fn func(context.Context, target.Conn) ([]workload.CheckResult, error)) ([]workload.CheckResult, error) {
	deadline := time.Now().Add(wait)
	for {
		conn, err := tgt.Connect(ctx)
		if err == nil {
			defer conn.Close()
			return fn(ctx, conn)
		}
		if ctx.Err() != nil || time.Now().After(deadline) {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// checkBaseline lets a workload whose checks compare the data after the
// run with the data before it read what is there (--check only).
func checkBaseline(ctx context.Context, tgt target.Target, wl workload.Workload, spec *Spec) error {
	cb, ok := wl.(workload.CheckBaseliner)
	if !ok || !spec.Check {
		return nil
	}
	_, err := checkOnce(ctx, tgt, 0, func(ctx context.Context, c target.Conn) ([]workload.CheckResult, error) {
		return nil, cb.BeforeRun(ctx, c)
	})
	if err != nil {
		return fmt.Errorf("--check: reading the data before the run: %w", err)
	}
	return nil
}

// sqlFault runs a sql= fault's statement on a new session of tgt (an index
// built while the workload writes: sql=CREATE INDEX CONCURRENTLY ...).
func sqlFault(tgt target.Target) func(ctx context.Context, statement string) error {
	return func(ctx context.Context, statement string) error {
		c, err := tgt.Connect(ctx)
		if err != nil {
			return err
		}
		defer c.Close()
		_, err = c.Exec(ctx, statement)
		return err
	}
}

// checkWait is how long the checks after a run wait for a session: the
// recovery timeout when faults or a fail-over may have left the target
// changing hands, else no wait.
func checkWait(spec *Spec) time.Duration {
	if len(spec.Faults) > 0 || spec.TargetRole == RolePrimary {
		return spec.RecoveryTimeout
	}
	return 0
}

// intervalChecks runs a workload's interval checks once per report
// interval during a run phase, on a session of its own, and keeps them.
type intervalChecks struct {
	tgt   target.Target
	ic    workload.IntervalChecker
	every time.Duration

	mu   sync.Mutex
	recs []result.IntervalCheck
}

// hook wraps the runner's phase hook (faults) with the interval checks.
func (iv *intervalChecks) hook(inner func(context.Context, time.Time, func(error)) func()) func(context.Context, time.Time, func(error)) func() {
	if iv == nil {
		return inner
	}
	return func(ctx context.Context, start time.Time, fail func(error)) func() {
		var innerWait func()
		if inner != nil {
			innerWait = inner(ctx, start, fail)
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			iv.loop(ctx, start)
		}()
		return func() {
			if innerWait != nil {
				innerWait()
			}
			<-done
		}
	}
}

// loop checks every interval until ctx (the phase) ends. A session lost
// (a fault) is opened again at the next tick; the check it could not make
// is recorded with its error.
func (iv *intervalChecks) loop(ctx context.Context, start time.Time) {
	tick := time.NewTicker(iv.every)
	defer tick.Stop()
	var conn target.Conn
	defer func() {
		if conn != nil {
			conn.Close()
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		t := time.Since(start).Seconds()
		var found []workload.CheckResult
		var err error
		if conn == nil {
			conn, err = iv.tgt.Connect(ctx)
		}
		if err == nil {
			found, err = iv.ic.IntervalCheck(ctx, conn)
		}
		if ctx.Err() != nil {
			return // cut short by the phase's end: not a check
		}
		iv.mu.Lock()
		if err != nil {
			iv.recs = append(iv.recs, result.IntervalCheck{T: t, Error: RedactWords(err.Error())})
			if conn != nil {
				conn.Close()
				conn = nil
			}
		}
		for _, c := range found {
			iv.recs = append(iv.recs, result.IntervalCheck{T: t, Name: c.Name, Passed: c.Passed, Offending: c.Offending, Detail: c.Detail})
		}
		iv.mu.Unlock()
	}
}

// take returns the checks made so far and starts a new list.
func (iv *intervalChecks) take() []result.IntervalCheck {
	if iv == nil {
		return nil
	}
	iv.mu.Lock()
	defer iv.mu.Unlock()
	out := iv.recs
	iv.recs = nil
	return out
}

// intervalVerdicts sums a phase's interval checks into one check per
// name: passed when every snapshot made passed; Offending counts the
// snapshots that failed.
func intervalVerdicts(recs []result.IntervalCheck, when string) []result.DataCheck {
	type acc struct {
		made, failed int64
		first        string
	}
	var names []string
	by := map[string]*acc{}
	var errs int64
	for _, r := range recs {
		if r.Error != "" {
			errs++
			continue
		}
		a := by[r.Name]
		if a == nil {
			a = &acc{}
			by[r.Name] = a
			names = append(names, r.Name)
		}
		a.made++
		if !r.Passed {
			a.failed++
			if a.first == "" {
				a.first = fmt.Sprintf("first at %.1fs: %s", r.T, r.Detail)
			}
		}
	}
	var out []result.DataCheck
	for _, n := range names {
		a := by[n]
		detail := fmt.Sprintf("%d snapshot(s), %d failed", a.made, a.failed)
		if a.first != "" {
			detail += "; " + a.first
		}
		if errs > 0 {
			detail += fmt.Sprintf("; %d could not be made (no session)", errs)
		}
		out = append(out, result.DataCheck{Name: n, Passed: a.failed == 0, Offending: a.failed, Detail: detail, When: when})
	}
	if len(names) == 0 && errs > 0 {
		// Not one snapshot was made: the check did not hold, it was not
		// made (as an after-run check that cannot connect).
		out = append(out, result.DataCheck{Name: "checks during the run", When: when,
			Detail: fmt.Sprintf("could not be made: none of %d snapshot(s) got a session or an answer; first: %s", errs, firstError(recs))})
	}
	return out
}

// firstError is the first interval check's error of recs.
func firstError(recs []result.IntervalCheck) string {
	for _, r := range recs {
		if r.Error != "" {
			return r.Error
		}
	}
	return ""
}

// markChecks makes a complete result whose checks failed check_failed.
func markChecks(res *result.Result) {
	if res.Status != result.StatusComplete {
		return
	}
	if why := result.CheckFailure(res); why != "" {
		res.Status, res.Error = result.StatusCheckFailed, why
	}
}

// whenRun names the run phase of repetition rep of repeat.
func whenRun(rep, repeat int) string {
	if repeat > 1 {
		return fmt.Sprintf("after run %d", rep)
	}
	return "after run"
}

// CheckRequest is what candor check is asked: where its lines go.
type CheckRequest struct {
	Stdout, Stderr io.Writer
}

// CheckTables runs wl's checks alone on the tables a load or run left on
// tgt (candor check): every table of wl must exist and be candor's (its
// mark and identity), else it is refused (exit 4). It prints one line per
// check and returns an error with exit 5 when one failed.
func CheckTables(ctx context.Context, tgt target.Target, wl workload.Workload, req CheckRequest) ([]result.DataCheck, error) {
	if _, ok := wl.(workload.Checker); !ok {
		return nil, usagef("%s has no checks of its data; workloads with checks: %s", wl.Name(), strings.Join(CheckedWorkloads(), ", "))
	}
	conn, err := tgt.Connect(ctx)
	if err != nil {
		return nil, withCode(ExitUnreachable, err)
	}
	defer conn.Close()
	d := tgt.Dialect()
	for _, t := range wl.Schema() {
		exists, owned, err := target.TableState(ctx, conn, d, t.Name)
		switch {
		case err != nil:
			return nil, withCode(ExitUnreachable, err)
		case !exists:
			return nil, withCode(ExitUnsupported, fmt.Errorf("table %s does not exist: there is nothing to check; load it first (candor load %s, same --target and options)", t.Name, wl.Name()))
		case !owned:
			return nil, withCode(ExitUnsupported, fmt.Errorf("%w: table %s was not created by candor: candor checks only the tables it created and knows the content of; load them with candor load %s", target.ErrForeignTable, t.Name, wl.Name()))
		}
		if err := tables.Verify(ctx, conn, d, t.Name, "check"); err != nil {
			return nil, TablesError(ctx, err)
		}
	}
	conn.Close()
	checks := RunChecks(ctx, tgt, wl, "check", 0, true)
	for _, c := range checks {
		fmt.Fprintln(req.Stdout, c.String())
	}
	if why := result.CheckFailure(&result.Result{Checks: checks}); why != "" {
		return checks, withCode(ExitRunFailed, errors.New(why))
	}
	return checks, nil
}

// indexChecks checks each index of table against the table: one the
// server marks invalid (a CREATE INDEX CONCURRENTLY that failed) fails;
// then the product's own checker where it is installed (PostgreSQL's
// amcheck: bt_index_check with heapallindexed, which finds an index entry
// missing for a row or pointing at none), else a count of the rows through
// the index against a count without it, the planner forced each way.
func indexChecks(ctx context.Context, c target.Conn, d dialect.Dialect, table string) ([]workload.CheckResult, error) {
	ic := dialect.IndexCheck(d, table)
	if ic.List == "" {
		return nil, nil
	}
	rowsOf := func(q string) ([][]string, error) {
		var rows [][]string
		_, err := c.Query(ctx, q, nil, func(cols [][]byte) error {
			row := make([]string, len(cols))
			for i, v := range cols {
				row[i] = string(v)
			}
			rows = append(rows, row)
			return nil
		})
		return rows, err
	}
	list, err := rowsOf(ic.List)
	if err != nil {
		return nil, fmt.Errorf("listing the indexes of %s: %w", table, err)
	}
	invalid := map[string]bool{}
	if ic.Invalid != "" {
		rows, err := rowsOf(ic.Invalid)
		if err != nil {
			return nil, fmt.Errorf("reading which indexes of %s are valid: %w", table, err)
		}
		for _, r := range rows {
			invalid[r[0]] = true
		}
	}
	amcheck := false
	if ic.Enable != "" {
		c.Exec(ctx, ic.Enable) // not installed, or no right to: the counts instead
		rows, err := rowsOf(ic.Available)
		amcheck = err == nil && len(rows) > 0
	}
	var out []workload.CheckResult
	for _, row := range list {
		idx := row[0]
		name := "index " + idx + " of " + table
		switch {
		case invalid[idx]:
			out = append(out, workload.CheckResult{Name: name, Offending: 1,
				Detail: "the server marks it invalid (a CREATE INDEX CONCURRENTLY that failed leaves one): DROP INDEX it and build it again"})
		case amcheck && row[1] == "1":
			r := workload.CheckResult{Name: name, Passed: true, Detail: "amcheck bt_index_check (heapallindexed): consistent with its table"}
			if _, err := c.Query(ctx, ic.Verify(idx), nil, nil); err != nil {
				if ctx.Err() != nil {
					return nil, err
				}
				r.Passed, r.Offending, r.Detail = false, 1, "amcheck bt_index_check (heapallindexed): "+err.Error()
			}
			out = append(out, r)
		default:
			r, err := countCompare(ctx, c, ic, idx, rowsOf)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			r.Name = name
			out = append(out, r)
		}
	}
	return out, nil
}

// countCompare counts table's rows through idx and without it.
func countCompare(ctx context.Context, c target.Conn, ic dialect.IndexChecks, idx string, query func(string) ([][]string, error)) (workload.CheckResult, error) {
	col := ""
	if ic.Column != nil {
		rows, err := query(ic.Column(idx))
		if err != nil || len(rows) == 0 {
			// An expression index: no column to count by.
			return workload.CheckResult{Passed: true, Detail: "not compared: its first key is an expression"}, err
		}
		col = rows[0][0]
	}
	count := func(set []string, q string) (int64, error) {
		for _, s := range set {
			if _, err := c.Exec(ctx, s); err != nil {
				return 0, err
			}
		}
		rows, err := query(q)
		if err != nil {
			return 0, err
		}
		if len(rows) != 1 {
			return 0, fmt.Errorf("%s returned %d rows", q, len(rows))
		}
		var n int64
		_, err = fmt.Sscan(rows[0][0], &n)
		return n, err
	}
	via, err := count(ic.ForceIndex, ic.ViaIndex(idx, col))
	if err == nil {
		var without int64
		without, err = count(ic.ForceTable, ic.WithoutIndex(idx, col))
		if err == nil {
			r := workload.CheckResult{Passed: via == without, Detail: fmt.Sprintf("%d rows through the index, %d without it", via, without)}
			if !r.Passed {
				r.Offending = via - without
				if r.Offending < 0 {
					r.Offending = -r.Offending
				}
			}
			for _, s := range ic.ResetPlanner {
				c.Exec(ctx, s)
			}
			return r, nil
		}
	}
	for _, s := range ic.ResetPlanner {
		c.Exec(ctx, s)
	}
	return workload.CheckResult{}, err
}
