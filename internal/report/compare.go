package report

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/stats"
)

// Alpha is the significance level of compare's verdicts.
const Alpha = 0.05

// TestName names the statistical test compare uses (stats.Ratio): Welch's
// t test on the log of the ratio of the means, whose 95% interval is the
// change's. A measure whose mean is 0 on a side (lost writes) has no ratio:
// it is tested on the difference of the means (stats.WelchTest), without an
// interval.
const TestName = "Welch's t test on the log ratio"

// SingleRunVerdict is compare's verdict when a side has one run only.
const SingleRunVerdict = "uncertainty unknown: single runs, use --repeat"

// ErrMixed marks a side whose results are not repetitions of one
// configuration.
var ErrMixed = errors.New("not repetitions of one configuration")

// Side is one side of a comparison: the run phases of one or more result
// files of the same configuration.
type Side struct {
	Name   string // "A" or "B"
	Inputs []Input
	// Phases are the complete run phases: the repetitions.
	Phases []*result.Phase
	// Excluded are the run phases that did not complete (failed or
	// interrupted), left out of the figures, as "file #3 failed: why".
	Excluded []string
	desc     map[string]string
}

// ExclusionText says how many runs of the side were left out and why, ""
// when none were.
func (s *Side) ExclusionText() string {
	if len(s.Excluded) == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %s excluded (%s)", len(s.Excluded), plural(len(s.Phases)+len(s.Excluded), "run"), strings.Join(s.Excluded, "; "))
}

// Difference is one way the two sides' configurations differ.
type Difference struct {
	What string
	A, B string
	// Blocking differences make the comparison unfair: the workload, its
	// options, the run settings, or a target setting both sides have.
	// Differences of product, version and endpoint are what is compared.
	Blocking bool
}

// CompareRow compares one metric of one operation.
type CompareRow struct {
	Op     string // "total" for the phase throughput
	Metric string // "ops/s", "p50", "p95", "p99"
	// LowerIsBetter is true for latencies.
	LowerIsBetter bool
	A, B          stats.Summary
	// Tested is false when a side has fewer than two runs or lacks the
	// operation.
	Tested bool
	// Ratio is the test of mean B / mean A on the log scale, when both
	// means are above 0; Welch the test of their difference.
	Ratio stats.Ratio
	Welch stats.Welch
	// P is the p-value the verdict rests on: Ratio's, else Welch's.
	P float64
	// DiffPct is (mean B − mean A) / mean A in percent; CILowPct and
	// CIHighPct bound its 95% confidence interval, the interval of the
	// ratio B/A (stats.Ratio) as a change: always above −100%. They are NaN
	// when a side's mean is 0 or it has a single run.
	DiffPct, CILowPct, CIHighPct float64
	Verdict                      string
}

// Comparison is the result of comparing B against A.
type Comparison struct {
	A, B        *Side
	Differences []Difference
	Rows        []CompareRow
}

// Blocking reports whether some difference makes the comparison unfair.
func (c *Comparison) Blocking() bool {
	for _, d := range c.Differences {
		if d.Blocking {
			return true
		}
	}
	return false
}

// NewSide checks that the inputs are repetitions of one configuration and
// collects their complete run phases.
func NewSide(name string, inputs []Input) (*Side, error) {
	s := &Side{Name: name, Inputs: inputs}
	for i, in := range inputs {
		d := describe(in.Result)
		if i == 0 {
			s.desc = d
		} else if diffs := differences(s.desc, d); len(diffs) > 0 {
			var lines []string
			for _, x := range diffs {
				lines = append(lines, fmt.Sprintf("  %s: %s in %s, %s in %s", x.What, orDash(x.A), inputs[0].Path, orDash(x.B), in.Path))
			}
			return nil, fmt.Errorf("%s: %w; the files differ in:\n%s", name, ErrMixed, strings.Join(lines, "\n"))
		}
		for pi := range in.Result.Phases {
			p := &in.Result.Phases[pi]
			switch {
			case p.Name == "load":
			case p.Status == result.StatusComplete:
				s.Phases = append(s.Phases, p)
			default:
				e := Exclusion{Status: p.Status, Reason: phaseFailure(in.Result, pi), Rep: p.Repetition}
				s.Excluded = append(s.Excluded, in.Path+" "+e.String())
			}
		}
	}
	if len(s.Phases) == 0 {
		var paths []string
		for _, in := range inputs {
			paths = append(paths, in.Path)
		}
		msg := fmt.Sprintf("%s: no complete run phase in %s (a load-only or failed result cannot be compared)", name, strings.Join(paths, ", "))
		if len(s.Excluded) > 0 {
			msg += "; not complete: " + strings.Join(s.Excluded, "; ")
		}
		return nil, errors.New(msg)
	}
	return s, nil
}

func orDash(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// describe flattens what decides comparability into "kind name" → value.
func describe(r *result.Result) map[string]string {
	d := map[string]string{"workload": r.Workload.Name}
	p := paramsOf(r, "run")
	for _, k := range []string{"isolation", "duration", "operations", "warmup", "rate", "arrival", "retries", "plan", "reused tables"} {
		if v, ok := p[k]; ok {
			d[k] = v
			delete(p, k)
		}
	}
	for k, v := range p {
		d["option "+k] = v
	}
	d["threads"] = strconv.Itoa(r.Run.Threads)
	if r.Run.LatencyMeasure != "" {
		d["latency measure"] = r.Run.LatencyMeasure
	}
	d["target product"] = r.Target.Product
	d["target version"] = r.Target.Version
	d["target URL"] = r.Target.URL
	if name, ok := planTarget(r); ok {
		// A cluster the plan started for each cell has new ports each
		// time, a resumed plan's sandbox may have another port: its
		// repetitions are one target, the plan's.
		d["target URL"] = "plan target " + name
	}
	d["target driver"] = r.Target.Driver
	for k, v := range r.Target.Settings {
		d["setting "+k] = v
	}
	return d
}

// topologySettings describe the shape of a CQL cluster, not how the runs
// were made: compare sets one node against three, one copy against two (as
// E5 does), as it sets one endpoint against another. Consistency levels and
// commit-log settings still block.
var topologySettings = map[string]bool{"setting nodes": true, "setting topology": true, "setting replication": true, "setting keyspace": true}

func differences(a, b map[string]string) []Difference {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	var out []Difference
	for k := range keys {
		va, oka := a[k]
		vb, okb := b[k]
		if va == vb && (oka == okb || strings.HasPrefix(k, "setting ")) {
			continue // a setting recorded empty on one side and absent on the other is the same
		}
		blocking := true
		switch {
		case strings.HasPrefix(k, "target "):
			blocking = false
		case strings.HasPrefix(k, "setting ") && (!oka || !okb):
			blocking = false // a setting only one product has
		case topologySettings[k]:
			blocking = false
		}
		out = append(out, Difference{What: k, A: va, B: vb, Blocking: blocking})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Blocking != out[j].Blocking {
			return out[i].Blocking
		}
		return out[i].What < out[j].What
	})
	return out
}

// Compare compares side B against side A.
func Compare(a, b *Side) *Comparison {
	c := &Comparison{A: a, B: b, Differences: differences(a.desc, b.desc)}
	thr := func(ps []*result.Phase) []float64 {
		out := make([]float64, len(ps))
		for i, p := range ps {
			out[i] = p.Throughput
		}
		return out
	}
	c.Rows = append(c.Rows, compareRow("total", "ops/s", false, thr(a.Phases), thr(b.Phases), true, true))
	// commit-loop's headline figures, when both sides have them.
	rowRates := func(ps []*result.Phase, server bool) []float64 {
		var out []float64
		for _, p := range ps {
			if rr, ok := RowRatesOf(p); ok && (!server || rr.Server > 0) {
				out = append(out, map[bool]float64{false: rr.Client, true: rr.Server}[server])
			}
		}
		return out
	}
	for _, server := range []bool{false, true} {
		ra, rb := rowRates(a.Phases, server), rowRates(b.Phases, server)
		if len(ra) > 0 || len(rb) > 0 {
			c.Rows = append(c.Rows, compareRow(map[bool]string{false: "client", true: "server"}[server], "rows/s", false, ra, rb, len(ra) > 0, len(rb) > 0))
		}
	}
	// The durability ledger's figures, when a side has them.
	lnames, la, okA := LedgerFigures(a.Phases)
	_, lb, okB := LedgerFigures(b.Phases)
	if okA || okB {
		for _, n := range lnames {
			if len(la[n]) > 0 || len(lb[n]) > 0 {
				r := compareRow(ledgerOp, n, true, la[n], lb[n], len(la[n]) > 0, len(lb[n]) > 0)
				r.Verdict = strings.NewReplacer("faster", "better", "slower", "worse").Replace(r.Verdict)
				c.Rows = append(c.Rows, r)
			}
		}
	}
	// candor ledger verify's figures, beside the run's, when a side has them.
	_, va, okA := VerifiedFigures(a.Phases)
	_, vb, okB := VerifiedFigures(b.Phases)
	if okA || okB {
		for _, n := range lnames {
			if len(va[n]) > 0 || len(vb[n]) > 0 {
				r := compareRow(verifyOp, n, true, va[n], vb[n], len(va[n]) > 0, len(vb[n]) > 0)
				r.Verdict = strings.NewReplacer("faster", "better", "slower", "worse").Replace(r.Verdict)
				c.Rows = append(c.Rows, r)
			}
		}
	}
	var names []string
	seen := map[string]bool{}
	for _, ps := range [][]*result.Phase{a.Phases, b.Phases} {
		for _, p := range ps {
			for _, o := range p.Ops {
				if !seen[o.Name] {
					seen[o.Name] = true
					names = append(names, o.Name)
				}
			}
		}
	}
	for _, name := range names {
		ta, hasA := opValues(a.Phases, name, func(o *result.OpResult) (float64, bool) { return o.Throughput, true })
		tb, hasB := opValues(b.Phases, name, func(o *result.OpResult) (float64, bool) { return o.Throughput, true })
		c.Rows = append(c.Rows, compareRow(name, "ops/s", false, ta, tb, hasA, hasB))
		for _, q := range []struct {
			metric string
			get    func(*result.Summary) int64
		}{{"p50", func(s *result.Summary) int64 { return s.P50 }}, {"p95", func(s *result.Summary) int64 { return s.P95 }}, {"p99", func(s *result.Summary) int64 { return s.P99 }}} {
			get := func(o *result.OpResult) (float64, bool) {
				if o.Latency == nil || o.Latency.Count == 0 {
					return 0, false
				}
				return float64(q.get(o.Latency)), true
			}
			la, _ := opValues(a.Phases, name, get)
			lb, _ := opValues(b.Phases, name, get)
			c.Rows = append(c.Rows, compareRow(name, q.metric, true, la, lb, len(la) > 0, len(lb) > 0))
		}
	}
	return c
}

// opValues collects one value per phase of the named operation; a phase
// without it contributes 0 throughput (as stats.Repetitions counts it) but
// no latency.
func opValues(ps []*result.Phase, name string, get func(*result.OpResult) (float64, bool)) ([]float64, bool) {
	var out []float64
	found := false
	for _, p := range ps {
		var op *result.OpResult
		for i := range p.Ops {
			if p.Ops[i].Name == name {
				op = &p.Ops[i]
				break
			}
		}
		if op == nil {
			out = append(out, 0)
			continue
		}
		found = true
		if v, ok := get(op); ok {
			out = append(out, v)
		}
	}
	if !found {
		return nil, false
	}
	return out, true
}

// ledgerOp names the compare rows of the durability ledger (counts and
// seconds, lower is better).
const ledgerOp = "ledger"

// verifyOp names the compare rows of candor ledger verify's figures (the
// latest verification of each run), never the run's own.
const verifyOp = "ledger verify"

func compareRow(op, metric string, lowerBetter bool, a, b []float64, hasA, hasB bool) CompareRow {
	r := CompareRow{Op: op, Metric: metric, LowerIsBetter: lowerBetter, A: stats.Summarize(a), B: stats.Summarize(b)}
	r.DiffPct, r.CILowPct, r.CIHighPct = math.NaN(), math.NaN(), math.NaN()
	switch {
	case !hasA || r.A.N == 0:
		r.Verdict = "only in B"
		return r
	case !hasB || r.B.N == 0:
		r.Verdict = "only in A"
		return r
	}
	if r.A.Mean != 0 {
		r.DiffPct = 100 * (r.B.Mean - r.A.Mean) / math.Abs(r.A.Mean)
	}
	w, ok := stats.WelchTest(a, b)
	r.Welch = w
	if !ok {
		r.Verdict = SingleRunVerdict
		return r
	}
	r.Tested = true
	r.P = w.P
	if q, ok := stats.RatioOf(r.A, r.B); ok {
		r.Ratio, r.P = q, q.P
		r.CILowPct, r.CIHighPct = stats.Pct(q.CI95Low), stats.Pct(q.CI95High)
	}
	if r.P < Alpha {
		better := r.B.Mean > r.A.Mean
		if lowerBetter {
			better = r.B.Mean < r.A.Mean
		}
		if better {
			r.Verdict = "B is faster (" + fmtP(r.P) + ")"
		} else {
			r.Verdict = "B is slower (" + fmtP(r.P) + ")"
		}
		return r
	}
	r.Verdict = "no significant difference (" + fmtP(r.P) + ")"
	return r
}

func fmtP(p float64) string {
	switch {
	case math.IsNaN(p):
		return "p=?"
	case p < 0.001:
		return "p<0.001"
	}
	return "p=" + strconv.FormatFloat(p, 'f', 3, 64)
}

// sideSummary describes a side in one line.
func (s *Side) summary() string {
	var paths []string
	for _, in := range s.Inputs {
		paths = append(paths, in.Path)
	}
	r := s.Inputs[0].Result
	files, runs := plural(len(s.Inputs), "file"), plural(len(s.Phases), "run")
	return fmt.Sprintf("%s: %s on %s %s (%s), %s — %s in %s: %s", s.Name, r.Workload.Name, r.Target.Product, r.Target.Version,
		r.Target.URL, threadsText(r.Run.Threads), runs, files, strings.Join(paths, ", "))
}

// WriteText prints the comparison, fitting TextWidth columns.
func (c *Comparison) WriteText(w io.Writer) error { return writeText(w, c.document("")) }

// Write renders the comparison as text, md or html (Formats).
func (c *Comparison) Write(w io.Writer, format string) error {
	switch format {
	case "text":
		return c.WriteText(w)
	case "md":
		return writeMarkdown(w, c.document(compareTitle), nil)
	case "html":
		return writeHTML(w, c.document(compareTitle))
	}
	_, err := ValidFormat(format)
	return err
}

// WriteFile renders the comparison to path, atomically.
func (c *Comparison) WriteFile(path, format string) error {
	var buf bytes.Buffer
	if err := c.Write(&buf, format); err != nil {
		return err
	}
	return result.WriteFileAtomic(path, buf.Bytes())
}

const compareTitle = "candor compare: B against A"

// document lays the comparison out for every renderer (the text one
// without a title).
func (c *Comparison) document(title string) *document {
	d := &document{Title: title}
	d.list([]string{c.A.summary(), c.B.summary()})
	buildAuditSection(d, c.Audit())
	for _, s := range []*Side{c.A, c.B} {
		if t := s.ExclusionText(); t != "" {
			d.para("WARNING: %s: %s; its figures are over the complete runs only, failed and interrupted runs are never pooled with them.", s.Name, t)
		}
	}
	if len(c.Differences) == 0 {
		d.para("A and B ran the same workload with the same options, run settings and target settings.")
	} else {
		if c.Blocking() {
			d.para("WARNING: compared with --force although A and B differ in more than the target:")
		} else {
			d.para("A and B differ only in the target:")
		}
		d.table(diffTable(c.Differences))
	}
	d.para("Test: %s (two-sided, %.0f%% level) on the per-run values of each side. "+
		"Δ = (B − A) / A; its 95%% confidence interval is that of the ratio of the means B/A, computed on its log "+
		"(delta method, Welch–Satterthwaite degrees of freedom), so its bounds stay above −100%% and the verdict "+
		"is significant exactly when the interval leaves out 0; a measure whose mean is 0 on a side is tested on the "+
		"difference of the means, without an interval. "+
		"Latency percentiles are compared as the mean over the runs of each run's percentile.", TestName, 100*Alpha)
	tested := false
	for _, r := range c.Rows {
		tested = tested || r.Tested
	}
	t := &table{Head: []string{"measure", "A", "B", "Δ", "95% CI of Δ", "verdict"},
		Right: []bool{false, true, true, true, true, false}}
	if !tested {
		// No row can be tested: say why once, in full.
		d.para("Verdict: %s (A has %s, B has %s; a test needs two or more on each side).", SingleRunVerdict,
			plural(len(c.A.Phases), "run"), plural(len(c.B.Phases), "run"))
		t.Head, t.Right = t.Head[:4], t.Right[:4]
	}
	for _, r := range c.Rows {
		f := fmtRate
		switch {
		case r.Op == ledgerOp || r.Op == verifyOp:
			f = func(x float64) string { return strconv.FormatFloat(x, 'g', 4, 64) }
		case r.LowerIsBetter:
			f = fmtNs
		}
		ci := "–"
		if r.Tested && !math.IsNaN(r.CILowPct) {
			ci = "[" + fmtSigned(r.CILowPct) + ", " + fmtSigned(r.CIHighPct) + "]"
		}
		row := []string{r.Op + " " + r.Metric, f(r.A.Mean), f(r.B.Mean), fmtSigned(r.DiffPct), ci, r.Verdict}
		if !tested {
			row = row[:4]
		}
		t.Rows = append(t.Rows, row)
	}
	d.table(t)
	d.para("A and B: mean over the runs (A %d, B %d); latencies per run as recorded in the result.", len(c.A.Phases), len(c.B.Phases))
	if lines := ledgerSources(c); len(lines) > 0 {
		d.para("Durability ledger: the \"ledger\" rows are each run's own accounting, made at its end; the \"ledger verify\" " +
			"rows are the latest candor ledger verify of each run, read back later (never the run's figures):")
		d.list(lines)
	}
	return d
}

// ledgerSources says, for each run of either side that kept a ledger,
// whether it made an accounting of its own and which candor ledger verify
// its verified figures are (or that none verified it).
func ledgerSources(c *Comparison) []string {
	var out []string
	for _, s := range []*Side{c.A, c.B} {
		for _, in := range s.Inputs {
			k := 0
			for i := range in.Result.Phases {
				p := &in.Result.Phases[i]
				if p.Name != "run" || p.Status != result.StatusComplete || p.Ledger == nil {
					continue // the figures are over the complete runs (Side.Phases)
				}
				k++
				own := "the run's accounting"
				if p.Ledger.Accounting == nil {
					own = "no accounting of the run's own"
				}
				out = append(out, fmt.Sprintf("%s: %s run %d: %s; %s", s.Name, in.Path, k, own, VerifyText(p)))
			}
		}
	}
	return out
}

func diffTable(ds []Difference) *table {
	t := &table{Head: []string{"", "A", "B", "makes the comparison unfair"}}
	for _, d := range ds {
		u := "no (what is compared)"
		if d.Blocking {
			u = "yes"
		}
		t.Rows = append(t.Rows, []string{d.What, orDash(d.A), orDash(d.B), u})
	}
	return t
}

// RefusalError lists the blocking differences.
func (c *Comparison) RefusalError() error {
	var lines []string
	for _, d := range c.Differences {
		if d.Blocking {
			lines = append(lines, fmt.Sprintf("  %s: A %s, B %s", d.What, orDash(d.A), orDash(d.B)))
		}
	}
	var other []string
	for _, d := range c.Differences {
		if !d.Blocking {
			other = append(other, fmt.Sprintf("  %s: A %s, B %s", d.What, orDash(d.A), orDash(d.B)))
		}
	}
	msg := "A and B are not comparable: they differ in\n" + strings.Join(lines, "\n")
	if len(other) > 0 {
		msg += "\nand in what is compared (the target and the settings only one of them has):\n" + strings.Join(other, "\n")
	}
	msg += "\nrun both with the same workload, options and settings, or pass --force to compare anyway"
	return errors.New(msg)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
