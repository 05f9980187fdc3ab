package result

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// ErrMerge marks shard results that cannot be merged into one: not shards,
// of different runs, options or candor versions, a shard given twice or
// missing. MergeError lists the differences.
var ErrMerge = errors.New("the shard results cannot be merged")

// MergeError is a refused merge with every reason found.
type MergeError struct {
	Problems []string
}

func (e *MergeError) Error() string {
	return "the shard results cannot be merged:\n  - " + strings.Join(e.Problems, "\n  - ")
}

func (e *MergeError) Unwrap() error { return ErrMerge }

// MergeInput is one shard result and the file it was read from.
type MergeInput struct {
	File   string
	Result *Result
}

// ShardOptionKeys are the workload options that differ between the shards
// of one run by design (each shard's part of the key space, operations and
// workers); merge compares every other option.
var ShardOptionKeys = []string{"insertstart", "insertcount", "operationcount", "threadcount", "target", "threads", "events"}

// Merge makes one result of the shards of a run (candor --shard i/N): it
// adds their HDR histograms (percentiles are read from the sum, never
// averaged), counts, errors and counters, lines their interval records up
// on wall-clock boundaries, and keeps each shard's client figures,
// fingerprint and clock offset in Merged. It refuses shards that are not
// of one run: the MergeError lists every difference.
func Merge(in []MergeInput) (*Result, error) {
	if err := checkMerge(in); err != nil {
		return nil, err
	}
	shards := slices.Clone(in)
	sort.Slice(shards, func(i, j int) bool { return shards[i].Result.Shard.Index < shards[j].Result.Shard.Index })
	first := shards[0].Result
	out := *first
	var shardIDs []string
	for _, s := range shards {
		shardIDs = append(shardIDs, s.Result.ID)
	}
	out.ID = mergedID(first.Shard.RunID, shardIDs)
	out.Shard = nil
	out.Repetitions = nil
	out.Phases = nil
	out.Status = StatusComplete
	out.Error = ""
	out.Checks = nil
	out.Merged = &Merged{RunID: first.Shard.RunID, Count: first.Shard.Count}
	// Each shard's machine load is its own (in Merged.Shards' provenance),
	// for its own phases, not the merged ones.
	out.Provenance.Load = nil
	out.Run.Threads, out.Run.Operations, out.Run.Rate = 0, 0, 0
	var errs []string
	for _, s := range shards {
		r := s.Result
		out.Started = minTime(out.Started, r.Started)
		if r.Ended.After(out.Ended) {
			out.Ended = r.Ended
		}
		out.Run.Threads += r.Run.Threads
		out.Run.Operations += r.Run.Operations
		out.Run.Rate += r.Run.Rate
		out.Status = worseStatus(out.Status, r.Status)
		if r.Error != "" {
			errs = append(errs, fmt.Sprintf("shard %d: %s", r.Shard.Index, r.Error))
		}
		src := ShardSource{Index: r.Shard.Index, ID: r.ID, File: s.File, Status: r.Status, Provenance: r.Provenance,
			Target: r.Target, Clock: r.Shard.Clock}
		for _, p := range r.Phases {
			src.Client = append(src.Client, p.Client)
		}
		out.Merged.Shards = append(out.Merged.Shards, src)
		for _, c := range r.Checks { // each shard checked the data it saw
			c.When = strings.TrimSpace(fmt.Sprintf("shard %d %s", r.Shard.Index, c.When))
			out.Checks = append(out.Checks, c)
		}
	}
	out.Error = strings.Join(errs, "; ")
	// Phases are matched by name and repetition, in the order of their
	// first appearance: a shard that found its tables loaded has no load
	// phase.
	type key struct {
		name string
		rep  int
	}
	var order []key
	groups := map[key][]*Phase{}
	for _, s := range shards {
		for i := range s.Result.Phases {
			p := &s.Result.Phases[i]
			k := key{p.Name, p.Repetition}
			if _, ok := groups[k]; !ok {
				order = append(order, k)
			}
			groups[k] = append(groups[k], p)
		}
	}
	m := &merger{}
	for _, k := range order {
		p, err := m.phase(groups[k], first.Run.ReportInterval)
		if err != nil {
			return nil, err
		}
		out.Phases = append(out.Phases, *p)
	}
	return &out, nil
}

func minTime(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}

func worseStatus(a, b string) string {
	rank := map[string]int{StatusComplete: 0, StatusCheckFailed: 1, StatusInterrupted: 2, StatusFailed: 3, StatusInconsistent: 4}
	if rank[b] > rank[a] {
		return b
	}
	return a
}

// checkMerge refuses inputs that are not the N shards of one run.
func checkMerge(in []MergeInput) error {
	var probs []string
	if len(in) == 0 {
		return &MergeError{Problems: []string{"no shard results given"}}
	}
	for _, s := range in {
		if s.Result.Shard == nil {
			probs = append(probs, fmt.Sprintf("%s is not a shard result (it was not run with --shard i/N)", s.File))
		}
	}
	for _, s := range in {
		if s.Result.Status == StatusInconsistent {
			probs = append(probs, fmt.Sprintf("%s breaks the laws of its own arithmetic (%s): its figures cannot be merged", s.File, strings.Join(s.Result.BrokenLaws, "; ")))
		}
	}
	if len(probs) > 0 {
		return &MergeError{Problems: probs}
	}
	probs = append(probs, checkOverlap(in)...)
	files, ids := map[string]string{}, map[string]string{}
	index := map[int]string{}
	for _, s := range in {
		if f, ok := ids[s.Result.ID]; ok {
			probs = append(probs, fmt.Sprintf("%s and %s are the same result (id %s): a result cannot be merged with itself", f, s.File, s.Result.ID))
			continue
		}
		if f, ok := files[s.File]; ok && s.File != "" {
			probs = append(probs, fmt.Sprintf("%s is given twice: a result cannot be merged with itself", f))
			continue
		}
		files[s.File], ids[s.Result.ID] = s.File, s.File
		if f, ok := index[s.Result.Shard.Index]; ok {
			probs = append(probs, fmt.Sprintf("%s and %s are both shard %d", f, s.File, s.Result.Shard.Index))
		}
		index[s.Result.Shard.Index] = s.File
	}
	ref := in[0]
	differs := func(what string, get func(*Result) any) {
		a := get(ref.Result)
		for _, s := range in[1:] {
			if b := get(s.Result); !reflect.DeepEqual(a, b) {
				probs = append(probs, fmt.Sprintf("%s differs: %s has %v, %s has %v", what, ref.File, show(a), s.File, show(b)))
			}
		}
	}
	differs("the shard count N", func(r *Result) any { return r.Shard.Count })
	differs("the run id", func(r *Result) any { return r.Shard.RunID })
	differs("the candor version", func(r *Result) any { return r.Provenance.CandorVersion + " " + r.Provenance.Commit })
	differs("the result schema", func(r *Result) any { return r.Schema })
	differs("the workload", func(r *Result) any { return r.Workload.Name })
	differs("the workload options", func(r *Result) any { return sharedOptions(r.Workload.Options) })
	differs("the target", func(r *Result) any { return r.Target.Product + " " + r.Target.Version })
	differs("the target's settings", func(r *Result) any { return r.Target.Settings })
	differs("the measured time (--time)", func(r *Result) any { return r.Run.DurationSec })
	differs("the warm-up (--warmup)", func(r *Result) any { return r.Run.WarmupSec })
	differs("the report interval", func(r *Result) any { return r.Run.ReportInterval })
	differs("the arrival process", func(r *Result) any { return r.Run.Arrival })
	differs("--retries", func(r *Result) any { return r.Run.Retries })
	differs("--isolation", func(r *Result) any { return r.Run.Isolation })
	differs("the latency measure", func(r *Result) any { return r.Run.LatencyMeasure })
	differs("the start time (--start-at)", func(r *Result) any { return r.Shard.StartAt.UTC() })
	differs("--threads (the total split over the shards)", func(r *Result) any { return r.Shard.Threads })
	differs("--operations (the total split over the shards)", func(r *Result) any { return r.Shard.Operations })
	differs("--rate (the total split over the shards)", func(r *Result) any { return r.Shard.Rate })
	if len(probs) == 0 {
		n := ref.Result.Shard.Count
		var missing []string
		for i := 0; i < n; i++ {
			if _, ok := index[i]; !ok {
				missing = append(missing, fmt.Sprint(i))
			}
		}
		for i := range index {
			if i < 0 || i >= n {
				probs = append(probs, fmt.Sprintf("%s is shard %d, outside 0..%d", index[i], i, n-1))
			}
		}
		if len(missing) > 0 {
			probs = append(probs, fmt.Sprintf("shard %s of %d missing: merge all %d shards of the run", strings.Join(missing, ", "), n, n))
		}
	}
	if len(probs) > 0 {
		return &MergeError{Problems: probs}
	}
	return nil
}

// minOverlap is the share of each shard's measured phase that must be
// common to every shard's: the shards of one run measure the same time
// (--start-at), and a merge adds their rates as if they did. Shards
// started by hand a few seconds apart, or a shard of another run
// relabelled, share little or none of it.
const minOverlap = 0.5

// overlapSlack is added to the shards' common time: the clocks of client
// machines and --start-at's precision are good to milliseconds, so phases
// of a few milliseconds (a short --operations run) a few apart still count
// as run together; a second apart never does.
const overlapSlack = 100 * time.Millisecond

// checkOverlap reports run phases (by repetition) whose shards did not run
// together: the time common to all of them is under minOverlap of some
// shard's phase.
func checkOverlap(in []MergeInput) []string {
	type span struct {
		file       string
		start, end time.Time
	}
	byRep := map[int][]span{}
	var reps []int
	for _, s := range in {
		for _, p := range s.Result.Phases {
			if p.Name == "load" || p.Started.IsZero() || !p.Ended.After(p.Started) {
				continue
			}
			if _, ok := byRep[p.Repetition]; !ok {
				reps = append(reps, p.Repetition)
			}
			byRep[p.Repetition] = append(byRep[p.Repetition], span{s.File, p.Started, p.Ended})
		}
	}
	sort.Ints(reps)
	var probs []string
	for _, rep := range reps {
		spans := byRep[rep]
		if len(spans) < 2 {
			continue
		}
		from, to := spans[0].start, spans[0].end
		for _, sp := range spans[1:] {
			if sp.start.After(from) {
				from = sp.start
			}
			if sp.end.Before(to) {
				to = sp.end
			}
		}
		common := to.Sub(from)
		for _, sp := range spans {
			if float64(common+overlapSlack) >= minOverlap*float64(sp.end.Sub(sp.start)) {
				continue
			}
			var list []string
			for _, x := range spans {
				list = append(list, fmt.Sprintf("%s %s–%s", x.file, x.start.UTC().Format("15:04:05.000"), x.end.UTC().Format("15:04:05.000")))
			}
			what := "run phase"
			if rep > 0 {
				what = fmt.Sprintf("run phase of repetition %d", rep)
			}
			probs = append(probs, fmt.Sprintf("the shards' %s did not run together (%s in common; %s): the shards of one run measure the same time, started with one --start-at",
				what, max(common, 0).Round(time.Millisecond), strings.Join(list, ", ")))
			break
		}
	}
	return probs
}

func show(v any) string {
	switch v := v.(type) {
	case string:
		return fmt.Sprintf("%q", v)
	case map[string]any, map[string]string:
		b, _ := json.Marshal(v)
		return string(b)
	}
	return fmt.Sprint(v)
}

// sharedOptions is a workload's options without those that are each
// shard's own.
func sharedOptions(o any) any {
	var m map[string]any
	b, err := json.Marshal(o)
	if err != nil || json.Unmarshal(b, &m) != nil || m == nil {
		return o
	}
	for _, k := range ShardOptionKeys {
		delete(m, k)
	}
	return m
}

// merger holds the accumulators reused over a merge.
type merger struct {
	acc histAcc
}

func (m *merger) phase(ps []*Phase, reportInterval float64) (*Phase, error) {
	out := &Phase{Name: ps[0].Name, Repetition: ps[0].Repetition, Seed: ps[0].Seed, Status: StatusComplete}
	var failures []string
	var rate RateResult
	anyRate := false
	var errOps float64
	var cpuNs float64
	var cpuOps int64
	for _, p := range ps {
		out.Started = minTime(out.Started, p.Started)
		if p.Ended.After(out.Ended) {
			out.Ended = p.Ended
		}
		out.DurationSec = math.Max(out.DurationSec, p.DurationSec)
		out.WarmupSec = math.Max(out.WarmupSec, p.WarmupSec)
		out.OpenLoop = out.OpenLoop || p.OpenLoop
		out.Status = worseStatus(out.Status, p.Status)
		if p.Failure != "" {
			failures = append(failures, p.Failure)
		}
		out.Throughput += p.Throughput
		out.Operations += p.Operations
		errOps += p.ErrorRate * float64(p.Operations)
		out.Dropped += p.Dropped
		if p.Scheduled != nil {
			out.Scheduled = addPtr(out.Scheduled, p.Scheduled)
		}
		out.Rows += p.Rows
		out.LoadBytes += p.LoadBytes
		out.Reconnects += p.Reconnects
		if u := p.Unavailable; u != nil {
			if out.Unavailable == nil {
				out.Unavailable = &Unavailability{}
			}
			out.Unavailable.WithoutSec += u.WithoutSec
			out.Unavailable.WorkerSec += u.WorkerSec
			out.Unavailable.Share = 0
			if w := out.Unavailable.WorkerSec; w > 0 {
				out.Unavailable.Share = min(out.Unavailable.WithoutSec/w, 1)
			}
		}
		if p.Rate != nil {
			anyRate = true
			rate.Target += p.Rate.Target
			rate.Achieved += p.Rate.Achieved
			rate.BehindSchedule = rate.BehindSchedule || p.Rate.BehindSchedule
			rate.MaxLagNs = max(rate.MaxLagNs, p.Rate.MaxLagNs)
		}
		out.Counters = addCounts64(out.Counters, p.Counters)
		if out.Derived == nil && p.Derived != nil {
			out.Derived = maps.Clone(p.Derived) // the server's figures: the same server for every shard
		}
		out.Workers = append(out.Workers, p.Workers...)
		c := &out.Client
		c.AvgCores += p.Client.AvgCores
		c.MaxRSS = max(c.MaxRSS, p.Client.MaxRSS)
		c.HostBusy = math.Max(c.HostBusy, p.Client.HostBusy)
		if p.Client.Saturated && !c.Saturated {
			c.Saturated, c.SaturatedCause = true, p.Client.SaturatedCause
		}
		cpuNs += p.Client.CPUNsPerOp * float64(p.Operations)
		cpuOps += p.Operations
		if c.SessionIO == "" {
			c.SessionIO, c.GoMaxProcs = p.Client.SessionIO, p.Client.GoMaxProcs
		}
	}
	if cpuOps > 0 {
		out.Client.CPUNsPerOp = cpuNs / float64(cpuOps)
	}
	if out.Operations > 0 {
		out.ErrorRate = errOps / float64(out.Operations)
	}
	if anyRate {
		out.Rate = &rate
	}
	out.Failure = strings.Join(failures, "; ")
	var err error
	if out.Ops, err = m.ops(ps); err != nil {
		return nil, err
	}
	if out.Intervals, err = m.intervals(ps, reportInterval); err != nil {
		return nil, err
	}
	return out, nil
}

func addCounts64(dst, src map[string]int64) map[string]int64 {
	if len(src) == 0 {
		return dst
	}
	if dst == nil {
		dst = map[string]int64{}
	}
	for k, v := range src {
		dst[k] += v
	}
	return dst
}

// seriesOf maps the histogram series to their summaries.
var seriesOf = []struct {
	name string
	sum  func(*OpResult) **Summary
}{
	{"latency", func(o *OpResult) **Summary { return &o.Latency }},
	{"service", func(o *OpResult) **Summary { return &o.Service }},
	{"lag", func(o *OpResult) **Summary { return &o.Lag }},
	{"failed", func(o *OpResult) **Summary { return &o.Failed }},
}

func (m *merger) ops(ps []*Phase) ([]OpResult, error) {
	var names []string
	byName := map[string][]*OpResult{}
	for _, p := range ps {
		for i := range p.Ops {
			o := &p.Ops[i]
			if _, ok := byName[o.Name]; !ok {
				names = append(names, o.Name)
			}
			byName[o.Name] = append(byName[o.Name], o)
		}
	}
	var out []OpResult
	for _, n := range names {
		os := byName[n]
		r := OpResult{Name: n}
		for _, o := range os {
			r.Count += o.Count
			r.Throughput += o.Throughput
			r.Errors = addCounts64(r.Errors, o.Errors)
			r.Attempts += o.Attempts
			r.Done += o.Done
			r.Retries += o.Retries
			r.Aborts += o.Aborts
			r.NoSession += o.NoSession
			r.Clamped += o.Clamped
			r.Unfinished += o.Unfinished
			for c, msg := range o.FirstErrors {
				if r.FirstErrors == nil {
					r.FirstErrors = map[string]string{}
				}
				if _, ok := r.FirstErrors[c]; !ok {
					r.FirstErrors[c] = msg
				}
			}
		}
		for _, s := range seriesOf {
			m.acc.reset()
			seen := false
			for _, o := range os {
				enc := o.Histograms[s.name]
				if enc == "" {
					if sum := *s.sum(o); sum != nil && sum.Count > 0 {
						return nil, &MergeError{Problems: []string{fmt.Sprintf("operation %s has %s figures without their histogram: its percentiles cannot be merged exactly", n, s.name)}}
					}
					continue
				}
				seen = true
				if err := m.acc.add(enc); err != nil {
					return nil, fmt.Errorf("operation %s, %s: %w", n, s.name, err)
				}
			}
			if !seen {
				continue
			}
			h := m.acc.histogram()
			*s.sum(&r) = Summarize(h)
			enc, err := m.acc.encode()
			if err != nil {
				return nil, err
			}
			if r.Histograms == nil {
				r.Histograms = map[string]string{}
			}
			r.Histograms[s.name] = enc
		}
		out = append(out, r)
	}
	return out, nil
}

// intervals lines the shards' interval records up on wall-clock boundaries:
// slot k is [t0 + k·L, t0 + (k+1)·L) where t0 is the earliest start of an
// interval of the phase and L the report interval; each record goes to the
// slot its start is nearest to (shards started together by --start-at
// start their intervals within their clocks' skew of one another).
func (m *merger) intervals(ps []*Phase, reportInterval float64) ([]Interval, error) {
	var t0 time.Time
	for _, p := range ps {
		for _, iv := range p.Intervals {
			t0 = minTime(t0, iv.Start)
		}
	}
	L := secondsDuration(reportInterval)
	if L <= 0 {
		L = time.Second
	}
	type slot struct {
		iv    *Interval
		ops   map[string]*IntervalOp
		names []string
		hist  map[string][]string
	}
	slots := map[int]*slot{}
	for _, p := range ps {
		for i := range p.Intervals {
			iv := &p.Intervals[i]
			k := int(math.Round(float64(iv.Start.Sub(t0)) / float64(L)))
			s := slots[k]
			if s == nil {
				s = &slot{iv: &Interval{Phase: iv.Phase, Index: k, Start: t0.Add(time.Duration(k) * L), Warmup: iv.Warmup},
					ops: map[string]*IntervalOp{}, hist: map[string][]string{}}
				slots[k] = s
			}
			o := s.iv
			o.ElapsedSec = math.Max(o.ElapsedSec, iv.ElapsedSec)
			o.LengthSec = math.Max(o.LengthSec, iv.LengthSec)
			o.Warmup = o.Warmup && iv.Warmup
			o.Counters = addCounts64(o.Counters, iv.Counters)
			o.Reconnects += iv.Reconnects
			o.Queue = addPtr(o.Queue, iv.Queue)
			o.Concurrency = addPtr(o.Concurrency, iv.Concurrency)
			o.Dropped = addPtr(o.Dropped, iv.Dropped)
			for _, op := range iv.Ops {
				d := s.ops[op.Name]
				if d == nil {
					d = &IntervalOp{Name: op.Name}
					s.ops[op.Name] = d
					s.names = append(s.names, op.Name)
				}
				d.Count += op.Count
				d.Rate += op.Rate
				d.Errors += op.Errors
				d.ByClass = addCounts64(d.ByClass, op.ByClass)
				d.Unfinished += op.Unfinished
				d.Max = max(d.Max, op.Max)
				if op.Histogram != "" {
					s.hist[op.Name] = append(s.hist[op.Name], op.Histogram)
				}
			}
		}
	}
	keys := slices.Sorted(maps.Keys(slots))
	out := make([]Interval, len(keys))
	// The slots are independent: their histograms are added on every core,
	// each worker with its own accumulator (a slot of 64 shards decodes
	// 64 histograms per operation).
	workers := min(runtime.GOMAXPROCS(0), len(keys))
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			acc := &m.acc
			if w > 0 {
				acc = &histAcc{}
			}
			for j := w; j < len(keys); j += workers {
				s := slots[keys[j]]
				iv := *s.iv
				iv.Ops = make([]IntervalOp, 0, len(s.names))
				for _, name := range s.names {
					d := *s.ops[name]
					if encs := s.hist[name]; len(encs) > 0 {
						if err := mergeInterval(acc, &d, encs); err != nil {
							errs[w] = fmt.Errorf("interval %d, operation %s: %w", keys[j], name, err)
							return
						}
					}
					iv.Ops = append(iv.Ops, d)
				}
				out[j] = iv
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// mergeInterval sets d's percentiles and histogram from the sum of encs.
func mergeInterval(acc *histAcc, d *IntervalOp, encs []string) error {
	acc.reset()
	for _, e := range encs {
		if err := acc.add(e); err != nil {
			return err
		}
	}
	d.P50, d.P99, d.Max, d.Mean = acc.intervalStats()
	enc, err := acc.encode()
	if err != nil {
		return err
	}
	d.Histogram = enc
	return nil
}

func addPtr(a, b *int64) *int64 {
	if b == nil {
		return a
	}
	v := *b
	if a != nil {
		v += *a
	}
	return &v
}
