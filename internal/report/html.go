package report

import (
	"bufio"
	"bytes"
	"fmt"
	"html"
	"io"
	"regexp"
	"runtime"
	"sync"
)

// HTML writes the report as one self-contained HTML file: inline CSS,
// charts as inline SVG, no script and no reference to anything outside the
// file, so it opens offline and can be mailed or archived as is.
func HTML(w io.Writer, m *Model) error { return writeHTML(w, buildDocument(m)) }

func writeHTML(w io.Writer, d *document) error {
	svgs, errs := drawAll(d.Figures)
	bw := bufio.NewWriter(w)
	esc := html.EscapeString
	fmt.Fprintf(bw, `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>%s</title>
<style>%s</style>
</head>
<body>
<main>
<h1>%s</h1>
`, esc(d.Title), css, esc(d.Title))
	for _, b := range d.Blocks {
		switch b.Kind {
		case bHeading:
			fmt.Fprintf(bw, "<h%d>%s</h%d>\n", b.Level, esc(b.Text), b.Level)
		case bPara:
			fmt.Fprintf(bw, "<p>%s</p>\n", esc(b.Text))
		case bList:
			bw.WriteString("<ul>\n")
			for _, it := range b.Items {
				fmt.Fprintf(bw, "<li>%s</li>\n", esc(it))
			}
			bw.WriteString("</ul>\n")
		case bTable:
			if b.Table.Fold != "" {
				fmt.Fprintf(bw, "<details><summary>%s</summary>\n", esc(b.Table.Fold))
			}
			htmlTable(bw, b.Table)
			if b.Table.Fold != "" {
				bw.WriteString("</details>\n")
			}
		case bFigure:
			f := b.Figure
			title := fmt.Sprintf("Figure %d. %s", f.N, f.Title)
			fmt.Fprintf(bw, "<section class=\"figure\" id=\"fig-%d\">\n", f.N)
			open := ""
			if f.Collapsed {
				fmt.Fprintf(bw, "<details><summary>%s</summary>\n", esc(title))
			} else {
				fmt.Fprintf(bw, "<h4>%s</h4>\n", esc(title))
				open = "x"
			}
			if err := errs[f.N-1]; err != nil {
				fmt.Fprintf(bw, "<p class=\"err\">The chart could not be drawn: %s</p>\n", esc(err.Error()))
			} else {
				bw.Write(inlineSVG(svgs[f.N-1]))
			}
			if f.Caption != "" {
				fmt.Fprintf(bw, "<p class=\"caption\">%s</p>\n", esc(f.Caption))
			}
			if open == "" {
				bw.WriteString("</details>\n")
			}
			bw.WriteString("</section>\n")
		}
	}
	bw.WriteString("</main>\n</body>\n</html>\n")
	return bw.Flush()
}

const css = `
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Liberation Sans",Arial,sans-serif;margin:0;background:#fff;color:#1a1a1a}
main{max-width:1100px;margin:0 auto;padding:1rem 1.5rem 3rem}
h1{font-size:1.7rem;border-bottom:2px solid #333;padding-bottom:.3rem}
h2{font-size:1.35rem;margin-top:2.2rem;border-bottom:1px solid #bbb;padding-bottom:.2rem}
h3{font-size:1.1rem;margin-top:1.6rem}
h4{font-size:.95rem;margin:.2rem 0 .4rem}
table{border-collapse:collapse;margin:.4rem 0 .3rem;font-size:.85rem;font-variant-numeric:tabular-nums}
caption{text-align:left;font-weight:600;padding:.2rem 0}
th,td{border:1px solid #ccc;padding:.2rem .5rem;vertical-align:top}
th{background:#f0f0f0}
td.r,th.r{text-align:right;white-space:nowrap}
tbody tr:nth-child(even){background:#fafafa}
p.note{font-size:.8rem;color:#555;margin:.1rem 0 1rem}
section.figure{margin:1.2rem 0;padding:.5rem;border:1px solid #e2e2e2;border-radius:4px}
section.figure svg{max-width:100%;height:auto;display:block}
p.caption{font-size:.8rem;color:#555;margin:.3rem 0 0}
p.err{color:#a00}
summary{cursor:pointer;font-weight:600;font-size:.9rem}
li{margin:.2rem 0}
`

func htmlTable(bw *bufio.Writer, t *table) {
	esc := html.EscapeString
	bw.WriteString("<table>\n")
	if t.Caption != "" {
		fmt.Fprintf(bw, "<caption>%s</caption>\n", esc(t.Caption))
	}
	right := func(i int) string {
		if i < len(t.Right) && t.Right[i] {
			return ` class="r"`
		}
		return ""
	}
	bw.WriteString("<thead><tr>")
	for i, h := range t.Head {
		fmt.Fprintf(bw, "<th%s>%s</th>", right(i), esc(h))
	}
	bw.WriteString("</tr></thead>\n<tbody>\n")
	for _, r := range t.Rows {
		bw.WriteString("<tr>")
		for i := range t.Head {
			c := ""
			if i < len(r) {
				c = r[i]
			}
			fmt.Fprintf(bw, "<td%s>%s</td>", right(i), esc(c))
		}
		bw.WriteString("</tr>\n")
	}
	bw.WriteString("</tbody>\n</table>\n")
	if t.Note != "" {
		fmt.Fprintf(bw, "<p class=\"note\">%s</p>\n", esc(t.Note))
	}
}

var (
	xmlDecl   = regexp.MustCompile(`(?s)^\s*<\?xml[^>]*\?>\s*(<!--.*?-->\s*)?`)
	xlinkAttr = regexp.MustCompile(`\s+xmlns:xlink="[^"]*"`)
)

// inlineSVG prepares a standalone SVG document for embedding in HTML: the
// XML declaration and generator comment go, and so does the xlink namespace
// (the charts link nothing), leaving the SVG namespace as the only URL.
func inlineSVG(svg []byte) []byte {
	svg = xmlDecl.ReplaceAll(svg, nil)
	svg = xlinkAttr.ReplaceAll(svg, nil)
	return bytes.TrimSpace(svg)
}

// drawAll draws the figures, several at a time. Each figure reads its own
// data (a figure's operation statistics belong to it alone), so they can be
// drawn concurrently.
func drawAll(figs []*figure) ([][]byte, []error) {
	svgs := make([][]byte, len(figs))
	errs := make([]error, len(figs))
	workers := min(runtime.GOMAXPROCS(0), len(figs))
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				svgs[i], errs[i] = drawSafely(figs[i])
			}
		}()
	}
	for i := range figs {
		next <- i
	}
	close(next)
	wg.Wait()
	return svgs, errs
}

// drawSafely draws one figure; a panic while drawing (gonum/plot on
// degenerate data, a corrupt histogram in a result file) becomes the
// figure's error instead of ending the process from a goroutine.
func drawSafely(f *figure) (svg []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			svg, err = nil, fmt.Errorf("figure %d: %v", f.N, r)
		}
	}()
	return f.draw()
}
