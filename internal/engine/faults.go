package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/candor-bench/candor/internal/fault"
	"github.com/candor-bench/candor/internal/ledger"
	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/runner"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

// faultReconnectBackoff caps the pause between a worker's reconnection
// attempts in runs with faults or --target-role primary (2 s otherwise).
const faultReconnectBackoff = 250 * time.Millisecond

// faultRun is what a run's faults, proxies and ledger need.
type faultRun struct {
	schedule fault.Schedule
	onError  fault.OnError
	proxies  *fault.ProxySet
	ledger   bool
	recovery time.Duration
	// secrets are the targets' passwords, masked wherever a fault's text
	// is recorded or printed (the command itself runs as given).
	secrets []string
	// writers are a shard's writers, whose ids its ledger holds (nil: not
	// sharded).
	writers *ledger.Writers

	// sql runs a sql= fault's statement on a new session of the target.
	sql func(ctx context.Context, statement string) error

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
func prepareFaults(phase string, f *Spec, sh *ShardRun, wl workload.Workload, cfg runner.Config) (*faultRun, []string, error) {
	fr := &faultRun{recovery: f.RecoveryTimeout, secrets: TargetPasswords(f.Targets)}
	role := f.TargetRole
	if role == "" {
		role = RoleAny // a command without the flag
	}
	urls := f.Targets
	if len(urls) == 0 {
		urls = []string{DefaultTarget}
	}
	var errs []error
	if phase != PhaseRun {
		if len(f.Faults) > 0 || f.Ledger || role != RoleAny {
			return nil, nil, usagef("--fault, --ledger and --target-role apply to candor run")
		}
		return fr, urls, nil
	}
	onErr, err := fault.ParseOnError(f.OnFaultError)
	if err != nil {
		errs = append(errs, fmt.Errorf("--on-fault-error: %w", err))
	}
	fr.onError = onErr
	if role != RoleAny && role != RolePrimary {
		errs = append(errs, fmt.Errorf("--target-role %q is not valid; use any (worker w on --target w mod n) or primary (whichever --target accepts writes)", role))
	}
	if f.RecoveryTimeout < 0 {
		errs = append(errs, fmt.Errorf("--recovery-timeout must not be negative (got %v)", f.RecoveryTimeout))
	}
	// The ledger.
	lw, ledgered := wl.(workload.Ledgered)
	_, always := wl.(interface{ AlwaysLedger() })
	fr.ledger = f.Ledger || always
	switch {
	case f.Ledger && !ledgered:
		errs = append(errs, fmt.Errorf("--ledger: the workload %s cannot carry a durability ledger (its operations are not single writes with an id to read back); use the ledger workload, or commit-loop --ledger", wl.Name()))
	case fr.ledger:
		if err := lw.EnableLedger(); err != nil {
			errs = append(errs, err)
		}
		errs = append(errs, shareLedger(f, sh, wl, fr)...)
	}
	// The schedule.
	sched, err := fault.ParseAll(f.Faults)
	if err != nil {
		errs = append(errs, err)
	}
	fr.schedule = sched
	nodes := 0
	var upstreams []string
	if sched.HasNet() || f.ViaProxy {
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
		if f.ViaProxy && nodes == 0 {
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
	if len(sched) > 0 && cfg.Duration == 0 && f.Duration == nil {
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
	if role == RolePrimary {
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
		ex := &fault.Executor{Schedule: fr.schedule, OnError: fr.onError, SQL: fr.sql}
		if fr.proxies != nil {
			ex.Net = fr.proxies
		}
		dir := ledgerDir()
		ex.Notify = func(ev fault.Event) {
			if !quiet {
				if ev.Status == "" {
					fmt.Fprintf(env.Stderr, "fault %d at %.1fs: %s\n", ev.Index+1, ev.StartS, RedactText(ev.Spec, fr.secrets))
				} else {
					fmt.Fprintf(env.Stderr, "fault %d %s at %.1fs%s%s\n", ev.Index+1, ev.Status, ev.EndS, errSuffix(RedactText(ev.Error, fr.secrets)), errSuffix(ev.Leftover))
				}
			}
			if dir != "" && ev.Status != "" {
				appendFaultLine(dir, ev, fr.secrets)
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
				fail(errors.New(RedactText(err.Error(), fr.secrets))) // it names the fault's command
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

func appendFaultLine(dir string, ev fault.Event, secrets []string) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return
	}
	b, err := json.Marshal(toResultEvent(ev, secrets))
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
		out = append(out, toResultEvent(ev, fr.secrets))
	}
	fr.events = nil
	return out
}

// toResultEvent is ev as the result keeps it: URLs and password-like
// parameters in its command and output redacted (secrets never reach
// files).
func toResultEvent(ev fault.Event, secrets []string) result.FaultEvent {
	return result.FaultEvent{Index: ev.Index, Spec: RedactText(ev.Spec, secrets), Kind: ev.Kind, Node: ev.Node, Status: ev.Status,
		Scheduled: ev.Scheduled, Start: ev.Start, End: ev.End, StartS: ev.StartS, EndS: ev.EndS,
		ExitStatus: ev.ExitStatus, Output: RedactText(ev.Output, secrets), OutputLen: ev.OutputLen, Truncated: ev.Truncated, Error: RedactText(ev.Error, secrets),
		Leftover: ev.Leftover}
}

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
		if p.Name == PhaseRun && p.Ledger != nil && p.Ledger.Accounting == nil && p.Ledger.Error != "" {
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
	// identity is the table's identity the run recorded (verify), or ""
	// (the run itself, which records the one it reads back from).
	identity string
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
	lr.TableIdentity = lp.identity
	present, err := readBack(ctx, tgt, lw, &lp.owner, &lr.TableIdentity, timeout, status)
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
//
// identity is the table's identity as the database knows it: when it is ""
// readBack sets it to the table's, else a table whose identity differs (one
// dropped and created again under the name) is refused.
func readBack(ctx context.Context, tgt target.Target, lw workload.Ledgered, owner *ledger.Owner, identity *string, timeout time.Duration, status func(string)) (map[int64]int, error) {
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
			if err = checkIdentity(ctx, c, tgt.Dialect(), lw.LedgerTable(), identity); err != nil {
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
