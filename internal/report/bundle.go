package report

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/candor-bench/candor/internal/result"
)

// ErrBundleExists is returned when a bundle's directory holds files
// already: a bundle never overwrites anything.
var ErrBundleExists = errors.New("bundle directory is not empty")

// BundleReadme is the name of a bundle's README.
const BundleReadme = "README.md"

// RerunCommand is the one command that reruns a bundle's results, run in
// the bundle's directory.
func RerunCommand(results []string) string {
	if len(results) == 1 {
		return "candor rerun " + results[0]
	}
	return `for f in results/*.json; do candor rerun "$f"; done`
}

// WriteBundle writes a directory a person can publish: report.html, the
// result files (with their interval side files) under results/, the plan
// files the results name when they are found, the audit (audit.txt) and a
// README with the command that reruns them. dir must be absent or empty.
// It returns the files written, relative to dir.
func WriteBundle(dir string, inputs []Input) ([]string, error) { return writeBundle(dir, inputs, true) }

// writeBundle is WriteBundle; without sides it leaves out the results'
// interval side files (a site's bundles: every interval is in its result
// too, and the side files would double a site's size).
func writeBundle(dir string, inputs []Input, sides bool) ([]string, error) {
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("%w: %s holds %d entries; name a new directory", ErrBundleExists, dir, len(entries))
	}
	var written []string
	write := func(rel string, data []byte) error {
		if err := result.WriteFileAtomic(filepath.Join(dir, rel), data); err != nil {
			return err
		}
		written = append(written, rel)
		return nil
	}
	copyFile := func(src, rel string) error {
		data, err := os.ReadFile(src)
		if err != nil {
			return fmt.Errorf("bundle: %w", err)
		}
		return write(rel, data)
	}
	// Results, each under a name of its own.
	taken := map[string]bool{}
	bundled := make([]Input, len(inputs))
	var names []string
	var plans []string
	var missingPlans []string
	seenPlan := map[string]bool{}
	for i, in := range inputs {
		base := filepath.Base(in.Path)
		if !strings.HasSuffix(base, ".json") {
			base += ".json"
		}
		name := base
		for n := 2; taken[name]; n++ {
			name = fmt.Sprintf("%s-%d.json", strings.TrimSuffix(base, ".json"), n)
		}
		taken[name] = true
		rel := filepath.ToSlash(filepath.Join("results", name))
		if err := copyFile(in.Path, rel); err != nil {
			return written, err
		}
		if side := result.IntervalsPath(in.Path); sides && side != in.Path {
			if _, err := os.Stat(side); err == nil {
				if err := copyFile(side, result.IntervalsPath(rel)); err != nil {
					return written, err
				}
			}
		}
		bundled[i] = Input{Path: rel, Result: in.Result}
		names = append(names, rel)
		if p := in.Result.Plan; p != nil && p.File != "" && !seenPlan[p.File] {
			seenPlan[p.File] = true
			rel := filepath.ToSlash(filepath.Join("plan", filepath.Base(p.File)))
			if err := copyFile(p.File, rel); err != nil {
				missingPlans = append(missingPlans, p.File)
			} else {
				plans = append(plans, rel)
			}
		}
	}
	m := build(bundled, inputs)
	var buf bytes.Buffer
	if err := HTML(&buf, m); err != nil {
		return written, fmt.Errorf("bundle: render report: %w", err)
	}
	if err := write("report.html", buf.Bytes()); err != nil {
		return written, err
	}
	rep := Audit(bundled)
	buf.Reset()
	rep.WriteText(&buf)
	if err := write("audit.txt", buf.Bytes()); err != nil {
		return written, err
	}
	buf.Reset()
	fmt.Fprintf(&buf, "# candor results\n\n")
	fmt.Fprintf(&buf, "%d result file(s) of %s, with the report, the fairness audit and the command that reruns them.\n\n", len(inputs), workloadNames(m))
	fmt.Fprintf(&buf, "## Rerun\n\nWith [candor](https://github.com/candor-bench/candor) installed, in this directory:\n\n```\n%s\n```\n\n", RerunCommand(names))
	fmt.Fprintf(&buf, "`candor rerun` replays each run's recorded command line (workload, options, threads, duration, rate, warm-up, seed) "+
		"against the recorded target, or `--target URL`, and prints whether the rerun is the same, faster or slower, with the "+
		"95%% confidence interval and the audit of what differs between the two environments. Passwords are not recorded: "+
		"give them as PGPASSWORD (PostgreSQL wire) or MYSQL_PWD (MySQL wire).\n\n")
	fmt.Fprintf(&buf, "## How each result ran\n\nThe candor command line each result records (passwords masked), to run one again by hand:\n\n")
	for i, n := range names {
		if c := commandLine(inputs[i].Result); c != "" {
			fmt.Fprintf(&buf, "- `%s`: %s\n", n, codeSpan(c))
		} else {
			fmt.Fprintf(&buf, "- `%s`: no command line recorded (a merge of shards' results)\n", n)
		}
	}
	fmt.Fprintln(&buf)
	fmt.Fprintf(&buf, "## Contents\n\n- `report.html`: the report (open it in a browser; it works offline)\n- `audit.txt`: the fairness audit: %s\n", rep.Summary())
	for _, n := range names {
		fmt.Fprintf(&buf, "- `%s`\n", n)
	}
	for _, p := range plans {
		fmt.Fprintf(&buf, "- `%s`: the plan the results came from (`candor plan run %s` runs it all again)\n", p, p)
	}
	for _, p := range missingPlans {
		fmt.Fprintf(&buf, "- the plan %s named by the results was not found when the bundle was written\n", p)
	}
	if v := versions(inputs); v != "" {
		fmt.Fprintf(&buf, "\nWritten by candor %s.\n", v)
	}
	if err := write(BundleReadme, buf.Bytes()); err != nil {
		return written, err
	}
	return written, nil
}

func workloadNames(m *Model) string {
	var n []string
	for _, w := range m.Workloads {
		n = append(n, w.Name)
	}
	return strings.Join(n, ", ")
}

func versions(inputs []Input) string {
	seen := map[string]bool{}
	var out []string
	for _, in := range inputs {
		v := in.Result.Provenance.CandorVersion
		if v != "" && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return strings.Join(out, ", ")
}

// commandLine is the command line a result ran as, for a shell: the one its
// Spec renders as (spec_command), else, in a result written before results
// recorded it, the line as typed.
func commandLine(r *result.Result) string {
	args := r.SpecCommand
	if len(args) == 0 {
		args = r.Command
	}
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = shellWord(a)
	}
	return strings.Join(quoted, " ")
}

// shellWord quotes a for a POSIX shell when it needs it.
func shellWord(a string) string {
	if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") == "" {
		return a
	}
	return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
}

// codeSpan is s as Markdown code, fenced by more backticks than s holds in
// a row.
func codeSpan(s string) string {
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}
