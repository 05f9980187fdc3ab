package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/runner"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

// ShardRun is a Shard parsed: this process's index, the number of
// shards (0: not sharded), the start time resolved and the run id (derived
// when none was given).
type ShardRun struct {
	Shard
	Index, Count int
	Start        time.Time // --start-at resolved; zero when not given
	// given: the totals the shard was given (--threads, --operations,
	// --rate), recorded in its result for merge to compare.
	given result.ShardInfo
}

// shardNow is the clock --start-at is read against (a variable for tests).
var shardNow = time.Now

// ParseShard checks sh: i/N well formed, i in range, a start time in the
// future. args is the command line, for the derived run id.
func ParseShard(sh Shard, args []string) (*ShardRun, error) {
	s := &ShardRun{Shard: sh}
	return s, s.parse(args)
}

func (s *ShardRun) parse(args []string) error {
	now := shardNow()
	if s.Of != "" {
		is, ns, ok := strings.Cut(s.Of, "/")
		i, err1 := strconv.Atoi(is)
		n, err2 := strconv.Atoi(ns)
		if !ok || err1 != nil || err2 != nil {
			return usagef("--shard %q is not i/N: give this shard's index and the number of shards, e.g. --shard 0/4 (indexes count from 0)", s.Of)
		}
		if n < 1 {
			return usagef("--shard %s: N must be at least 1", s.Of)
		}
		if i < 0 || i >= n {
			return usagef("--shard %s: shard index %d is out of range; shards of %d count from 0 to %d", s.Of, i, n, n-1)
		}
		s.Index, s.Count = i, n
	}
	if s.StartAt != "" {
		t, err := parseStartAt(s.StartAt, now)
		if err != nil {
			return err
		}
		if !t.After(now) && !s.Slot {
			return usagef("--start-at %s is in the past (it is now %s): give a later time, or +DURATION such as +30s", s.StartAt, now.UTC().Format(time.RFC3339))
		}
		s.Start = t
	}
	if s.RunID != "" && s.Count == 0 {
		return usagef("--run-id names the shards of one run: give --shard i/N with it")
	}
	if s.Count > 0 && s.RunID == "" {
		s.RunID = derivedRunID(s.Start, args)
	}
	return nil
}

// parseStartAt reads RFC 3339 or +DURATION. A relative time is truncated
// to the second, so processes started in the same second agree on it.
func parseStartAt(v string, now time.Time) (time.Time, error) {
	if rest, ok := strings.CutPrefix(v, "+"); ok {
		d, err := time.ParseDuration(rest)
		if err != nil || d <= 0 {
			return time.Time{}, usagef("--start-at %s: after + give a positive duration such as +30s or +2m", v)
		}
		return now.Add(d).Truncate(time.Second).Add(time.Second), nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, usagef("--start-at %q is neither an RFC 3339 time (2026-11-26T12:00:00Z) nor +DURATION (+30s)", v)
	}
	return t, nil
}

// shardArgs are the options that differ between the shards of one run:
// left out of the derived run id.
var shardArgs = map[string]bool{"--shard": true, "--out": true, "-o": true, "--run-id": true, "--start-at": true}

// derivedRunID is the run id of shards given none: a hash of the start
// time and of the command without its per-shard options, the same for
// every shard of the run.
func derivedRunID(start time.Time, args []string) string {
	h := sha256.New()
	if !start.IsZero() {
		fmt.Fprintf(h, "%d\n", start.UnixNano())
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, _, hasValue := strings.Cut(a, "=")
		if shardArgs[name] {
			if !hasValue {
				i++ // the value follows
			}
			continue
		}
		fmt.Fprintf(h, "%s\n", a)
	}
	stamp := "unstarted"
	if !start.IsZero() {
		stamp = start.UTC().Format("20060102T150405Z")
	}
	return stamp + "-" + hex.EncodeToString(h.Sum(nil))[:12]
}

// share is shard i's part of total split over n: the first total mod n
// shards take one more.
func share(total int64, i, n int) int64 {
	s := total / int64(n)
	if int64(i) < total%int64(n) {
		s++
	}
	return s
}

// apply gives this shard its share of the workers, the open-loop rate and
// the operations (a load shard at least one worker).
func (s *ShardRun) apply(cfg *runner.Config, phase string) error {
	s.given = result.ShardInfo{Threads: cfg.Threads, Operations: cfg.Operations, Rate: cfg.Rate}
	if s.Count <= 1 {
		return nil
	}
	threads := share(int64(cfg.Threads), s.Index, s.Count)
	if threads < 1 && phase == PhaseLoad {
		// A load's work is its slice of the keys: a shard given no share
		// of fewer workers than shards loads its slice with one.
		threads = 1
	}
	if threads < 1 {
		return usagef("--shard %s: %d workers (--threads) leave shard %d none; give at least %d workers, one per shard", s.Of, cfg.Threads, s.Index, s.Count)
	}
	// Worker w of a process draws from Seed+w+1 (runner.Config.Seed): the
	// shard's workers continue the numbering of the shards before it, so
	// with one --seed N shards draw what the same workers of one process
	// would.
	for j := 0; j < s.Index; j++ {
		cfg.Seed += share(int64(cfg.Threads), j, s.Count)
	}
	cfg.Threads = int(threads)
	cfg.Rate /= float64(s.Count)
	if cfg.Operations > 0 {
		ops := share(cfg.Operations, s.Index, s.Count)
		if ops < 1 {
			return usagef("--shard %s: %d operations leave shard %d none; give at least %d", s.Of, cfg.Operations, s.Index, s.Count)
		}
		cfg.Operations = ops
	}
	return nil
}

// loadSlice narrows a load's key space to this shard's part (YCSB's
// insertstart/insertcount): it returns the properties that do so, or an
// error for a workload whose load cannot be split.
func (s *ShardRun) loadSlice(wl workload.Workload) ([]string, error) {
	if s.Count <= 1 {
		return nil, nil
	}
	start, count := wl.LoadRange()
	if count <= 0 {
		return nil, nil
	}
	mine := share(count, s.Index, s.Count)
	if mine < 1 {
		return nil, usagef("--shard %s: %d records leave shard %d none to load", s.Of, count, s.Index)
	}
	first := start
	for j := 0; j < s.Index; j++ {
		first += share(count, j, s.Count)
	}
	return []string{"insertstart=" + strconv.FormatInt(first, 10), "insertcount=" + strconv.FormatInt(mine, 10)}, nil
}

// checkSlice refuses a workload that ignored the slice (its load range is
// not the one asked): its load cannot be split between shards.
func (s *ShardRun) checkSlice(wl workload.Workload, props []string) error {
	if len(props) == 0 {
		return nil
	}
	start, count := wl.LoadRange()
	want := fmt.Sprintf("insertstart=%d insertcount=%d", start, count)
	if want != strings.Join(props, " ") {
		return s.unsplittable(wl)
	}
	return nil
}

func (s *ShardRun) unsplittable(wl workload.Workload) error {
	return usagef("--shard %s: %s cannot load a part of its key space (only YCSB's insertstart/insertcount split between shards); load it from one process with candor load %s, then run the shards with candor run --shard", s.Of, wl.Name(), wl.Name())
}

// wait sleeps until --start-at; an interrupt ends the wait.
func (s *ShardRun) wait(ctx context.Context, env *Env, quiet bool) error {
	if s.Start.IsZero() {
		return nil
	}
	d := s.Start.Sub(shardNow())
	if d <= 0 {
		fmt.Fprintf(env.Stderr, "candor: --start-at %s passed %s before this shard was ready (its load, or a plan's cell before it, took longer): starting now, late\n", s.Start.UTC().Format(time.RFC3339Nano), (-d).Round(time.Millisecond))
		return nil
	}
	if !quiet {
		fmt.Fprintf(env.Stderr, "waiting %s for --start-at %s\n", d.Round(time.Millisecond), s.Start.UTC().Format(time.RFC3339Nano))
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return &Error{Code: ExitInterrupted, Err: ErrInterrupted}
	}
}

// record sets the result's shard section, with this client's clock offset
// from the target server's.
func (s *ShardRun) record(ctx context.Context, res *result.Result, tgt target.Target) {
	if s.Count == 0 {
		return
	}
	res.Shard = &result.ShardInfo{RunID: s.RunID, Index: s.Index, Count: s.Count, StartAt: s.Start, Clock: readClock(ctx, tgt),
		Threads: s.given.Threads, Operations: s.given.Operations, Rate: s.given.Rate}
}

// readClock is the client's clock offset from the server's: read from the
// server where it can tell (target.ServerClock), the client's own for an
// embedded target, else unavailable.
func readClock(ctx context.Context, tgt target.Target) *result.ClockOffset {
	if _, ok := target.ServerTimeQuery(tgt); !ok {
		if tgt.Capabilities().Embedded {
			return &result.ClockOffset{Source: "local"}
		}
		return &result.ClockOffset{Source: "unavailable"}
	}
	off, rtt, err := target.ClockOffset(ctx, tgt, 5)
	if err != nil {
		msg := err.Error()
		if errors.Is(err, target.ErrUnsupported) {
			msg = "the server cannot tell its clock"
		}
		return &result.ClockOffset{Source: "unavailable", Error: target.Redact(msg)}
	}
	return &result.ClockOffset{Source: "server", OffsetNs: off.Nanoseconds(), RTTNs: rtt.Nanoseconds()}
}

// shardLoadWorkload is the workload of a sharded load: wl again with this
// shard's slice of the key space.
func shardLoadWorkload(env *Env, spec *Spec, sh *ShardRun, wl workload.Workload) (workload.Workload, error) {
	props, err := sh.loadSlice(wl)
	if err != nil || props == nil {
		return wl, err
	}
	sliced := spec.Clone()
	sliced.Properties = append(sliced.Properties, props...)
	w, err := workloadOf(env, &sliced)
	if err != nil {
		// A workload without insertstart/insertcount refuses them.
		return nil, sh.unsplittable(wl)
	}
	return w, sh.checkSlice(w, props)
}
