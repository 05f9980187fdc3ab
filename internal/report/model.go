package report

import (
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/stats"
)

// Model is the reduced content of a set of results, ready to render. Runs
// are grouped into cells: the same workload, the same variant (the options
// and run settings that vary across the inputs), the same target series and
// the same thread count. Every phase of a cell is one repetition, whether
// the repetitions come from one result file (--repeat) or from several.
type Model struct {
	Inputs    []Input
	Workloads []*Workload
	// Series are the distinct targets, in label order.
	Series []*Series
	// SizeEffects compare the same plan at two data sizes.
	SizeEffects []SizeEffect
	// Machines are the distinct client machines and candor builds.
	Machines []*Machine
	Warnings []string
	// Plans are the plans of the inputs that carry a published: block,
	// and Claims their claims checked against the inputs (claims.go).
	Plans  []*ClaimsPlan
	Claims []*Verdict
	// inputSeries and inputMachine map an input index to its entries.
	inputSeries  []*Series
	inputMachine []*Machine
}

// Workload holds the cells of one workload.
type Workload struct {
	Name      string
	Reference string
	// Varying names the option and setting keys that vary across this
	// workload's inputs (they make up the variants' labels).
	Varying []string
	// Common are the options every input of the workload shares.
	Common   []Param
	Variants []*Variant
	// LatencyMeasures are the distinct latency definitions of the runs.
	LatencyMeasures []string
}

// Variant is one combination of the varying options.
type Variant struct {
	Label  string // "" when nothing varies
	Params []Param
	Runs   []*Cell // run cells, by series then threads
	Loads  []*Cell // load cells, by series then threads
}

// Param is one option, run setting or plan parameter.
type Param struct{ Key, Value string }

// Series is one target: product, version, URL and the settings that set it
// apart from other runs on the same endpoint.
type Series struct {
	Label   string
	Driver  string
	Product string
	Version string
	VString string
	URL     string // the first input's URL
	// URLs are the distinct URLs of the inputs (the same server reached
	// with other connection parameters is one series).
	URLs     []string
	Settings map[string]string
	// Inputs are the indexes of the inputs run against this series.
	Inputs []int
	key    string
}

// Machine is one client machine and candor build.
type Machine struct {
	ID     string // M1, M2, ...
	Prov   result.Provenance
	Inputs []int
}

// PhaseRef names one phase of one input.
type PhaseRef struct{ Input, Phase int }

// Cell is one configuration measured one or more times.
type Cell struct {
	Workload string
	Kind     string // "run" or "load"
	Variant  *Variant
	Series   *Series
	Threads  int
	// Phases are the complete phases measured (the repetitions).
	Phases []PhaseRef
	// Excluded are the phases of the cell that did not complete (failed,
	// e.g. above the error budget, or interrupted): never pooled with the
	// complete ones, listed instead.
	Excluded []Exclusion
	// Throughput is the phase throughput (ops/s; rows/s for a load) over
	// the repetitions.
	Throughput stats.Summary
	Duration   stats.Summary
	Rows       stats.Summary
	Ops        []*OpStats
	// Counters are per-second rates of the workload counters.
	Counters []CounterStat
	// QPS is queries per second (sysbench's reads+writes+other), nil when
	// the counters are something else.
	QPS *stats.Summary
	// ClientRows and ServerRows are rows committed per second as the
	// client measured them and as the server saw them (commit-loop's
	// headline figures, RowRatesOf); nil for other workloads.
	ClientRows, ServerRows *stats.Summary
	// Durability is the ledger's verdict over the repetitions (the ledger
	// workload, commit-loop --ledger); nil without a ledger.
	Durability *Durability
}

// RowRates are commit-loop's headline figures for one phase.
type RowRates struct {
	Rows float64 // rows in the table after the phase
	// Client is rows per second over the phase as the client measured it;
	// Server is count(*) / (max(t) − min(t)) over the rows' commit times
	// as the server recorded them (0 when it could not tell).
	Client, Server float64
	// Jobs are the server's rates per job (empty with one job).
	Jobs []float64
}

// RowRatesOf reads a phase's row rates from the figures the workload read
// from the server after it (Phase.Derived: rows, server_rows_per_s,
// server_rows_per_s_job_N); ok is false for phases without them. The
// client's rate is the rows over the phase's duration: with --in-server one
// operation is a whole loop of rows, so ops/s is not the figure.
func RowRatesOf(p *result.Phase) (RowRates, bool) {
	rows, hasRows := p.Derived["rows"]
	server, hasServer := p.Derived["server_rows_per_s"]
	if !hasRows && !hasServer {
		return RowRates{}, false
	}
	rr := RowRates{Rows: rows, Server: server, Client: p.Throughput}
	if rows > 0 && p.DurationSec > 0 {
		rr.Client = rows / p.DurationSec
	}
	for j := 1; ; j++ {
		v, ok := p.Derived[fmt.Sprintf("server_rows_per_s_job_%d", j)]
		_, known := p.Derived[fmt.Sprintf("rows_job_%d", j)]
		if !ok && !known {
			break
		}
		rr.Jobs = append(rr.Jobs, v)
	}
	if len(rr.Jobs) == 1 {
		rr.Jobs = nil
	}
	return rr, true
}

// N is the number of repetitions.
func (c *Cell) N() int { return len(c.Phases) }

// Exclusion is a phase left out of a cell's figures.
type Exclusion struct {
	PhaseRef
	Status string // failed or interrupted
	Reason string // why, when the result says ("" otherwise)
	Rep    int    // the repetition number (0 when the result has one run)
}

// String is "#3 failed: error rate 79% ..." (without what it lacks).
func (e Exclusion) String() string {
	s := e.Status
	if e.Rep > 0 {
		s = fmt.Sprintf("#%d %s", e.Rep, s)
	}
	if e.Reason != "" {
		s += ": " + e.Reason
	}
	return s
}

// ExclusionText says how many repetitions of the cell were left out and
// why: "1 of 3 repetitions excluded (#3 failed: ...)"; "" when none were.
func (c *Cell) ExclusionText() string {
	if len(c.Excluded) == 0 {
		return ""
	}
	var parts []string
	for _, e := range c.Excluded {
		parts = append(parts, e.String())
	}
	total := len(c.Phases) + len(c.Excluded)
	return fmt.Sprintf("%d of %s excluded (%s)", len(c.Excluded), plural(total, "repetition"), strings.Join(parts, "; "))
}

// phaseFailure is why a phase did not complete, as its result records it:
// the phase's own reason, else the result's error when the phase is the
// last one (the one the error ended).
func phaseFailure(r *result.Result, i int) string {
	if reason := r.Phases[i].Failure; reason != "" {
		return firstLine(reason)
	}
	if i == len(r.Phases)-1 && r.Error != "" {
		return firstLine(r.Error)
	}
	return ""
}

// OpStats is one operation over a cell's repetitions; latencies in ns.
type OpStats struct {
	Name                             string
	Throughput, Mean, P50, P95, P99  stats.Summary
	Count, Attempts, Retries, Aborts int64
	Clamped                          int64
	Errors                           map[string]int64
	// encoded latency histograms of the repetitions, decoded once on demand
	hists    []string
	spectrum []SpectrumPoint
	samples  []int64 // the latencies recorded, when too few for a spectrum
	decoded  bool
}

// MinSpectrumSamples is how many latencies a percentile spectrum needs:
// with fewer than 100, even its 99th percentile is the largest sample, and
// every point above it too; a line drawn through 3 samples out to
// 99.999% would show a shape the data do not have. Fewer are shown as the
// samples themselves (OpStats.Samples).
const MinSpectrumSamples = 100

// CounterStat is one workload counter as a rate per second.
type CounterStat struct {
	Name string
	Rate stats.Summary
}

// SpectrumPoint is one point of a latency percentile spectrum.
type SpectrumPoint struct {
	Percentile float64 // 0..99.999
	Ns         int64
}

// SizeEffect is the change from one data size to a larger one for the same
// workload, target series, threads and every other option.
type SizeEffect struct {
	Workload     string
	Series       *Series
	Threads      int
	Small, Large *Cell
	SmallLabel   string // the size option that differs, "recordcount 1000"
	LargeLabel   string
	// ThroughputPct is the change of throughput in percent (negative: it
	// fell as data grew).
	ThroughputPct float64
	// UpdateOp names the update operation compared ("" when none); the
	// percentages are the change of its mean and p99 latency.
	UpdateOp                    string
	UpdateMeanPct, UpdateP99Pct float64
}

// sizeKeys are the options that set a data size.
var sizeKeys = map[string]bool{
	"recordcount": true, "insertcount": true, "table-size": true, "table_size": true, "tables": true,
}

// Build groups the inputs into a model.
func Build(inputs []Input) *Model { return build(inputs, inputs) }

// build is Build with the plans of published claims looked for from the
// paths of located (the same results, where they were read: a bundle's
// copies are found beside no plan until the bundle is written).
func build(inputs, located []Input) *Model {
	m := &Model{Inputs: inputs}
	m.buildSeries()
	m.buildMachines()
	m.warn()

	byName := map[string][]int{}
	var names []string
	for i, in := range inputs {
		n := in.Result.Workload.Name
		if _, ok := byName[n]; !ok {
			names = append(names, n)
		}
		byName[n] = append(byName[n], i)
	}
	sort.Strings(names)
	for _, n := range names {
		m.Workloads = append(m.Workloads, m.buildWorkload(n, byName[n]))
	}
	m.buildSizeEffects()
	m.buildClaims(located)
	return m
}

// paramsOf lists the options and settings that decide comparability of one
// input's phases of the given kind: the resolved workload options, the run
// configuration that matters for that kind, and plan parameters not already
// covered.
func paramsOf(r *result.Result, kind string) map[string]string {
	p := map[string]string{}
	flatten("", r.Workload.Options, p)
	// Bookkeeping, not settings: the property files read (their effect is in
	// the resolved options), the reference name and which options were set
	// explicitly.
	for _, k := range []string{"sources", "reference", "set"} {
		delete(p, k)
	}
	rc := r.Run
	if rc.Isolation != "" {
		p["isolation"] = rc.Isolation
	}
	if kind == "load" {
		if rc.LoadBatch > 0 {
			p["load_batch"] = strconv.Itoa(rc.LoadBatch)
		}
	} else {
		if rc.DurationSec > 0 {
			p["duration"] = fmtSeconds(rc.DurationSec)
		}
		if len(r.Workload.ReusedTables) > 0 {
			// Tables loaded with other data options than the run's (a
			// sysbench table of more rows than --table-size).
			p["reused tables"] = strings.Join(r.Workload.ReusedTables, "; ")
		}
		if rc.Operations > 0 {
			p["operations"] = strconv.FormatInt(rc.Operations, 10)
		}
		if rc.WarmupSec > 0 {
			p["warmup"] = fmtSeconds(rc.WarmupSec)
		}
		if rc.Rate > 0 {
			p["rate"] = strconv.FormatFloat(rc.Rate, 'g', -1, 64)
			p["arrival"] = rc.Arrival
		}
		p["retries"] = strconv.Itoa(rc.Retries)
	}
	if r.Plan != nil {
		for k, v := range r.Plan.Params {
			// identity: a hash naming the plan cell; repetition: a plan's
			// repetitions run as cells of their own, pooled here.
			if k == "threads" || k == "target" || k == result.PlanIdentity || k == "repetition" {
				continue
			}
			// The plan's own words for an option it sets (auto-inc=off,
			// not the resolved false).
			p[k] = v
		}
		if _, ok := p["plan"]; !ok && r.Plan.Name != "" {
			p["plan"] = r.Plan.Name
		}
	}
	return p
}

// flatten writes scalar leaves of v under dotted keys.
func flatten(prefix string, v any, out map[string]string) {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			key := k
			if prefix != "" {
				key = prefix + "." + k
			}
			flatten(key, x, out)
		}
	case nil:
		if prefix != "" {
			out[prefix] = ""
		}
	case string:
		out[prefix] = t
	case float64:
		out[prefix] = strconv.FormatFloat(t, 'f', -1, 64)
	case bool:
		out[prefix] = strconv.FormatBool(t)
	default:
		if prefix == "" {
			return
		}
		b, err := json.Marshal(t)
		if err != nil {
			out[prefix] = fmt.Sprint(t)
			return
		}
		out[prefix] = string(b)
	}
}

func fmtSeconds(s float64) string {
	return time.Duration(s * float64(time.Second)).Round(time.Millisecond).String()
}

// Endpoint identifies the server a target URL reaches: scheme, host, port
// (the driver's default when the URL has none) and database, without the
// user, password and query parameters, which change how candor connects
// (sslmode, connect_timeout, ...), not which server it measures. Session
// settings given in the query (synchronous_commit=off) reach the
// fingerprint's settings, which tell series apart on their own. A URL
// without a host and port (sqlite://FILE, null://?latency=1ms) is its own
// endpoint.
func Endpoint(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return raw
	}
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		port = map[string]string{"postgres": "5432", "postgresql": "5432", "mysql": "3306"}[scheme]
	}
	if port == "" {
		return raw // not a server reached over the network (sqlite://FILE)
	}
	if scheme == "postgresql" {
		scheme = "postgres"
	}
	host := strings.ToLower(u.Hostname())
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return scheme + "://" + host + "/" + strings.TrimPrefix(u.Path, "/")
}

func (m *Model) buildSeries() {
	type fpKey struct{ driver, product, version, url string }
	groups := map[fpKey][]int{}
	var order []fpKey
	for i, in := range m.Inputs {
		t := in.Result.Target
		k := fpKey{t.Driver, t.Product, t.Version, Endpoint(t.URL)}
		if name, ok := planTarget(in.Result); ok {
			// a new URL each cell (setup), or a sandbox that came back on
			// another port when the plan was resumed: one plan target
			k.url = "plan target " + name
		}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], i)
	}
	byKey := map[string]*Series{}
	m.inputSeries = make([]*Series, len(m.Inputs))
	for _, k := range order {
		idx := groups[k]
		// settings that differ among runs against the same endpoint
		varying := varyingKeys(idx, func(i int) map[string]string { return m.Inputs[i].Result.Target.Settings })
		for _, i := range idx {
			t := m.Inputs[i].Result.Target
			var diff []string
			for _, s := range varying {
				diff = append(diff, s+"="+t.Settings[s])
			}
			key := fmt.Sprintf("%s|%s|%s|%s|%s", k.driver, k.product, k.version, k.url, strings.Join(diff, ","))
			s := byKey[key]
			if s == nil {
				s = &Series{Driver: t.Driver, Product: t.Product, Version: t.Version, VString: t.VersionString, URL: t.URL,
					Settings: t.Settings, key: key}
				s.Label = strings.TrimSpace(t.Product + " " + t.Version)
				if s.Label == "" {
					s.Label = t.Driver
				}
				if _, ok := setupTarget(m.Inputs[i].Result); ok {
					s.Label = m.Inputs[i].Result.Plan.Params["target"] + " (" + s.Label + ")"
				}
				if shape := clusterShape(t.Settings); shape != "" {
					diff = append([]string{shape}, diff...) // a CQL cluster: "3 nodes, RF=2"
				}
				if len(diff) > 0 {
					s.Label += " [" + strings.Join(diff, ", ") + "]"
				}
				byKey[key] = s
				m.Series = append(m.Series, s)
			}
			if !contains(s.URLs, t.URL) {
				s.URLs = append(s.URLs, t.URL)
			}
			s.Inputs = append(s.Inputs, i)
			m.inputSeries[i] = s
		}
	}
	// Disambiguate equal labels by the endpoint's host, then by a number.
	count := map[string]int{}
	for _, s := range m.Series {
		count[s.Label]++
	}
	for _, s := range m.Series {
		if count[s.Label] > 1 {
			s.Label += " @" + hostOf(s.URL)
		}
	}
	seen := map[string]int{}
	for _, s := range m.Series {
		seen[s.Label]++
		if n := seen[s.Label]; n > 1 {
			s.Label += fmt.Sprintf(" #%d", n)
		}
	}
	sort.SliceStable(m.Series, func(a, b int) bool { return naturalLess(m.Series[a].Label, m.Series[b].Label) })
}

// setupTarget is the plan's name of a target its setup commands started
// for the result's cell (result.PlanRef.TargetSetup).
func setupTarget(r *result.Result) (string, bool) {
	if r.Plan == nil || !r.Plan.TargetSetup || r.Plan.Params["target"] == "" {
		return "", false
	}
	return r.Plan.Name + "/" + r.Plan.Params["target"], true
}

// planTarget is the plan's name of the target a plan cell's result ran
// against: a plan's target is one target whatever port it had when each
// cell ran.
func planTarget(r *result.Result) (string, bool) {
	if r.Plan == nil || r.Plan.Name == "" || r.Plan.Params["target"] == "" {
		return "", false
	}
	return r.Plan.Name + "/" + r.Plan.Params["target"], true
}

// hostOf is the host of a target URL, or its path for file databases.
func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	if u.Host != "" {
		return u.Host
	}
	if u.Opaque != "" {
		return u.Opaque
	}
	return strings.TrimPrefix(u.Path, "/")
}

func (m *Model) buildMachines() {
	m.inputMachine = make([]*Machine, len(m.Inputs))
	byKey := map[string]*Machine{}
	for i, in := range m.Inputs {
		// One machine whatever its load during each run (Provenance.Load).
		p := in.Result.Provenance
		p.Load = nil
		key := fmt.Sprintf("%#v", p)
		mc := byKey[key]
		if mc == nil {
			mc = &Machine{ID: fmt.Sprintf("M%d", len(m.Machines)+1), Prov: p}
			byKey[key] = mc
			m.Machines = append(m.Machines, mc)
		}
		mc.Inputs = append(mc.Inputs, i)
		m.inputMachine[i] = mc
	}
}

func (m *Model) warn() {
	for i, in := range m.Inputs {
		r := in.Result
		name := fmt.Sprintf("#%d %s", i+1, in.Path)
		if r.Status != result.StatusComplete {
			msg := fmt.Sprintf("%s: status %s", name, r.Status)
			if r.Error != "" {
				msg += ": " + firstLine(r.Error)
			}
			m.Warnings = append(m.Warnings, msg+"; only its complete phases enter the tables")
		}
		for pi, p := range r.Phases {
			pn := phaseName(&p)
			if p.Status != result.StatusComplete {
				msg := fmt.Sprintf("%s %s: %s", name, pn, p.Status)
				// The result's own error is in its warning above: not twice.
				if reason := phaseFailure(r, pi); reason != "" && (r.Status == result.StatusComplete || reason != firstLine(r.Error)) {
					msg += " (" + reason + ")"
				}
				m.Warnings = append(m.Warnings, msg+": excluded from the figures")
			}
			if p.Client.Saturated {
				m.Warnings = append(m.Warnings, fmt.Sprintf("%s %s: client saturated (%s): the figures may measure candor, not the database", name, pn, p.Client.SaturatedCause))
			}
			if p.Rate != nil && p.Rate.BehindSchedule {
				m.Warnings = append(m.Warnings, fmt.Sprintf("%s %s: behind schedule: target %.1f ops/s, achieved %.1f ops/s", name, pn, p.Rate.Target, p.Rate.Achieved))
			}
			var clamped int64
			for _, o := range p.Ops {
				clamped += o.Clamped
			}
			if clamped > 0 {
				m.Warnings = append(m.Warnings, fmt.Sprintf("%s %s: %d latencies above 1 h recorded as 1 h", name, pn, clamped))
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

func phaseName(p *result.Phase) string {
	if p.Repetition > 0 {
		return fmt.Sprintf("%s #%d", p.Name, p.Repetition)
	}
	return p.Name
}

// varyingKeys lists, sorted, the keys whose values are not the same in every
// map (a missing key counts as a value of its own).
func varyingKeys(idx []int, get func(int) map[string]string) []string {
	if len(idx) < 2 {
		return nil
	}
	all := map[string]bool{}
	for _, i := range idx {
		for k := range get(i) {
			all[k] = true
		}
	}
	var out []string
	for k := range all {
		v0, ok0 := get(idx[0])[k]
		for _, i := range idx[1:] {
			if v, ok := get(i)[k]; ok != ok0 || v != v0 {
				out = append(out, k)
				break
			}
		}
	}
	sort.Strings(out)
	return out
}

func (m *Model) buildWorkload(name string, idx []int) *Workload {
	w := &Workload{Name: name, Reference: m.Inputs[idx[0]].Result.Workload.Reference}
	// Parameter maps per (input, kind) for the inputs that have such phases.
	type pk struct {
		input int
		kind  string
	}
	params := map[pk]map[string]string{}
	var keys []pk
	measures := map[string]bool{}
	for _, i := range idx {
		r := m.Inputs[i].Result
		kinds := map[string]bool{}
		for _, p := range r.Phases {
			kinds[kindOf(p.Name)] = true
		}
		for _, k := range []string{"load", "run"} {
			if kinds[k] {
				key := pk{i, k}
				params[key] = paramsOf(r, k)
				keys = append(keys, key)
			}
		}
		if kinds["run"] && r.Run.LatencyMeasure != "" && !measures[r.Run.LatencyMeasure] {
			measures[r.Run.LatencyMeasure] = true
			w.LatencyMeasures = append(w.LatencyMeasures, r.Run.LatencyMeasure)
		}
	}
	// A key varies when two maps that both have it (or lack it, among maps
	// of the same kind) disagree.
	varying := map[string]bool{}
	for _, kind := range []string{"load", "run"} {
		var sel []int
		var maps []map[string]string
		for _, k := range keys {
			if k.kind == kind {
				sel = append(sel, len(maps))
				maps = append(maps, params[k])
			}
		}
		for _, k := range varyingKeys(sel, func(i int) map[string]string { return maps[i] }) {
			varying[k] = true
		}
	}
	for k := range varying {
		w.Varying = append(w.Varying, k)
	}
	sort.Strings(w.Varying)
	// Options common to every run of the workload.
	if len(keys) > 0 {
		first := params[keys[0]]
		for k, v := range first {
			if varying[k] {
				continue
			}
			same := true
			for _, key := range keys[1:] {
				if x, ok := params[key][k]; ok && x != v {
					same = false
					break
				}
			}
			if same {
				w.Common = append(w.Common, Param{k, v})
			}
		}
		sort.Slice(w.Common, func(a, b int) bool { return w.Common[a].Key < w.Common[b].Key })
	}

	variants := map[string]*Variant{}
	cells := map[string]*Cell{}
	for _, key := range keys {
		p := params[key]
		var vp []Param
		var parts []string
		for _, k := range w.Varying {
			if v, ok := p[k]; ok {
				vp = append(vp, Param{k, v})
				parts = append(parts, k+"="+v)
			}
		}
		label := strings.Join(parts, ", ")
		v := variants[label]
		if v == nil {
			v = &Variant{Label: label, Params: vp}
			variants[label] = v
			w.Variants = append(w.Variants, v)
		}
		r := m.Inputs[key.input].Result
		s := m.inputSeries[key.input]
		ck := fmt.Sprintf("%s|%s|%s|%d", key.kind, label, s.key, r.Run.Threads)
		c := cells[ck]
		if c == nil {
			c = &Cell{Workload: name, Kind: key.kind, Variant: v, Series: s, Threads: r.Run.Threads}
			cells[ck] = c
			if key.kind == "load" {
				v.Loads = append(v.Loads, c)
			} else {
				v.Runs = append(v.Runs, c)
			}
		}
		for pi, p := range r.Phases {
			switch {
			case kindOf(p.Name) != key.kind:
			case p.Status == result.StatusComplete:
				c.Phases = append(c.Phases, PhaseRef{key.input, pi})
			default:
				c.Excluded = append(c.Excluded, Exclusion{PhaseRef: PhaseRef{key.input, pi}, Status: p.Status,
					Reason: phaseFailure(r, pi), Rep: p.Repetition})
			}
		}
	}
	sort.SliceStable(w.Variants, func(a, b int) bool { return naturalLess(w.Variants[a].Label, w.Variants[b].Label) })
	for _, v := range w.Variants {
		v.Runs = m.finishCells(v.Runs)
		v.Loads = m.finishCells(v.Loads)
	}
	return w
}

// kindOf maps a phase name to "load" or "run".
func kindOf(phase string) string {
	if phase == "load" {
		return "load"
	}
	return "run"
}

// finishCells computes each cell's statistics, drops cells without a
// phase (a cell whose every phase was excluded stays, to say so) and sorts
// them by series then threads.
func (m *Model) finishCells(cells []*Cell) []*Cell {
	out := cells[:0]
	for _, c := range cells {
		if len(c.Phases) == 0 && len(c.Excluded) == 0 {
			continue
		}
		m.summarize(c)
		out = append(out, c)
	}
	sort.SliceStable(out, func(a, b int) bool {
		if out[a].Series != out[b].Series {
			return naturalLess(out[a].Series.Label, out[b].Series.Label)
		}
		return out[a].Threads < out[b].Threads
	})
	return out
}

func (m *Model) phase(r PhaseRef) *result.Phase { return &m.Inputs[r.Input].Result.Phases[r.Phase] }

// summarize fills a cell's statistics from its phases.
func (m *Model) summarize(c *Cell) {
	var thr, dur, rows []float64
	var opNames []string
	seenOp := map[string]bool{}
	var ctrNames []string
	seenCtr := map[string]bool{}
	for _, ref := range c.Phases {
		p := m.phase(ref)
		thr = append(thr, p.Throughput)
		dur = append(dur, p.DurationSec)
		rows = append(rows, float64(p.Rows))
		for _, o := range p.Ops {
			if !seenOp[o.Name] {
				seenOp[o.Name] = true
				opNames = append(opNames, o.Name)
			}
		}
		for k := range p.Counters {
			if !seenCtr[k] {
				seenCtr[k] = true
				ctrNames = append(ctrNames, k)
			}
		}
	}
	c.Throughput = stats.Summarize(thr)
	c.Duration = stats.Summarize(dur)
	c.Rows = stats.Summarize(rows)
	var client, server []float64
	for _, ref := range c.Phases {
		if rr, ok := RowRatesOf(m.phase(ref)); ok {
			client = append(client, rr.Client)
			if rr.Server > 0 {
				server = append(server, rr.Server)
			}
		}
	}
	if len(client) > 0 {
		cs, ss := stats.Summarize(client), stats.Summarize(server)
		c.ClientRows, c.ServerRows = &cs, &ss
	}
	var led []*result.Phase
	for _, ref := range c.Phases {
		led = append(led, m.phase(ref))
	}
	c.Durability = DurabilityOf(led)
	for _, name := range opNames {
		os := &OpStats{Name: name, Errors: map[string]int64{}}
		var t, mean, p50, p95, p99 []float64
		for _, ref := range c.Phases {
			p := m.phase(ref)
			var op *result.OpResult
			for i := range p.Ops {
				if p.Ops[i].Name == name {
					op = &p.Ops[i]
					break
				}
			}
			if op == nil {
				t = append(t, 0)
				continue
			}
			t = append(t, op.Throughput)
			if l := op.Latency; l != nil && l.Count > 0 {
				mean = append(mean, l.Mean)
				p50 = append(p50, float64(l.P50))
				p95 = append(p95, float64(l.P95))
				p99 = append(p99, float64(l.P99))
			}
			os.Count += op.Count
			os.Attempts += op.Attempts
			os.Retries += op.Retries
			os.Aborts += op.Aborts
			os.Clamped += op.Clamped
			for k, n := range op.Errors {
				os.Errors[k] += n
			}
			if h := op.Histograms["latency"]; h != "" {
				os.hists = append(os.hists, h)
			}
		}
		os.Throughput, os.Mean = stats.Summarize(t), stats.Summarize(mean)
		os.P50, os.P95, os.P99 = stats.Summarize(p50), stats.Summarize(p95), stats.Summarize(p99)
		c.Ops = append(c.Ops, os)
	}
	sort.Strings(ctrNames)
	sysbench := len(ctrNames) > 0
	var qps []float64
	for _, name := range ctrNames {
		var xs []float64
		for _, ref := range c.Phases {
			p := m.phase(ref)
			xs = append(xs, rate(float64(p.Counters[name]), p.DurationSec))
		}
		c.Counters = append(c.Counters, CounterStat{Name: name, Rate: stats.Summarize(xs)})
		switch name {
		case "reads", "writes", "other":
		default:
			sysbench = false
		}
	}
	if sysbench {
		for _, ref := range c.Phases {
			p := m.phase(ref)
			var n int64
			for _, v := range p.Counters {
				n += v
			}
			qps = append(qps, rate(float64(n), p.DurationSec))
		}
		s := stats.Summarize(qps)
		c.QPS = &s
	}
}

func rate(n, sec float64) float64 {
	if sec <= 0 {
		return 0
	}
	return n / sec
}

// Op returns the cell's statistics of the named operation, nil if absent.
func (c *Cell) Op(name string) *OpStats {
	for _, o := range c.Ops {
		if o.Name == name {
			return o
		}
	}
	return nil
}

// Samples are the latencies the operation's histograms recorded over all
// repetitions, in ascending order (each at its bucket's middle), when they
// are too few for a spectrum (fewer than MinSpectrumSamples); nil otherwise.
func (o *OpStats) Samples() []int64 {
	o.Spectrum()
	return o.samples
}

// Spectrum returns the latency percentile spectrum of the operation over
// all repetitions (their histograms merged), decoding each histogram once.
// nil when the results carry no histogram, or fewer than
// MinSpectrumSamples latencies (Samples has them).
func (o *OpStats) Spectrum() []SpectrumPoint {
	if o.decoded {
		return o.spectrum
	}
	o.decoded = true
	ops := make([]result.OpResult, len(o.hists))
	for i, h := range o.hists {
		ops[i] = result.OpResult{Histograms: map[string]string{"latency": h}}
	}
	h, err := result.MergeHistograms("latency", ops...)
	if err != nil || h == nil || h.TotalCount() == 0 {
		return nil
	}
	if h.TotalCount() < MinSpectrumSamples {
		for _, b := range h.Distribution() {
			for i := int64(0); i < b.Count; i++ {
				o.samples = append(o.samples, (b.From+b.To)/2)
			}
		}
		return nil
	}
	pcts := spectrumPercentiles()
	vals := h.ValueAtPercentilesSlice(pcts)
	o.spectrum = make([]SpectrumPoint, len(pcts))
	for i, p := range pcts {
		v := vals[i]
		if p == 0 {
			v = h.Min()
		}
		o.spectrum[i] = SpectrumPoint{Percentile: p, Ns: v}
	}
	return o.spectrum
}

// spectrumPercentiles are evenly spaced on the axis −log10(1 − q): ten
// points per decade from 0 to 99.999.
func spectrumPercentiles() []float64 {
	var out []float64
	for i := 0; i <= 50; i++ {
		x := float64(i) / 10
		q := 100 * (1 - pow10(-x))
		out = append(out, q)
	}
	return out
}

func (m *Model) buildSizeEffects() {
	for _, w := range m.Workloads {
		// variants whose parameters differ only in size keys
		for i, a := range w.Variants {
			for _, b := range w.Variants[i+1:] {
				small, large, ok := sizePair(a, b)
				if !ok {
					continue
				}
				for _, cs := range small.Runs {
					for _, cl := range large.Runs {
						if cs.Series != cl.Series || cs.Threads != cl.Threads || cs.N() == 0 || cl.N() == 0 {
							continue
						}
						e := SizeEffect{Workload: w.Name, Series: cs.Series, Threads: cs.Threads, Small: cs, Large: cl}
						e.SmallLabel, e.LargeLabel = sizeLabels(small, large)
						e.ThroughputPct = pctChange(cs.Throughput.Mean, cl.Throughput.Mean)
						if op := updateOp(cs, cl); op != "" {
							e.UpdateOp = op
							e.UpdateMeanPct = pctChange(cs.Op(op).Mean.Mean, cl.Op(op).Mean.Mean)
							e.UpdateP99Pct = pctChange(cs.Op(op).P99.Mean, cl.Op(op).P99.Mean)
						}
						m.SizeEffects = append(m.SizeEffects, e)
					}
				}
			}
		}
	}
}

// sizePair reports whether a and b differ in size options only, and orders
// them smaller first.
func sizePair(a, b *Variant) (small, large *Variant, ok bool) {
	pa, pb := paramMap(a.Params), paramMap(b.Params)
	if len(pa) != len(pb) {
		return nil, nil, false
	}
	sizeDiff := false
	for k, v := range pa {
		w, has := pb[k]
		if !has {
			return nil, nil, false
		}
		if v != w {
			if !sizeKeys[k] {
				return nil, nil, false
			}
			sizeDiff = true
		}
	}
	if !sizeDiff {
		return nil, nil, false
	}
	if dataSize(pa) <= dataSize(pb) {
		return a, b, true
	}
	return b, a, true
}

func paramMap(ps []Param) map[string]string {
	m := make(map[string]string, len(ps))
	for _, p := range ps {
		m[p.Key] = p.Value
	}
	return m
}

// dataSize estimates rows: recordcount, or tables × table size.
func dataSize(p map[string]string) float64 {
	num := func(k string) float64 {
		f, err := strconv.ParseFloat(p[k], 64)
		if err != nil {
			return 0
		}
		return f
	}
	if n := num("recordcount"); n > 0 {
		return n
	}
	size := num("table-size") + num("table_size")
	if t := num("tables"); t > 0 {
		if size == 0 {
			return t
		}
		return size * t
	}
	return size
}

// sizeLabels names the two sizes by the first size option that differs,
// recordcount before the others ("recordcount 1000", "recordcount 100000").
func sizeLabels(small, large *Variant) (string, string) {
	ps, pl := paramMap(small.Params), paramMap(large.Params)
	for _, k := range []string{"recordcount", "table-size", "table_size", "tables", "insertcount"} {
		if ps[k] != pl[k] {
			return k + " " + ps[k], k + " " + pl[k]
		}
	}
	return "", ""
}

// updateOp picks the update operation both cells measured: "UPDATE", else
// the first whose name contains "update".
func updateOp(a, b *Cell) string {
	if a.Op("UPDATE") != nil && b.Op("UPDATE") != nil {
		return "UPDATE"
	}
	for _, o := range a.Ops {
		if strings.Contains(strings.ToLower(o.Name), "update") && b.Op(o.Name) != nil {
			return o.Name
		}
	}
	return ""
}

func pctChange(from, to float64) float64 {
	if from == 0 {
		return 0
	}
	return 100 * (to - from) / from
}
