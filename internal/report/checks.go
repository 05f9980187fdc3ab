package report

import (
	"fmt"
	"io"
	"strconv"

	"github.com/candor-bench/candor/internal/result"
)

// WriteChecks prints a run's checks of its data (--check, bank's
// invariant) and the run phases whose retries exceed their commits, after
// its summary; nothing when there are none.
func WriteChecks(w io.Writer, res *result.Result) {
	for i := range res.Phases {
		p := &res.Phases[i]
		for _, l := range result.RetriesOverCommits(p) {
			fmt.Fprintf(w, "NOTE %s: %s\n", phaseName(p), l)
		}
	}
	if len(res.Checks) == 0 {
		return
	}
	fmt.Fprintln(w, "\nchecks of the data:")
	for _, c := range res.Checks {
		fmt.Fprintln(w, "  "+c.String())
	}
}

// buildChecksSection lists every input's checks of its data, and the run
// phases whose retries exceed their commits.
func buildChecksSection(d *document, m *Model) {
	t := &table{Caption: "Checks of the data each run left (--check; docs/CHECKS.md)",
		Head: []string{"#", "result", "check", "when", "verdict", "offending", "detail"}, Right: []bool{true, false, false, false, false, true, false}}
	var notes []string
	for i, in := range m.Inputs {
		for _, c := range in.Result.Checks {
			verdict := "pass"
			if !c.Passed {
				verdict = "FAIL"
			}
			t.Rows = append(t.Rows, []string{strconv.Itoa(i + 1), in.Path, c.Name, c.When, verdict, strconv.FormatInt(c.Offending, 10), c.Detail})
		}
		for pi := range in.Result.Phases {
			p := &in.Result.Phases[pi]
			for _, l := range result.RetriesOverCommits(p) {
				notes = append(notes, fmt.Sprintf("#%d %s %s: %s", i+1, in.Path, phaseName(p), l))
			}
		}
	}
	if len(t.Rows) == 0 && len(notes) == 0 {
		return
	}
	d.heading(2, "Checks")
	d.table(t)
	d.list(notes)
}
