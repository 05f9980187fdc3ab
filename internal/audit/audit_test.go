package audit

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/ledger"
	"github.com/candor-bench/candor/internal/result"
)

// fixture is a result that passes every rule: PostgreSQL flushing per
// commit, read committed, 120 s measured after a 30 s warm-up, two steady
// repetitions, small data against a 128 MB buffer on a remote server.
func fixture() *result.Result {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := &result.Result{
		Schema: result.SchemaVersion, Status: result.StatusComplete,
		Command:    []string{"candor", "run", "ycsb/a"},
		Provenance: result.Provenance{CandorVersion: "0.1.0", Commit: "abc", CPUModel: "EPYC", Cores: 16, MemoryBytes: 64 << 30, Kernel: "6.1"},
		Target: result.Fingerprint{Driver: "postgres", Product: "PostgreSQL", Version: "16.4", URL: "postgres://u@db1:5432/b",
			Settings: map[string]string{"synchronous_commit": "on", "fsync": "on", "synchronous_standby_names": "",
				"transaction_isolation": "read committed", "shared_buffers": "128MB", "max_connections": "100", "streaming_replicas": "0"}},
		Workload: result.Workload{Name: "ycsb/a", Seed: 1, Options: map[string]any{"recordcount": 1000.0, "fieldcount": 10.0, "fieldlength": 100.0, "requestdistribution": "zipfian"}},
		Run:      result.RunConfig{Threads: 4, DurationSec: 120, WarmupSec: 30, Retries: 3, ReportInterval: 1, LatencyMeasure: "service time (closed loop)"},
	}
	for rep := 1; rep <= 2; rep++ {
		p := result.Phase{Name: "run", Repetition: rep, Status: result.StatusComplete, DurationSec: 120, WarmupSec: 30}
		var n int64
		for i := 0; i < 150; i++ {
			c := int64(1000 + 7*((i*13)%5) - 14) // steady, a little noise
			p.Intervals = append(p.Intervals, result.Interval{Phase: "run", Index: i, Start: t0.Add(time.Duration(i) * time.Second),
				ElapsedSec: float64(i + 1), LengthSec: 1, Warmup: i < 30, Ops: []result.IntervalOp{{Name: "READ", Count: c}}})
			if i >= 30 {
				n += c
			}
		}
		// The measured intervals add up to the phase (the laws of a result).
		p.Throughput, p.Operations = float64(n)/120, n
		p.Ops = []result.OpResult{{Name: "READ", Count: n, Done: n, Attempts: n, Throughput: float64(n) / 120}}
		r.Phases = append(r.Phases, p)
	}
	return r
}

func pair(mutate func(b *result.Result)) []Side {
	a, b := fixture(), fixture()
	if mutate != nil {
		mutate(b)
	}
	return []Side{{Label: "A", Inputs: []Input{{Name: "a.json", Result: a}}}, {Label: "B", Inputs: []Input{{Name: "b.json", Result: b}}}}
}

func findings(rep *Report, rule string) []Finding {
	var out []Finding
	for _, f := range rep.Findings {
		if f.Rule == rule {
			out = append(out, f)
		}
	}
	return out
}

// TestMatchedPairIsSilent: two results of the same configuration give no
// finding at all.
func TestMatchedPairIsSilent(t *testing.T) {
	rep := Sides(pair(nil))
	if len(rep.Findings) > 0 {
		var buf bytes.Buffer
		rep.WriteText(&buf)
		t.Fatalf("matched pair has findings:\n%s", buf.String())
	}
}

// TestEachRuleFires: every rule fires on a pair made to violate it, with
// the severity and words expected, and the pair's other findings are about
// nothing else.
func TestEachRuleFires(t *testing.T) {
	cases := []struct {
		rule   string
		sev    Severity
		want   string // in the finding
		mutate func(b *result.Result)
	}{
		// PostgreSQL async commit against flushing per commit.
		{"durability-differs", Error, "periodic", func(b *result.Result) { b.Target.Settings["synchronous_commit"] = "off" }},
		// across products: MySQL flushing once a second against PostgreSQL on
		{"durability-differs", Error, "innodb_flush_log_at_trx_commit=2", func(b *result.Result) {
			b.Target.Product = "MariaDB"
			b.Target.Settings = map[string]string{"innodb_flush_log_at_trx_commit": "2", "sync_binlog": "0", "transaction_isolation": "READ-COMMITTED"}
		}},
		{"durability-off", Warning, "fsync=off", func(b *result.Result) { b.Target.Settings["fsync"] = "off" }},
		{"replication-differs", Error, "2 synchronous standby", func(b *result.Result) {
			b.Target.Settings["synchronous_standby_names"] = "FIRST 2 (s1, s2)"
		}},
		// E4: PostgreSQL alone against PostgreSQL with two async standbys
		{"replication-differs", Warning, "2 streaming standby(s)", func(b *result.Result) {
			b.Target.Settings["streaming_replicas"] = "2"
		}},
		{"isolation-differs", Error, "serializable", func(b *result.Result) { b.Run.Isolation = "serializable" }},
		{"consistency-differs", Error, "QUORUM", func(b *result.Result) {}},
		{"memory-fit", Error, "not on", func(b *result.Result) {}},
		{"short-run", Warning, "30 s", func(b *result.Result) {
			for i := range b.Phases {
				b.Phases[i].DurationSec = 30
			}
		}},
		{"no-warmup", Warning, "B", func(b *result.Result) {
			b.Run.WarmupSec = 0
			for i := range b.Phases {
				b.Phases[i].WarmupSec = 0
			}
		}},
		{"still-trending", Warning, "fell", func(b *result.Result) {
			for i := range b.Phases[0].Intervals {
				b.Phases[0].Intervals[i].Ops[0].Count = int64(2000 - 8*i)
			}
		}},
		{"error-rate", Warning, "errors 2.0%", func(b *result.Result) { b.Phases[0].ErrorRate = 0.02 }},
		{"error-rate", Warning, "retries 5.0%", func(b *result.Result) { b.Phases[1].Ops[0].Retries = 6000 }},
		// an outage inside the run's 5% limit: 4 of 480 worker-seconds
		{"unavailable", Warning, "0.8% of the phase (4.00 of 480.00 worker-seconds)", func(b *result.Result) {
			b.Run.MaxUnavailable = ptr(0.05)
			b.Phases[0].Unavailable = &result.Unavailability{Share: 4.0 / 480, WithoutSec: 4, WorkerSec: 480}
		}},
		// above the run's recorded limit
		{"unavailable", Error, "above the run's --max-unavailable 5%", func(b *result.Result) {
			b.Run.MaxUnavailable = ptr(0.05)
			b.Phases[1].Unavailable = &result.Unavailability{Share: 0.5, WithoutSec: 240, WorkerSec: 480}
		}},
		// the limit was off (--max-unavailable 0) and the share is large
		{"unavailable", Error, "with --max-unavailable 0 (off)", func(b *result.Result) {
			b.Run.MaxUnavailable = ptr(0.0)
			b.Phases[0].Unavailable = &result.Unavailability{Share: 0.5, WithoutSec: 240, WorkerSec: 480}
		}},
		{"client-saturated", Warning, "client CPU", func(b *result.Result) {
			b.Phases[0].Client.Saturated, b.Phases[0].Client.SaturatedCause = true, "client CPU 98%"
		}},
		{"behind-schedule", Error, "dropped", func(b *result.Result) {
			b.Phases[0].Rate = &result.RateResult{Target: 5000, Achieved: 4000, BehindSchedule: true, MaxLagNs: 2e9}
			b.Phases[0].Dropped = 12
		}},
		{"clock-skew", Note, "not recorded", func(b *result.Result) { b.Command = append(b.Command, "--shard", "1/2") }},
		{"clock-skew", Warning, "150 ms over 2 shards", func(b *result.Result) {
			b.Merged = &result.Merged{RunID: "r", Count: 2, Shards: []result.ShardSource{
				{Index: 0, Clock: &result.ClockOffset{Source: "server", OffsetNs: 50e6}},
				{Index: 1, Clock: &result.ClockOffset{Source: "server", OffsetNs: -100e6}}}}
		}},
		{"clock-skew", Note, "not recorded", func(b *result.Result) {
			b.Shard = &result.ShardInfo{RunID: "r", Index: 1, Count: 2, Clock: &result.ClockOffset{Source: "unavailable"}}
		}},
		{"single-run", Warning, "1 complete run", func(b *result.Result) { b.Phases = b.Phases[:1] }},
		{"incomplete", Warning, "1 phase not complete", func(b *result.Result) { b.Phases[1].Status = result.StatusFailed }},
		// a result whose attempts do not add up (a hand-edited file)
		{"inconsistent", Error, "attempts", func(b *result.Result) { b.Phases[1].Ops[0].Attempts += 7 }},
		{"candor-version", Warning, "0.2.0", func(b *result.Result) { b.Provenance.CandorVersion = "0.2.0" }},
		{"options-differ", Error, "requestdistribution zipfian vs uniform", func(b *result.Result) {
			b.Workload.Options.(map[string]any)["requestdistribution"] = "uniform"
		}},
		// a size sweep (E1) is a note: memory-fit judges the sizes
		{"options-differ", Note, "data size only", func(b *result.Result) {
			b.Workload.Options.(map[string]any)["recordcount"] = 5000.0
		}},
		{"run-settings-differ", Warning, "retries 3 vs 0", func(b *result.Result) { b.Run.Retries = 0 }},
		{"reused-tables", Error, "rows=1000000", func(b *result.Result) { b.Workload.ReusedTables = []string{"sbtest1: rows=1000000"} }},
		{"schema-version", Note, "candor.result/v1.9", func(b *result.Result) { b.Schema = "candor.result/v1.9" }},
		{"settings-differ", Warning, "max_connections 100 vs 500", func(b *result.Result) { b.Target.Settings["max_connections"] = "500" }},
		{"target-differs", Note, "PostgreSQL 17.0", func(b *result.Result) { b.Target.Version = "17.0" }},
		{"machine-differs", Warning, "8 cores", func(b *result.Result) { b.Provenance.Cores = 8 }},
		{"machine-differs", Note, "bench-2", func(b *result.Result) { b.Provenance.Hostname = "bench-2" }},
	}
	// consistency-differs: two CQL sides at different consistency levels.
	cql := func(r *result.Result, write string) {
		r.Target.Product, r.Target.Driver = "Apache Cassandra", "cassandra"
		r.Target.Settings = map[string]string{"commitlog_sync": "periodic", "replication": "{'class': 'SimpleStrategy', 'replication_factor': '1'}",
			"read_consistency": "ONE", "write_consistency": write}
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			sides := pair(c.mutate)
			switch c.rule + " " + string(c.sev) {
			case "consistency-differs error":
				cql(sides[0].Inputs[0].Result, "ONE")
				cql(sides[1].Inputs[0].Result, "QUORUM")
			case "replication-differs error":
				sides[0].Inputs[0].Result.Target.Settings["synchronous_standby_names"] = "s1"
			case "memory-fit error":
				// A on a local server with 64 GB; B remote, with 128 MB
				// shared_buffers, and a million records (≈1 GB).
				for _, s := range sides {
					s.Inputs[0].Result.Workload.Options.(map[string]any)["recordcount"] = 1e6
				}
				sides[0].Inputs[0].Result.Target.URL = "postgres://u@127.0.0.1:5432/b"
			}
			rep := Sides(sides)
			got := findings(rep, c.rule)
			if len(got) == 0 {
				t.Fatalf("rule %s did not fire; findings: %+v", c.rule, rep.Findings)
			}
			if got[0].Severity != c.sev || !strings.Contains(got[0].Text, c.want) {
				t.Errorf("finding = %s %q, want %s containing %q", got[0].Severity, got[0].Text, c.sev, c.want)
			}
			if got[0].Fix == "" {
				t.Errorf("finding has no fix")
			}
		})
	}
}

// TestNotRecorded: a rule whose fields are absent says so and guesses
// nothing.
func TestNotRecorded(t *testing.T) {
	sides := pair(func(b *result.Result) { b.Target.Settings = map[string]string{} })
	rep := Sides(sides)
	for _, rule := range []string{"durability-differs", "isolation-differs"} {
		got := findings(rep, rule)
		if len(got) != 1 || got[0].Severity != Note || !strings.Contains(got[0].Text, "not recorded") {
			t.Errorf("%s: %+v, want one note saying not recorded", rule, got)
		}
	}
	if rep.HasErrors() {
		t.Errorf("absent fields gave an error: %+v", rep.Findings)
	}
}

func TestClassifyDurability(t *testing.T) {
	cases := []struct {
		settings map[string]string
		want     string
	}{
		{map[string]string{"synchronous_commit": "on", "fsync": "on"}, Flushed},
		{map[string]string{"synchronous_commit": "on", "fsync": "off"}, Off},
		{map[string]string{"synchronous_commit": "off", "fsync": "on"}, Periodic},
		{map[string]string{"synchronous_commit": "local", "synchronous_standby_names": "*"}, Flushed},
		{map[string]string{"synchronous_commit": "remote_apply", "synchronous_standby_names": "FIRST 2 (a, b, c)"}, Replicated},
		{map[string]string{"innodb_flush_log_at_trx_commit": "1", "sync_binlog": "1"}, Flushed},
		{map[string]string{"innodb_flush_log_at_trx_commit": "0"}, Periodic},
		{map[string]string{"innodb_flush_log_at_trx_commit": "1", "rpl_semi_sync_master_enabled": "1"}, Replicated},
		{map[string]string{"innodb_flush_log_at_trx_commit": "1", "rpl_semi_sync_source_enabled": "unavailable"}, Flushed},
		{map[string]string{"innodb_flush_log_at_trx_commit": "unavailable"}, notRecorded}, // TiDB
		{map[string]string{"synchronous": "FULL", "journal_mode": "wal"}, Flushed},
		{map[string]string{"synchronous": "NORMAL", "journal_mode": "wal"}, Periodic},
		{map[string]string{"synchronous": "NORMAL", "journal_mode": "delete"}, Flushed},
		{map[string]string{"synchronous": "OFF", "journal_mode": "wal"}, Off},
		{map[string]string{"synchronous": "FULL", "journal_mode": "memory"}, Off},
		{map[string]string{"commitlog_sync": "periodic", "replication": "{'class': 'SimpleStrategy', 'replication_factor': '3'}", "write_consistency": "ONE"}, Periodic},
		{map[string]string{"commitlog_sync": "batch", "replication": "{'class': 'SimpleStrategy', 'replication_factor': '1'}", "write_consistency": "QUORUM"}, Flushed},
		{map[string]string{"commitlog_sync": "periodic", "replication": "{'class': 'NetworkTopologyStrategy', 'dc1': '3'}", "write_consistency": "QUORUM"}, Replicated},
		{map[string]string{}, notRecorded},
	}
	for _, c := range cases {
		r := fixture()
		r.Target.Settings = c.settings
		if got := ClassifyDurability(r); got.Class != c.want {
			t.Errorf("%v → %q (%s), want %q", c.settings, got.Class, got.From, c.want)
		}
	}
}

// TestTiDBNoOpSettings: TiDB accepts innodb_flush_log_at_trx_commit,
// sync_binlog and innodb_buffer_pool_size and ignores them
// (information_schema.variables_info IS_NOOP): their values classify
// neither durability nor cache, whether the fingerprint recorded them as
// no-ops or (results written before it read variables_info) as values.
func TestTiDBNoOpSettings(t *testing.T) {
	for _, c := range []struct {
		product  string
		settings map[string]string
	}{
		// recorded by the fingerprint after SET GLOBAL innodb_flush_log_at_trx_commit=0
		{"TiDB", map[string]string{"innodb_flush_log_at_trx_commit": "no-op", "sync_binlog": "no-op", "innodb_buffer_pool_size": "no-op", "log_bin": "0"}},
		// as data, whatever the product
		{"", map[string]string{"innodb_flush_log_at_trx_commit": "no-op", "sync_binlog": "no-op", "innodb_buffer_pool_size": "no-op"}},
		// an older TiDB result, its values recorded as read
		{"TiDB", map[string]string{"innodb_flush_log_at_trx_commit": "0", "sync_binlog": "0", "innodb_buffer_pool_size": "134217728", "log_bin": "0"}},
	} {
		r := fixture()
		r.Target.Product = c.product
		r.Target.Settings = c.settings
		d := ClassifyDurability(r)
		if d.Class != notRecorded || !strings.Contains(d.From, "innodb_flush_log_at_trx_commit, sync_binlog accepted and ignored by the server") {
			t.Errorf("%s %v: durability %q (%s), want %q naming the ignored settings", c.product, c.settings, d.Class, d.From, notRecorded)
		}
		if m := MemoryOf(r); m.CacheBytes != 0 {
			t.Errorf("%s %v: cache %d bytes (%s), want not recorded", c.product, c.settings, m.CacheBytes, m.CacheFrom)
		}
	}
	// MySQL's own values still classify.
	r := fixture()
	r.Target.Product = "MySQL"
	r.Target.Settings = map[string]string{"innodb_flush_log_at_trx_commit": "0", "innodb_buffer_pool_size": "134217728"}
	if d := ClassifyDurability(r); d.Class != Periodic {
		t.Errorf("MySQL innodb_flush_log_at_trx_commit=0: %q, want %q", d.Class, Periodic)
	}
	if m := MemoryOf(r); m.CacheBytes < 134217728 {
		t.Errorf("MySQL's buffer pool: cache %d bytes, want at least 128 MiB", m.CacheBytes)
	}
}

func TestTrendSteadyAndFalling(t *testing.T) {
	r := fixture()
	if tr, ok := Trend(&r.Phases[0]); !ok || tr.Trending() {
		t.Errorf("steady series: %+v ok=%v, want no trend", tr, ok)
	}
	for i := range r.Phases[0].Intervals {
		r.Phases[0].Intervals[i].Ops[0].Count = int64(2000 - 8*i)
	}
	if tr, ok := Trend(&r.Phases[0]); !ok || !tr.Trending() || tr.ChangePct > 0 {
		t.Errorf("falling series: %+v ok=%v, want a falling trend", tr, ok)
	}
	// a ramp in the first half that settled is not a trend at the end
	for i := range r.Phases[0].Intervals {
		r.Phases[0].Intervals[i].Ops[0].Count = int64(min(400+7*i, 1000+i%3))
	}
	if tr, ok := Trend(&r.Phases[0]); !ok || tr.Trending() {
		t.Errorf("ramp then steady: %+v ok=%v, want no trend at the end", tr, ok)
	}
	r.Phases[0].Intervals = r.Phases[0].Intervals[:33] // 3 measured intervals
	if _, ok := Trend(&r.Phases[0]); ok {
		t.Errorf("3 intervals tested; want too few")
	}
}

// TestGroup: repetitions in several files form one side.
func TestGroup(t *testing.T) {
	a, a2, b := fixture(), fixture(), fixture()
	a.Phases, a2.Phases, b.Phases = a.Phases[:1], a2.Phases[:1], b.Phases[:1]
	b.Target.Settings["synchronous_commit"] = "off"
	sides := Group([]Input{{"x/a1.json", a}, {"x/b.json", b}, {"x/a2.json", a2}})
	if len(sides) != 2 || len(sides[0].Inputs) != 2 || sides[0].Label != "a1.json (+1)" {
		t.Fatalf("sides = %+v", sides)
	}
	rep := Sides(sides)
	if f := findings(rep, "single-run"); len(f) != 1 || strings.Contains(f[0].Text, "a1.json") || !strings.Contains(f[0].Text, "b.json") {
		t.Errorf("single-run = %+v, want b.json only (a1 and a2 are two runs)", f)
	}
}

// TestDocumented: docs/AUDIT.md describes every rule.
func TestDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/AUDIT.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range Rules() {
		if !strings.Contains(string(doc), "`"+r.ID+"`") {
			t.Errorf("docs/AUDIT.md lacks rule %s", r.ID)
		}
	}
}

// TestReadsJSON: options as read back from a result file (a JSON object)
// and as a struct in memory compare alike.
func TestReadsJSON(t *testing.T) {
	type opts struct {
		Recordcount int `json:"recordcount"`
	}
	a, b := fixture(), fixture()
	a.Workload.Options = opts{Recordcount: 5}
	data, _ := json.Marshal(a)
	json.Unmarshal(data, b)
	rep := Sides([]Side{{Label: "A", Inputs: []Input{{"a", a}}}, {Label: "B", Inputs: []Input{{"b", b}}}})
	if f := findings(rep, "options-differ"); len(f) > 0 {
		t.Errorf("struct vs JSON options differ: %+v", f)
	}
}

// TestEmptyResults: results without any of the fields the rules read give
// "not recorded" notes at most, and no panic.
func TestEmptyResults(t *testing.T) {
	rep := Results([]Input{{"a", &result.Result{}}, {"b", &result.Result{Phases: []result.Phase{{Name: "run"}}}}})
	var buf bytes.Buffer
	rep.WriteText(&buf)
	if rep.HasErrors() {
		t.Errorf("empty results gave errors:\n%s", buf.String())
	}
}

func ptr[T any](v T) *T { return &v }

// The ledger rule notes the run's accounting and, beside it, the latest
// candor ledger verify's (its time, its fault), labelled; a run never
// verified says so, and a refused verify is no verification.
func TestLedgerFiguresNote(t *testing.T) {
	sides := pair(func(b *result.Result) {
		at := time.Date(2026, 12, 8, 1, 2, 3, 0, time.UTC)
		b.Phases[0].Ledger = &result.LedgerResult{Accounting: &ledger.Accounting{Writes: 100, Acknowledged: 98, Unknown: 2, UnknownCommitted: 1, UnknownNotCommitted: 1, Lost: 3},
			Verifications: []result.LedgerVerification{
				{Time: at, Outcome: "verified", FaultIndex: ptr(0), Accounting: &ledger.Accounting{Writes: 100, Acknowledged: 98, Unknown: 2, UnknownCommitted: 2, Lost: 1}},
				{Time: at.Add(time.Hour), Outcome: "refused", Reason: "not this ledger's table"},
			}}
		b.Phases[1].Ledger = &result.LedgerResult{Accounting: &ledger.Accounting{Writes: 50, Acknowledged: 50}}
	})
	f := findings(Sides(sides), "ledger")
	if len(f) != 1 || f[0].Severity != Note {
		t.Fatalf("ledger findings %+v, want one note", f)
	}
	for _, want := range []string{
		"B run 1: the run's own accounting: 100 writes, 98 acknowledged, 0 failed, 2 unknown (1 committed, 1 not), lost 3",
		"candor ledger verify 2026-12-08T01:02:03Z (fault 0): 100 writes, 98 acknowledged, 0 failed, 2 unknown (2 committed, 0 not), lost 1",
		"B run 2: the run's own accounting: 50 writes, 50 acknowledged, 0 failed, 0 unknown (0 committed, 0 not), lost 0, duplicates 0, unrecorded 0; never verified by candor ledger verify",
	} {
		if !strings.Contains(f[0].Text, want) {
			t.Errorf("ledger note lacks %q:\n%s", want, f[0].Text)
		}
	}
	if strings.Contains(f[0].Text, "A run") {
		t.Errorf("A kept no ledger, yet the note names it:\n%s", f[0].Text)
	}
}
