package audit

import (
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/result"
)

// memSide is the fixture on product at url with a buffer of buffer,
// recordcount records of ≈1 KB and, when plan is set, a cell of that plan.
func memSide(label, product, url string, records float64, buffer, plan string) Side {
	r := fixture()
	r.Target.Product, r.Target.URL = product, url
	r.Target.Settings["shared_buffers"] = buffer
	r.Workload.Options.(map[string]any)["recordcount"] = records
	if plan != "" {
		r.Plan = &result.PlanRef{Name: plan, File: plan + ".yaml", Cell: label}
	}
	return Side{Label: label, Inputs: []Input{{Name: label + ".json", Result: r}}}
}

// TestMemoryFitAcrossSizes: memory-fit compares runs of different data
// sizes too. 1,000 records (≈1 MB) fit a 16 MB buffer, 100,000 (≈100 MB) do
// not; before, the rule grouped runs by data size and said nothing.
func TestMemoryFitAcrossSizes(t *testing.T) {
	const pg, pg2 = "postgres://u@db1:5432/b", "postgres://u@db2:5432/b"
	a1k := memSide("a-1k", "PostgreSQL", pg, 1000, "16MB", "")
	a100k := memSide("a-100k", "PostgreSQL", pg, 100000, "16MB", "")
	b1k := memSide("b-1k", "YugabyteDB", pg2, 1000, "16MB", "")
	b100k := memSide("b-100k", "YugabyteDB", pg2, 100000, "16MB", "")
	cases := []struct {
		name  string
		sides []Side
		want  []string // severity and words of each memory-fit finding, in order
	}{
		// the defect: one server at two sizes across its cache, no finding
		// before; a size sweep is the experiment: a note
		{"one target, two sizes", []Side{a1k, a100k},
			[]string{"note: the data sizes cross the cache: the data fits in memory on a-1k: data ≈1000 KiB", "but not on a-100k: data ≈97.7 MiB"}},
		// a plan's size axis over two targets: the cells of one plan
		{"plan cells", []Side{memSide("pg-1k", "PostgreSQL", pg, 1000, "16MB", "sweep"), memSide("other-100k", "PostgreSQL", pg2, 100000, "16MB", "sweep")},
			[]string{"note: the data sizes cross the cache"}},
		// two claims: one target measured at a size that fits, another at
		// one that does not, and nothing else
		{"two claims", []Side{a1k, b100k}, []string{"error: compared only across the cache: the data fits in memory on a-1k", "not on b-100k"}},
		// two targets compared at both sizes: the like-for-like pairs
		// are judged at each size (both fit, then neither), the sweep is
		// a note
		{"two targets at both sizes", []Side{a1k, a100k, b1k, b100k},
			[]string{"note: the data sizes cross the cache: the data fits in memory on a-1k: data ≈1000 KiB (options, payload only), cache shared_buffers 16 MiB + OS page cache not recorded; b-1k", "but not on a-100k", "; b-100k"}},
		// the same size, one buffer large enough and one not: an error,
		// as before, and a's sweep a note
		{"same size, different caches", []Side{a100k, memSide("b-100k", "YugabyteDB", pg2, 100000, "1GB", ""), a1k},
			[]string{"error: the data fits in memory on b-100k", "but not on a-100k", "note: the data sizes cross the cache: the data fits in memory on a-1k", "but not on a-100k"}},
		// both sizes fit: nothing to say
		{"both fit", []Side{memSide("small", "PostgreSQL", pg, 1000, "1GB", ""), memSide("large", "YugabyteDB", pg2, 100000, "1GB", "")}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, f := range findings(Sides(c.sides), "memory-fit") {
				got = append(got, string(f.Severity)+": "+f.Text)
			}
			all := strings.Join(got, "\n")
			if len(c.want) == 0 && len(got) > 0 {
				t.Fatalf("findings:\n%s\nwant none", all)
			}
			last := 0
			for _, w := range c.want {
				i := strings.Index(all[last:], w)
				if i < 0 {
					t.Fatalf("findings:\n%s\nlack %q (in this order)", all, w)
				}
				last += i
			}
			if c.want != nil && strings.HasPrefix(c.want[0], "note") && strings.Contains(all, "error") {
				t.Errorf("a size sweep is a note, not an error:\n%s", all)
			}
			for _, f := range findings(Sides(c.sides), "memory-fit") {
				if sweep := strings.Contains(f.Text, "sizes cross the cache"); sweep != strings.HasPrefix(f.Fix, "none: this is a size sweep") {
					t.Errorf("finding %q has fix %q", f.Text, f.Fix)
				}
			}
		})
	}
}
