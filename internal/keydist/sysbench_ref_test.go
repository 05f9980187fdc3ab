package keydist

import (
	"bytes"
	"fmt"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/candor-bench/candor/internal/target/targettest"
)

// The distributions against sysbench 1.0.20 itself: the binary draws with
// sysbench.rand.default under each set of --rand-* options, candor draws as
// many values with the same parameters, and a two-sample Kolmogorov–Smirnov
// test compares them. TestSysbenchFormulas checks the formulas branch by
// branch; this checks that the formulas are the ones the binary runs (its
// option parsing and precomputed constants included).
//
// The binary is targettest.SysbenchBinary's. Both sides draw from fixed
// seeds, so the outcome is the same on every run.

// refDrawScript prints one sysbench.rand.default(a, b) per event, a and b from
// the environment.
const refDrawScript = `local a = tonumber(os.getenv("SB_A"))
local b = tonumber(os.getenv("SB_B"))
function event()
  io.write(sysbench.rand.default(a, b), "\n")
end
`

// refStringScript prints one sysbench.rand.string of $SB_TEMPLATE per
// event, between brackets.
const refStringScript = `local template = os.getenv("SB_TEMPLATE")
function event()
  io.write("[", sysbench.rand.string(template), "]\n")
end
`

// runSysbench runs the binary's Lua script for n events on one thread with
// a fixed seed and returns its standard output.
func runSysbench(t *testing.T, bin, script string, n int, env, opts []string) []byte {
	t.Helper()
	args := append([]string{"--events=" + strconv.Itoa(n), "--threads=1", "--time=0", "--rand-seed=1"}, opts...)
	args = append(args, script, "run")
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", bin, args, err, stderr.String())
	}
	return out
}

// writeScript writes a Lua script into a temporary directory.
func writeScript(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "script.lua")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// sysbenchDraws runs the binary for n draws in [a, b] with the given options.
func sysbenchDraws(t *testing.T, bin, script string, n int, a, b int64, opts []string) []int64 {
	t.Helper()
	out := runSysbench(t, bin, script, n, []string{fmt.Sprintf("SB_A=%d", a), fmt.Sprintf("SB_B=%d", b)}, opts)
	draws := make([]int64, 0, n)
	for _, line := range bytes.Split(out, []byte("\n")) {
		// The report follows the draws; only lines that are whole numbers
		// are draws.
		v, err := strconv.ParseInt(string(line), 10, 64)
		if err == nil {
			draws = append(draws, v)
		}
	}
	if len(draws) != n {
		t.Fatalf("sysbench printed %d draws, want %d:\n%s", len(draws), n, out)
	}
	return draws
}

// ksStatistic is the two-sample Kolmogorov–Smirnov statistic: the largest
// distance between the two empirical distribution functions. x and y are
// sorted in place.
func ksStatistic(x, y []int64) float64 {
	slices.Sort(x)
	slices.Sort(y)
	var d float64
	i, j := 0, 0
	for i < len(x) && j < len(y) {
		v := min(x[i], y[j])
		for i < len(x) && x[i] == v {
			i++
		}
		for j < len(y) && y[j] == v {
			j++
		}
		d = max(d, math.Abs(float64(i)/float64(len(x))-float64(j)/float64(len(y))))
	}
	return d
}

func TestKSStatistic(t *testing.T) {
	if d := ksStatistic([]int64{3, 1, 2}, []int64{2, 3, 1}); d != 0 {
		t.Errorf("same samples: D = %v, want 0", d)
	}
	if d := ksStatistic([]int64{1, 2}, []int64{3, 4}); d != 1 {
		t.Errorf("disjoint samples: D = %v, want 1", d)
	}
	// F_x jumps to 1/2 at 1; F_y is 0 until 2: D = 1/2 at 1.
	if d := ksStatistic([]int64{1, 3}, []int64{2, 3}); d != 0.5 {
		t.Errorf("D = %v, want 0.5", d)
	}
}

func TestSysbenchDistributionsMatchBinary(t *testing.T) {
	bin := targettest.SysbenchBinary(t)
	script := writeScript(t, refDrawScript)
	const n = 100000
	// Reject at the 0.1% level: c(α) = sqrt(-ln(α/2)/2) = 1.95.
	crit := 1.95 * math.Sqrt(2.0/n)

	def := DefaultSysbenchParams()
	with := func(f func(p *SysbenchParams)) SysbenchParams { p := def; f(&p); return p }
	cases := []struct {
		opts []string
		p    SysbenchParams
		a, b int64
	}{
		{nil, def, 1, 1000000}, // sysbench's default is special
		{nil, def, 1, 100},
		{[]string{"--rand-type=uniform"}, with(func(p *SysbenchParams) { p.Type = "uniform" }), 1, 1000000},
		{[]string{"--rand-type=uniform"}, with(func(p *SysbenchParams) { p.Type = "uniform" }), 1, 100},
		{[]string{"--rand-type=gaussian"}, with(func(p *SysbenchParams) { p.Type = "gaussian" }), 1, 1000000},
		{[]string{"--rand-type=gaussian", "--rand-spec-iter=3"}, with(func(p *SysbenchParams) { p.Type = "gaussian"; p.SpecIter = 3 }), 1, 1000000},
		{[]string{"--rand-type=special", "--rand-spec-iter=3", "--rand-spec-pct=10", "--rand-spec-res=50"},
			with(func(p *SysbenchParams) { p.SpecIter = 3; p.SpecPct = 10; p.SpecRes = 50 }), 1, 1000000},
		{[]string{"--rand-type=pareto"}, with(func(p *SysbenchParams) { p.Type = "pareto" }), 1, 1000000},
		{[]string{"--rand-type=pareto", "--rand-pareto-h=0.4"}, with(func(p *SysbenchParams) { p.Type = "pareto"; p.ParetoH = 0.4 }), 1, 1000000},
	}
	for i, c := range cases {
		t.Run(fmt.Sprintf("%d %v [%d,%d]", i, c.opts, c.a, c.b), func(t *testing.T) {
			ref := sysbenchDraws(t, bin, script, n, c.a, c.b, c.opts)
			s := NewSysbenchRand(c.p)
			r := rand.New(rand.NewSource(int64(i) + 1))
			got := make([]int64, n)
			for k := range got {
				got[k] = s.Draw(r, c.a, c.b)
			}
			if d := ksStatistic(ref, got); d > crit {
				t.Errorf("%s: Kolmogorov–Smirnov D = %.4f against sysbench's draws, above %.4f (α = 0.001): "+
					"medians %d (sysbench) and %d (candor)", s.Type(), d, crit, ref[n/2], got[n/2])
			}
		})
	}

	// The comparison can tell a near miss: special's hot window twice as
	// wide as sysbench's (--rand-spec-pct 2 against 1) must be rejected.
	t.Run("near miss rejected", func(t *testing.T) {
		ref := sysbenchDraws(t, bin, script, n, 1, 1000000, nil)
		s := NewSysbenchRand(with(func(p *SysbenchParams) { p.SpecPct = 2 }))
		r := rand.New(rand.NewSource(99))
		got := make([]int64, n)
		for k := range got {
			got[k] = s.Draw(r, 1, 1000000)
		}
		if d := ksStatistic(ref, got); d <= crit {
			t.Errorf("a hot window of 2%% against sysbench's 1%%: D = %.4f, not above %.4f", d, crit)
		}
	})
}

// TestSysbenchStringMatchesBinary compares AppendSysbenchString with
// sysbench.rand.string position by position: the same bytes copied, and at
// each '#' and '@' the same characters at frequencies a two-sample
// chi-squared test cannot tell apart.
func TestSysbenchStringMatchesBinary(t *testing.T) {
	bin := targettest.SysbenchBinary(t)
	script := writeScript(t, refStringScript)
	const template = "#@-x#@ ###########-@"
	const n = 20000
	out := runSysbench(t, bin, script, n, []string{"SB_TEMPLATE=" + template}, nil)
	var ref [][]byte
	for _, line := range bytes.Split(out, []byte("\n")) {
		if len(line) == len(template)+2 && line[0] == '[' && line[len(line)-1] == ']' {
			ref = append(ref, line[1:len(line)-1])
		}
	}
	if len(ref) != n {
		t.Fatalf("sysbench printed %d strings of the template's length, want %d:\n%s", len(ref), n, out)
	}
	r := rand.New(rand.NewSource(1))
	got := make([][]byte, n)
	for k := range got {
		got[k] = AppendSysbenchString(nil, r, template)
	}
	for pos := 0; pos < len(template); pos++ {
		var a, b [256]int
		for k := 0; k < n; k++ {
			a[ref[k][pos]]++
			b[got[k][pos]]++
		}
		// Two equal-sized samples: χ² = Σ (a-b)²/(a+b) over the characters
		// seen, with (characters - 1) degrees of freedom.
		chi, cells := 0.0, 0
		for ch := range a {
			if a[ch] == 0 && b[ch] == 0 {
				continue
			}
			if a[ch] == 0 || b[ch] == 0 {
				t.Fatalf("position %d (%q): character %q drawn by only one of sysbench (%d) and candor (%d)",
					pos, template[pos], byte(ch), a[ch], b[ch])
			}
			d := float64(a[ch] - b[ch])
			chi += d * d / float64(a[ch]+b[ch])
			cells++
		}
		// Digits have 10 cells, letters 26; a copied byte has one, where
		// the two samples must agree exactly. The critical value is the
		// package's chiCrit, as for the other chi-squared tests here.
		want := map[byte]int{'#': 10, '@': 26}[template[pos]]
		if want == 0 {
			want = 1
		}
		if cells != want {
			t.Fatalf("position %d (%q): %d distinct characters, want %d", pos, template[pos], cells, want)
		}
		crit := 0.0
		if cells > 1 {
			crit = chiCrit(cells - 1)
		}
		if chi > crit {
			t.Errorf("position %d (%q): χ² = %.1f against sysbench's characters, above %.2f", pos, template[pos], chi, crit)
		}
	}
}
