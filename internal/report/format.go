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
