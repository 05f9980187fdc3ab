package report

import (
	"math"
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/stats"
)

// TestCompareChangeInterval: the change's interval is the ratio's, on the
// log scale. The samples behind rerun's "[-120.6%, -31.9%]" (A steady at
// 1,000 ops/s, B's runs at 59, 237.5 and 416) now give bounds above
// −100%, and the verdict agrees with the interval; a measure whose mean is
// 0 on a side (lost writes) has no interval, and its verdict is Welch's on
// the difference.
func TestCompareChangeInterval(t *testing.T) {
	d := 443.5 * math.Sqrt(3) / stats.TQuantile(0.975, 2)
	r := compareRow("total", "ops/s", false, []float64{1000, 1000, 1000}, []float64{237.5 - d, 237.5, 237.5 + d}, true, true)
	if !r.Tested || !(r.CILowPct > -100) || !(r.CILowPct < r.DiffPct && r.DiffPct < r.CIHighPct) {
		t.Errorf("change %.1f%%, CI [%.1f%%, %.1f%%]: want bounds above -100%% around the change", r.DiffPct, r.CILowPct, r.CIHighPct)
	}
	if excl := r.CILowPct > 0 || r.CIHighPct < 0; excl != (r.P < Alpha) || excl != !strings.HasPrefix(r.Verdict, "no significant") {
		t.Errorf("verdict %q (p %v) disagrees with CI [%.1f%%, %.1f%%]", r.Verdict, r.P, r.CILowPct, r.CIHighPct)
	}
	// B clearly faster: the interval is that of the ratio, not symmetric
	// around the change (stats.TestRatioByHand: [+59.4%, +150.9%])
	r = compareRow("total", "ops/s", false, []float64{90, 100, 110}, []float64{180, 200, 220}, true, true)
	if math.Abs(r.CILowPct-59.43) > 0.01 || math.Abs(r.CIHighPct-150.89) > 0.01 || !strings.HasPrefix(r.Verdict, "B is faster") {
		t.Errorf("CI [%.2f%%, %.2f%%] %q, want [+59.43%%, +150.89%%] B is faster", r.CILowPct, r.CIHighPct, r.Verdict)
	}
	// lower is better: B's latency halved is faster
	r = compareRow("READ", "p99", true, []float64{180, 200, 220}, []float64{90, 100, 110}, true, true)
	if math.Abs(r.DiffPct+50) > 1e-9 || !(r.CILowPct > -100) || !strings.HasPrefix(r.Verdict, "B is faster") {
		t.Errorf("latency halved: %.1f%% [%.1f%%, %.1f%%] %q", r.DiffPct, r.CILowPct, r.CIHighPct, r.Verdict)
	}
	// lost writes 3, 4, 5 against none: no ratio, Welch's verdict
	r = compareRow(ledgerOp, "lost", true, []float64{3, 4, 5}, []float64{0, 0, 0}, true, true)
	if !r.Tested || !math.IsNaN(r.CILowPct) || r.DiffPct != -100 || r.P != r.Welch.P || !strings.HasPrefix(r.Verdict, "B is faster") {
		t.Errorf("lost writes to 0: %+v", r)
	}
}
