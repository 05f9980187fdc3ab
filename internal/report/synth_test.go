package report

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/candor-bench/candor/internal/result"
)

// synth describes a synthetic result: deterministic for a given seed, so the
// checked-in fixtures regenerate byte for byte.
type synth struct {
	seed      uint64
	workload  string
	reference string
	options   map[string]any
	product   string
	version   string
	url       string
	settings  map[string]string
	threads   int
	reps      int
	load      int64 // rows loaded first (0: no load phase)
	ops       []string
	thr       float64 // total ops/s
	latUs     float64 // median latency of the first op, µs
	intervals int
	counters  bool // sysbench reads/writes/other
	retryable int64
	aborts    int64
	status    string
	// intervalHists gives every interval an encoded histogram, as real
	// results have.
	intervalHists bool
	started       time.Time
	// failRep is the repetition that failed (0: none), ending the run;
	// failure is the result's error.
	failRep int
	failure string
	// rowsPerOp makes the phases carry commit-loop's server figures
	// (Phase.Derived) for that many rows per operation.
	rowsPerOp float64
}

var synthEpoch = time.Date(2025, 3, 14, 9, 0, 0, 0, time.UTC)

// lognormal histogram of n values around median m ns with shape sigma,
// recorded as 400 quantile points so building it is fast.
func synthHist(rng *rand.Rand, n int64, median, sigma float64) *hdr.Histogram {
	h := hdr.New(1, 3_600_000_000_000, 3)
	const pts = 400
	per := max(n/pts, 1)
	rest := n
	for i := 0; i < pts && rest > 0; i++ {
		q := (float64(i) + 0.5) / pts
		z := math.Sqrt2 * math.Erfinv(2*q-1)
		v := median * math.Exp(sigma*z) * (1 + 0.02*rng.Float64())
		c := per
		if i == pts-1 {
			c = rest
		}
		c = min(c, rest)
		_ = h.RecordValues(int64(v), c)
		rest -= c
	}
	return h
}

func encode(t testing.TB, h *hdr.Histogram) string {
	s, err := result.EncodeHistogram(h)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (s synth) build(t testing.TB) *result.Result {
	rng := rand.New(rand.NewPCG(s.seed, 7))
	if s.started.IsZero() {
		s.started = synthEpoch
	}
	if s.intervals == 0 {
		s.intervals = 10
	}
	if s.status == "" {
		s.status = result.StatusComplete
	}
	r := &result.Result{
		Schema:  result.SchemaVersion,
		ID:      fmt.Sprintf("%s-%04x", s.started.Format("20060102T150405Z"), s.seed&0xffff),
		Status:  s.status,
		Command: []string{"candor", "run", s.workload, "--threads", fmt.Sprint(s.threads)},
		Started: s.started,
		Provenance: result.Provenance{CandorVersion: "0.1.0", Commit: "abc1234", GoVersion: "go1.26.8", OS: "linux", Arch: "amd64",
			Hostname: "bench-client-1", CPUModel: "AMD EPYC 7B13", Cores: 16, MemoryBytes: 64 << 30, Kernel: "6.1.0-18-amd64"},
		Target: result.Fingerprint{Driver: map[string]string{"SQLite": "sqlite"}[s.product], Product: s.product, Version: s.version,
			VersionString: s.product + " " + s.version, URL: s.url, Settings: s.settings},
		Workload: result.Workload{Name: s.workload, Reference: s.reference, Seed: int64(s.seed), Options: s.options, Ops: s.ops},
		Run: result.RunConfig{Threads: s.threads, DurationSec: float64(s.intervals), Retries: 3, ReportInterval: 1,
			LoadBatch: 1000, LatencyMeasure: "service time (closed loop)"},
	}
	if r.Target.Driver == "" {
		r.Target.Driver = "postgres"
	}
	if s.status != result.StatusComplete && s.failRep == 0 {
		r.Error = "interrupted by signal"
	}
	at := s.started.Add(50 * time.Millisecond)
	if s.load > 0 {
		r.Phases = append(r.Phases, s.phase(t, rng, "load", 0, at))
		at = r.Phases[0].Ended.Add(20 * time.Millisecond)
	}
	for rep := 1; rep <= s.reps; rep++ {
		p := s.phase(t, rng, "run", rep, at)
		if s.reps == 1 {
			p.Repetition = 0
		}
		if s.rowsPerOp > 0 {
			rows := math.Round(float64(p.Operations) * s.rowsPerOp)
			p.Derived = map[string]float64{"rows": rows, "server_span_s": p.DurationSec * 0.995,
				"server_rows_per_s": math.Round(rows/(p.DurationSec*0.995)*10) / 10}
		}
		if rep == s.failRep {
			p.Status = result.StatusFailed
			r.Status, r.Error = result.StatusFailed, s.failure
			r.Phases = append(r.Phases, p)
			at = p.Ended.Add(20 * time.Millisecond)
			break
		}
		r.Phases = append(r.Phases, p)
		at = p.Ended.Add(20 * time.Millisecond)
	}
	r.Ended = at
	return r
}

func (s synth) phase(t testing.TB, rng *rand.Rand, name string, rep int, start time.Time) result.Phase {
	ops := s.ops
	thr := s.thr * (1 + 0.04*(rng.Float64()-0.5))
	median := s.latUs * 1000 * (1 + 0.05*(rng.Float64()-0.5))
	n := s.intervals
	if name == "load" {
		ops = []string{"INSERT-BATCH"}
		thr = float64(s.load) / float64(n) / 1000 // batches per second
		median = 40e6
	}
	dur := float64(n)
	p := result.Phase{Name: name, Repetition: rep, Seed: int64(s.seed) + int64(rep), Status: result.StatusComplete, Started: start,
		Ended: start.Add(time.Duration(n) * time.Second), DurationSec: dur}
	if name == "load" {
		p.Rows = s.load
		p.Throughput = float64(s.load) / dur
	}
	var total int64
	for i, op := range ops {
		share := 1 / float64(len(ops))
		count := int64(thr * share * dur)
		m := median * (1 + 0.3*float64(i))
		h := synthHist(rng, count, m, 0.6)
		o := result.OpResult{Name: op, Count: count, Throughput: float64(count) / dur, Latency: result.Summarize(h),
			Attempts: count, Done: count, Histograms: map[string]string{"latency": encode(t, h)}}
		if i == 0 && name == "run" && (s.retryable > 0 || s.aborts > 0) {
			o.Errors = map[string]int64{"retryable": s.retryable + s.aborts}
			o.Retries = s.retryable
			o.Aborts = s.aborts
			o.Attempts += s.retryable + s.aborts
		}
		p.Ops = append(p.Ops, o)
		total += count
	}
	// The figures keep the laws of a result (result.Check): operations
	// are the done and the failed ones, the error rate their share.
	p.Operations = total + s.aborts*boolInt(name == "run")
	if name == "run" {
		p.Throughput = float64(total) / dur
		if p.Operations > 0 && s.aborts > 0 {
			p.ErrorRate = float64(s.aborts) / float64(p.Operations)
		}
	}
	if s.counters && name == "run" {
		p.Counters = map[string]int64{"reads": total * 14, "writes": total * 4, "other": total * 2}
	}
	var ivHist string
	if s.intervalHists {
		ivHist = encode(t, synthHist(rng, 1000, median, 0.6))
	}
	waves := make([]float64, n)
	var waveSum float64
	for i := range waves {
		waves[i] = 1 + 0.1*math.Sin(float64(i)/3+float64(s.seed%7))
		if name == "load" {
			waves[i] = 1.3 - 0.6*float64(i)/float64(n) // the load slows down as the table grows
		}
		waveSum += waves[i]
	}
	// Each operation's count and errors are shared among the intervals
	// by the wave, and add up to the phase's (the intervals law).
	left := map[string][2]int64{}
	for _, o := range p.Ops {
		var errs int64
		for _, e := range o.Errors {
			errs += e
		}
		left[o.Name] = [2]int64{o.Count, errs}
	}
	for i := 0; i < n; i++ {
		iv := result.Interval{Phase: name, Index: i, Start: start.Add(time.Duration(i) * time.Second), ElapsedSec: float64(i + 1), LengthSec: 1}
		wave := waves[i]
		for _, o := range p.Ops {
			l := left[o.Name]
			c, e := int64(float64(o.Count)*wave/waveSum), l[1]/int64(n-i)
			if i == n-1 {
				c = l[0]
			}
			left[o.Name] = [2]int64{l[0] - c, l[1] - e}
			iop := result.IntervalOp{Name: o.Name, Count: c, Rate: float64(c), P50: o.Latency.P50,
				P99: int64(float64(o.Latency.P99) / wave), Max: o.Latency.Max, Mean: o.Latency.Mean, Histogram: ivHist, Errors: e}
			if e > 0 {
				iop.ByClass = map[string]int64{"retryable": e}
			}
			iv.Ops = append(iv.Ops, iop)
		}
		p.Intervals = append(p.Intervals, iv)
	}
	return p
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// ycsbOptions are resolved YCSB options with the given record count.
func ycsbOptions(records int) map[string]any {
	return map[string]any{
		"reference": "YCSB 0.17.0", "table": "usertable", "fieldcount": 10.0, "fieldlength": 100.0,
		"readproportion": 0.5, "updateproportion": 0.5, "requestdistribution": "zipfian",
		"recordcount": float64(records), "insertcount": float64(records), "operationcount": 1000000.0,
		"sources": []any{map[string]any{"kind": "builtin", "name": "workloads/workloada"}},
	}
}

var pgSettings = map[string]string{"fsync": "on", "synchronous_commit": "on", "transaction_isolation": "read committed", "shared_buffers": "128MB"}

// fixtures are the results checked in under testdata/results.
func fixtures() map[string]synth {
	pg := func(seed uint64, threads, reps int, thr, lat float64) synth {
		return synth{seed: seed, workload: "ycsb/a", reference: "YCSB 0.17.0 CoreWorkload", options: ycsbOptions(1000),
			product: "PostgreSQL", version: "15.18", url: "postgres://bench@db1:5432/bench", settings: pgSettings,
			threads: threads, reps: reps, ops: []string{"READ", "UPDATE"}, thr: thr, latUs: lat}
	}
	sq := func(seed uint64, threads int, thr, lat float64) synth {
		return synth{seed: seed, workload: "ycsb/a", reference: "YCSB 0.17.0 CoreWorkload", options: ycsbOptions(1000),
			product: "SQLite", version: "3.49.1", url: "sqlite://candor.db",
			settings: map[string]string{"journal_mode": "wal", "synchronous": "NORMAL", "transaction_isolation": "serializable"},
			threads:  threads, reps: 1, ops: []string{"READ", "UPDATE"}, thr: thr, latUs: lat}
	}
	t1 := pg(1, 1, 3, 2100, 420)
	t1.load = 1000
	big := pg(6, 16, 3, 9800, 1300)
	big.options = ycsbOptions(100000)
	big.load = 100000
	sb := func(seed uint64, threads int, thr, lat float64, retr, aborts int64) synth {
		return synth{seed: seed, workload: "sysbench/oltp_read_write", reference: "sysbench 1.0.20 oltp_read_write.lua",
			options: map[string]any{"table-size": 10000.0, "tables": 1.0, "range_selects": true},
			product: "PostgreSQL", version: "15.18", url: "postgres://bench@db1:5432/bench", settings: pgSettings,
			threads: threads, reps: 2, ops: []string{"TRANSACTION"}, thr: thr, latUs: lat, counters: true, retryable: retr, aborts: aborts}
	}
	r2 := sq(5, 1, 5200, 180)
	r2.started = synthEpoch.Add(time.Hour)
	// 8 threads: the third repetition failed (the error budget), so the
	// report shows 2 of 3 and says why
	failed := pg(10, 8, 3, 11200, 760)
	failed.failRep, failed.failure = 3, "error rate 12.5% of 112,000 operations above --max-error-rate 1%: not_found 14,000"
	// commit-loop, 3 jobs, one loop of 10,000 rows per operation (--in-server)
	cl := synth{seed: 11, workload: "commit-loop", reference: "single-session commit loop",
		options: map[string]any{"rows": 10000.0, "jobs": 3.0, "in-server": true, "table": "commit_loop"},
		product: "PostgreSQL", version: "15.18", url: "postgres://bench@db1/bench?sslmode=disable", settings: pgSettings,
		threads: 3, reps: 2, ops: []string{"LOOP"}, thr: 0.5, latUs: 6e6, rowsPerOp: 10000}
	return map[string]synth{
		"ycsb-a-pg-t1.json":         t1,
		"ycsb-a-pg-t4.json":         pg(2, 4, 3, 7400, 510),
		"ycsb-a-pg-t16.json":        pg(3, 16, 3, 14100, 1080),
		"ycsb-a-sqlite-t1-r1.json":  sq(4, 1, 5000, 190),
		"ycsb-a-sqlite-t1-r2.json":  r2,
		"ycsb-a-sqlite-t4.json":     sq(7, 4, 6100, 640),
		"ycsb-a-pg-t16-100k.json":   big,
		"sysbench/rw-pg-t8.json":    sb(8, 8, 410, 19000, 12, 0),
		"sysbench/rw-pg-t16.json":   sb(9, 16, 520, 30000, 40, 2),
		"ycsb-a-pg-t8-failed.json":  failed,
		"commit-loop/cl-pg-j3.json": cl,
	}
}
