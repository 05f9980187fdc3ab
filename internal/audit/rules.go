package audit

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"

	"github.com/candor-bench/candor/internal/result"
)

// Rule is one written fairness rule (docs/AUDIT.md describes each).
type Rule struct {
	ID       string
	Severity Severity // the severity of its main finding
	Title    string
	Fix      string
	check    func(sides []Side) []Finding
}

// Rules lists every rule in the order they run.
func Rules() []Rule { return append([]Rule(nil), rules...) }

var rules []Rule

func init() {
	rules = []Rule{
		{ID: "durability-differs", Severity: Error, Title: "durability differs between the sides",
			Fix: "run every side with the same durability class (docs/AUDIT.md: synchronous_commit, innodb_flush_log_at_trx_commit, synchronous, commitlog_sync and write consistency)", check: durabilityDiffers},
		{ID: "durability-off", Severity: Warning, Title: "durability is off or periodic",
			Fix: "turn on per-commit durability (synchronous_commit=on, innodb_flush_log_at_trx_commit=1, synchronous=FULL, commitlog_sync=batch), or state that the figures are for commits that a crash may lose", check: durabilityOff},
		{ID: "replication-differs", Severity: Error, Title: "synchronous copies differ",
			Fix: "give every side the same number of synchronous standbys or the same replication factor and write consistency", check: replicationDiffers},
		{ID: "isolation-differs", Severity: Error, Title: "isolation differs",
			Fix: "set the same level on every side with --isolation", check: isolationDiffers},
		{ID: "isolation-observed-differs", Severity: Error, Title: "the isolation observed differs",
			Fix: "compare levels that allow the same anomalies (candor isolation probe shows each level's, docs/ISOLATION.md), or state beside the figures which anomalies each side allowed", check: isolationObservedDiffers},
		{ID: "consistency-differs", Severity: Error, Title: "consistency levels differ",
			Fix: "use the same read and write consistency on every side (CQL targets: ?read_consistency=...&write_consistency=...)", check: consistencyDiffers},
		{ID: "memory-fit", Severity: Error, Title: "the data fits in memory on one side only",
			Fix: "size the data so that it fits in every side's cache or in none (or give the servers the same buffer pool and memory)", check: memoryFit},
		{ID: "short-run", Severity: Warning, Title: "run shorter than 60 s or than 10 report intervals",
			Fix: "run at least 60 s and 10 report intervals (--time 60s or more)", check: shortRun},
		{ID: "no-warmup", Severity: Warning, Title: "no warm-up",
			Fix: "add a warm-up (--warmup 30s) so caches and connections settle before measuring", check: noWarmup},
		{ID: "still-trending", Severity: Warning, Title: "throughput still trending at the end",
			Fix: "run longer (or warm up longer) until throughput is steady; report the time series", check: stillTrending},
		{ID: "error-rate", Severity: Warning, Title: "error or retry rate above 1%",
			Fix: "find the cause of the errors (the result's first_errors), or lower the concurrency; compare only runs below 1%", check: errorRate},
		{ID: "unavailable", Severity: Warning, Title: "workers without a session",
			Fix: "find why the sessions were lost (the result's intervals no_session and first_errors); compare only runs whose workers kept their sessions, or say the figures include the outage", check: unavailable},
		{ID: "client-saturated", Severity: Warning, Title: "client saturated",
			Fix: "give the client more cores or spread it over several client machines (--shard), then rerun", check: clientSaturated},
		{ID: "behind-schedule", Severity: Error, Title: "open loop behind schedule",
			Fix: "lower --rate to what the target sustains, or add workers; figures of a run behind schedule describe a backlog", check: behindSchedule},
		{ID: "clock-skew", Severity: Note, Title: "shards with skewed clocks",
			Fix: "synchronise the client machines' clocks (NTP/PTP) and record their offsets", check: clockSkew},
		{ID: "single-run", Severity: Warning, Title: "single run without repetitions",
			Fix: "repeat the run (--repeat 3 or more) to get confidence intervals", check: singleRun},
		{ID: "inconsistent", Severity: Error, Title: "results that break the laws of their own arithmetic",
			Fix: "rerun: a result whose counts do not add up states something false (and report it: it is a bug in candor, or the file was edited)", check: inconsistent},
		{ID: "incomplete", Severity: Warning, Title: "runs that did not complete",
			Fix: "rerun the failed or interrupted runs; they are left out of the figures", check: incomplete},
		{ID: "ledger", Severity: Note, Title: "the durability ledger's figures: the run's and candor ledger verify's",
			Fix: "none needed: read lost and unknown writes from the source named; run candor ledger verify RESULT to read the ids back again", check: ledgerFigures},
		{ID: "check-failed", Severity: Error, Title: "the data failed its checks",
			Fix: "find why the data is wrong (the result's checks name the check and the offending rows); figures of a run that lost or broke data are not comparable", check: checkFailed},
		{ID: "retries-exceed-commits", Severity: Warning, Title: "retries exceed commits",
			Fix: "say so beside the figures: the run spent more attempts on conflicts than on work (lower the skew or the concurrency, or compare the locking modes)", check: retriesExceedCommits},
		{ID: "candor-version", Severity: Warning, Title: "different candor versions",
			Fix: "run every side with the same candor build", check: candorVersion},
		{ID: "options-differ", Severity: Error, Title: "workload options differ",
			Fix: "run the same workload with the same options on every side", check: optionsDiffer},
		{ID: "run-settings-differ", Severity: Warning, Title: "run settings differ",
			Fix: "use the same duration, warm-up, rate, arrival, retries and operations on every side", check: runSettingsDiffer},
		{ID: "reused-tables", Severity: Error, Title: "tables loaded with other options than the run says",
			Fix: "reload the tables with the run's options (--load=always)", check: reusedTables},
		{ID: "schema-version", Severity: Note, Title: "results of different schema versions",
			Fix: "none needed when they were read; rerun with one candor version to compare like with like", check: schemaVersion},
		{ID: "settings-differ", Severity: Warning, Title: "other server settings differ",
			Fix: "align the settings, or say why they differ", check: settingsDiffer},
		{ID: "target-differs", Severity: Note, Title: "product or version differs (what is compared)",
			Fix: "none: this is what is compared", check: targetDiffers},
		{ID: "machine-differs", Severity: Warning, Title: "client machines differ",
			Fix: "run every side from the same client machine (or the same machine type)", check: machineDiffers},
	}
}

// ruleOf returns a finding of a rule at the given severity.
func ruleOf(id string, sev Severity, format string, a ...any) Finding {
	for _, r := range rules {
		if r.ID == id {
			return Finding{Rule: id, Severity: sev, Text: fmt.Sprintf(format, a...), Fix: r.Fix}
		}
	}
	panic("audit: unknown rule " + id)
}

func first(s Side) *result.Result { return s.Inputs[0].Result }

// eachResult runs f on every result, labelled by side (and file when a side
// has several).
func eachResult(sides []Side, f func(label string, r *result.Result)) {
	for _, s := range sides {
		for _, in := range s.Inputs {
			l := s.Label
			if len(s.Inputs) > 1 {
				l = s.Label + " [" + in.Name + "]"
			}
			f(l, in.Result)
		}
	}
}

// --- durability -------------------------------------------------------------

func durabilityDiffers(sides []Side) []Finding {
	if len(sides) < 2 {
		return nil
	}
	classes, _ := sideValues(sides, func(s Side) string { return ClassifyDurability(first(s)).Class })
	if len(classes) < 2 {
		return nil
	}
	_, detail := sideValues(sides, func(s Side) string { return ClassifyDurability(first(s)).String() })
	for _, c := range classes {
		if c == notRecorded {
			return []Finding{ruleOf("durability-differs", Note, "durability not recorded on some side: %s", detail)}
		}
	}
	return []Finding{ruleOf("durability-differs", Error, "durability differs: %s", detail)}
}

func durabilityOff(sides []Side) []Finding {
	var off []string
	for _, s := range sides {
		d := ClassifyDurability(first(s))
		if d.Class == Off || d.Class == Periodic {
			off = append(off, s.Label+": "+d.String())
		}
	}
	if len(off) == 0 {
		return nil
	}
	return []Finding{ruleOf("durability-off", Warning, "acknowledged commits are not flushed per commit on %s", strings.Join(off, "; "))}
}

func replicationDiffers(sides []Side) []Finding {
	if len(sides) < 2 {
		return nil
	}
	classes, _ := sideValues(sides, func(s Side) string { return ClassifyDurability(first(s)).Class })
	if len(classes) != 1 || classes[0] == notRecorded {
		return nil // durability-differs says it
	}
	if classes[0] != Replicated {
		// No copy is waited for; standbys streaming asynchronously still
		// cost commit rate and may lose commits at a fail-over (E4).
		reps, text := sideValues(sides, func(s Side) string {
			if v := first(s).Target.Settings["streaming_replicas"]; recorded(v) {
				return v + " streaming standby(s)"
			}
			return notRecorded
		})
		if len(reps) < 2 {
			return nil
		}
		for _, v := range reps {
			if v == notRecorded {
				return nil // other products: the rule has nothing to compare
			}
		}
		return []Finding{ruleOf("replication-differs", Warning, "asynchronous standbys differ: %s", text)}
	}
	copies, text := sideValues(sides, func(s Side) string {
		if c := ClassifyDurability(first(s)).Copies; c != "" {
			return c
		}
		return notRecorded
	})
	if len(copies) < 2 {
		return nil
	}
	for _, c := range copies {
		if c == notRecorded {
			return []Finding{ruleOf("replication-differs", Note, "synchronous copies not recorded on some side: %s", text)}
		}
	}
	return []Finding{ruleOf("replication-differs", Error, "synchronous copies differ: %s", text)}
}

// --- isolation and consistency ----------------------------------------------

// Isolation returns the isolation level a result ran at: --isolation when
// set, else the server's recorded transaction_isolation, normalised
// ("REPEATABLE-READ" → "repeatable read"); notRecorded otherwise.
func Isolation(r *result.Result) string {
	v := r.Run.Isolation
	if v == "" {
		v = r.Target.Settings["transaction_isolation"]
	}
	if !recorded(v) {
		return notRecorded
	}
	return strings.NewReplacer("-", " ", "_", " ").Replace(strings.ToLower(strings.TrimSpace(v)))
}

func isolationDiffers(sides []Side) []Finding {
	if len(sides) < 2 {
		return nil
	}
	vals, text := sideValues(sides, func(s Side) string { return Isolation(first(s)) })
	if len(vals) < 2 {
		return nil
	}
	for _, v := range vals {
		if v == notRecorded {
			return []Finding{ruleOf("isolation-differs", Note, "isolation not recorded on some side: %s", text)}
		}
	}
	return []Finding{ruleOf("isolation-differs", Error, "isolation differs: %s", text)}
}

// anomalyNames are the everyday names of the anomalies the audit's
// findings name.
var anomalyNames = map[string]string{"P4": "lost update", "G-single": "read skew", "G-single-write": "read skew by a write predicate",
	"G2-item": "write skew", "G2": "predicate write skew (G2)", "G0": "dirty write", "G1a": "aborted read", "G1b": "intermediate read",
	"G1c": "circular information flow", "OTV": "observed transaction vanishes", "PMP": "predicate-many-preceders", "PMP-write": "predicate-many-preceders by a write"}

// observedText is what side s's probe said of anomaly: "allowed",
// "prevented (how)", or "" when it has no probe of it.
func observedText(s Side, anomaly string) string {
	o := first(s).IsolationObserved
	if o == nil {
		return ""
	}
	for _, a := range o.Outcomes {
		if a.Anomaly != anomaly {
			continue
		}
		if a.Allowed {
			return "allowed"
		}
		how := a.How
		if len(a.Codes) > 0 {
			how += " " + strings.Join(a.Codes, "/")
		}
		return "prevented (" + how + ")"
	}
	return ""
}

// isolationObservedDiffers compares what the sides' probes observed (the
// result's isolation_observed): an anomaly allowed on some sides only is
// an error, whatever the levels are called. A side without a probe is a
// note when another has one.
func isolationObservedDiffers(sides []Side) []Finding {
	if len(sides) < 2 {
		return nil
	}
	var anomalies []string
	seen := map[string]bool{}
	probed := 0
	for _, s := range sides {
		o := first(s).IsolationObserved
		if o == nil || len(o.Outcomes) == 0 {
			continue
		}
		probed++
		for _, a := range o.Outcomes {
			if !seen[a.Anomaly] {
				seen[a.Anomaly] = true
				anomalies = append(anomalies, a.Anomaly)
			}
		}
	}
	if probed == 0 {
		return nil
	}
	if probed < len(sides) {
		_, text := sideValues(sides, func(s Side) string {
			if o := first(s).IsolationObserved; o != nil && len(o.Outcomes) > 0 {
				return "probed"
			} else if o != nil && o.Error != "" {
				return o.Error
			}
			return "not probed (run with --isolation)"
		})
		return []Finding{ruleOf("isolation-observed-differs", Note, "isolation observed on some sides only: %s", text)}
	}
	var out []Finding
	for _, a := range anomalies {
		allowed := 0
		for _, s := range sides {
			if observedText(s, a) == "allowed" {
				allowed++
			}
		}
		if allowed == 0 || allowed == len(sides) {
			continue
		}
		_, text := sideValues(sides, func(s Side) string {
			t := observedText(s, a)
			if t == "" {
				t = "not probed"
			}
			return Isolation(first(s)) + ": " + t
		})
		name := anomalyNames[a]
		if name == "" {
			name = a
		}
		out = append(out, ruleOf("isolation-observed-differs", Error, "%s (%s) allowed on one side only: %s", name, a, text))
	}
	return out
}

func consistency(r *result.Result) string {
	s := r.Target.Settings
	rc, wc := s["read_consistency"], s["write_consistency"]
	if rc == "" && wc == "" {
		return notRecorded
	}
	return fmt.Sprintf("read %s, write %s", orNR(rc), orNR(wc))
}

func orNR(s string) string {
	if s == "" {
		return notRecorded
	}
	return s
}

func consistencyDiffers(sides []Side) []Finding {
	if len(sides) < 2 {
		return nil
	}
	vals, text := sideValues(sides, func(s Side) string { return consistency(first(s)) })
	if len(vals) < 2 {
		return nil
	}
	for _, v := range vals {
		if v == notRecorded {
			return []Finding{ruleOf("consistency-differs", Note, "consistency levels recorded on some sides only (a single-copy SQL server has none): %s", text)}
		}
	}
	return []Finding{ruleOf("consistency-differs", Error, "consistency levels differ: %s", text)}
}

// --- memory -----------------------------------------------------------------

// memoryFit compares, per workload, where each side's data sits against
// its server's cache. Sides of the same data size on different sides of
// the cache are an error (one measures its cache, the other its storage).
// Sides of different sizes on different sides of the cache are a size
// sweep crossing the cache — a note, which a reader must be told, when
// they are one target at several sizes, cells of one plan, or targets also
// compared at a common size; an error when two targets are compared only
// across the cache (one at a size that fits, the other at one that does
// not).
func memoryFit(sides []Side) []Finding {
	var out []Finding
	for _, g := range byWorkload(sides) {
		if len(g) > 1 {
			out = append(out, memoryFitOf(g)...)
		}
	}
	return out
}

// fitSide is one side's data against its cache.
type fitSide struct {
	text   string // label: data and cache
	m      Memory
	fits   bool
	known  bool   // data size and cache recorded
	size   string // the data size: its size options, else its bytes
	target string // product, version, endpoint
	plan   string // the plan it is a cell of ("" outside a plan)
}

func memoryFitOf(g []Side) []Finding {
	var fs []fitSide
	var unknown []string
	for _, s := range g {
		r := first(s)
		f := fitSide{text: s.Label + ": ", m: MemoryOf(r), size: dataSizeKey(r),
			target: r.Target.Product + " " + r.Target.Version + " " + r.Target.URL}
		f.text += f.m.String()
		f.known = f.m.DataBytes > 0 && f.m.CacheBytes > 0
		f.fits = f.known && f.m.DataBytes <= f.m.CacheBytes
		if r.Plan != nil {
			f.plan = r.Plan.Name + "\x00" + r.Plan.File
		}
		if !f.known {
			unknown = append(unknown, f.text)
			continue
		}
		fs = append(fs, f)
	}
	var out []Finding
	// one data size, both sides of the cache
	var sizes []string
	bySize := map[string][]fitSide{}
	for _, f := range fs {
		if _, ok := bySize[f.size]; !ok {
			sizes = append(sizes, f.size)
		}
		bySize[f.size] = append(bySize[f.size], f)
	}
	for _, k := range sizes {
		if fits, not := splitFit(bySize[k]); len(fits) > 0 && len(not) > 0 {
			out = append(out, ruleOf("memory-fit", Error, "the data fits in memory on %s but not on %s", strings.Join(fits, "; "), strings.Join(not, "; ")))
		}
	}
	// several data sizes, both sides of the cache
	common := map[[2]string]bool{} // targets compared at a common size
	for _, same := range bySize {
		for _, a := range same {
			for _, b := range same {
				common[[2]string{a.target, b.target}] = true
			}
		}
	}
	var sweep, claims []fitSide
	for i, a := range fs {
		for _, b := range fs[i+1:] {
			if a.size == b.size || a.fits == b.fits {
				continue
			}
			if a.target == b.target || (a.plan != "" && a.plan == b.plan) || common[[2]string{a.target, b.target}] {
				sweep = append(sweep, a, b)
			} else {
				claims = append(claims, a, b)
			}
		}
	}
	if fits, not := splitFit(claims); len(fits) > 0 {
		out = append(out, ruleOf("memory-fit", Error, "compared only across the cache: the data fits in memory on %s but, at another data size, not on %s",
			strings.Join(fits, "; "), strings.Join(not, "; ")))
	}
	if fits, not := splitFit(sweep); len(fits) > 0 {
		f := ruleOf("memory-fit", Note, "the data sizes cross the cache: the data fits in memory on %s but not on %s; "+
			"between them throughput changes with the cache as much as with the size", strings.Join(fits, "; "), strings.Join(not, "; "))
		f.Fix = "none: this is a size sweep; say beside its figures where the data outgrows the cache"
		out = append(out, f)
	}
	if len(unknown) > 0 && len(unknown) < len(g) {
		out = append(out, ruleOf("memory-fit", Note, "data size or cache not recorded on %s", strings.Join(unknown, "; ")))
	}
	return out
}

// splitFit lists the sides that fit and those that do not, each once, in
// order.
func splitFit(fs []fitSide) (fits, not []string) {
	seen := map[string]bool{}
	for _, f := range fs {
		if seen[f.text] {
			continue
		}
		seen[f.text] = true
		if f.fits {
			fits = append(fits, f.text)
		} else {
			not = append(not, f.text)
		}
	}
	return fits, not
}

// dataSizeKey is a result's data size as its options set it (recordcount,
// table-size, ...: sizeOptions), else as its measured bytes.
func dataSizeKey(r *result.Result) string {
	o, _ := asMap(r.Workload.Options)
	var parts []string
	for k := range sizeOptions {
		if v, ok := o[k]; ok {
			parts = append(parts, k+"="+show(v))
		}
	}
	if len(parts) == 0 {
		return fmt.Sprint(MemoryOf(r).DataBytes)
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

// Memory is a result's data size against the server's cache.
type Memory struct {
	DataBytes  int64  // 0 when not recorded
	DataFrom   string // "load phase" or "options (payload)"
	CacheBytes int64  // buffer pool plus the OS page cache where known; 0 when not recorded
	CacheFrom  string // "shared_buffers 128 MB + host memory 8 GB (same machine)"
}

func (m Memory) String() string {
	d := "data " + notRecorded
	if m.DataBytes > 0 {
		d = "data ≈" + fmtBytes(m.DataBytes) + " (" + m.DataFrom + ")"
	}
	c := "cache " + notRecorded
	if m.CacheBytes > 0 {
		c = "cache " + m.CacheFrom
	}
	return d + ", " + c
}

// MemoryOf reads a result's data size (the largest load phase's bytes, else
// the payload its options describe) and the server's cache (shared_buffers,
// innodb_buffer_pool_size, SQLite's cache_size) plus the OS page cache when
// the server shares the client's machine (an embedded target, or a URL on
// the loopback or a Unix socket): the client's recorded memory.
func MemoryOf(r *result.Result) Memory {
	var m Memory
	for _, p := range r.Phases {
		if p.Name == "load" && p.LoadBytes > m.DataBytes {
			m.DataBytes, m.DataFrom = p.LoadBytes, "load phase"
		}
	}
	if m.DataBytes == 0 {
		if b := payloadOf(r.Workload.Name, r.Workload.Options); b > 0 {
			m.DataBytes, m.DataFrom = b, "options, payload only"
		}
	}
	s := settingsOf(r) // a cache size the server ignores ("no-op") does not parse
	var parts []string
	if v, ok := parseSize(s["shared_buffers"], 8192); ok {
		m.CacheBytes += v
		parts = append(parts, "shared_buffers "+fmtBytes(v))
	} else if v, ok := parseSize(s["innodb_buffer_pool_size"], 1); ok {
		m.CacheBytes += v
		parts = append(parts, "innodb_buffer_pool_size "+fmtBytes(v))
	} else if v, ok := sqliteCache(s); ok {
		m.CacheBytes += v
		parts = append(parts, "cache_size "+fmtBytes(v))
	}
	if m.CacheBytes > 0 && local(r) {
		if r.Provenance.MemoryBytes > 0 {
			m.CacheBytes += r.Provenance.MemoryBytes
			parts = append(parts, "OS page cache up to "+fmtBytes(r.Provenance.MemoryBytes)+" (same machine as the client)")
		}
	} else if m.CacheBytes > 0 {
		parts = append(parts, "OS page cache "+notRecorded)
	}
	m.CacheFrom = strings.Join(parts, " + ")
	return m
}

// local reports whether the server runs on the client's machine.
func local(r *result.Result) bool {
	if r.Target.Driver == "sqlite" || (r.Target.Capabilities != nil && r.Target.Capabilities.Embedded) {
		return true
	}
	u := r.Target.URL
	_, rest, ok := strings.Cut(u, "://")
	if !ok {
		return false
	}
	if at := strings.LastIndex(strings.SplitN(rest, "/", 2)[0], "@"); at >= 0 {
		rest = rest[at+1:]
	}
	host := strings.SplitN(rest, "/", 2)[0]
	if i := strings.LastIndex(host, ":"); i >= 0 && !strings.HasSuffix(host, "]") {
		host = host[:i]
	}
	host = strings.Trim(host, "[]")
	switch {
	case host == "localhost", host == "::1", strings.HasPrefix(host, "127."):
		return true
	case host == "" && strings.Contains(u, "host=/"): // a Unix socket
		return true
	}
	return false
}

func sqliteCache(s map[string]string) (int64, bool) {
	v := strings.TrimSpace(s["cache_size"])
	if v == "" {
		return 0, false
	}
	var n int64
	if _, err := fmt.Sscan(v, &n); err != nil || n == 0 {
		return 0, false
	}
	if n < 0 {
		return -n * 1024, true
	}
	var page int64
	if _, err := fmt.Sscan(s["page_size"], &page); err != nil || page <= 0 {
		return 0, false
	}
	return n * page, true
}

// parseSize reads "128MB", "1GB", "8kB", "134217728" (bytes, or units of
// bare when the setting counts pages).
func parseSize(v string, bare int64) (int64, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	i := 0
	for i < len(v) && v[i] >= '0' && v[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, false
	}
	var n int64
	fmt.Sscan(v[:i], &n)
	unit := strings.ToLower(strings.TrimSpace(v[i:]))
	mult := map[string]int64{"": bare, "b": 1, "kb": 1 << 10, "k": 1 << 10, "mb": 1 << 20, "m": 1 << 20, "gb": 1 << 30, "g": 1 << 30, "tb": 1 << 40}
	m, ok := mult[unit]
	if !ok {
		return 0, false
	}
	return n * m, n > 0
}

// payloadOf is the data a workload's options describe, payload only (keys
// and values; no indexes or row overhead): a lower bound.
func payloadOf(name string, options any) int64 {
	o, ok := asMap(options)
	if !ok {
		return 0
	}
	num := func(k string) int64 {
		f, ok := o[k].(float64)
		if !ok {
			return 0
		}
		return int64(f)
	}
	switch {
	case strings.HasPrefix(name, "ycsb"):
		return num("recordcount") * (24 + num("fieldcount")*num("fieldlength"))
	case strings.HasPrefix(name, "sysbench"):
		tables := num("tables")
		if tables == 0 {
			tables = 1
		}
		return tables * num("table-size") * 200
	case name == "kv-basic":
		return num("pairs") * (num("key-size") + num("value-size"))
	case strings.HasPrefix(name, "kv-ints"):
		return num("rows") * (num("key-size") + 4*num("columns"))
	}
	return 0
}

// asMap turns recorded options (a map read from JSON, or a struct in
// memory) into a JSON object.
func asMap(v any) (map[string]any, bool) {
	if m, ok := v.(map[string]any); ok {
		return m, true
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil || m == nil {
		return nil, false
	}
	return m, true
}

func fmtBytes(b int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	f := float64(b)
	i := 0
	for f >= 1024 && i < len(units)-1 {
		f /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%d B", b)
	}
	if f >= 100 {
		return fmt.Sprintf("%.0f %s", f, units[i])
	}
	return fmt.Sprintf("%.3g %s", f, units[i])
}

// --- run quality --------------------------------------------------------------

// measuredIntervals counts a phase's measured intervals: not warm-up, and
// not the short tail between the phase's end and its workers' return (a
// 10 s run has 10, not 11; results before the tail mark: a last interval
// under half a report interval).
func measuredIntervals(r *result.Result, p *result.Phase) int {
	n := 0
	for i, iv := range p.Intervals {
		short := i == len(p.Intervals)-1 && r.Run.ReportInterval > 0 && iv.LengthSec < r.Run.ReportInterval/2
		if !iv.Warmup && !iv.Tail && !short {
			n++
		}
	}
	return n
}

func shortRun(sides []Side) []Finding {
	var bad, unknown []string
	eachResult(sides, func(l string, r *result.Result) {
		for _, p := range runPhases(r) {
			if p.Status != result.StatusComplete {
				continue
			}
			n := measuredIntervals(r, p)
			switch {
			case p.DurationSec <= 0:
				unknown = append(unknown, l)
			case p.DurationSec < 60 || n < 10:
				bad = append(bad, fmt.Sprintf("%s: %.0f s in %d interval(s)", l, p.DurationSec, n))
			default:
				continue
			}
			return // one line per result
		}
	})
	var out []Finding
	if len(bad) > 0 {
		out = append(out, ruleOf("short-run", Warning, "measured runs shorter than 60 s or 10 intervals: %s", strings.Join(bad, "; ")))
	}
	if len(unknown) > 0 {
		out = append(out, ruleOf("short-run", Note, "measured duration %s on %s", notRecorded, strings.Join(unknown, "; ")))
	}
	return out
}

func noWarmup(sides []Side) []Finding {
	var bad []string
	for _, s := range sides {
		r := first(s)
		if len(runPhases(r)) == 0 {
			continue
		}
		warm := r.Run.WarmupSec > 0
		for _, p := range runPhases(r) {
			warm = warm || p.WarmupSec > 0
		}
		if !warm {
			bad = append(bad, s.Label)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return []Finding{ruleOf("no-warmup", Warning, "measured from the first second, without warm-up: %s", strings.Join(bad, ", "))}
}

func stillTrending(sides []Side) []Finding {
	var bad []string
	eachResult(sides, func(l string, r *result.Result) {
		for _, p := range runPhases(r) {
			if p.Status != result.StatusComplete {
				continue
			}
			tr, ok := Trend(p)
			if ok && tr.Trending() {
				rep := ""
				if p.Repetition > 0 {
					rep = fmt.Sprintf(" run %d", p.Repetition)
				}
				bad = append(bad, fmt.Sprintf("%s%s: throughput %s %.0f%% over the run (slope p=%.3g)", l, rep, map[bool]string{true: "rose", false: "fell"}[tr.ChangePct > 0], math.Abs(tr.ChangePct), tr.P))
				return
			}
		}
	})
	if len(bad) == 0 {
		return nil
	}
	return []Finding{ruleOf("still-trending", Warning, "not at a steady state: %s", strings.Join(bad, "; "))}
}

func errorRate(sides []Side) []Finding {
	var bad []string
	eachResult(sides, func(l string, r *result.Result) {
		for _, p := range runPhases(r) {
			var errs, attempts, retries int64
			for _, o := range p.Ops {
				for _, n := range o.Errors {
					errs += n
				}
				attempts += o.Attempts
				retries += o.Retries
			}
			er := p.ErrorRate
			if er == 0 && p.Operations > 0 {
				er = float64(errs) / float64(p.Operations)
			}
			rr := 0.0
			if attempts > 0 {
				rr = float64(retries) / float64(attempts)
			}
			if er > 0.01 || rr > 0.01 {
				bad = append(bad, fmt.Sprintf("%s: errors %.1f%%, retries %.1f%% of attempts", l, 100*er, 100*rr))
				return
			}
		}
	})
	if len(bad) == 0 {
		return nil
	}
	return []Finding{ruleOf("error-rate", Warning, "error or retry rate above 1%%: %s", strings.Join(bad, "; "))}
}

// largeUnavailable is the share of a run phase's worker-seconds without a
// session that the audit calls large when the run set no limit of its own
// (--max-unavailable 0, or a result that does not record it): candor run's
// default --max-unavailable, 5%.
const largeUnavailable = 0.05

// unavailable finds run phases whose workers spent time without a session
// (phase.unavailable): a warning for any such time within the run's limit,
// an error above its recorded max_unavailable, or above largeUnavailable
// when the limit was off or is not recorded.
func unavailable(sides []Side) []Finding {
	var over, within []string
	eachResult(sides, func(l string, r *result.Result) {
		for _, p := range runPhases(r) {
			u := p.Unavailable
			if u == nil || u.WithoutSec <= 0 {
				continue
			}
			t := fmt.Sprintf("%s: %.1f%% of the phase (%.2f of %.2f worker-seconds)", l, 100*u.Share, u.WithoutSec, u.WorkerSec)
			if p.Repetition > 0 {
				t = fmt.Sprintf("%s: repetition %d: %.1f%% of the phase (%.2f of %.2f worker-seconds)", l, p.Repetition, 100*u.Share, u.WithoutSec, u.WorkerSec)
			}
			limit, how := largeUnavailable, "above 5% with no --max-unavailable recorded"
			if m := r.Run.MaxUnavailable; m != nil {
				if *m > 0 {
					limit, how = *m, fmt.Sprintf("above the run's --max-unavailable %g%%", 100**m)
				} else {
					how = "above 5% with --max-unavailable 0 (off)"
				}
			}
			if u.Share > limit {
				over = append(over, t+" "+how)
			} else {
				within = append(within, t)
			}
			return
		}
	})
	var out []Finding
	if len(over) > 0 {
		out = append(out, ruleOf("unavailable", Error, "workers spent a large share of the run without a session: %s", strings.Join(over, "; ")))
	}
	if len(within) > 0 {
		out = append(out, ruleOf("unavailable", Warning, "workers spent time without a session: %s", strings.Join(within, "; ")))
	}
	return out
}

func clientSaturated(sides []Side) []Finding {
	var bad []string
	eachResult(sides, func(l string, r *result.Result) {
		for _, p := range runPhases(r) {
			if p.Client.Saturated {
				bad = append(bad, l+": "+orNR(p.Client.SaturatedCause))
				return
			}
		}
	})
	if len(bad) == 0 {
		return nil
	}
	return []Finding{ruleOf("client-saturated", Warning, "the client was the bottleneck: %s", strings.Join(bad, "; "))}
}

func behindSchedule(sides []Side) []Finding {
	var bad, fault []string
	eachResult(sides, func(l string, r *result.Result) {
		for _, p := range runPhases(r) {
			why, byFault := p.ScheduleVerdict()
			if why == "" {
				continue
			}
			t := l + ":"
			if p.Rate != nil {
				t += fmt.Sprintf(" achieved %.1f of %.0f ops/s, max lag %s", p.Rate.Achieved, p.Rate.Target, fmtNs(p.Rate.MaxLagNs))
			}
			if p.Dropped > 0 {
				t += fmt.Sprintf(", %d operation(s) dropped", p.Dropped)
			}
			if byFault {
				fault = append(fault, t)
			} else {
				bad = append(bad, t)
			}
			return
		}
	})
	var out []Finding
	if len(bad) > 0 {
		out = append(out, ruleOf("behind-schedule", Error, "open loop behind its schedule: %s", strings.Join(bad, "; ")))
	}
	if len(fault) > 0 {
		f := ruleOf("behind-schedule", Note, "behind schedule around the run's scheduled faults only (the outage; the rate was sustained within %.0f%% over the run): %s",
			100*(1-result.SustainedShare), strings.Join(fault, "; "))
		f.Fix = "none: the faults were scheduled; the latencies around them include the outage"
		out = append(out, f)
	}
	return out
}

func fmtNs(ns int64) string {
	switch {
	case ns >= 1e9:
		return fmt.Sprintf("%.3g s", float64(ns)/1e9)
	case ns >= 1e6:
		return fmt.Sprintf("%.3g ms", float64(ns)/1e6)
	}
	return fmt.Sprintf("%.3g µs", float64(ns)/1e3)
}

// clockSkew: the shards of a run (--shard) start together and are merged
// on wall-clock interval boundaries, so their clocks must agree. Each shard
// records its offset from the target server's clock (result.ShardInfo),
// and a merged result keeps them all: the rule gives their spread, a
// warning past a tenth of the report interval (intervals would be merged
// across their boundaries), and says "not recorded" for shards whose
// server could not tell its time and for results from before offsets were
// recorded.
func clockSkew(sides []Side) []Finding {
	var unrecorded, skewed, spreads []string
	eachResult(sides, func(l string, r *result.Result) {
		switch {
		case r.Merged != nil:
			var lo, hi int64
			var n int
			var missing []string
			for _, s := range r.Merged.Shards {
				if s.Clock == nil || s.Clock.Source == "unavailable" {
					missing = append(missing, fmt.Sprint(s.Index))
					continue
				}
				if n == 0 || s.Clock.OffsetNs < lo {
					lo = s.Clock.OffsetNs
				}
				if n == 0 || s.Clock.OffsetNs > hi {
					hi = s.Clock.OffsetNs
				}
				n++
			}
			if len(missing) > 0 {
				unrecorded = append(unrecorded, fmt.Sprintf("%s (shard %s)", l, strings.Join(missing, ", ")))
			}
			if n < 2 {
				return
			}
			text := fmt.Sprintf("%s: %s over %d shards", l, fmtNs(hi-lo), n)
			if hi-lo == 0 {
				text = fmt.Sprintf("%s: none over %d shards", l, n)
			}
			if float64(hi-lo) > 0.1*r.Run.ReportInterval*1e9 {
				skewed = append(skewed, text)
			} else {
				spreads = append(spreads, text)
			}
		case r.Shard != nil:
			if r.Shard.Clock == nil || r.Shard.Clock.Source == "unavailable" {
				unrecorded = append(unrecorded, l)
			}
		default:
			for _, a := range r.Command {
				if a == "--shard" || strings.HasPrefix(a, "--shard=") {
					unrecorded = append(unrecorded, l)
					return
				}
			}
		}
	})
	var out []Finding
	if len(skewed) > 0 {
		out = append(out, ruleOf("clock-skew", Warning, "clock offsets of the shards spread more than a tenth of the report interval: %s", strings.Join(skewed, "; ")))
	}
	if len(spreads) > 0 {
		out = append(out, ruleOf("clock-skew", Note, "spread of the shards' clock offsets from the server's: %s", strings.Join(spreads, "; ")))
	}
	if len(unrecorded) > 0 {
		out = append(out, ruleOf("clock-skew", Note, "clock offsets between shards %s: %s", notRecorded, strings.Join(unrecorded, ", ")))
	}
	return out
}

func singleRun(sides []Side) []Finding {
	var bad []string
	for _, s := range sides {
		n, any := 0, false
		for _, in := range s.Inputs {
			for _, p := range runPhases(in.Result) {
				any = true
				if p.Status == result.StatusComplete {
					n++
				}
			}
		}
		if any && n < 2 {
			bad = append(bad, fmt.Sprintf("%s (%s)", s.Label, plural(n, "complete run")))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return []Finding{ruleOf("single-run", Warning, "no confidence interval, a single run: %s", strings.Join(bad, ", "))}
}

// inconsistent lists the results that break a conservation law
// (result.Check: counted again when the audit reads them).
func inconsistent(sides []Side) []Finding {
	var bad []string
	eachResult(sides, func(l string, r *result.Result) {
		if vs := result.Check(r); len(vs) > 0 || r.Status == result.StatusInconsistent {
			laws := r.BrokenLaws
			for _, v := range vs {
				laws = append(laws, v.String())
			}
			bad = append(bad, fmt.Sprintf("%s: %s", l, strings.Join(uniqueStrings(laws), "; ")))
		}
	})
	if len(bad) == 0 {
		return nil
	}
	return []Finding{ruleOf("inconsistent", Error, "%s", strings.Join(bad, "; "))}
}

func uniqueStrings(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func incomplete(sides []Side) []Finding {
	var bad []string
	eachResult(sides, func(l string, r *result.Result) {
		n := 0
		for _, p := range r.Phases {
			if p.Status != result.StatusComplete {
				n++
			}
		}
		if n > 0 {
			bad = append(bad, fmt.Sprintf("%s: %s not complete", l, plural(n, "phase")))
		}
	})
	if len(bad) == 0 {
		return nil
	}
	return []Finding{ruleOf("incomplete", Warning, "%s", strings.Join(bad, "; "))}
}

// --- provenance and configuration ---------------------------------------------

func candorVersion(sides []Side) []Finding {
	var all []Input
	for _, s := range sides {
		all = append(all, s.Inputs...)
	}
	by := map[string][]string{}
	var order []string
	for _, in := range all {
		p := in.Result.Provenance
		v := orNR(p.CandorVersion)
		if p.Commit != "" {
			v += " (" + p.Commit + ")"
		}
		if _, ok := by[v]; !ok {
			order = append(order, v)
		}
		by[v] = append(by[v], in.Name)
	}
	if len(order) < 2 {
		return nil
	}
	var parts []string
	for _, v := range order {
		parts = append(parts, v+": "+strings.Join(by[v], ", "))
	}
	return []Finding{ruleOf("candor-version", Warning, "results from different candor builds: %s", strings.Join(parts, "; "))}
}

// byWorkload groups sides by workload name, in first-seen order.
func byWorkload(sides []Side) [][]Side {
	idx := map[string]int{}
	var out [][]Side
	for _, s := range sides {
		n := first(s).Workload.Name
		i, ok := idx[n]
		if !ok {
			i = len(out)
			idx[n] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], s)
	}
	return out
}

func optionsDiffer(sides []Side) []Finding {
	axes := planAxes(sides)
	var out []Finding
	for _, g := range byWorkload(sides) {
		if len(g) < 2 {
			continue
		}
		ref, _ := asMap(first(g[0]).Workload.Options)
		for _, s := range g[1:] {
			o, _ := asMap(first(s).Workload.Options)
			keys := diffKeys(ref, o)
			if len(keys) == 0 {
				continue
			}
			// Options the plan's matrix varies are its variables.
			pa := pairAxes(axes, g[0], s)
			var own, axis []string
			for _, k := range keys {
				switch {
				case isAxisOption(pa, k):
					axis = append(axis, k)
				case k == "set" && setDiffersInAxes(pa, ref[k], o[k]):
					// the options set by hand differ only in what the
					// matrix varies: the axis, whose values the note names
				default:
					own = append(own, k)
				}
			}
			describe := func(keys []string) string {
				var parts []string
				for _, k := range keys {
					parts = append(parts, fmt.Sprintf("%s %s vs %s", k, show(ref[k]), show(o[k])))
				}
				return strings.Join(parts, ", ")
			}
			name := first(s).Workload.Name
			if len(axis) > 0 {
				f := ruleOf("options-differ", Note, "the experiment's variable, %s: %s and %s differ in %s", axisText(axes, planName(s), axis...), g[0].Label, s.Label, describe(axis))
				f.Fix = "none: this is what the plan varies"
				out = append(out, f)
			}
			if len(own) == 0 {
				continue
			}
			sev, what := Error, "differ in"
			if sizeOnly(own) {
				sev, what = Note, "differ in data size only (a size comparison):"
			}
			out = append(out, ruleOf("options-differ", sev, "%s: %s and %s %s %s", name, g[0].Label, s.Label, what, describe(own)))
		}
	}
	return out
}

// setDiffersInAxes says whether two lists of the options set by hand (a
// workload's "set": sysbench's options given on the command line) differ
// only in options that are axes: a plan cell that sets an axis option
// another cell leaves to its default (E2's index-updates: 0 beside the full
// write-only test, E3's sequence-cache beside client ids) differs in the
// axis, not in its own setup.
func setDiffersInAxes(axes []string, a, b any) bool {
	in := func(v any) map[string]bool {
		m := map[string]bool{}
		if l, ok := v.([]any); ok {
			for _, x := range l {
				m[fmt.Sprint(x)] = true
			}
		}
		return m
	}
	sa, sb := in(a), in(b)
	if len(sa) == 0 && len(sb) == 0 {
		return false // not a list of option names
	}
	for _, pair := range [][2]map[string]bool{{sa, sb}, {sb, sa}} {
		for k := range pair[0] {
			if !pair[1][k] && !isAxisOption(axes, k) {
				return false
			}
		}
	}
	return true
}

// sizeOptions are the options that set how much data a workload loads.
var sizeOptions = map[string]bool{"recordcount": true, "insertcount": true, "table-size": true, "tables": true, "pairs": true, "rows": true}

func sizeOnly(keys []string) bool {
	for _, k := range keys {
		if !sizeOptions[k] {
			return false
		}
	}
	return true
}

func diffKeys(a, b map[string]any) []string {
	seen := map[string]bool{}
	var keys []string
	for _, m := range []map[string]any{a, b} {
		for k := range m {
			if !seen[k] && !reflect.DeepEqual(a[k], b[k]) {
				keys = append(keys, k)
			}
			seen[k] = true
		}
	}
	sort.Strings(keys)
	return keys
}

func show(v any) string {
	if v == nil {
		return "(none)"
	}
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	s := string(b)
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

func runSettings(r *result.Result) map[string]any {
	m := map[string]any{
		"duration": r.Run.DurationSec, "warm-up": r.Run.WarmupSec, "rate": r.Run.Rate, "arrival": r.Run.Arrival,
		"retries": r.Run.Retries, "operations": r.Run.Operations, "latency measure": r.Run.LatencyMeasure,
	}
	if r.Run.MaxErrorRate != nil {
		m["max error rate"] = *r.Run.MaxErrorRate
	}
	return m
}

func runSettingsDiffer(sides []Side) []Finding {
	axes := planAxes(sides)
	var out []Finding
	for _, g := range byWorkload(sides) {
		if len(g) < 2 {
			continue
		}
		ref := runSettings(first(g[0]))
		for _, s := range g[1:] {
			o := runSettings(first(s))
			if keys := diffKeys(ref, o); len(keys) > 0 {
				var parts []string
				for _, k := range keys {
					parts = append(parts, fmt.Sprintf("%s %s vs %s", k, show(ref[k]), show(o[k])))
				}
				// A plan gives every cell the same run settings: where two
				// cells' differ, their workload derived them from an
				// option the plan varies (commit-loop's operations from
				// its jobs).
				if pa := pairAxes(axes, g[0], s); len(pa) > 0 && sameRunArgs(first(g[0]), first(s)) {
					f := ruleOf("run-settings-differ", Note, "the experiment's variable, %s: %s and %s differ in %s, which the workload derives from it",
						axisText(axes, planName(s), pa...), g[0].Label, s.Label, strings.Join(parts, ", "))
					f.Fix = "none: this is what the plan varies"
					out = append(out, f)
					continue
				}
				out = append(out, ruleOf("run-settings-differ", Warning, "%s and %s differ in %s", g[0].Label, s.Label, strings.Join(parts, ", ")))
			}
		}
	}
	return out
}

// sameRunArgs says whether two results ran with the same run flags as
// given (duration, warm-up, rate, arrival, retries, operations; nil: the
// workload's own), read from their specs: what a plan gives every cell.
func sameRunArgs(a, b *result.Result) bool {
	type given struct {
		Duration   *float64 `json:"duration"`
		Warmup     *float64 `json:"warmup"`
		Rate       *float64 `json:"rate"`
		Arrival    string   `json:"arrival"`
		Retries    *int     `json:"retries"`
		Operations *int64   `json:"operations"`
	}
	var ga, gb given
	if len(a.Spec) == 0 || len(b.Spec) == 0 || json.Unmarshal(a.Spec, &ga) != nil || json.Unmarshal(b.Spec, &gb) != nil {
		return false
	}
	return reflect.DeepEqual(ga, gb)
}

func reusedTables(sides []Side) []Finding {
	var bad []string
	eachResult(sides, func(l string, r *result.Result) {
		if len(r.Workload.ReusedTables) > 0 {
			bad = append(bad, l+": "+strings.Join(r.Workload.ReusedTables, "; "))
		}
	})
	if len(bad) == 0 {
		return nil
	}
	return []Finding{ruleOf("reused-tables", Error, "ran on tables loaded with other options: %s", strings.Join(bad, " | "))}
}

func schemaVersion(sides []Side) []Finding {
	by := map[string][]string{}
	var order []string
	eachResult(sides, func(l string, r *result.Result) {
		if _, ok := by[r.Schema]; !ok {
			order = append(order, r.Schema)
		}
		by[r.Schema] = append(by[r.Schema], l)
	})
	if len(order) < 2 {
		return nil
	}
	var parts []string
	for _, v := range order {
		parts = append(parts, orNR(v)+": "+strings.Join(by[v], ", "))
	}
	return []Finding{ruleOf("schema-version", Note, "read results of schema versions %s", strings.Join(parts, "; "))}
}

// ownSettings are the settings other rules judge.
var ownSettings = map[string]bool{
	"synchronous_commit": true, "fsync": true, "synchronous_standby_names": true, "innodb_flush_log_at_trx_commit": true,
	"sync_binlog": true, "synchronous": true, "journal_mode": true, "commitlog_sync": true, "read_consistency": true,
	"write_consistency": true, "replication": true, "transaction_isolation": true, "shared_buffers": true,
	"innodb_buffer_pool_size": true, "cache_size": true, "page_size": true, "streaming_replicas": true,
	"rpl_semi_sync_master_enabled": true, "rpl_semi_sync_source_enabled": true,
	// a CQL cluster's node addresses name the endpoint (nodes, their number, is compared)
	"topology": true, "keyspace": true,
}

func settingsDiffer(sides []Side) []Finding {
	if len(sides) < 2 {
		return nil
	}
	ref := first(sides[0]).Target.Settings
	var out []Finding
	for _, s := range sides[1:] {
		o := first(s).Target.Settings
		var parts []string
		var keys []string
		for k := range ref {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			v, ok := o[k]
			if ok && v != ref[k] && !ownSettings[k] {
				parts = append(parts, fmt.Sprintf("%s %s vs %s", k, ref[k], v))
			}
		}
		if len(parts) > 0 {
			out = append(out, ruleOf("settings-differ", Warning, "%s and %s differ in %s", sides[0].Label, s.Label, strings.Join(parts, ", ")))
		}
	}
	return out
}

func targetDiffers(sides []Side) []Finding {
	if len(sides) < 2 {
		return nil
	}
	vals, text := sideValues(sides, func(s Side) string {
		t := first(s).Target
		return strings.TrimSpace(orNR(t.Product) + " " + t.Version)
	})
	if len(vals) < 2 {
		return nil
	}
	return []Finding{ruleOf("target-differs", Note, "%s", text)}
}

func machineDiffers(sides []Side) []Finding {
	if len(sides) < 2 {
		return nil
	}
	vals, text := sideValues(sides, func(s Side) string {
		p := first(s).Provenance
		return fmt.Sprintf("%s, %d cores, %s memory, kernel %s", orNR(p.CPUModel), p.Cores, fmtBytes(p.MemoryBytes), orNR(p.Kernel))
	})
	if len(vals) >= 2 {
		return []Finding{ruleOf("machine-differs", Warning, "client machines differ: %s", text)}
	}
	hosts, text := sideValues(sides, func(s Side) string { return orNR(first(s).Provenance.Hostname) })
	if len(hosts) >= 2 {
		return []Finding{ruleOf("machine-differs", Note, "other client hosts of the same kind (%s): %s", vals[0], text)}
	}
	return nil
}
