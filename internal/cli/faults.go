package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/candor-bench/candor/internal/engine"
	"github.com/candor-bench/candor/internal/fault"
	"github.com/candor-bench/candor/internal/ledger"
	"github.com/candor-bench/candor/internal/report"
	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/runner"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

// Target roles (--target-role).
const (
	roleAny     = "any"
	rolePrimary = "primary"
)

// faultReconnectBackoff caps the pause between a worker's reconnection
// attempts in runs with faults or --target-role primary (2 s otherwise).
const faultReconnectBackoff = 250 * time.Millisecond

// DefaultRecoveryTimeout is how long candor waits, after a run with a
// ledger, for the target to answer before reading the ids back.
const DefaultRecoveryTimeout = 60 * time.Second

// addFaultFlags adds the run flags of faults, fail-over and the ledger.
func addFaultFlags(fl *pflag.FlagSet, f *runFlags) {
	f.onFaultError = string(fault.OnErrorStop)
	f.targetRole = roleAny
	f.recoveryTimeout.d = DefaultRecoveryTimeout
	fl.StringArrayVar(&f.faults, "fault", nil, "schedule a fault (repeatable): 'at=20s run=CMD' (a shell command; run= comes last), or 'at=20s for=5s net=pause|latency|bandwidth|reset node=K|all' through candor's proxy in front of the K-th --target (docs/FAULTS.md)")
	fl.StringVar(&f.onFaultError, "on-fault-error", string(fault.OnErrorStop), "a fault that fails (its command exits non-zero): stop ends the run (exit 5), continue records it and goes on")
	fl.StringVar(&f.targetRole, "target-role", roleAny, "any: worker w uses --target w mod n; primary: every session goes to whichever --target accepts writes (PostgreSQL target_session_attrs=read-write), reconnecting there after a fail-over")
	fl.BoolVar(&f.ledger, "ledger", false, "keep every write's outcome in a durability ledger beside the result and account for lost, unknown and duplicated writes after the run (ledger workload: always; commit-loop)")
	fl.Var(&f.recoveryTimeout, "recovery-timeout", "after a run with a ledger, wait this long for the target to answer before reading the ids back")
	// For measuring the proxy's own cost (bench/proxy-overhead.sh): the
	// proxy in front of every target without any fault.
	fl.BoolVar(&f.viaProxy, "via-proxy", false, "put candor's network-fault proxy in front of every --target, with no fault (to measure its cost)")
	fl.MarkHidden("via-proxy")
}

// faultRun is what a run's faults, proxies and ledger need.
type faultRun struct {
	schedule fault.Schedule
	onError  fault.OnError
	proxies  *fault.ProxySet
	ledger   bool
	recovery time.Duration
	// writers are a shard's writers, whose ids its ledger holds (nil: not
	// sharded).
	writers *ledger.Writers

	mu     sync.Mutex
	events []fault.Event
}

// Close stops the proxies.
func (fr *faultRun) Close() {
	if fr != nil && fr.proxies != nil {
		fr.proxies.Close()
	}
}

// prepareFaults checks the fault, role and ledger flags against the
// workload and the run (every problem at once, exit 2) and returns the
// targets to open: behind a proxy each when a network fault is scheduled,
// and as one multi-host URL that finds the primary with --target-role
// primary.
func prepareFaults(fs *pflag.FlagSet, phase string, f *runFlags, wl workload.Workload, cfg runner.Config) (*faultRun, []string, error) {
	fr := &faultRun{recovery: f.recoveryTimeout.d}
	if f.targetRole == "" {
		f.targetRole = roleAny // a command without the flag
	}
	urls := f.targets
	if len(urls) == 0 {
		urls = []string{DefaultTarget}
	}
	var errs []error
	if phase != phaseRun {
		if len(f.faults) > 0 || f.ledger || f.targetRole != roleAny {
			return nil, nil, usagef("--fault, --ledger and --target-role apply to candor run")
		}
		return fr, urls, nil
	}
	onErr, err := fault.ParseOnError(f.onFaultError)
	if err != nil {
		errs = append(errs, fmt.Errorf("--on-fault-error: %w", err))
	}
	fr.onError = onErr
	if f.targetRole != roleAny && f.targetRole != rolePrimary {
		errs = append(errs, fmt.Errorf("--target-role %q is not valid; use any (worker w on --target w mod n) or primary (whichever --target accepts writes)", f.targetRole))
	}
	if f.recoveryTimeout.d < 0 {
		errs = append(errs, fmt.Errorf("--recovery-timeout must not be negative (got %v)", f.recoveryTimeout.d))
	}
	// The ledger.
	lw, ledgered := wl.(workload.Ledgered)
	_, always := wl.(interface{ AlwaysLedger() })
	fr.ledger = f.ledger || always
	switch {
	case f.ledger && !ledgered:
		errs = append(errs, fmt.Errorf("--ledger: the workload %s cannot carry a durability ledger (its operations are not single writes with an id to read back); use the ledger workload, or commit-loop --ledger", wl.Name()))
	case fr.ledger:
		if err := lw.EnableLedger(); err != nil {
			errs = append(errs, err)
		}
		errs = append(errs, shareLedger(fs, f, wl, fr)...)
	}
	// The schedule.
	sched, err := fault.ParseAll(f.faults)
	if err != nil {
		errs = append(errs, err)
	}
	fr.schedule = sched
	nodes := 0
	var upstreams []string
	if sched.HasNet() || f.viaProxy {
		for _, u := range urls {
			up, err := fault.UpstreamOf(u)
			if err != nil {
				if errors.Is(err, fault.ErrManyHosts) {
					errs = append(errs, err)
				}
				upstreams = nil
				break
			}
			upstreams = append(upstreams, up)
		}
		nodes = len(upstreams)
		if f.viaProxy && nodes == 0 {
			errs = append(errs, errors.New("--via-proxy: the targets are not host:port URLs the proxy can stand in front of"))
		}
	}
	runLength := cfg.Warmup + cfg.Duration
	if cfg.Duration == 0 {
		runLength = 0 // bounded by operations: times cannot be checked
	}
	for _, e := range sched.Validate(fault.Limits{RunLength: runLength, Nodes: nodes}) {
		errs = append(errs, e)
	}
	if len(sched) > 0 && cfg.Duration == 0 && !fs.Changed("time") {
		errs = append(errs, errors.New("--fault needs --time: a fault is scheduled from the start of a run of known length"))
	}
	if len(errs) > 0 {
		return nil, nil, withCode(ExitUsage, errors.Join(errs...))
	}
	if nodes > 0 {
		ps, err := fault.StartProxies(upstreams)
		if err != nil {
			return nil, nil, withCode(ExitRunFailed, fmt.Errorf("starting the network-fault proxy: %w", err))
		}
		fr.proxies = ps
		proxied := make([]string, len(urls))
		for i, u := range urls {
			if proxied[i], err = fault.RewriteURL(u, ps.Addr(i)); err != nil {
				ps.Close()
				return nil, nil, withCode(ExitUsage, err)
			}
		}
		urls = proxied
	}
	if f.targetRole == rolePrimary {
		u, err := primaryURL(urls)
		if err != nil {
			fr.Close()
			return nil, nil, withCode(ExitUsage, err)
		}
		urls = []string{u}
	}
	return fr, urls, nil
}

// primaryURL joins PostgreSQL URLs of one cluster's nodes into one libpq
// multi-host URL with target_session_attrs=read-write: every connection
// goes to the first node, in order, that accepts writes.
func primaryURL(urls []string) (string, error) {
	var hosts []string
	var base *url.URL
	for i, raw := range urls {
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") || u.Host == "" {
			return "", fmt.Errorf("--target-role primary needs postgres://user@host:port/db URLs (PostgreSQL's target_session_attrs=read-write); --target %s is not one", target.Redact(raw))
		}
		if i == 0 {
			base = u
		} else if u.Path != base.Path || u.User.String() != base.User.String() {
			return "", fmt.Errorf("--target-role primary: every --target must name the same user and database (the nodes of one cluster); %s differs from %s", target.Redact(raw), target.Redact(urls[0]))
		}
		hosts = append(hosts, u.Host)
	}
	q := base.Query()
	q.Set("target_session_attrs", "read-write")
	out := *base
	out.Host = strings.Join(hosts, ",")
	out.RawQuery = q.Encode()
	return out.String(), nil
}

// hook is the runner's PhaseHook: it runs the schedule from the phase's
// start and keeps its events; a failure under --on-fault-error stop ends
// the phase. Faults are written as they end to faults.jsonl in the ledger
// directory when there is one, for candor ledger verify after a crash.
func (fr *faultRun) hook(env *Env, quiet bool, ledgerDir func() string) func(ctx context.Context, start time.Time, fail func(error)) func() {
	if len(fr.schedule) == 0 {
		return nil
	}
	return func(ctx context.Context, start time.Time, fail func(error)) func() {
		ex := &fault.Executor{Schedule: fr.schedule, OnError: fr.onError}
		if fr.proxies != nil {
			ex.Net = fr.proxies
		}
		dir := ledgerDir()
		ex.Notify = func(ev fault.Event) {
			if !quiet {
				if ev.Status == "" {
					fmt.Fprintf(env.Stderr, "fault %d at %.1fs: %s\n", ev.Index+1, ev.StartS, redactWords(ev.Spec))
				} else {
					fmt.Fprintf(env.Stderr, "fault %d %s at %.1fs%s%s\n", ev.Index+1, ev.Status, ev.EndS, errSuffix(redactWords(ev.Error)), errSuffix(ev.Leftover))
				}
			}
			if dir != "" && ev.Status != "" {
				appendFaultLine(dir, ev)
			}
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			evs, err := ex.Run(ctx, start)
			fr.mu.Lock()
			fr.events = evs
			fr.mu.Unlock()
			if err != nil {
				fail(errors.New(redactWords(err.Error()))) // it names the fault's command
			}
		}()
		return func() { <-done }
	}
}

func errSuffix(s string) string {
	if s == "" {
		return ""
	}
	return ": " + s
}

// faultsFile is where a run with a ledger keeps its fault events as they end.
const faultsFile = "faults.jsonl"

func appendFaultLine(dir string, ev fault.Event) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return
	}
	b, err := json.Marshal(toResultEvent(ev))
	if err != nil {
		return
	}
	fh, err := os.OpenFile(filepath.Join(dir, faultsFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return
	}
	fh.Write(append(b, '\n'))
	fh.Close()
}

// readFaultLines reads the events a run wrote to its ledger directory.
func readFaultLines(dir string) []result.FaultEvent {
	data, err := os.ReadFile(filepath.Join(dir, faultsFile))
	if err != nil {
		return nil
	}
	var out []result.FaultEvent
	for _, l := range strings.Split(string(data), "\n") {
		var ev result.FaultEvent
		if json.Unmarshal([]byte(l), &ev) == nil && ev.Spec != "" {
			out = append(out, ev)
		}
	}
	return out
}

// takeEvents returns the last phase's events for the result.
func (fr *faultRun) takeEvents() []result.FaultEvent {
	fr.mu.Lock()
	defer fr.mu.Unlock()
	out := make([]result.FaultEvent, 0, len(fr.events))
	for _, ev := range fr.events {
		out = append(out, toResultEvent(ev))
	}
	fr.events = nil
	return out
}

// toResultEvent is ev as the result keeps it: URLs and password-like
// parameters in its command and output redacted (secrets never reach
// files).
func toResultEvent(ev fault.Event) result.FaultEvent {
	return result.FaultEvent{Index: ev.Index, Spec: redactWords(ev.Spec), Kind: ev.Kind, Node: ev.Node, Status: ev.Status,
		Scheduled: ev.Scheduled, Start: ev.Start, End: ev.End, StartS: ev.StartS, EndS: ev.EndS,
		ExitStatus: ev.ExitStatus, Output: redactWords(ev.Output), OutputLen: ev.OutputLen, Truncated: ev.Truncated, Error: redactWords(ev.Error),
		Leftover: ev.Leftover}
}

func redactWords(s string) string { return engine.RedactWords(s) }

// ledgerDirOf is the ledger directory of a result file (and repetition,
// when the run repeats).
func ledgerDirOf(resultPath string, rep, repeat int) string {
	d := strings.TrimSuffix(resultPath, ".json") + ".ledger"
	if repeat > 1 {
		d = filepath.Join(d, fmt.Sprintf("rep-%d", rep))
	}
	return d
}

// unaccountedLedger says why a run phase's durability ledger has no
// accounting (its ids could not be read back: the target did not answer
// within --recovery-timeout, or the ledger files could not be read), ""
// when every ledger was accounted for. A run on a target that keeps no
// rows has nothing to account for: not a failure.
func unaccountedLedger(res *result.Result) string {
	if keepsNoRows(res.Target.Driver) {
		return ""
	}
	for _, p := range res.Phases {
		if p.Name == phaseRun && p.Ledger != nil && p.Ledger.Accounting == nil && p.Ledger.Error != "" {
			return p.Ledger.Error
		}
	}
	return ""
}

// keepsNoRows says the driver stores nothing (the null target): a ledger
// has no ids to read back there, and its run lacks no accounting.
func keepsNoRows(driver string) bool { return driver == "null" }

// outageFault is the fault RPO and RTO are measured from: of the faults
// that started at or after the first one and by the first write that
// failed or went unanswered after it, the last to start; the first fault
// when no write failed. A schedule that first detaches a standby, then
// kills the primary, measures from the kill, the fault that cut the
// writes off, not from the detach that prepared the loss.
func outageFault(evs []result.FaultEvent, records []ledger.Record) (int, bool) {
	first, ok := firstFault(evs)
	if !ok {
		return first, false
	}
	from := evs[first].Start.UnixNano()
	failed := int64(math.MaxInt64)
	for _, r := range records {
		if r.Outcome != ledger.Acknowledged && r.End >= from {
			failed = min(failed, r.End)
		}
	}
	best := first
	if failed == math.MaxInt64 {
		return best, true
	}
	for i, ev := range evs {
		if at := ev.Start.UnixNano(); !ev.Start.IsZero() && at <= failed && at > evs[best].Start.UnixNano() {
			best = i
		}
	}
	return best, true
}

// firstFault is the first fault to start.
func firstFault(evs []result.FaultEvent) (int, bool) {
	best := -1
	for i, ev := range evs {
		if ev.Start.IsZero() {
			continue
		}
		if best < 0 || ev.Start.Before(evs[best].Start) {
			best = i
		}
	}
	return best, best >= 0
}

// outageGrace extends the fault's end for the start of the outage
// (ledger.Input.FaultEnd).
const outageGrace = 500 * time.Millisecond

// ledgerPhase is what accounting for one phase's ledger needs besides the
// target: where its files are, whose ledger it is, its faults and its
// time line.
type ledgerPhase struct {
	dirs       []string // the ledger directories (a merged result's: every shard's)
	relDir     string   // dirs[0] relative to the result's directory ("" when merged)
	owner      ledger.Owner
	writers    *ledger.Writers // the ids that are this ledger's; nil: all
	evs        []result.FaultEvent
	phaseStart time.Time
	width      time.Duration
	stopped    string // why the run stopped at a fault on purpose (ledger.Input.Stopped)
}

// readLedgers reads the records of every ledger directory.
func readLedgers(dirs []string) ([]ledger.Record, ledger.ReadInfo, error) {
	var all []ledger.Record
	var total ledger.ReadInfo
	for _, d := range dirs {
		recs, info, err := ledger.ReadDir(d)
		if err != nil {
			return nil, total, err
		}
		all = append(all, recs...)
		total.Files += info.Files
		total.Records += info.Records
		total.TruncatedTail += info.TruncatedTail
	}
	return all, total, nil
}

// accountLedger reads a phase's ledger, waits for the target to answer
// (reconnecting, up to timeout), checks that the table is this ledger's
// (its owner), reads back every id, keeps them in the ledger directory
// (ledger.ReadBackFile, for candor merge) and accounts for them.
func accountLedger(ctx context.Context, tgt target.Target, wl workload.Workload, lp ledgerPhase, timeout time.Duration, status func(string)) *result.LedgerResult {
	lr := &result.LedgerResult{Dir: lp.relDir, Owner: lp.owner.String(), Writers: lp.writers}
	lw := wl.(workload.Ledgered)
	lr.Table = lw.LedgerTable()
	records, info, err := readLedgers(lp.dirs)
	if err != nil {
		lr.Error = fmt.Sprintf("reading the ledger files: %v", err)
		return lr
	}
	lr.TruncatedBytes = info.TruncatedTail
	if keepsNoRows(tgt.Driver()) {
		lr.Error = "the null target keeps no rows: there are no ids to read back"
		return lr
	}
	waited := time.Now()
	present, err := readBack(ctx, tgt, lw, &lp.owner, timeout, status)
	lr.RecoveredAfterS = time.Since(waited).Seconds()
	lr.Verified = time.Now()
	if err != nil {
		lr.Error = err.Error()
		return lr
	}
	if len(lp.dirs) == 1 {
		if err := ledger.WriteReadBack(lp.dirs[0], present); err != nil && status != nil {
			status(fmt.Sprintf("keeping the ids read back: %v (candor merge cannot account for this shard's ledger)", err))
		}
	}
	lr.Accounting, lr.FaultIndex = ledgerAccounting(records, ledger.Only(present, lp.writers), lp)
	return lr
}

// ledgerAccounting accounts for records against the ids present on the
// server, around the phase's outage fault.
func ledgerAccounting(records []ledger.Record, present map[int64]int, lp ledgerPhase) (*ledger.Accounting, *int) {
	in := ledger.Input{Records: records, Present: present}
	var faultIndex *int
	if i, ok := outageFault(lp.evs, records); ok {
		idx := lp.evs[i].Index
		faultIndex = &idx
		in.FaultAt = lp.evs[i].Start.UnixNano()
		in.Stopped = lp.stopped
		if !lp.evs[i].End.IsZero() {
			// A kill's command may exit a moment before the sessions
			// it cut notice: writes sent within outageGrace of its
			// end still mark the outage's start.
			in.FaultEnd = lp.evs[i].End.Add(outageGrace).UnixNano()
		}
		if lp.width > 0 && !lp.phaseStart.IsZero() {
			in.Intervals = ledger.Buckets(records, lp.phaseStart.UnixNano(), lp.width)
		}
	}
	a := ledger.Account(in)
	return &a, faultIndex
}

// readBack reads every id from the target, reconnecting until timeout,
// after checking that the table is owner's (when the workload records
// owners and owner is given).
func readBack(ctx context.Context, tgt target.Target, lw workload.Ledgered, owner *ledger.Owner, timeout time.Duration, status func(string)) (map[int64]int, error) {
	deadline := time.Now().Add(timeout)
	said := false
	for {
		present := map[int64]int{}
		retry := true
		err := func() error {
			c, err := tgt.Connect(ctx)
			if err != nil {
				return err // not up yet
			}
			defer c.Close()
			if err = checkOwner(ctx, c, tgt.Dialect(), lw, owner); err != nil {
				retry = tgt.Classify(err) == target.ClassConnection
				return err
			}
			err = lw.ReadBack(ctx, c, func(id int64) { present[id]++ })
			// Only a lost connection is worth waiting for; a refusal (a
			// missing table, a read-only node's error) is the answer.
			retry = err != nil && tgt.Classify(err) == target.ClassConnection
			return err
		}()
		if err == nil {
			return present, nil
		}
		if errors.Is(err, errNotThisLedger) {
			return nil, err
		}
		if !retry {
			return nil, fmt.Errorf("reading back the ledger's ids: %v", target.RedactError(err))
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("reading back the ledger's ids: interrupted")
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("reading back the ledger's ids: the target did not answer within --recovery-timeout %s: %v; run 'candor ledger verify RESULT' once it does", timeout, target.RedactError(err))
		}
		if !said && status != nil {
			status(fmt.Sprintf("waiting up to %s for the target to answer, to read back the ledger's ids (%v)", timeout, err))
			said = true
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// writeFaultSummary prints a phase's faults, its workers' time without a
// session and its ledger verdict.
func writeFaultSummary(w io.Writer, p *result.Phase) {
	for _, l := range report.FaultLines(p.Faults) {
		fmt.Fprintln(w, l)
	}
	var parts []string
	for i, ws := range p.Workers {
		if ws.Reconnects > 0 || ws.NoSessionSec > 0 {
			parts = append(parts, fmt.Sprintf("w%d %d in %.2f s", i, ws.Reconnects, ws.NoSessionSec))
		}
	}
	if len(parts) > 0 {
		fmt.Fprintf(w, "reconnects by worker (time without a session): %s\n", strings.Join(parts, ", "))
	}
	for _, l := range report.LedgerLines(p.Ledger) {
		fmt.Fprintln(w, l)
	}
}
