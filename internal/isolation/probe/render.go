package probe

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteText writes r as a table, a row per level and a column per anomaly
// (cells as Outcome.Cell; "-" at a level the target does not offer), then the error of every abort, once per level
// and code, so that a reader can see what the product said.
func WriteText(w io.Writer, r Report) error {
	fmt.Fprintf(w, "isolation probe of %s %s (%s)\n\n", r.Product, r.Version, r.Target)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "level\t%s\n", strings.Join(Anomalies, "\t"))
	for _, l := range r.Levels {
		cells := make([]string, 0, len(Anomalies))
		for _, a := range Anomalies {
			cell := "-"
			for _, o := range l.Outcomes {
				if o.Anomaly == a {
					cell = o.Cell()
				}
			}
			cells = append(cells, cell)
		}
		name := l.Level
		if !l.Offered {
			name += " (not offered)"
		}
		fmt.Fprintf(tw, "%s\t%s\n", name, strings.Join(cells, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nallowed: the anomaly happened; ok: prevented, nothing waited or failed; blocked: a step waited for another session's lock; abort CODE: a transaction failed with the server's error")
	for _, l := range r.Levels {
		seen := map[string]bool{}
		for _, o := range l.Outcomes {
			for _, a := range o.Aborts {
				if seen[a.Code] {
					continue
				}
				seen[a.Code] = true
				fmt.Fprintf(w, "  %s, %s: %s: %s (%s)\n", l.Level, o.Anomaly, a.Step, a.Message, a.Code)
			}
		}
		if !l.Offered {
			fmt.Fprintf(w, "  %s: %s\n", l.Level, l.Reason)
		}
	}
	_, err := fmt.Fprintln(w)
	return err
}
