package report

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/candor-bench/candor/internal/result"
)

// What `candor rerun` prints besides compare's output: the verdict of the
// rerun (B) against the original (A) and the two environments side by side.

// WriteEnvironments lists, side by side, what the original and the rerun
// ran on: the target's product, version and settings that differ, the
// client machine and the candor build.
func WriteEnvironments(w io.Writer, a, b *result.Result) {
	type row struct{ what, a, b string }
	machine := func(p result.Provenance) string {
		return fmt.Sprintf("%s, %d cores, %.1f GiB, %s %s", noneIfEmpty(p.CPUModel), p.Cores, float64(p.MemoryBytes)/(1<<30), p.OS, p.Kernel)
	}
	build := func(p result.Provenance) string {
		return strings.TrimSpace(p.CandorVersion + " " + p.Commit + " " + p.GoVersion)
	}
	rows := []row{
		{"product", a.Target.Product, b.Target.Product},
		{"version", a.Target.Version, b.Target.Version},
		{"target", a.Target.URL, b.Target.URL},
		{"client host", a.Provenance.Hostname, b.Provenance.Hostname},
		{"client machine", machine(a.Provenance), machine(b.Provenance)},
		{"candor", build(a.Provenance), build(b.Provenance)},
	}
	var keys []string
	seen := map[string]bool{}
	for _, m := range []map[string]string{a.Target.Settings, b.Target.Settings} {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	sort.Strings(keys)
	same := 0
	for _, k := range keys {
		va := a.Target.Settings[k]
		vb := b.Target.Settings[k]
		if va == vb { // empty on one side and absent on the other is the same
			same++
			continue
		}
		rows = append(rows, row{"setting " + k, noneIfEmpty(va), noneIfEmpty(vb)})
	}
	fmt.Fprintf(w, "Environments (A original, B rerun; %d setting(s) the same on both):\n", same)
	for _, r := range rows {
		mark := "same"
		if r.a != r.b {
			mark = "DIFFERS"
		}
		fmt.Fprintf(w, "  %-7s %-30s A: %s\n  %-7s %-30s B: %s\n", mark, r.what, noneIfEmpty(r.a), "", "", noneIfEmpty(r.b))
	}
	fmt.Fprintln(w)
}

func noneIfEmpty(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// ReproducedWithin is how close a rerun must be to its original, with 95%
// confidence, to be called reproduced: the confidence interval of the
// change in throughput lies within ±ReproducedWithin percent.
const ReproducedWithin = 10.0

// RerunVerdict is `candor rerun`'s verdict on total throughput, in words
// that say what it means: a significant difference (faster or slower), or
// none — reproduced when the 95% confidence interval of the change lies
// within ±ReproducedWithin%, else an interval too wide to tell; or why
// there is no test.
func RerunVerdict(c *Comparison) string {
	if len(c.Rows) == 0 {
		return "none: no throughput to compare"
	}
	r := c.Rows[0]
	parts := []string{fmt.Sprintf("throughput %+.1f%%", r.DiffPct)}
	if !r.Tested {
		return "unknown (" + r.Verdict + "), " + parts[0]
	}
	wide := true
	if !math.IsNaN(r.CILowPct) {
		parts = append(parts, fmt.Sprintf("95%% CI %s … %s", signedPct(r.CILowPct), signedPct(r.CIHighPct)))
		wide = r.CILowPct < -ReproducedWithin || r.CIHighPct > ReproducedWithin
	}
	parts = append(parts, fmt.Sprintf("%s p=%.3g", TestName, r.P))
	detail := strings.Join(parts, ", ")
	switch {
	case r.P >= Alpha && !wide:
		return fmt.Sprintf("reproduced: no significant difference (%s; the interval lies within ±%.0f%%)", detail, ReproducedWithin)
	case r.P >= Alpha:
		return fmt.Sprintf("no significant difference (%s), but the interval is too wide to call it reproduced "+
			"(it admits a change beyond ±%.0f%%): rerun with more repetitions (--repeat)", detail, ReproducedWithin)
	case r.B.Mean > r.A.Mean:
		return "not reproduced: the rerun is significantly faster (" + detail + ")"
	}
	return "not reproduced: the rerun is significantly slower (" + detail + ")"
}

// signedPct prints a percentage with its sign, a true minus: −17.9%.
func signedPct(x float64) string {
	return strings.Replace(fmt.Sprintf("%+.1f%%", x), "-", "−", 1)
}
