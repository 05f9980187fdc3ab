package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/fault"
	"github.com/candor-bench/candor/internal/ledger"
	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/runner"
	"github.com/candor-bench/candor/internal/tables"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

// errNotThisLedger marks a ledger table that is not the one a result's
// ledger wrote: none, one candor's ledger did not create, or one of
// another run or repetition (exit 4, a safety refusal).
var errNotThisLedger = errors.New("not this ledger's table")

// ledgerOwnerOf is the owner of repetition rep's ledger: the run the
// shards of a sharded run share (sharedLedgerRun), else the result's id.
func ledgerOwnerOf(res *result.Result, sh *ShardRun, rep int) ledger.Owner {
	run := res.ID
	if sh.Count > 1 {
		run = sharedLedgerRun(sh)
	}
	return ledger.Owner{Run: run, Rep: rep}
}

// sharedLedgerRun identifies the run the shards of a sharded run share:
// its run id and its --start-at, which every shard is given (a --run-id
// given again to a later run, with another start, names another run).
func sharedLedgerRun(sh *ShardRun) string {
	if sh.Start.IsZero() {
		return sh.RunID
	}
	return sh.RunID + "@" + sh.Start.UTC().Format("20060102T150405.000000000Z")
}

// startLedger names the owner in a repetition's ledger directory before its
// first write, and the ledger table's identity where the product gives
// one, so that verify knows both after a crash of candor too (the result
// rebuilt then records neither).
func startLedger(ctx context.Context, tgt target.Target, wl workload.Workload, dir string, o ledger.Owner) error {
	if err := ledger.WriteOwner(dir, o); err != nil {
		return withCode(ExitRunFailed, fmt.Errorf("the durability ledger: %w", err))
	}
	lw, ok := wl.(workload.Ledgered)
	if !ok || keepsNoRows(tgt.Driver()) {
		return nil
	}
	c, err := tgt.Connect(ctx)
	if err != nil {
		return withCode(ExitUnreachable, fmt.Errorf("reading the ledger table's identity: %w", err))
	}
	defer c.Close()
	id, err := target.TableIdentity(ctx, c, tgt.Dialect(), lw.LedgerTable())
	if err != nil || id == "" {
		return nil // none to record: verify relies on the result's, the mark's and the owner row
	}
	if err := ledger.WriteTableIdentity(dir, id); err != nil {
		return withCode(ExitRunFailed, fmt.Errorf("the durability ledger: %w", err))
	}
	return nil
}

// shareLedger readies a sharded run's ledger (--shard i/N with N > 1):
// the shards write one table, which the first creates and the others
// join, and shard i's workers are numbered from ledger.ShardFirst(i), so
// their write ids are distinct whatever --threads each shard was given. It
// returns the problems that forbid it.
func shareLedger(f *Spec, sh *ShardRun, wl workload.Workload, fr *faultRun) []error {
	if sh.Count <= 1 {
		return nil
	}
	sl, ok := wl.(workload.SharedLedger)
	if !ok {
		return []error{fmt.Errorf("--shard %s: the ledger of %s cannot be written by several shards (its write ids are not qualified by the shard); run it from one process", sh.Of, wl.Name())}
	}
	var errs []error
	if f.Repeat > 1 {
		errs = append(errs, fmt.Errorf("--shard %s with --repeat %d: each repetition creates the ledger table anew, and only the first repetition of the shards starts together (--start-at); run each repetition as a sharded run of its own", sh.Of, f.Repeat))
	}
	if f.Load == "always" {
		errs = append(errs, fmt.Errorf("--shard %s with --load always: each shard would drop the ledger table the others write; the shards create it together with --load auto", sh.Of))
	}
	total := int64(deref(f.Threads))
	if f.Threads == nil {
		total = int64(max(wl.Limits().Threads, 1))
	}
	mine := share(total, sh.Index, sh.Count)
	if sh.Count > ledger.MaxShards {
		errs = append(errs, fmt.Errorf("--shard %s: a ledger's write ids number the writers of at most %d shards; run with fewer shards", sh.Of, ledger.MaxShards))
	}
	if mine > ledger.ShardWriters {
		errs = append(errs, fmt.Errorf("--shard %s: %d workers in one shard; a shard's ledger numbers at most %d writers: give fewer --threads or more shards", sh.Of, mine, ledger.ShardWriters))
	}
	first := ledger.ShardFirst(sh.Index)
	sl.ShareLedger(sharedLedgerRun(sh), first)
	fr.writers = &ledger.Writers{First: first, Count: int(mine)}
	return errs
}

// claimLedger records owner in the ledger table of a run (created anew
// for it), or finds it there (a shard joining the table another shard
// created). A table that records another owner is refused: it holds
// another run's writes (a run with --load never on an earlier run's table).
func claimLedger(ctx context.Context, fr *faultRun, tgt target.Target, wl workload.Workload, owner ledger.Owner) error {
	lo, ok := wl.(workload.LedgerOwner)
	if !fr.ledger || !ok || keepsNoRows(tgt.Driver()) {
		return nil
	}
	c, err := tgt.Connect(ctx)
	if err != nil {
		return withCode(ExitUnreachable, fmt.Errorf("recording the ledger's owner: %w", err))
	}
	defer c.Close()
	owners, err := lo.Owners(ctx, c)
	if err != nil {
		return withCode(ExitRunFailed, fmt.Errorf("reading the ledger table's owner: %w", err))
	}
	switch {
	case slices.Contains(owners, owner.String()):
		return nil
	case len(owners) == 0:
		if err := lo.WriteOwner(ctx, c, owner.String(), owner.Rep); err != nil {
			return withCode(ExitRunFailed, err)
		}
		return nil
	}
	return withCode(ExitUnsupported, fmt.Errorf("table %s holds the ledger of %s; a ledger table holds the writes of one run: run with --load auto (the default) to create it anew, or choose another table (-p table=...)",
		wl.(workload.Ledgered).LedgerTable(), ownersText(owners)))
}

// ownersText describes owner texts for messages.
func ownersText(owners []string) string {
	var parts []string
	for _, s := range owners {
		if o, err := ledger.ParseOwner(s); err == nil {
			parts = append(parts, o.Describe())
		} else {
			parts = append(parts, fmt.Sprintf("%q", s))
		}
	}
	return strings.Join(parts, " and ")
}

// checkOwner checks, before a read-back, that the ledger table is want's:
// it exists, candor created it, and it records want as its owner. A
// workload that records no owner, or no want, is not checked.
func checkOwner(ctx context.Context, c target.Conn, d dialect.Dialect, lw workload.Ledgered, want *ledger.Owner) error {
	lo, ok := lw.(workload.LedgerOwner)
	if !ok || want == nil {
		return nil
	}
	table := lw.LedgerTable()
	exists, owned, err := target.TableState(ctx, c, d, table)
	if err != nil {
		return err
	}
	if !exists {
		return fmt.Errorf("%w: table %s does not exist on this target: it was dropped since the run (candor cleanup), or this is not the run's target", errNotThisLedger, table)
	}
	if !owned {
		return fmt.Errorf("%w: table %s exists but candor did not create it: its ids are not this ledger's to account for", errNotThisLedger, table)
	}
	owners, err := lo.Owners(ctx, c)
	if err != nil {
		return err
	}
	return ownerVerdict(table, owners, *want)
}

// checkIdentity reads table's identity: it records it in *want when that
// is "", else refuses a table whose identity is another (dropped and created
// again since the run). It also refuses a table whose identity is not the
// one candor_owned_tables recorded when candor created it (tables.Verify):
// the check that still holds for a result without the identity (one
// rebuilt after a crash). A product that gives none is not checked.
func checkIdentity(ctx context.Context, c target.Conn, d dialect.Dialect, table string, want *string) error {
	got, err := target.TableIdentity(ctx, c, d, table)
	switch {
	case err != nil:
		return err
	case *want == "":
	case got != "" && got != *want:
		return fmt.Errorf("%w: table %s is not the one the run wrote: it was dropped and created again since (identity %s then, %s now); its ids are not this ledger's to account for",
			errNotThisLedger, table, *want, got)
	}
	if err := tables.Verify(ctx, c, d, table, "account for"); err != nil {
		if errors.Is(err, target.ErrForeignTable) {
			return fmt.Errorf("%w: %v", errNotThisLedger, err)
		}
		return err
	}
	if *want == "" {
		*want = got
	}
	return nil
}

// ownerVerdict says whether a table recording owners holds want's ledger
// (nil), and why not.
func ownerVerdict(table string, owners []string, want ledger.Owner) error {
	switch {
	case len(owners) == 0:
		return fmt.Errorf("%w: table %s records no ledger owner: candor's ledger did not create it (a table made by hand or by another tool, or by a candor older than ledger owners); its ids are not this ledger's to account for", errNotThisLedger, table)
	case len(owners) > 1 && slices.Contains(owners, want.String()):
		return fmt.Errorf("%w: table %s records several ledger owners (%s): other writes were added to it; its ids cannot be told apart", errNotThisLedger, table, ownersText(owners))
	case len(owners) == 1 && owners[0] == want.String():
		return nil
	}
	got, err := ledger.ParseOwner(owners[0])
	switch {
	case len(owners) > 1 || err != nil:
		return fmt.Errorf("%w: table %s records the owner %s, not this ledger's (%s)", errNotThisLedger, table, ownersText(owners), want.Describe())
	case got.SameRun(want):
		return fmt.Errorf("%w: table %s holds repetition %d of this run, not repetition %d: each repetition creates the table anew, so repetition %d's writes were accounted for when it ran and cannot be read back now",
			errNotThisLedger, table, got.Rep, want.Rep, want.Rep)
	}
	return fmt.Errorf("%w: table %s holds the ledger of %s, not this one's (%s): a later run created it anew, and this ledger's writes are no longer there to read back",
		errNotThisLedger, table, got.Describe(), want.Describe())
}

// runLedgerPhase is what accounting for a run phase's ledger needs.
func runLedgerPhase(outPath, dir string, owner ledger.Owner, cfg runner.Config, p *result.Phase, fr *faultRun) ledgerPhase {
	rel, _ := filepath.Rel(filepath.Dir(outPath), dir)
	return ledgerPhase{dirs: []string{dir}, relDir: rel, owner: owner, writers: fr.writers, evs: p.Faults,
		phaseStart: p.Started, width: cfg.ReportInterval, stopped: stoppedAtFault(p.Faults, fr.onError)}
}

// stoppedAtFault says why a run ended on purpose at a fault: the first
// fault that failed, under --on-fault-error stop; "" when none did.
func stoppedAtFault(evs []result.FaultEvent, onError fault.OnError) string {
	if onError != fault.OnErrorStop && onError != "" {
		return ""
	}
	for _, ev := range evs {
		if ev.Status == fault.StatusFailed {
			return fmt.Sprintf("the run stopped at %.2f s when fault %d failed (--on-fault-error stop)", ev.EndS, ev.Index+1)
		}
	}
	return ""
}

// MergeLedgers gives each run phase of a merged result the accounting of
// its shards' ledgers together: the union of their records against the
// union of the ids they read back (ledger.ReadBackFile), around the first
// shard's faults, as candor ledger verify of the merged result makes it
// from the table. out is where the merged result goes: its ledger
// directories are named relative to it.
func MergeLedgers(merged *result.Result, in []result.MergeInput, out string) {
	type key struct {
		name string
		rep  int
	}
	type shardPhase struct {
		file  string
		shard int
		p     *result.Phase
	}
	byPhase := map[key][]shardPhase{}
	for _, s := range in {
		for i := range s.Result.Phases {
			p := &s.Result.Phases[i]
			if p.Ledger != nil {
				k := key{p.Name, p.Repetition}
				byPhase[k] = append(byPhase[k], shardPhase{s.File, s.Result.Shard.Index, p})
			}
		}
	}
	outDir := filepath.Dir(out)
	for i := range merged.Phases {
		mp := &merged.Phases[i]
		shards := byPhase[key{mp.Name, mp.Repetition}]
		if len(shards) == 0 {
			continue
		}
		slices.SortFunc(shards, func(a, b shardPhase) int { return a.shard - b.shard })
		lr := &result.LedgerResult{Table: shards[0].p.Ledger.Table, Owner: shards[0].p.Ledger.Owner}
		mp.Ledger = lr
		var dirs, problems []string
		present := map[int64]int{}
		for _, s := range shards {
			sl := s.p.Ledger
			dir := filepath.Join(filepath.Dir(s.file), sl.Dir)
			rel, err := filepath.Rel(outDir, dir)
			if err != nil {
				rel, _ = filepath.Abs(dir)
			}
			dirs = append(dirs, dir)
			lr.Dirs = append(lr.Dirs, rel)
			lr.RecoveredAfterS = max(lr.RecoveredAfterS, sl.RecoveredAfterS)
			if sl.Verified.After(lr.Verified) {
				lr.Verified = sl.Verified
			}
			if len(mp.Faults) == 0 && len(s.p.Faults) > 0 {
				mp.Faults = s.p.Faults
				lr.FaultIndex = nil
			}
			switch {
			case sl.Owner != lr.Owner:
				problems = append(problems, fmt.Sprintf("shard %d's ledger is another's (%s, not %s)", s.shard, sl.Owner, lr.Owner))
			case sl.Accounting == nil:
				problems = append(problems, fmt.Sprintf("shard %d has no accounting (%s)", s.shard, sl.Error))
			default:
				ids, err := ledger.ReadReadBack(dir)
				if err != nil {
					problems = append(problems, fmt.Sprintf("shard %d: %v", s.shard, err))
				}
				for id, n := range ids {
					present[id] = max(present[id], n) // each read the whole table; rows are only added
				}
			}
		}
		if len(problems) > 0 {
			lr.Error = "no accounting of the shards together: " + strings.Join(problems, "; ") + "; run 'candor ledger verify' on the merged result"
			continue
		}
		records, info, err := readLedgers(dirs)
		if err != nil {
			lr.Error = fmt.Sprintf("reading the shards' ledger files: %v", err)
			continue
		}
		lr.TruncatedBytes = info.TruncatedTail
		owner, _ := ledger.ParseOwner(lr.Owner)
		lp := ledgerPhase{dirs: dirs, owner: owner, evs: mp.Faults, phaseStart: mp.Started,
			width: secondsDur(merged.Run.ReportInterval), stopped: stoppedAtFault(mp.Faults, commandOnFaultError(merged.Command))}
		lr.Accounting, lr.FaultIndex = ledgerAccounting(records, present, lp)
	}
}
