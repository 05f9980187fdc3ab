// Package audit checks results meant to be compared against written fairness
// rules (docs/AUDIT.md): durability, isolation and consistency that are not
// the same thing on both sides, data that fits in one server's memory and
// not the other's, runs too short or still trending, a client that was the
// bottleneck, an open loop that fell behind, single runs, different candor
// builds or options, reused tables. Each finding has a severity, one line
// saying what was found and the fix.
//
// The audit reads result files only (docs/ARCHITECTURE.md). A rule whose fields a
// result lacks says "not recorded" and never guesses.
package audit

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/candor-bench/candor/internal/result"
)

// Severity of a finding.
type Severity string

// Severities, worst first. An error makes the comparison unfair (candor
// audit exits 1); a warning weakens it; a note is worth knowing.
const (
	Error   Severity = "error"
	Warning Severity = "warning"
	Note    Severity = "note"
)

func (s Severity) rank() int {
	switch s {
	case Error:
		return 0
	case Warning:
		return 1
	}
	return 2
}

// Finding is one rule's verdict on the audited results.
type Finding struct {
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	// Text is the finding in one line, naming the sides it concerns.
	Text string `json:"finding"`
	// Fix says how to make the comparison fair.
	Fix string `json:"fix"`
}

// Input is one result and the name it is shown under (its path).
type Input struct {
	Name   string
	Result *result.Result
}

// Side is one configuration: the results of the same workload, options,
// run settings and target, which are repetitions of each other.
type Side struct {
	Label  string
	Inputs []Input
}

// Report is the audit of a set of sides.
type Report struct {
	Sides    []Side
	Findings []Finding
}

// HasErrors reports whether an error-level finding exists.
func (r *Report) HasErrors() bool {
	for _, f := range r.Findings {
		if f.Severity == Error {
			return true
		}
	}
	return false
}

// Count returns the number of findings of a severity.
func (r *Report) Count(s Severity) int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity == s {
			n++
		}
	}
	return n
}

// Summary is one line: how many findings of each severity.
func (r *Report) Summary() string {
	if len(r.Findings) == 0 {
		return fmt.Sprintf("no findings over %s", plural(len(r.Sides), "configuration"))
	}
	return fmt.Sprintf("%d error(s), %d warning(s), %d note(s) over %s", r.Count(Error), r.Count(Warning), r.Count(Note),
		plural(len(r.Sides), "configuration"))
}

// Results audits results: they are grouped into sides (one per
// configuration, see Group) and audited as Sides does.
func Results(inputs []Input) *Report { return Sides(Group(inputs)) }

// Sides audits the given sides: rules over each result, over each side
// (repetitions) and across the sides.
func Sides(sides []Side) *Report {
	r := &Report{Sides: sides}
	axes := planAxes(sides)
	for _, rule := range rules {
		if setupRules[rule.ID] {
			if fs, ok := byPlanTarget(rule.check, sides, axes); ok {
				r.Findings = append(r.Findings, fs...)
				continue
			}
		}
		r.Findings = append(r.Findings, rule.check(sides)...)
	}
	sort.SliceStable(r.Findings, func(i, j int) bool {
		return r.Findings[i].Severity.rank() < r.Findings[j].Severity.rank()
	})
	return r
}

// Group puts results of one configuration together (the same workload,
// options, run settings, target, product, version and settings; the
// target is a plan cell's target name, else its URL: a cluster a plan
// started for each cell has new ports each time) and
// labels each group by its first file's name, with "+N" for the others.
func Group(inputs []Input) []Side {
	var sides []Side
	index := map[string]int{}
	for _, in := range inputs {
		k := configKey(in.Result)
		i, ok := index[k]
		if !ok {
			i = len(sides)
			index[k] = i
			sides = append(sides, Side{})
		}
		sides[i].Inputs = append(sides[i].Inputs, in)
	}
	names := map[string]int{}
	for i := range sides {
		l := filepath.Base(sides[i].Inputs[0].Name)
		if n := len(sides[i].Inputs); n > 1 {
			l += fmt.Sprintf(" (+%d)", n-1)
		}
		names[l]++
		if names[l] > 1 {
			l += fmt.Sprintf(" #%d", names[l])
		}
		sides[i].Label = l
	}
	return sides
}

func configKey(r *result.Result) string {
	opts, _ := json.Marshal(r.Workload.Options)
	run := r.Run
	run.ReportInterval = 0
	runJSON, _ := json.Marshal(run)
	settings, _ := json.Marshal(r.Target.Settings) // map keys are sorted
	return strings.Join([]string{r.Workload.Name, string(opts), string(runJSON), planTarget(r), r.Target.Product, r.Target.Version, string(settings)}, "\x00")
}

// WriteText prints the findings, one block each: severity, rule and
// finding, then the fix indented.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Fairness audit: %s\n", r.Summary())
	for _, s := range r.Sides {
		var files []string
		for _, in := range s.Inputs {
			files = append(files, in.Name)
		}
		if len(s.Inputs) > 1 {
			fmt.Fprintf(&b, "  side %s: %s\n", s.Label, strings.Join(files, ", "))
		}
	}
	for _, f := range r.Findings {
		fmt.Fprintf(&b, "%-7s %s: %s\n        fix: %s\n", strings.ToUpper(string(f.Severity)), f.Rule, f.Text, f.Fix)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// notRecorded is what a rule says of a field a result lacks.
const notRecorded = "not recorded"

// runPhases returns a result's run phases (load phases left out).
func runPhases(r *result.Result) []*result.Phase {
	var out []*result.Phase
	for i := range r.Phases {
		if r.Phases[i].Name != "load" {
			out = append(out, &r.Phases[i])
		}
	}
	return out
}

// sideValues describes each side by a value and lists the sides per
// distinct value, in first-seen order: "value (side, side)".
func sideValues(sides []Side, value func(Side) string) (distinct []string, text string) {
	by := map[string][]string{}
	for _, s := range sides {
		v := value(s)
		if _, ok := by[v]; !ok {
			distinct = append(distinct, v)
		}
		by[v] = append(by[v], s.Label)
	}
	var parts []string
	for _, v := range distinct {
		parts = append(parts, fmt.Sprintf("%s: %s", strings.Join(by[v], ", "), v))
	}
	return distinct, strings.Join(parts, "; ")
}
