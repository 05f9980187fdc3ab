package report

import (
	"bytes"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/candor-bench/candor/internal/published"
	"github.com/candor-bench/candor/internal/result"
)

// NotRunFile is the file in a plan's results directory that says why the
// plan did not run on this machine (written by scripts/experiments.sh);
// its first line is the reason.
const NotRunFile = "NOT-RUN"

// Site is what WriteSite wrote.
type Site struct {
	Files       []string // relative to the site's directory
	Experiments []SiteExperiment
	Claims      []*Verdict
}

// SiteExperiment is one experiment (plan) of a site.
type SiteExperiment struct {
	Name, Dir string   // Dir is the experiment's folder in the site ("" when it did not run)
	Source    string   // the published source: title, author, date (SourceText)
	Slips     []string // the source's slips no single claim uses
	Plan      string   // the plan file, in the site ("" when not bundled)
	Results   int
	Audit     string // the audit's summary line
	NotRun    string // why the plan has no results here
	Claims    []*Verdict
}

// WriteSite writes a static site to dir (new or empty): index.html with
// one row per published claim, and per experiment a folder holding its
// bundle (report.html with the claims, the audit and the tables; audit.txt;
// the results, without their interval side files, whose intervals the
// results hold too; the plan; README.md with the command that reruns them).
// plans are plans whose claims belong on the index even without results
// (their verdict is "not run here", with the reason their NOT-RUN file
// gives, unless the claim is untestable anyway). The site opens from disk: relative links, inline
// CSS and SVG, no script.
func WriteSite(dir string, inputs []Input, plans []*ClaimsPlan) (*Site, error) {
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("%w: %s holds %d entries; name a new directory", ErrBundleExists, dir, len(entries))
	}
	groups := map[string][]Input{}
	var names []string
	for _, in := range inputs {
		name := "results"
		if in.Result.Plan != nil && in.Result.Plan.Name != "" {
			name = in.Result.Plan.Name
		}
		if groups[name] == nil {
			names = append(names, name)
		}
		groups[name] = append(groups[name], in)
	}
	byName := map[string]*ClaimsPlan{}
	for _, p := range plans {
		if byName[p.Name] == nil && groups[p.Name] == nil {
			names = append(names, p.Name)
		}
		byName[p.Name] = p
	}
	sort.Slice(names, func(i, j int) bool { return naturalLess(names[i], names[j]) })
	site := &Site{}
	used := map[string]bool{}
	for _, name := range names {
		e := SiteExperiment{Name: name}
		if p := byName[name]; p != nil && p.Published != nil {
			e.Source, e.Slips = SourceText(p.Published.Source), p.Published.Slips
		}
		group := groups[name]
		if len(group) == 0 {
			p := byName[name]
			e.NotRun = notRunReason(p)
			if p.Published != nil {
				e.Claims = CheckClaims(p, nil)
				for _, v := range e.Claims {
					if v.Verdict != Untestable && v.Claim.Kind != published.NotRun {
						v.Verdict, v.Reason = NotRun, "the plan did not run here: "+e.NotRun
					}
				}
			}
			site.Experiments = append(site.Experiments, e)
			site.Claims = append(site.Claims, e.Claims...)
			continue
		}
		e.Dir = siteName(name, used)
		files, err := writeBundle(filepath.Join(dir, e.Dir), group, false)
		for _, f := range files {
			site.Files = append(site.Files, filepath.ToSlash(filepath.Join(e.Dir, f)))
			if strings.HasPrefix(f, "plan/") {
				e.Plan = filepath.ToSlash(filepath.Join(e.Dir, f))
			}
		}
		if err != nil {
			return site, err
		}
		e.Results = len(group)
		e.Audit = Audit(group).Summary()
		ps, vs, _ := claimsOf(group)
		e.Claims = vs
		if len(ps) > 0 && e.Source == "" {
			e.Source, e.Slips = SourceText(ps[0].Published.Source), ps[0].Published.Slips
		}
		if len(ps) == 0 && byName[name] != nil && byName[name].Published != nil {
			e.Claims = CheckClaims(byName[name], group)
		}
		site.Experiments = append(site.Experiments, e)
		site.Claims = append(site.Claims, e.Claims...)
	}
	var buf bytes.Buffer
	if err := siteIndex.Execute(&buf, site); err != nil {
		return site, fmt.Errorf("site: render index: %w", err)
	}
	if err := result.WriteFileAtomic(filepath.Join(dir, "index.html"), buf.Bytes()); err != nil {
		return site, err
	}
	site.Files = append(site.Files, "index.html")
	return site, nil
}

// notRunReason is the first line of the plan's NOT-RUN file, else a
// generic reason.
func notRunReason(p *ClaimsPlan) string {
	if data, err := os.ReadFile(filepath.Join(p.Output, NotRunFile)); err == nil {
		if l := strings.TrimSpace(firstLine(string(data))); l != "" {
			return l
		}
	}
	return "no results (run it with: candor plan run " + p.File + ")"
}

var siteUnsafe = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

func siteName(name string, used map[string]bool) string {
	base := strings.Trim(siteUnsafe.ReplaceAllString(name, "-"), "-.")
	if base == "" {
		base = "results"
	}
	n := base
	for i := 2; used[n]; i++ {
		n = fmt.Sprintf("%s-%d", base, i)
	}
	used[n] = true
	return n
}

// VerdictClass is a verdict's CSS class on the site.
func VerdictClass(v string) string {
	switch v {
	case Reproduced, MechanismSeen:
		return "ok"
	case NotReproduced, MechanismNotSeen:
		return "no"
	case Untestable, NotRun:
		return "na"
	}
	return "open"
}

var siteIndex = template.Must(template.New("index").Funcs(template.FuncMap{"class": VerdictClass, "counts": VerdictCounts, "said": SaidText}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>candor: published claims, checked</title>
<style>
body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#222}
main{max-width:1200px;margin:0 auto;padding:1em 1.5em}
table{border-collapse:collapse;width:100%;margin:1em 0}
th,td{border:1px solid #ccc;padding:.35em .5em;vertical-align:top;text-align:left}
th{background:#f3f3f3}
td.v{font-weight:600;white-space:nowrap}
td.v small{white-space:normal;font-weight:normal}
small.loaded{color:#8a4b00}
.ok{background:#e3f4e3}.no{background:#fbe3e3}.na{background:#eee}.open{background:#fff4d6}
small{color:#555}
</style>
</head>
<body>
<main>
<h1>Published claims, checked</h1>
<p>{{len .Claims}} claim(s) of {{len .Experiments}} experiment(s): {{counts .Claims}}. Each claim is stated as what one machine can check:
a ratio or an order between cells of the experiment's plan, measured with its 95% confidence interval.
A <i>direct</i> claim is the source's claim about the product that runs here, checked on it (reproduced or not);
an <i>analog</i> checks the same mechanism on another product (mechanism seen here or not, never the source's claim reproduced);
an <i>untestable</i> claim says why, a <i>not-run</i> one what it needs. Words in quotation marks are the source's own.
Absolute figures measured on other hardware are not compared. A claim is called only with the repetitions it states
it needs (else <i>too few repetitions</i>, with how many it has), and a note beside a verdict says when its cells ran on a
loaded machine: a phase that began with a 1-minute load average above the cores, or lost over 5% of the CPU to the hypervisor.</p>
<table>
<tr><th>experiment</th><th>claim</th><th>checked here</th><th>published</th><th>measured (95% CI)</th><th>verdict</th></tr>
{{range .Claims}}<tr class="{{class .Verdict}}"><td>{{.Plan}}</td><td><b>{{.Claim.ID}}</b> <i>{{.Claim.Kind}}{{if .Claim.About}}, about {{.Claim.About}}{{end}}</i>: {{said .Claim}}{{if .Claim.Figures}}<br><small>published figures: {{range $i, $f := .Claim.Figures}}{{if $i}}; {{end}}{{$f}}{{end}}</small>{{end}}{{if .Claim.Conditions}}<br><small>conditions: {{.Claim.Conditions}}</small>{{end}}{{range .Claim.Slips}}<br><small>the source's slip: {{.}}</small>{{end}}</td>
<td>{{or .Checked "–"}}</td><td>{{.Published}}{{if .Words}}<br><small>{{.Words}}</small>{{end}}</td><td>{{.Measured}}</td><td class="v">{{.Verdict}}{{if .Reason}}:<br><small>{{.Reason}}</small>{{end}}{{if .Loaded}}<br><small class="loaded">{{.Loaded}}</small>{{end}}</td></tr>
{{end}}</table>
<h2>Experiments</h2>
<ul>
{{range .Experiments}}<li><b>{{.Name}}</b>{{if .Source}} (source: {{.Source}}){{end}}: {{if .Dir}}<a href="{{.Dir}}/report.html">report</a> ({{.Results}} result file(s)),
<a href="{{.Dir}}/audit.txt">audit</a> ({{.Audit}}), <a href="{{.Dir}}/README.md">how to rerun it</a>{{if .Plan}}, <a href="{{.Plan}}">the plan</a>{{end}},
<a href="{{.Dir}}/results/">results</a>{{else}}not run here: {{.NotRun}}{{end}}{{range .Slips}}<br><small>the source's slip: {{.}}</small>{{end}}</li>
{{end}}</ul>
<p><small>Written by candor report --site. The pages need no server and no network.</small></p>
</main>
</body>
</html>
`))
