package report

import (
	"fmt"
	"strings"

	"github.com/candor-bench/candor/internal/audit"
)

// auditInputs converts report inputs for the audit.
func auditInputs(inputs []Input) []audit.Input {
	out := make([]audit.Input, len(inputs))
	for i, in := range inputs {
		out[i] = audit.Input{Name: in.Path, Result: in.Result}
	}
	return out
}

// Audit audits the inputs of a report, grouped into configurations.
func Audit(inputs []Input) *audit.Report { return audit.Results(auditInputs(inputs)) }

// AuditSides audits a comparison: A's files against B's.
func (c *Comparison) Audit() *audit.Report {
	return audit.Sides([]audit.Side{
		{Label: c.A.Name, Inputs: auditInputs(c.A.Inputs)},
		{Label: c.B.Name, Inputs: auditInputs(c.B.Inputs)},
	})
}

// buildAuditSection puts the fairness audit at the top of a document: its
// summary, the sides when there are several, and one row per finding.
func buildAuditSection(d *document, rep *audit.Report) {
	d.heading(2, "Fairness audit")
	d.para("%s (rules: docs/AUDIT.md; an error makes the comparison unfair, a warning weakens it).", upperFirst(rep.Summary()))
	var items []string
	for _, s := range rep.Sides {
		if len(s.Inputs) < 2 {
			continue // a side of one file is labelled by its name
		}
		var files []string
		for _, in := range s.Inputs {
			files = append(files, in.Name)
		}
		items = append(items, s.Label+": "+strings.Join(files, ", "))
	}
	d.list(items)
	// Errors first and always shown; HTML folds warnings and notes so that
	// the report's figures stay near the top.
	errs := &table{Head: []string{"severity", "rule", "finding", "fix"}, Keep: []bool{true, true, false, false}}
	rest := &table{Head: errs.Head, Keep: errs.Keep}
	for _, f := range rep.Findings {
		row := []string{string(f.Severity), f.Rule, f.Text, f.Fix}
		if f.Severity == audit.Error {
			errs.Rows = append(errs.Rows, row)
		} else {
			rest.Rows = append(rest.Rows, row)
		}
	}
	d.table(errs)
	if n := len(rest.Rows); n > 0 {
		rest.Fold = fmt.Sprintf("%d warning(s) and %d note(s)", rep.Count(audit.Warning), rep.Count(audit.Note))
	}
	d.table(rest)
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
