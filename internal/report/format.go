package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/candor-bench/candor/internal/stats"
)

func pow10(x float64) float64 { return math.Pow(10, x) }

// fmtRate prints a rate with about four significant digits.
func fmtRate(x float64) string {
	a := math.Abs(x)
	switch {
	case math.IsNaN(x):
		return "–"
	case a == 0:
		return "0"
	case a < 1:
		return strconv.FormatFloat(x, 'f', 3, 64)
	case a < 100:
		return strconv.FormatFloat(x, 'f', 1, 64)
	}
	return strconv.FormatFloat(x, 'f', 0, 64)
}

// fmtNs prints a latency in ns with three significant digits and a unit.
func fmtNs(ns float64) string {
	if math.IsNaN(ns) || ns < 0 {
		return "–"
	}
	units := []struct {
		div  float64
		name string
	}{{1e9, "s"}, {1e6, "ms"}, {1e3, "µs"}, {1, "ns"}}
	for _, u := range units {
		if ns >= u.div || u.div == 1 {
			v := ns / u.div
			switch {
			case u.div == 1:
				return strconv.FormatFloat(v, 'f', 0, 64) + u.name
			case v < 10:
				return strconv.FormatFloat(v, 'f', 2, 64) + u.name
			case v < 100:
				return strconv.FormatFloat(v, 'f', 1, 64) + u.name
			}
			return strconv.FormatFloat(v, 'f', 0, 64) + u.name
		}
	}
	return "–"
}

// ciDecimals is the decimals to which a figure with a 95% confidence
// interval of half-width half is printed: two significant digits of the
// half-width (0.45 → 2, 2.48 → 1, 37 → 0, 234 → -1: tens). ok is false for
// a half-width that is 0, negative or not a number.
func ciDecimals(half float64) (d int, ok bool) {
	if !(half > 0) || math.IsInf(half, 0) {
		return 0, false
	}
	return 1 - int(math.Floor(math.Log10(half))), true
}

// fmtDecimals prints x to d decimals; a negative d rounds to tens,
// hundreds, ... ("12350" for 12345.6 at d = -1).
func fmtDecimals(x float64, d int) string {
	if d >= 0 {
		s := strconv.FormatFloat(x, 'f', d, 64)
		if strings.TrimLeft(s, "-0.") == "" {
			s = strings.TrimPrefix(s, "-")
		}
		return s
	}
	p := pow10(float64(-d))
	s := strconv.FormatFloat(math.Round(x/p)*p, 'f', 0, 64)
	if s == "-0" {
		s = "0"
	}
	return s
}

// fmtMeanCI prints a mean and the half-width of its 95% confidence
// interval to the interval's precision: "2.0 ± 2.5", "12350 ± 230", not
// "2 ± 2.4841377117503303". A half-width of 0 (equal repetitions) prints
// the mean as exact, "3 ± 0". unit, when given, follows both.
func fmtMeanCI(mean, half float64, unit string) string {
	d, ok := ciDecimals(half)
	if !ok {
		return trimNum(mean) + unit + " ± 0" + unit
	}
	return fmtDecimals(mean, d) + unit + " ± " + fmtDecimals(half, d) + unit
}

// fmtPct prints a relative half-width: "±2%", "±0.4%".
func fmtPct(p float64) string {
	a := math.Abs(p)
	switch {
	case math.IsNaN(p) || math.IsInf(p, 0):
		return "±?"
	case a >= 999.5:
		return "±>999%"
	case a < 0.95:
		return "±" + strconv.FormatFloat(a, 'f', 1, 64) + "%"
	}
	return "±" + strconv.FormatFloat(a, 'f', 0, 64) + "%"
}

// fmtSigned prints a signed percentage change: "+12.3%", "−4.0%".
func fmtSigned(p float64) string {
	if math.IsNaN(p) || math.IsInf(p, 0) {
		return "–"
	}
	s := strconv.FormatFloat(math.Abs(p), 'f', 1, 64) + "%"
	if p < 0 && s != "0.0%" {
		return "-" + s
	}
	return "+" + s
}

// withCI prints a summary's mean and, over two or more repetitions, its 95%
// confidence interval half-width relative to the mean.
func withCI(s stats.Summary, f func(float64) string) string {
	if s.N == 0 {
		return "–"
	}
	out := f(s.Mean)
	if s.N >= 2 && s.Mean != 0 {
		out += " " + fmtPct(100*s.HalfWidth()/math.Abs(s.Mean))
	}
	return out
}

// naturalLess orders strings with embedded numbers numerically
// ("recordcount=1000" before "recordcount=100000", "8" before "16").
func naturalLess(a, b string) bool {
	for a != "" && b != "" {
		ra, rb := []rune(a), []rune(b)
		if unicode.IsDigit(ra[0]) && unicode.IsDigit(rb[0]) {
			na, resta := leadingNumber(a)
			nb, restb := leadingNumber(b)
			if na != nb {
				return na < nb
			}
			a, b = resta, restb
			continue
		}
		if ra[0] != rb[0] {
			return ra[0] < rb[0]
		}
		a, b = string(ra[1:]), string(rb[1:])
	}
	return len(a) < len(b)
}

func leadingNumber(s string) (float64, string) {
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	f, _ := strconv.ParseFloat(strings.TrimSuffix(s[:i], "."), 64)
	return f, s[i:]
}

// wrap breaks text into lines of at most width runes at spaces.
func wrap(text string, width int) []string {
	var lines []string
	var cur []rune
	for _, word := range strings.Fields(text) {
		w := []rune(word)
		if len(cur) > 0 && len(cur)+1+len(w) > width {
			lines = append(lines, string(cur))
			cur = nil
		}
		for len(w) > width { // a word longer than a line is cut
			if len(cur) > 0 {
				lines = append(lines, string(cur))
				cur = nil
			}
			lines = append(lines, string(w[:width]))
			w = w[width:]
		}
		if len(cur) > 0 {
			cur = append(cur, ' ')
		}
		cur = append(cur, w...)
	}
	if len(cur) > 0 {
		lines = append(lines, string(cur))
	}
	return lines
}

// ranges compresses sorted input numbers (0-based) to "#1–#3, #7".
func ranges(idx []int) string {
	var parts []string
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && idx[j+1] == idx[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, fmt.Sprintf("#%d", idx[i]+1))
		} else {
			parts = append(parts, fmt.Sprintf("#%d–#%d", idx[i]+1, idx[j]+1))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

func fmtBytes(b int64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	case b > 0:
		return fmt.Sprintf("%d B", b)
	}
	return "–"
}

func threadsText(n int) string {
	if n == 1 {
		return "1 thread"
	}
	return fmt.Sprintf("%d threads", n)
}
