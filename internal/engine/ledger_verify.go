package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/fault"
	"github.com/candor-bench/candor/internal/ledger"
	"github.com/candor-bench/candor/internal/report"
	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

// VerifyRequest is what candor ledger verify was asked.
type VerifyRequest struct {
	Targets    []string
	Role       string
	RoleSet    bool
	Timeout    time.Duration
	Repetition int
}

// verifyPhase is one run phase whose ledger verify accounts for again.
type verifyPhase struct {
	p  *result.Phase
	lp ledgerPhase
}

// VerifyLedger is candor ledger verify of the result at path.
func VerifyLedger(ctx context.Context, env *Env, path string, req VerifyRequest) error {
	res, recovered, err := readOrRecover(path)
	if err != nil {
		return err
	}
	phases, err := verifyPhases(path, res, req.Repetition)
	if err != nil {
		return err
	}
	targets, role := req.Targets, req.Role
	cmdTargets, cmdRole := commandTargets(res.Command)
	if len(targets) == 0 {
		targets = cmdTargets
		for _, t := range targets {
			if strings.Contains(t, "xxxxx") {
				return usagef("the run's --target %s held a password, which the result does not keep: give the URLs again with --target", t)
			}
		}
	}
	if !req.RoleSet {
		role = cmdRole
	}
	if len(targets) == 0 {
		return usagef("the result names no --target: give the run's targets with --target")
	}
	wl, err := ledgerWorkloadOf(env, res)
	if err != nil {
		return err
	}
	shown := redactAll(targets)
	node, warnings, err := readNode(ctx, targets, role, wl)
	if err != nil {
		outcome := "failed"
		if errors.Is(err, errNotThisLedger) {
			outcome = "refused"
		}
		for _, vp := range phases {
			vp.p.Ledger.Verifications = append(vp.p.Ledger.Verifications, result.LedgerVerification{Time: time.Now(), Targets: shown,
				Outcome: outcome, Reason: err.Error()})
		}
		return verifyEnd(env, path, res, err)
	}
	for _, w := range warnings {
		fmt.Fprintln(env.Stderr, "candor: warning: "+w)
	}
	tgt, err := OpenBound(ctx, node, target.Options{ConnectTimeout: target.DefaultConnectTimeout}, wl, 1)
	if err != nil {
		return withCode(ExitUnreachable, err)
	}
	defer tgt.Close()
	var verified int
	var refused, failed error
	for _, vp := range phases {
		v := result.LedgerVerification{Time: time.Now(), Targets: shown, Node: target.Redact(strings.Join(node, " ")), Warnings: warnings}
		a, faultIndex, err := verifyOne(ctx, env, tgt, wl, vp.lp, req.Timeout)
		lr := vp.p.Ledger
		switch {
		case errors.Is(err, errNotThisLedger):
			v.Outcome, v.Reason = "refused", err.Error()
			refused = err
			fmt.Fprintf(env.Stderr, "candor: %s: not verified: %v\n", vp.lp.relDir, err)
		case err != nil:
			v.Outcome, v.Reason = "failed", err.Error()
			failed = err
			fmt.Fprintf(env.Stderr, "candor: %s: not verified: %v\n", vp.lp.relDir, err)
		default:
			verified++
			v.Outcome, v.Accounting = "verified", a
			fmt.Fprintf(env.Stdout, "%s (%s, %s):\n", path, vp.lp.relDir, vp.lp.owner.Describe())
			for _, l := range report.LedgerLines(&result.LedgerResult{Accounting: a}) {
				fmt.Fprintln(env.Stdout, l)
			}
			// verify's figures stay in its verification: the run's
			// accounting is the run's alone, and a run that made none (a
			// crash of candor, a recovery slower than --recovery-timeout)
			// keeps none; reports show verify's, labelled as verify's.
			v.FaultIndex = faultIndex
			if lr.Accounting == nil {
				fmt.Fprintln(env.Stdout, "ledger: the run made no accounting of its own; these figures are verify's (stored in ledger.verifications)")
			} else if d := accountingDiff(lr.Accounting, a); d != "" {
				fmt.Fprintf(env.Stdout, "ledger: differs from the run's own accounting (kept in the result): %s\n", d)
			}
		}
		lr.Verifications = append(lr.Verifications, v)
	}
	if recovered {
		fmt.Fprintf(env.Stderr, "candor: %s was rebuilt from its interval file (the run did not finish)\n", path)
	}
	switch {
	case failed != nil:
		err = withCode(ExitUnreachable, fmt.Errorf("the ledger was not verified: %w", failed))
	case verified == 0 || (refused != nil && req.Repetition > 0):
		err = withCode(ExitUnsupported, fmt.Errorf("the ledger was not verified: %w", refused))
	}
	return verifyEnd(env, path, res, err)
}

// verifyEnd stores the verifications in the result and returns err.
func verifyEnd(env *Env, path string, res *result.Result, err error) error {
	if werr := result.Write(path, res); werr != nil {
		return &Error{Code: ExitResultNotWritten, Err: fmt.Errorf("the verification could not be stored in %s: %w", path, werr)}
	}
	fmt.Fprintf(env.Stderr, "result: %s\n", path)
	if err != nil {
		return withCode(ExitUnsupported, err)
	}
	return nil
}

// verifyPhases lists the run phases whose ledgers verify accounts for
// (only repetition rep's when rep > 0), each with its directories and
// owner: the owner the result records, else the one its ledger directory
// names. A result that records none is refused: verify could not tell its
// table from one created since.
func verifyPhases(path string, res *result.Result, rep int) ([]verifyPhase, error) {
	resDir := filepath.Dir(path)
	base := strings.TrimSuffix(path, ".json") + ".ledger"
	derived := ledgerDirs(base)
	var out []verifyPhase
	k := 0
	for i := range res.Phases {
		p := &res.Phases[i]
		if p.Name != PhaseRun {
			continue
		}
		k++
		if rep > 0 && max(p.Repetition, 1) != rep {
			continue
		}
		lp := ledgerPhase{phaseStart: p.Started, width: secondsDur(res.Run.ReportInterval), stopped: stoppedAtFault(p.Faults, commandOnFaultError(res.Command))}
		switch {
		case p.Ledger != nil && len(p.Ledger.Dirs) > 0:
			for _, d := range p.Ledger.Dirs {
				lp.dirs = append(lp.dirs, filepath.Join(resDir, d))
			}
			lp.relDir = strings.Join(p.Ledger.Dirs, ", ")
		case p.Ledger != nil && p.Ledger.Dir != "":
			lp.dirs, lp.relDir = []string{filepath.Join(resDir, p.Ledger.Dir)}, p.Ledger.Dir
		case k <= len(derived):
			if _, err := os.Stat(derived[k-1]); err != nil {
				continue
			}
			lp.dirs = []string{derived[k-1]}
			lp.relDir, _ = filepath.Rel(resDir, derived[k-1])
		default:
			continue
		}
		if p.Ledger == nil {
			p.Ledger = &result.LedgerResult{Dir: lp.relDir}
		}
		lp.writers = p.Ledger.Writers
		if len(p.Faults) == 0 && len(lp.dirs) == 1 {
			p.Faults = readFaultLines(lp.dirs[0])
			lp.stopped = stoppedAtFault(p.Faults, commandOnFaultError(res.Command))
		}
		lp.evs = p.Faults
		owner, err := phaseOwner(p.Ledger, lp.dirs)
		if err != nil {
			return nil, err
		}
		lp.owner = owner
		lp.identity = p.Ledger.TableIdentity
		p.Ledger.Owner = owner.String()
		out = append(out, verifyPhase{p: p, lp: lp})
	}
	if len(out) == 0 {
		if rep > 0 {
			return nil, usagef("%s has no repetition %d with a ledger to verify", path, rep)
		}
		if _, err := os.Stat(base); err != nil {
			return nil, withCode(ExitUsage, fmt.Errorf("%s has no ledger: %s does not exist (only runs of the ledger workload, or with --ledger, keep one)", path, base))
		}
		return nil, withCode(ExitUsage, fmt.Errorf("%s has no run phase with a ledger to verify", path))
	}
	return out, nil
}

// phaseOwner is whose ledger a phase's is.
func phaseOwner(lr *result.LedgerResult, dirs []string) (ledger.Owner, error) {
	if lr.Owner != "" {
		o, err := ledger.ParseOwner(lr.Owner)
		if err != nil {
			return o, withCode(ExitUsage, err)
		}
		return o, nil
	}
	o, ok, err := ledger.ReadOwner(dirs[0])
	if err != nil {
		return o, withCode(ExitUsage, err)
	}
	if !ok {
		return o, withCode(ExitUnsupported, fmt.Errorf("%w: the ledger in %s does not record whose it is (it was written by a candor older than ledger owners): verify cannot tell its table from one created since by another run", errNotThisLedger, dirs[0]))
	}
	return o, nil
}

// verifyOne reads a phase's ledger and the table's ids (after checking
// the table is the ledger's) and accounts for them.
func verifyOne(ctx context.Context, env *Env, tgt target.Target, wl workload.Workload, lp ledgerPhase, timeout time.Duration) (*ledger.Accounting, *int, error) {
	records, _, err := readLedgers(lp.dirs)
	if err != nil {
		return nil, nil, err
	}
	if keepsNoRows(tgt.Driver()) {
		return nil, nil, errors.New("the null target keeps no rows: there are no ids to read back")
	}
	identity := lp.identity // the run's: verify never changes what the run recorded
	for _, d := range lp.dirs {
		if identity != "" {
			break
		}
		// A result rebuilt after a crash of candor records none; the
		// ledger directory does, from before the run's first write.
		if identity, err = ledger.ReadTableIdentity(d); err != nil {
			return nil, nil, err
		}
	}
	if identity == "" {
		_, ownerRows := wl.(workload.LedgerOwner)
		if err := markIdentified(ctx, tgt, wl.(workload.Ledgered).LedgerTable(), ownerRows); err != nil {
			return nil, nil, err
		}
	}
	present, err := readBack(ctx, tgt, wl.(workload.Ledgered), &lp.owner, &identity, timeout, func(s string) { fmt.Fprintln(env.Stderr, "candor: "+s) })
	if err != nil {
		return nil, nil, err
	}
	a, fi := ledgerAccounting(records, ledger.Only(present, lp.writers), lp)
	return a, fi, nil
}

// markIdentified refuses, for a result that records no table identity (one
// rebuilt after candor was killed, or written by an older candor), a table
// whose identity nothing else records: the product gives one, but
// candor_owned_tables holds no mark for the table (the mark row gone, the
// table made by hand). Its ids could be anyone's. A mark that records no
// identity is refused by checkIdentity (tables.Verify); a table that does
// not exist, or a product that gives no identity, is left to the read-back.
// A connection that fails is left to the read-back too, which waits for
// the target.
//
// A ledger whose table holds no owner row (ownerRows false: commit-loop
// --ledger) is refused even when candor_owned_tables marks the table: the
// mark is that of whichever run created the table last, so nothing ties
// the table to this ledger (verify counted a later run's rows as this
// one's: "lost 40", exit 0).
func markIdentified(ctx context.Context, tgt target.Target, table string, ownerRows bool) error {
	c, err := tgt.Connect(ctx)
	if err != nil {
		return nil
	}
	defer c.Close()
	exists, owned, err := target.TableState(ctx, c, tgt.Dialect(), table)
	if err != nil || !exists || (owned && ownerRows) {
		return nil
	}
	now, err := target.TableIdentity(ctx, c, tgt.Dialect(), table)
	if err != nil || now == "" {
		return nil
	}
	if owned {
		return fmt.Errorf("%w: table %s's identity is recorded nowhere: the result has no table_identity (rebuilt after candor was killed, or written by an older candor), nor does its ledger directory (%s), and the table holds no owner row: candor_owned_tables marks it as candor's, but it may be another run's, created since under the name; verify a result that records table_identity, or account for the table's ids by hand",
			errNotThisLedger, table, ledger.TableFile)
	}
	return fmt.Errorf("%w: table %s's identity is recorded nowhere: the result has no table_identity (rebuilt after candor was killed, or written by an older candor) and %s holds no mark for the table (its row was deleted, or the table was made by hand), so verify cannot tell the run's table from another of the name; verify a result that records table_identity, or account for the table's ids by hand",
		errNotThisLedger, table, target.MarkerTable)
}

// readNode chooses the node(s) verify reads back from. With several
// targets, it asks each whether it accepts writes: --target-role primary
// reads from the one that does and refuses when several do (an old
// primary restarted beside the promoted one holds another history);
// otherwise several writable nodes are a warning.
func readNode(ctx context.Context, targets []string, role string, wl workload.Workload) ([]string, []string, error) {
	if role != RolePrimary && role != RoleAny {
		return nil, nil, usagef("--target-role %q is not valid; use any or primary", role)
	}
	if len(targets) < 2 {
		return targets, nil, nil
	}
	var writable, unknown []string
	for _, u := range targets {
		w, known, err := nodeWritable(ctx, u, wl)
		switch {
		case err != nil && role == RolePrimary:
			// A node that does not answer does not accept writes.
		case err != nil || !known:
			unknown = append(unknown, u)
		case w:
			writable = append(writable, u)
		}
	}
	if role == RolePrimary {
		switch len(writable) {
		case 0:
			return nil, nil, withCode(ExitUnreachable, fmt.Errorf("--target-role primary: none of the --target nodes (%s) answers as accepting writes", strings.Join(redactAll(targets), ", ")))
		case 1:
			return writable, nil, nil
		}
		return nil, nil, withCode(ExitUnsupported, fmt.Errorf("%w: --target-role primary: %d nodes accept writes (%s): an old primary restarted beside the promoted one holds another history, and which one a read-back reached would decide the figures; give the node to verify against as the only --target",
			errNotThisLedger, len(writable), strings.Join(redactAll(writable), ", ")))
	}
	var warns []string
	if len(writable) > 1 {
		warns = append(warns, fmt.Sprintf("%d of the --target nodes accept writes (%s): verify reads back from them as the run wrote to them; if they are not one multi-primary cluster, give the node to verify against as the only --target",
			len(writable), strings.Join(redactAll(writable), ", ")))
	}
	return targets, warns, nil
}

// nodeWritable asks one node whether it accepts writes; known is false for
// a product without the question (dialect.NodeWritable).
func nodeWritable(ctx context.Context, url string, wl workload.Workload) (writable, known bool, err error) {
	tgt, err := OpenBound(ctx, []string{url}, target.Options{ConnectTimeout: target.DefaultConnectTimeout}, wl, 1)
	if err != nil {
		return false, false, err
	}
	defer tgt.Close()
	q := dialect.NodeWritable(tgt.Dialect())
	if q == "" {
		return false, false, nil
	}
	c, err := tgt.Connect(ctx)
	if err != nil {
		return false, false, err
	}
	defer c.Close()
	var answer string
	if _, err := c.Query(ctx, q, nil, func(cols [][]byte) error { answer = string(cols[0]); return nil }); err != nil {
		return false, false, err
	}
	return answer == "read-write", true, nil
}

func redactAll(urls []string) []string {
	out := make([]string, len(urls))
	for i, u := range urls {
		out[i] = target.Redact(u)
	}
	return out
}

// accountingDiff says how a verification's counts differ from the run's
// own accounting; "" when they agree.
func accountingDiff(run, now *ledger.Accounting) string {
	var d []string
	add := func(name string, a, b int) {
		if a != b {
			d = append(d, fmt.Sprintf("%s %d then, %d now", name, a, b))
		}
	}
	add("writes", run.Writes, now.Writes)
	add("lost", run.Lost, now.Lost)
	add("unknown committed", run.UnknownCommitted, now.UnknownCommitted)
	add("failed but present", run.FailedPresent, now.FailedPresent)
	add("duplicates", run.Duplicates, now.Duplicates)
	add("unrecorded", run.Unrecorded, now.Unrecorded)
	return strings.Join(d, "; ")
}

// commandOnFaultError is the --on-fault-error of a recorded command line
// (stop when it has none, the default).
func commandOnFaultError(args []string) fault.OnError {
	for i, a := range args {
		switch {
		case a == "--on-fault-error" && i+1 < len(args):
			return fault.OnError(args[i+1])
		case strings.HasPrefix(a, "--on-fault-error="):
			return fault.OnError(strings.TrimPrefix(a, "--on-fault-error="))
		}
	}
	return fault.OnErrorStop
}

// readOrRecover reads a result file, or rebuilds it from its interval file
// when the run left none.
func readOrRecover(path string) (*result.Result, bool, error) {
	res, err := result.Read(path)
	if err == nil {
		return res, false, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, false, withCode(ExitUsage, err)
	}
	res, rerr := result.Recover(result.IntervalsPath(path))
	if rerr != nil {
		return nil, false, withCode(ExitUsage, fmt.Errorf("%s: no result file, and its interval file cannot be read either: %w", path, rerr))
	}
	return res, true, nil
}

// ledgerDirs lists a result's ledger directories, one per run phase: the
// directory itself, or its rep-N directories for a repeated run.
func ledgerDirs(base string) []string {
	reps, _ := filepath.Glob(filepath.Join(base, "rep-*"))
	if len(reps) == 0 {
		return []string{base}
	}
	sort.Slice(reps, func(i, j int) bool {
		var a, b int
		fmt.Sscanf(filepath.Base(reps[i]), "rep-%d", &a)
		fmt.Sscanf(filepath.Base(reps[j]), "rep-%d", &b)
		return a < b
	})
	return reps
}

// commandTargets finds the --target values and --target-role of a recorded
// (redacted) command line.
func commandTargets(args []string) (targets []string, role string) {
	role = RoleAny
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--target" && i+1 < len(args):
			targets = append(targets, args[i+1])
			i++
		case strings.HasPrefix(a, "--target="):
			targets = append(targets, strings.TrimPrefix(a, "--target="))
		case a == "--target-role" && i+1 < len(args):
			role = args[i+1]
			i++
		case strings.HasPrefix(a, "--target-role="):
			role = strings.TrimPrefix(a, "--target-role=")
		}
	}
	return targets, role
}

// ledgerWorkloadOf rebuilds the run's workload from the options its result
// records, with its ledger on.
func ledgerWorkloadOf(env *Env, res *result.Result) (workload.Workload, error) {
	opts, _ := res.Workload.Options.(map[string]any)
	var props []string
	for _, k := range []string{"table", "jobs", "rows", "pad"} {
		if v, ok := opts[k]; ok {
			props = append(props, fmt.Sprintf("%s=%v", k, v))
		}
	}
	wl, err := ResolveWorkload(env.Stderr, res.Workload.Name, nil, props)
	if err != nil {
		return nil, err
	}
	lw, ok := wl.(workload.Ledgered)
	if !ok {
		return nil, usagef("the run's workload %s keeps no ledger", res.Workload.Name)
	}
	if err := lw.EnableLedger(); err != nil {
		return nil, withCode(ExitUsage, err)
	}
	return wl, nil
}

func secondsDur(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
