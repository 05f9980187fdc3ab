package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/candor-bench/candor/internal/plan"
	"github.com/candor-bench/candor/internal/report"
)

// Reports check the published claims of the plans their results came
// from; they read result files only, so the plan reader is given here.
func init() { report.ReadPlan = readClaimsPlan }

func readClaimsPlan(file string) (*report.ClaimsPlan, error) {
	p, err := plan.ReadUnexpanded(file, func(string) string { return "" })
	if err != nil {
		return nil, err
	}
	return claimsPlan(p), nil
}

func claimsPlan(p *plan.Plan) *report.ClaimsPlan {
	return &report.ClaimsPlan{Name: p.Name, File: p.File, Output: p.Output, Published: p.Published, Cells: p.PublishedCells()}
}

// writeSite is `candor report --site DIR [--plan FILE...] PATH...`: the
// results under the paths (a path that holds none is skipped with a
// warning) and the plans named, as one static site.
func writeSite(env *Env, dir string, planGlobs, paths []string) error {
	warn := func(w string) { fmt.Fprintf(env.Stderr, "candor report: %s\n", w) }
	var inputs []report.Input
	for _, p := range paths {
		in, err := report.LoadWarn(warn, p)
		if errors.Is(err, report.ErrNoResults) {
			warn(fmt.Sprintf("%s holds no result; skipped", p))
			continue
		}
		if err != nil {
			return withCode(ExitUsage, err)
		}
		inputs = append(inputs, in...)
	}
	if err := report.Distinct(inputs); err != nil {
		return withCode(ExitUsage, err)
	}
	var plans []*report.ClaimsPlan
	for _, g := range planGlobs {
		files, err := filepath.Glob(g)
		if err != nil || len(files) == 0 {
			return usagef("--plan %s: no such plan file", g)
		}
		for _, f := range files {
			p, err := plan.ReadUnexpanded(f, env.Getenv)
			if err != nil {
				return withCode(ExitUsage, err)
			}
			plans = append(plans, claimsPlan(p))
		}
	}
	if len(inputs) == 0 && len(plans) == 0 {
		return usagef("--site: no result under %v and no --plan: nothing to publish", paths)
	}
	site, err := report.WriteSite(dir, inputs, plans)
	if errors.Is(err, report.ErrBundleExists) {
		return withCode(ExitUsage, err)
	}
	if err != nil {
		return withCode(ExitResultNotWritten, err)
	}
	var size int64
	for _, f := range site.Files {
		if st, err := os.Stat(filepath.Join(dir, f)); err == nil {
			size += st.Size()
		}
	}
	fmt.Fprintf(env.Stderr, "site: %s (%d experiment(s), %d claim(s): %s; %d file(s), %.1f MB); open %s\n", dir, len(site.Experiments),
		len(site.Claims), report.VerdictCounts(site.Claims), len(site.Files), float64(size)/1e6, filepath.Join(dir, "index.html"))
	return nil
}
