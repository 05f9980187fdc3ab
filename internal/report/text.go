package report

import (
	"bufio"
	"io"
	"strings"
	"unicode/utf8"
)

// TextWidth is the width the text report fits in.
const TextWidth = 100

// Text writes the report as plain text, tables only, every line at most
// TextWidth columns.
func Text(w io.Writer, m *Model) error { return writeText(w, buildDocument(m)) }

// writeText renders a document as text; a document without a title starts
// with its first block.
func writeText(w io.Writer, d *document) error {
	bw := bufio.NewWriter(w)
	line := func(s string) { bw.WriteString(s); bw.WriteByte('\n') }
	if d.Title != "" {
		for _, l := range wrap(d.Title, TextWidth) {
			line(l)
		}
		line(strings.Repeat("=", utf8.RuneCountInString(d.Title)))
	}
	for i, b := range d.Blocks {
		if b.FigOnly {
			continue
		}
		switch b.Kind {
		case bHeading:
			line("")
			under := "="
			if b.Level > 2 {
				under = "-"
			}
			lines := wrap(b.Text, TextWidth)
			longest := 0
			for _, l := range lines {
				line(l)
				longest = max(longest, utf8.RuneCountInString(l))
			}
			line(strings.Repeat(under, longest))
		case bPara:
			if i > 0 || d.Title != "" {
				line("")
			}
			for _, l := range wrap(b.Text, TextWidth) {
				line(l)
			}
		case bList:
			if i > 0 || d.Title != "" {
				line("")
			}
			for _, it := range b.Items {
				for i, l := range wrap(it, TextWidth-2) {
					if i == 0 {
						line("- " + l)
					} else {
						line("  " + l)
					}
				}
			}
		case bTable:
			line("")
			textTable(line, b.Table)
		case bFigure:
			// text has no charts
		}
	}
	return bw.Flush()
}

// textTable lays a table out in columns; when it cannot fit TextWidth even
// with its text columns shortened, each row is printed as "name: value"
// lines instead.
func textTable(line func(string), t *table) {
	if t.Caption != "" {
		for _, l := range wrap(t.Caption+":", TextWidth) {
			line(l)
		}
	}
	n := len(t.Head)
	width := make([]int, n)
	for i, h := range t.Head {
		width[i] = utf8.RuneCountInString(h)
	}
	for _, r := range t.Rows {
		for i := 0; i < n && i < len(r); i++ {
			width[i] = max(width[i], utf8.RuneCountInString(r[i]))
		}
	}
	const sep = 2
	total := func() int {
		s := sep * (n - 1)
		for _, w := range width {
			s += w
		}
		return s
	}
	// Narrow the widest text column until the table fits (its cells wrap),
	// the columns marked Keep last.
	for pass := 0; pass < 2 && total() > TextWidth; pass++ {
		for total() > TextWidth {
			widest := -1
			for i := range width {
				right := i < len(t.Right) && t.Right[i]
				keep := pass == 0 && i < len(t.Keep) && t.Keep[i]
				if !right && !keep && width[i] > 12 && (widest < 0 || width[i] > width[widest]) {
					widest = i
				}
			}
			if widest < 0 {
				break
			}
			width[widest]--
		}
	}
	if total() > TextWidth {
		textRecords(line, t)
		return
	}
	// Cells longer than their column wrap onto continuation lines.
	row := func(cells []string) {
		parts := make([][]string, n)
		height := 1
		for i := 0; i < n; i++ {
			c := ""
			if i < len(cells) {
				c = cells[i]
			}
			if utf8.RuneCountInString(c) <= width[i] {
				parts[i] = []string{c}
			} else {
				parts[i] = wrapCell(c, width[i])
			}
			height = max(height, len(parts[i]))
		}
		for k := 0; k < height; k++ {
			var b strings.Builder
			for i := 0; i < n; i++ {
				c := ""
				if k < len(parts[i]) {
					c = parts[i][k]
				}
				pad := strings.Repeat(" ", max(0, width[i]-utf8.RuneCountInString(c)))
				if i > 0 {
					b.WriteString("  ")
				}
				if i < len(t.Right) && t.Right[i] {
					b.WriteString(pad + c)
				} else {
					b.WriteString(c + pad)
				}
			}
			line(strings.TrimRight(b.String(), " "))
		}
	}
	row(t.Head)
	var rule []string
	for _, w := range width {
		rule = append(rule, strings.Repeat("-", w))
	}
	line(strings.Join(rule, "  "))
	for _, r := range t.Rows {
		row(r)
	}
	if t.Note != "" {
		for _, l := range wrap(t.Note, TextWidth) {
			line(l)
		}
	}
}

func textRecords(line func(string), t *table) {
	for ri, r := range t.Rows {
		if ri > 0 {
			line("")
		}
		for i, h := range t.Head {
			if i >= len(r) || r[i] == "" {
				continue
			}
			for j, l := range wrap(h+": "+r[i], TextWidth-2) {
				if j == 0 {
					line(l)
				} else {
					line("  " + l)
				}
			}
		}
	}
	if t.Note != "" {
		for _, l := range wrap(t.Note, TextWidth) {
			line(l)
		}
	}
}

// wrapCell breaks a table cell into lines of at most width runes at spaces,
// never inside a word: a word longer than the column is broken after one of
// the separators of a URL or path (/ ? & ; ,) when it has them, else after
// those of a name (_: a plan cell's name keeps its distinguishing end,
// sysbench-oltp_read_write_pg_t16_ / auto-inc-off_sequence-cache-1000), and
// is cut short with "..." only when neither way fits.
func wrapCell(text string, width int) []string {
	var lines []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			lines = append(lines, string(cur))
			cur = nil
		}
	}
	for _, word := range strings.Fields(text) {
		w := []rune(word)
		if len(cur) > 0 && len(cur)+1+len(w) > width {
			flush()
		}
		if len(w) > width {
			flush()
			pieces := breakAtSeparators(w, width, "/?&;,")
			if pieces == nil {
				pieces = breakAtSeparators(w, width, "/?&;,_")
			}
			if pieces == nil {
				lines = append(lines, ellipsis(w, width))
				continue
			}
			lines = append(lines, pieces[:len(pieces)-1]...)
			w = []rune(pieces[len(pieces)-1])
		}
		if len(cur) > 0 {
			cur = append(cur, ' ')
		}
		cur = append(cur, w...)
	}
	flush()
	return lines
}

// breakAtSeparators splits a long word after URL and path separators into
// pieces of at most width runes; nil when some piece cannot be made short
// enough that way.
func breakAtSeparators(w []rune, width int, seps string) []string {
	var out []string
	for len(w) > width {
		cut := -1
		for i := width - 1; i > 0; i-- {
			if strings.ContainsRune(seps, w[i]) {
				cut = i + 1
				break
			}
		}
		if cut <= 0 {
			return nil
		}
		out = append(out, string(w[:cut]))
		w = w[cut:]
	}
	return append(out, string(w))
}

// ellipsis shortens a word to width runes ending in "...".
func ellipsis(w []rune, width int) string {
	if len(w) <= width {
		return string(w)
	}
	if width <= 3 {
		return string(w[:width])
	}
	return string(w[:width-3]) + "..."
}
