package report

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/candor-bench/candor/internal/published"
	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/stats"
)

// The verdicts a published claim gets. A direct claim is reproduced or
// not; an analog shows the mechanism or not, and never reproduces the
// source's claim; an untestable claim gets its reason, a claim not run
// here (of kind not-run, or whose cells have no results) what it needs.
const (
	Reproduced       = "reproduced"
	NotReproduced    = "not reproduced"
	MechanismSeen    = "mechanism seen here"
	MechanismNotSeen = "mechanism not seen here"
	Untestable       = "untestable here"
	NotRun           = "not run here"
	TooWide          = "CI too wide to call"
	TooFew           = "too few repetitions to call"
	NotMeasured      = "not measured"
)

// Verdict is one published claim checked against the results of its published.
type Verdict struct {
	Plan  string // the plan's name (the experiment)
	Claim published.Claim
	// Published is the claim's published figure as checked here ("async /
	// sync ≈ 2.12 ± 25%"); Measured the same figure measured, with its 95%
	// confidence interval and the repetitions it rests on.
	Published, Measured string
	Verdict             string
	// Checked says what is measured here: the metric and the cells.
	Checked string
	// Reason says why the verdict is not reproduced / not reproduced
	// plainly (the tolerance band, a reason it cannot be tested).
	Reason string
	// Words sets the source's words beside its own figures ("" without).
	Words string
	// Value, Low and High are the measured figure and its 95% CI (NaN
	// when not measured).
	Value, Low, High float64
	// Loaded says that the claim's cells ran on a loaded machine ("cells
	// ran with load 3.1 on 2 cores ..."; LoadedNote), "" when they did not
	// or recorded no load.
	Loaded string
}

// The thresholds above which a claim's cells ran on a loaded machine
// (docs/EXPERIMENTS.md, "A loaded machine").
const (
	// LoadedAbove: the 1-minute load average as a phase began, over the
	// machine's cores: more runnable threads than cores already waited
	// for a core before the phase's own threads joined them.
	LoadedAbove = 1.0
	// StolenAbove: the share of the CPU the hypervisor stole over a phase.
	// Repeated runs on this kind of shared 2-core VM differ by 10-15%; a
	// steal of 5% is a third of that spread taken from client and server
	// alike, enough to move a ratio near its band's edge.
	StolenAbove = 0.05
)

// Text is the verdict as printed: "untestable here: REASON", "not run
// here: NEEDS", else the verdict with its reason in parentheses.
func (v *Verdict) Text() string {
	switch {
	case v.Reason == "":
		return v.Verdict
	case v.Verdict == Untestable || v.Verdict == NotRun:
		return v.Verdict + ": " + v.Reason
	}
	return v.Verdict + " (" + v.Reason + ")"
}

// SaidText is the claim's said: in quotation marks, or as it is when the
// plan marks it a paraphrase.
func SaidText(c published.Claim) string {
	if c.Paraphrase {
		return c.Said + " (paraphrased)"
	}
	return "“" + c.Said + "”"
}

// SourceText is "TITLE, by AUTHOR, DATE" as the text gives them ("no
// date given" when it gives none).
func SourceText(s published.Source) string {
	out := strings.TrimSpace(s.Title)
	if s.Author != "" {
		out += ", by " + s.Author
	}
	if s.Date != "" {
		out += ", " + s.Date
	} else {
		out += ", no date given"
	}
	if s.URL != "" {
		out += " (" + s.URL + ")"
	}
	return out
}

// ClaimsPlan is what a report needs of a plan to check its published
// claims: its name, file and output directory, its published: block and
// its cells.
type ClaimsPlan struct {
	Name, File, Output string
	Published          *published.Published
	Cells              []published.Cell
}

// ReadPlan reads a plan file for its claims. Reports read result files,
// never plans: the CLI sets it (cli/site.go). When it is nil, no claim is
// checked.
var ReadPlan func(file string) (*ClaimsPlan, error)

// PlanFor finds the plan file a result names: as recorded, else in a
// bundle (BUNDLE/plan/ beside BUNDLE/results/), else beside the result's
// directory's parents (experiments/results/NAME/x.json names
// experiments/PLAN.yaml); nil when the result names no plan.
func PlanFor(resultPath string, ref *result.PlanRef) (*ClaimsPlan, error) {
	if ref == nil || ref.File == "" || ReadPlan == nil {
		return nil, nil
	}
	candidates := []string{ref.File, filepath.Join(filepath.Dir(filepath.Dir(resultPath)), "plan", filepath.Base(ref.File))}
	dir := filepath.Dir(resultPath)
	for i := 0; i < 3; i++ {
		dir = filepath.Dir(dir)
		candidates = append(candidates, filepath.Join(dir, filepath.Base(ref.File)))
	}
	var firstErr error
	for _, f := range candidates {
		if _, err := os.Stat(f); err != nil {
			continue
		}
		p, err := ReadPlan(f)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		if p.Name == ref.Name {
			return p, nil
		}
	}
	if firstErr != nil {
		return nil, firstErr
	}
	return nil, fmt.Errorf("plan %s (named by %s) not found", ref.File, resultPath)
}

// buildClaims finds the plans of the inputs and checks each plan's
// published claims against its results.
func (m *Model) buildClaims(located []Input) {
	var warns []string
	m.Plans, m.Claims, warns = claimsOf(located)
	m.Warnings = append(m.Warnings, warns...)
}

// claimsOf finds the plans the inputs name and checks their published
// claims; a plan that cannot be read is a warning.
func claimsOf(inputs []Input) (plans []*ClaimsPlan, claims []*Verdict, warnings []string) {
	seen := map[string]bool{}
	for _, in := range inputs {
		ref := in.Result.Plan
		if ref == nil || seen[ref.Name] {
			continue
		}
		seen[ref.Name] = true
		p, err := PlanFor(in.Path, ref)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("published claims of plan %s not checked: %v", ref.Name, err))
			continue
		}
		if p == nil || p.Published == nil {
			continue
		}
		plans = append(plans, p)
		if _, stale := p.madeHere(inputs); stale > 0 {
			warnings = append(warnings, fmt.Sprintf("plan %s: %d result(s) were made by cells the plan no longer has, or with other settings: left out of its claims", p.Name, stale))
		}
		claims = append(claims, CheckClaims(p, inputs)...)
	}
	return plans, claims, warnings
}

// CheckClaims checks each published claim of p against the inputs made by
// p's cells.
func CheckClaims(p *ClaimsPlan, inputs []Input) []*Verdict {
	inputs, _ = p.madeHere(inputs)
	var out []*Verdict
	for _, c := range p.Published.Claims {
		out = append(out, checkClaim(p.Name, c, inputs))
	}
	return out
}

// madeHere keeps the inputs made by a cell of p as it is now: the result
// names the cell and records its identity (a hash of the cell's workload,
// target, options, files and the plan's run settings). A result of the
// same plan name left by an older version of the plan (another duration,
// a cell since renamed) is left out, and counted in stale. Without the
// plan's cells, every input of the plan is kept.
func (p *ClaimsPlan) madeHere(inputs []Input) (kept []Input, stale int) {
	ids := map[string]string{}
	for _, c := range p.Cells {
		if c.ID != "" {
			ids[c.ID] = c.Identity
		}
	}
	for _, in := range inputs {
		ref := in.Result.Plan
		if ref == nil || ref.Name != p.Name {
			continue
		}
		if len(ids) > 0 {
			identity, ok := ids[ref.Cell]
			if !ok || (identity != "" && ref.Params[result.PlanIdentity] != identity) {
				stale++
				continue
			}
		}
		kept = append(kept, in)
	}
	return kept, stale
}

// metricValues are the claim's metric in every complete repetition of the
// cells sel names, among the inputs of plan name.
func metricValues(name string, sel published.Selector, metric string, inputs []Input) []float64 {
	var out []float64
	load := strings.HasPrefix(metric, "load-")
	for _, in := range inputs {
		r := in.Result
		if r.Plan == nil || r.Plan.Name != name || !sel.Matches(r.Workload.Name, r.Plan.Params) {
			continue
		}
		for i := range r.Phases {
			ph := &r.Phases[i]
			if ph.Status != result.StatusComplete || (kindOf(ph.Name) == "load") != load {
				continue
			}
			if v, ok := metricOf(ph, metric); ok {
				out = append(out, v)
			}
		}
	}
	return out
}

// LoadedNote says whether the phases a claim pools ran on a loaded
// machine: the highest 1-minute load average as one began, against the
// machine's cores, when above them (LoadedAbove), and the highest CPU
// steal, when above StolenAbove; "" when neither, or no phase recorded its
// load (results of an older candor).
func LoadedNote(name string, c published.Claim, inputs []Input) string {
	load := strings.HasPrefix(c.Metric, "load-")
	var phases, loaded, stolen, cores int
	maxLoad, maxSteal := 0.0, 0.0
	seen := map[*result.Result]bool{}
	for _, sel := range c.Selectors() {
		for _, in := range inputs {
			r := in.Result
			if seen[r] || r.Plan == nil || r.Plan.Name != name || !sel.Matches(r.Workload.Name, r.Plan.Params) {
				continue
			}
			seen[r] = true
			for i := range r.Phases {
				ph := &r.Phases[i]
				if ph.Status != result.StatusComplete || (kindOf(ph.Name) == "load") != load {
					continue
				}
				if _, ok := metricOf(ph, c.Metric); !ok {
					continue
				}
				ml := r.Provenance.MachineLoadOf(i)
				if ml == nil || r.Provenance.Cores <= 0 {
					continue
				}
				phases++
				if l := ml.Start[0] / float64(r.Provenance.Cores); l > LoadedAbove {
					loaded++
					if ml.Start[0] > maxLoad {
						maxLoad, cores = ml.Start[0], r.Provenance.Cores
					}
				}
				if ml.Steal != nil && *ml.Steal > StolenAbove {
					stolen++
					maxSteal = math.Max(maxSteal, *ml.Steal)
				}
			}
		}
	}
	var parts []string
	if loaded > 0 {
		parts = append(parts, fmt.Sprintf("cells ran with load %.1f on %d cores (the 1-minute load average as a phase began, above the cores in %d of %d phases)", maxLoad, cores, loaded, phases))
	}
	if stolen > 0 {
		parts = append(parts, fmt.Sprintf("the hypervisor stole up to %.0f%% of the CPU (above %.0f%% in %d of %d phases)", 100*maxSteal, 100*StolenAbove, stolen, phases))
	}
	if len(parts) == 0 {
		return ""
	}
	return "a loaded machine: " + strings.Join(parts, "; ")
}

func metricOf(ph *result.Phase, metric string) (float64, bool) {
	switch metric {
	case "throughput", "load-rate":
		return ph.Throughput, true
	case "load-time":
		return ph.DurationSec, true
	case "server-rows":
		v, ok := ph.Derived["server_rows_per_s"]
		return v, ok && v > 0
	case "client-rows":
		rr, ok := RowRatesOf(ph)
		return rr.Client, ok
	case "lost", "rpo", "rto":
		if ph.Ledger == nil || ph.Ledger.Accounting == nil {
			return 0, false
		}
		a := ph.Ledger.Accounting
		switch metric {
		case "lost":
			return float64(a.Lost), true
		case "rpo":
			if a.Fault != nil {
				return a.Fault.RPOSeconds, true
			}
		case "rto":
			if a.Fault != nil && a.Fault.RTOSeconds != nil {
				return *a.Fault.RTOSeconds, true
			}
		}
	}
	return 0, false
}

func checkClaim(name string, c published.Claim, inputs []Input) *Verdict {
	v := &Verdict{Plan: name, Claim: c, Value: math.NaN(), Low: math.NaN(), High: math.NaN()}
	if w := c.Words; w != nil {
		v.Words = fmt.Sprintf("the source's words say %q (%s×); its own figures give %s / %s = %.2f×",
			w.Text, trimNum(w.Value), trimNum(w.Of[0]), trimNum(w.Of[1]), w.Computed())
	}
	checkMeasured(name, c, inputs, v)
	if c.Check() != "" && c.Kind != published.Untestable && c.Kind != published.NotRun {
		v.Loaded = LoadedNote(name, c, inputs)
	}
	if c.Kind == published.Analog {
		switch v.Verdict {
		case Reproduced:
			v.Verdict = MechanismSeen
		case NotReproduced:
			v.Verdict = MechanismNotSeen
		}
	}
	return v
}

// checkMeasured sets v's figures and verdict as for a direct claim.
func checkMeasured(name string, c published.Claim, inputs []Input, v *Verdict) {
	switch c.Kind {
	case published.Untestable:
		v.Published, v.Measured = "–", "–"
		v.Verdict, v.Reason = Untestable, c.Untestable
		return
	case published.NotRun:
		v.Published, v.Measured = "–", "–"
		v.Verdict, v.Reason = NotRun, c.Needs
		return
	}
	switch c.Check() {
	case "":
		v.Published, v.Measured = "–", "–"
		v.Verdict, v.Reason = NotRun, "the claim names no check"
		return
	case "ratio", "less":
		sels := c.Ratio
		if c.Check() == "less" {
			sels = c.Less
		}
		a := metricValues(name, sels[0], c.Metric, inputs)
		b := metricValues(name, sels[1], c.Metric, inputs)
		v.Checked = pairText(c.Metric, sels[0], sels[1], c.Check())
		if c.Check() == "ratio" {
			lo, hi := c.Expect/(1+c.Tolerance), c.Expect*(1+c.Tolerance)
			v.Published = fmt.Sprintf("≈ %.2f (accepted %.2f–%.2f)", c.Expect, lo, hi)
			if len(c.From) == 2 {
				v.Published = fmt.Sprintf("%s / %s = %.2f (accepted %.2f–%.2f)", trimNum(c.From[0]), trimNum(c.From[1]), c.Expect, lo, hi)
			}
		} else {
			v.Published = "first < second: ratio below 1"
		}
		if len(a) == 0 || len(b) == 0 {
			v.Measured, v.Verdict = "–", NotRun
			v.Reason = fmt.Sprintf("no complete result of the cells {%s}: the plan did not run here", missingSide(a, sels[0], sels[1]))
			return
		}
		// stats.RatioOf(x, y) is y/x: the claim's ratio is a / b.
		r, ok := stats.RatioOf(stats.Summarize(b), stats.Summarize(a))
		v.Value = r.Ratio
		v.Measured = fmt.Sprintf("%.2f, n = %d / %d", r.Ratio, len(a), len(b))
		if ok {
			v.Low, v.High = r.CI95Low, r.CI95High
			v.Measured = fmt.Sprintf("%.2f (95%% CI %.2f–%.2f), n = %d / %d", r.Ratio, r.CI95Low, r.CI95High, len(a), len(b))
		}
		if tooFew(c, v, len(a), len(b)) {
			return
		}
		lo, hi := 0.0, 1.0
		if c.Check() == "ratio" {
			lo, hi = c.Expect/(1+c.Tolerance), c.Expect*(1+c.Tolerance)
		}
		switch {
		case r.CI95Low >= lo && r.CI95High <= hi:
			v.Verdict = Reproduced
		case r.CI95High < lo || r.CI95Low > hi:
			v.Verdict = NotReproduced
			if c.Check() == "less" {
				v.Reason = "the order is the other way round"
			} else {
				v.Reason = fmt.Sprintf("the interval lies outside %.2f–%.2f", lo, hi)
			}
		default:
			v.Verdict, v.Reason = TooWide, fmt.Sprintf("the interval straddles %s", boundText(r, lo, hi))
		}
		return
	case "atmost":
		a := metricValues(name, c.AtMost[0], c.Metric, inputs)
		b := metricValues(name, c.AtMost[1], c.Metric, inputs)
		v.Checked = pairText(c.Metric, c.AtMost[0], c.AtMost[1], "atmost")
		v.Published = "first ≤ second in every pairing of repetitions"
		if len(a) == 0 || len(b) == 0 {
			v.Measured, v.Verdict = "–", NotRun
			v.Reason = fmt.Sprintf("no complete result of the cells {%s}: the plan did not run here", missingSide(a, c.AtMost[0], c.AtMost[1]))
			return
		}
		loA, hiA := minMax(a)
		loB, hiB := minMax(b)
		v.Value = stats.Summarize(a).Mean
		v.Measured = fmt.Sprintf("%s–%s against %s–%s, n = %d / %d", trimNum(loA), trimNum(hiA), trimNum(loB), trimNum(hiB), len(a), len(b))
		if tooFew(c, v, len(a), len(b)) {
			return
		}
		switch {
		case hiA <= loB:
			v.Verdict = Reproduced
		case loA > hiB:
			v.Verdict, v.Reason = NotReproduced, "the first is above the second in every pairing"
		default:
			v.Verdict, v.Reason = TooWide, "the two ranges overlap"
		}
		return
	default: // zero, positive
		sel := c.Zero
		if sel == nil {
			sel = c.Positive
		}
		want := "= 0"
		if c.Positive != nil {
			want = "> 0"
		}
		v.Checked = fmt.Sprintf("%s in every repetition of %s", c.Metric, *sel)
		v.Published = c.Metric + " " + want
		xs := metricValues(name, *sel, c.Metric, inputs)
		if len(xs) == 0 {
			v.Measured, v.Verdict = "–", NotRun
			v.Reason = fmt.Sprintf("no complete result of the cells {%s}: the plan did not run here", *sel)
			return
		}
		above := 0
		for _, x := range xs {
			if x > 0 {
				above++
			}
		}
		s := stats.Summarize(xs)
		v.Value, v.Low, v.High = s.Mean, s.CI95Low, s.CI95High
		v.Measured = fmt.Sprintf("mean %s; above 0 in %d of %d repetitions", intervalText(s.Mean, s.CI95Low, s.CI95High), above, len(xs))
		if len(xs) < 2 {
			v.Measured = fmt.Sprintf("%s in the single repetition", trimNum(s.Mean))
		}
		if tooFew(c, v, len(xs)) {
			return
		}
		switch {
		case c.Zero != nil && above == 0, c.Positive != nil && above == len(xs):
			v.Verdict = Reproduced
		case c.Zero != nil || above == 0:
			v.Verdict = NotReproduced
		default:
			v.Verdict, v.Reason = TooFew, fmt.Sprintf("above 0 in only %d of %d repetitions", above, len(xs))
		}
		return
	}
}

// tooFew sets the verdict "too few repetitions" when a side of the check
// has fewer repetitions than the claim needs, naming how many each side
// has and how many it needs.
func tooFew(c published.Claim, v *Verdict, ns ...int) bool {
	need := c.NeedsRepetitions()
	short := false
	for _, n := range ns {
		short = short || n < need
	}
	if !short {
		return false
	}
	have := make([]string, len(ns))
	for i, n := range ns {
		have[i] = strconv.Itoa(n)
	}
	what := "repetitions"
	if strings.HasPrefix(c.Metric, "load-") {
		what = "loads"
	}
	side := ""
	if len(ns) > 1 {
		side = " each"
		have[0] = strings.Join(have, " and ")
	}
	v.Verdict = TooFew
	v.Reason = fmt.Sprintf("has %s %s, needs %d%s", have[0], what, need, side)
	if len(ns) > 1 {
		v.Reason = fmt.Sprintf("the sides have %s %s, the claim needs %d%s", have[0], what, need, side)
	}
	return true
}

// intervalText is "2.0 (95% CI 0.0–4.5)": a mean and its interval printed
// to the interval's precision (two significant digits of its half-width).
func intervalText(mean, low, high float64) string {
	d, ok := ciDecimals((high - low) / 2)
	if !ok {
		return trimNum(mean)
	}
	return fmt.Sprintf("%s (95%% CI %s–%s)", fmtDecimals(mean, d), fmtDecimals(low, d), fmtDecimals(high, d))
}

// pairText is "server-rows: target=pg-async2 / target=pg-sync1 (both
// in-server=true, jobs=1)": the keys the two selectors share are said once.
func pairText(metric string, a, b published.Selector, kind string) string {
	common := published.Selector{}
	da, db := published.Selector{}, published.Selector{}
	for k, v := range a {
		if b[k] == v {
			common[k] = v
		} else {
			da[k] = v
		}
	}
	for k, v := range b {
		if a[k] != v {
			db[k] = v
		}
	}
	op := map[string]string{"less": " < ", "atmost": " ≤ "}[kind]
	if op == "" {
		op = " / "
	}
	s := metric + ": " + da.String() + op + db.String()
	if len(common) > 0 {
		s += " (both " + common.String() + ")"
	}
	return s
}

func minMax(xs []float64) (lo, hi float64) {
	lo, hi = xs[0], xs[0]
	for _, x := range xs {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return lo, hi
}

func missingSide(a []float64, sa, sb published.Selector) published.Selector {
	if len(a) == 0 {
		return sa
	}
	return sb
}

func boundText(r stats.Ratio, lo, hi float64) string {
	if r.CI95Low < lo && r.CI95High > lo {
		return fmt.Sprintf("%.2f", lo)
	}
	return fmt.Sprintf("%.2f", hi)
}

// trimNum prints a figure with at most three decimals, trailing zeros cut.
func trimNum(x float64) string {
	if math.IsNaN(x) {
		return "–"
	}
	s := fmt.Sprintf("%.3f", x)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		s = "0"
	}
	return s
}

// claimsTable is one row per claim: experiment, claim, published,
// measured, verdict.
func claimsTable(vs []*Verdict, withPlan bool) *table {
	t := &table{Caption: "Published claims, checked here"}
	if withPlan {
		t.Head = append(t.Head, "experiment")
	}
	t.Head = append(t.Head, "claim", "checked here", "published", "measured (95% CI)", "verdict")
	for _, v := range vs {
		var row []string
		if withPlan {
			row = append(row, v.Plan)
		}
		claim := v.Claim.ID + " (" + v.Claim.Kind + ")"
		pub := v.Published
		if v.Words != "" {
			pub += "; " + v.Words
		}
		verdict := v.Text()
		if v.Loaded != "" {
			verdict += "; " + v.Loaded
		}
		for _, slip := range v.Claim.Slips {
			verdict += "; the source's slip: " + slip
		}
		checked := v.Checked
		if checked == "" {
			checked = "–"
		}
		row = append(row, claim, checked, pub, v.Measured, verdict)
		t.Rows = append(t.Rows, row)
	}
	t.Note = "A ratio is reproduced when its whole 95% confidence interval (computed on the log of the ratio) lies inside the accepted band, " +
		"not reproduced when it lies wholly outside, and too wide to call otherwise; an order (<) is reproduced when the interval of the ratio lies below 1. " +
		"An analog checks the source's mechanism on another product: its verdict is the mechanism seen here or not, never the source's claim reproduced. " +
		"Absolute figures from other hardware are not comparable: claims are checked as ratios and orderings between cells."
	return t
}

// buildClaimsSection lists a report's plans' published claims with their
// verdicts, and where each claim comes from.
func buildClaimsSection(d *document, m *Model) {
	if len(m.Plans) == 0 {
		return
	}
	d.heading(2, "Published claims")
	d.table(claimsTable(m.Claims, len(m.Plans) > 1))
	for _, p := range m.Plans {
		pub := p.Published
		d.para("%s: source %s. Published conditions: %s. Run here on: %s.", p.Name, SourceText(pub.Source), orNone(pub.Conditions), orNone(pub.Runs))
		var items []string
		for _, c := range pub.Claims {
			s := c.ID + " (" + c.Kind
			if c.About != "" {
				s += ", about " + c.About
			}
			s += "): " + SaidText(c) + " (figures: " + orNone(strings.Join(c.Figures, "; ")) + ")"
			if c.Conditions != "" {
				s += "; conditions: " + c.Conditions
			}
			for _, slip := range c.Slips {
				s += "; the source's slip: " + slip
			}
			items = append(items, s)
		}
		for _, slip := range pub.Slips {
			items = append(items, "the source's slip: "+slip)
		}
		d.list(items)
		for _, t := range publishedTables(p, m.Inputs) {
			d.table(t)
		}
	}
}

// publishedTables fills each published table of p with the figures
// measured here: per row and column the mean of the metric over the
// repetitions with its 95% confidence interval.
func publishedTables(p *ClaimsPlan, inputs []Input) []*table {
	inputs, _ = p.madeHere(inputs)
	cells := p.Cells
	var out []*table
	for _, pt := range p.Published.Tables {
		t := &table{Caption: pt.Caption}
		if t.Caption == "" {
			t.Caption = "The published table, measured here"
		}
		t.Head = append(t.Head, pt.Rows...)
		cols := published.Values(cells, pt.Columns)
		if len(pt.Columns) == 0 {
			cols = []published.Selector{{}}
		}
		for _, col := range cols {
			for _, m := range pt.Metrics {
				h := m
				switch {
				case len(col) > 0 && len(pt.Metrics) == 1:
					h = selectorText(col) // the metric is in the caption's note
				case len(col) > 0:
					h = selectorText(col) + ": " + m
				}
				t.Head = append(t.Head, h)
			}
		}
		for range pt.Rows {
			t.Right = append(t.Right, false)
		}
		// The figures' columns stay left-aligned: a narrow terminal wraps
		// them (right-aligned columns are never narrowed).
		for range t.Head[len(pt.Rows):] {
			t.Right = append(t.Right, false)
		}
		for _, row := range published.Values(cells, pt.Rows) {
			var line []string
			for _, k := range pt.Rows {
				line = append(line, orNotSet(row[k]))
			}
			for _, col := range cols {
				sel := published.Selector{}
				for k, v := range row {
					sel[k] = v
				}
				for k, v := range col {
					sel[k] = v
				}
				for _, m := range pt.Metrics {
					line = append(line, metricText(m, metricValues(p.Name, sel, m, inputs)))
				}
			}
			t.Rows = append(t.Rows, line)
		}
		t.Note = "Each figure: the mean over the repetitions ± the half-width of its 95% confidence interval (Student's t), n repetitions; –: not run here. " +
			"Metrics: " + metricsNote(pt.Metrics) + "."
		out = append(out, t)
	}
	return out
}

// orNotSet is a published table's row value: "(not set)" for a cell
// without the parameter (E3's client ids have no sequence cache).
func orNotSet(v string) string {
	if v == "" {
		return "(not set)"
	}
	return v
}

// selectorText is a selector as a column head, "(not set)" for a key the
// cells do not have.
func selectorText(s published.Selector) string {
	shown := published.Selector{}
	for k, v := range s {
		shown[k] = orNotSet(v)
	}
	return shown.String()
}

// metricText is a published table's figure: the mean over the
// repetitions ± the half-width of its 95% confidence interval, both printed
// to the interval's precision (fmtMeanCI), and n.
func metricText(metric string, xs []float64) string {
	if len(xs) == 0 {
		return "–"
	}
	s := stats.Summarize(xs)
	unit := ""
	switch metric {
	case "rpo", "rto", "load-time":
		unit = " s"
	}
	if s.N < 2 {
		one := fmtRate(s.Mean)
		switch {
		case metric == "lost":
			one = trimNum(s.Mean)
		case unit != "":
			one = fmtNs(s.Mean * 1e9)
			if s.Mean == 0 {
				one = "0 s"
			}
		}
		return fmt.Sprintf("%s (n = 1)", one)
	}
	return fmt.Sprintf("%s (n = %d)", fmtMeanCI(s.Mean, s.HalfWidth(), unit), s.N)
}

func metricsNote(ms []string) string {
	var parts []string
	for _, m := range ms {
		parts = append(parts, m+": "+published.Metrics[m])
	}
	return strings.Join(parts, "; ")
}

// VerdictCounts counts verdicts by name, in a stable order for printing.
func VerdictCounts(vs []*Verdict) string {
	n := map[string]int{}
	for _, v := range vs {
		n[v.Verdict]++
	}
	var keys []string
	for k := range n {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d %s", n[k], k))
	}
	return strings.Join(parts, ", ")
}
