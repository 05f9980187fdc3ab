package report

import (
	"strings"
	"testing"
)

// The rerun's verdict says what it means: reproduced only when the
// interval is narrow, "too wide" when it admits a large change, and a
// significant difference as not reproduced.
func TestRerunVerdictWords(t *testing.T) {
	for _, c := range []struct {
		a, b []float64
		want []string
	}{
		{[]float64{1000, 1010, 990}, []float64{1002, 995, 1005}, []string{"reproduced: no significant difference (", "95% CI −", "within ±10%"}},
		{[]float64{1000, 700, 1300}, []float64{900, 1200, 950}, []string{"no significant difference (", "too wide to call it reproduced", "--repeat"}},
		{[]float64{1000, 1010, 990}, []float64{700, 710, 690}, []string{"not reproduced: the rerun is significantly slower "}},
		{[]float64{1000}, []float64{1000}, []string{"unknown ("}},
	} {
		row := compareRow("total", "ops/s", false, c.a, c.b, true, true)
		got := RerunVerdict(&Comparison{Rows: []CompareRow{row}})
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("A %v B %v: verdict %q, want %q in it", c.a, c.b, got, w)
			}
		}
		if strings.HasPrefix(got, "same") {
			t.Errorf("bare same: %q", got)
		}
	}
}
