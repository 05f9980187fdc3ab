package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// FigureSink stores figure n's SVG and returns the link the Markdown uses
// for it (a file name beside the .md).
type FigureSink func(n int, svg []byte) (link string, err error)

// Markdown writes the report as Markdown. Charts are drawn and passed to
// figs, and linked as images; with figs nil they are left out and the report
// says how to get them.
func Markdown(w io.Writer, m *Model, figs FigureSink) error {
	return writeMarkdown(w, buildDocument(m), figs)
}

func writeMarkdown(w io.Writer, d *document, figs FigureSink) error {
	var svgs [][]byte
	var errs []error
	if figs != nil {
		svgs, errs = drawAll(d.Figures)
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# %s\n", mdText(d.Title))
	if figs == nil && len(d.Figures) > 0 {
		fmt.Fprintf(bw, "\n_%d charts are left out: write the report to a file (`candor report ... -o report.md`) to get them as SVG files beside it, or use `-o report.html`._\n", len(d.Figures))
	}
	for _, b := range d.Blocks {
		if b.FigOnly && figs == nil {
			continue
		}
		switch b.Kind {
		case bHeading:
			fmt.Fprintf(bw, "\n%s %s\n", strings.Repeat("#", b.Level), mdText(b.Text))
		case bPara:
			fmt.Fprintf(bw, "\n%s\n", mdText(b.Text))
		case bList:
			bw.WriteString("\n")
			for _, it := range b.Items {
				fmt.Fprintf(bw, "- %s\n", mdText(it))
			}
		case bTable:
			mdTable(bw, b.Table)
		case bFigure:
			if figs == nil {
				continue
			}
			f := b.Figure
			title := fmt.Sprintf("Figure %d. %s", f.N, f.Title)
			if err := errs[f.N-1]; err != nil {
				fmt.Fprintf(bw, "\n**%s** — the chart could not be drawn: %s\n", mdText(title), mdText(err.Error()))
				continue
			}
			link, err := figs(f.N, svgs[f.N-1])
			if err != nil {
				return err
			}
			fmt.Fprintf(bw, "\n![%s](%s)\n\n*%s*", mdText(title), link, mdText(title))
			if f.Caption != "" {
				fmt.Fprintf(bw, " %s", mdText(f.Caption))
			}
			bw.WriteString("\n")
		}
	}
	return bw.Flush()
}

func mdTable(bw *bufio.Writer, t *table) {
	if t.Caption != "" {
		fmt.Fprintf(bw, "\n**%s**\n", mdText(t.Caption))
	}
	bw.WriteString("\n|")
	for _, h := range t.Head {
		fmt.Fprintf(bw, " %s |", mdCell(h))
	}
	bw.WriteString("\n|")
	for i := range t.Head {
		if i < len(t.Right) && t.Right[i] {
			bw.WriteString("---:|")
		} else {
			bw.WriteString("---|")
		}
	}
	bw.WriteString("\n")
	for _, r := range t.Rows {
		bw.WriteString("|")
		for i := range t.Head {
			c := ""
			if i < len(r) {
				c = r[i]
			}
			fmt.Fprintf(bw, " %s |", mdCell(c))
		}
		bw.WriteString("\n")
	}
	if t.Note != "" {
		fmt.Fprintf(bw, "\n_%s_\n", mdText(t.Note))
	}
}

// mdText escapes the characters Markdown would read as markup.
var mdEscaper = strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "`", "\\`", "[", `\[`, "]", `\]`, "<", "&lt;", ">", "&gt;", "|", `\|`)

func mdText(s string) string { return mdEscaper.Replace(s) }

func mdCell(s string) string { return strings.ReplaceAll(mdText(s), "\n", " ") }
