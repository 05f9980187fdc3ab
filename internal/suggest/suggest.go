// Package suggest finds the names a user probably meant when one they typed
// is unknown ("--thread": --threads; "tpc-c": tpcc), for the "did you mean"
// of candor's messages. It imports nothing of candor.
package suggest

import (
	"sort"
	"strings"
)

// Closest returns the names close to word, nearest first (at most three):
// those equal to it once case, '-', '_' and '.' are ignored, those within
// an edit distance of about a third of its length (at least 1, at most 2),
// and those it is a prefix of when it has 3 letters or more; none when more
// than three are equally near (a guess among many is no help).
func Closest(word string, names []string) []string {
	w := fold(word)
	if w == "" {
		return nil
	}
	limit := min(max(len(w)/3, 1), 2)
	type cand struct {
		name string
		d    int
	}
	var found []cand
	seen := map[string]bool{}
	for _, n := range names {
		if n == word || seen[n] {
			continue
		}
		f := fold(n)
		d := Distance(w, f)
		switch {
		case d <= limit:
		case len(w) >= 3 && strings.HasPrefix(f, w):
			d = limit + 1
		default:
			continue
		}
		seen[n] = true
		found = append(found, cand{n, d})
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].d < found[j].d })
	if len(found) > 3 && found[3].d == found[0].d {
		return nil // more than three equally near: no guess
	}
	var out []string
	for i := 0; i < len(found) && i < 3; i++ {
		out = append(out, found[i].name)
	}
	return out
}

// Hint is "; did you mean A or B?" for Closest's names (with prefix before
// each, "--" for flags), or "" when there are none.
func Hint(word, prefix string, names []string) string {
	c := Closest(word, names)
	if len(c) == 0 {
		return ""
	}
	for i := range c {
		c[i] = prefix + c[i]
	}
	return "; did you mean " + strings.Join(c, " or ") + "?"
}

func fold(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '-', '_', '.':
			return -1
		}
		return r
	}, strings.ToLower(s))
}

// Distance is the Levenshtein distance of a and b (bytes).
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
