package plan

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/candor-bench/candor/internal/workload"
)

// variantsAxis reads a matrix's variants: a list of mappings, each setting
// several parameters at once.
func variantsAxis(v *yaml.Node, add func(int, string, ...any)) Axis {
	ax := Axis{Name: VariantsAxis}
	for _, item := range v.Content {
		m := map[string]string{}
		if item.Kind != yaml.MappingNode || len(item.Content) == 0 {
			add(item.Line, "matrix variants: each variant is a mapping of parameters to values, e.g. {auto-inc: \"on\", sequence-cache: 1000}")
			continue
		}
		for i := 0; i+1 < len(item.Content); i += 2 {
			k, val := item.Content[i], item.Content[i+1]
			if val.Kind != yaml.ScalarNode {
				add(val.Line, "matrix variants: %s must be a single value", k.Value)
				continue
			}
			m[k.Value] = val.Value
		}
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(m)) {
			parts = append(parts, k+"="+m[k])
		}
		ax.Sets = append(ax.Sets, m)
		ax.Values = append(ax.Values, strings.Join(parts, ","))
	}
	return ax
}

// checkMatrix checks what variants set: no parameter both a variant's and
// an axis of its own, a target in every variant or in none, threads and
// targets as their axes take them, and no variant twice.
func (p *Plan) checkMatrix(line int, targetsKnown bool, add func(int, string, ...any)) {
	plain := map[string]bool{}
	for _, a := range p.Matrix {
		if a.Sets == nil {
			plain[a.Name] = true
		}
	}
	for _, a := range p.Matrix {
		if a.Sets == nil {
			continue
		}
		withTarget := 0
		seen := map[string]bool{}
		for i, set := range a.Sets {
			if seen[a.Values[i]] {
				add(line, "matrix variants: {%s} comes twice", a.Values[i])
			}
			seen[a.Values[i]] = true
			for k, v := range set {
				switch {
				case plain[k]:
					add(line, "matrix: %s is both an axis and set by variants; keep one of them", k)
				case k == "threads":
					if n, err := strconv.Atoi(v); err != nil || n < 1 {
						add(line, "matrix variants: threads %q is not a positive integer", v)
					}
				case k == "target":
					withTarget++
					if _, ok := p.Targets[v]; !ok && targetsKnown {
						add(line, "matrix variants: target %q is not defined in targets", v)
					}
				}
			}
		}
		if withTarget > 0 && withTarget < len(a.Sets) {
			add(line, "matrix variants: give a target in every variant or in none")
		}
	}
}

// sets says whether the matrix varies the parameter (an axis of its own or
// a variant's).
func (p *Plan) sets(name string) bool {
	for _, a := range p.Matrix {
		if a.Name == name && a.Sets == nil {
			return true
		}
		for _, s := range a.Sets {
			if _, ok := s[name]; ok {
				return true
			}
		}
	}
	return false
}

// targetVaries says whether the matrix names the targets (a target axis,
// or variants that set one): each cell then runs on its own target only.
func (p *Plan) targetVaries() bool { return p.sets("target") }

// checkIgnored refuses cells that are one configuration run twice: cells
// that differ only in options the matrix varies and that their workload
// ignores given the cells' other options (sysbench ignores sequence-cache
// with auto-inc=off). It builds each cell's workload as candor run would,
// without connecting; a workload this build does not know is left to
// candor run. One problem per group of such cells.
func (p *Plan) checkIgnored() []string {
	type group struct {
		ids     []string
		wl      string
		ignored []string
		other   string
	}
	groups := map[string]*group{}
	var order []string
	for _, c := range p.Cells() {
		entry, variant, err := workload.Lookup(c.Workload)
		if err != nil {
			continue
		}
		var props []string
		for _, k := range optionKeys(c) {
			if k != RepetitionAxis {
				props = append(props, k+"="+c.Params[k])
			}
		}
		w, err := entry.New(variant, p.Workloads[c.entry].Files, props)
		if err != nil {
			continue // candor run says what is wrong with the cell
		}
		var ignored []string
		drop := map[string]bool{}
		for _, k := range w.Ignored() {
			if p.sets(k) {
				ignored = append(ignored, k)
				drop[k] = true
			}
		}
		if len(ignored) == 0 {
			continue
		}
		sort.Strings(ignored)
		// The cell's configuration without the options it ignores.
		var key, other []string
		key = append(key, c.Workload, c.Target, c.Params["threads"])
		for _, k := range optionKeys(c) {
			if !drop[k] {
				key = append(key, k+"="+c.Params[k])
				if p.sets(k) {
					other = append(other, k+"="+c.Params[k])
				}
			}
		}
		k := strings.Join(key, "\x00")
		g := groups[k]
		if g == nil {
			g = &group{wl: c.Workload, ignored: ignored, other: strings.Join(other, ", ")}
			groups[k] = g
			order = append(order, k)
		}
		g.ids = append(g.ids, c.ID)
	}
	var out []string
	for _, k := range order {
		g := groups[k]
		if len(g.ids) < 2 {
			continue
		}
		with := ""
		if g.other != "" {
			with = " with " + g.other
		}
		out = append(out, fmt.Sprintf("cells %s differ only in %s, which %s ignores%s: they would run one configuration %d times as if they were different. "+
			"Write the matrix as a list of variants that set %s only where it is used (matrix: variants: [...], docs/PLANS.md)",
			strings.Join(g.ids, ", "), strings.Join(g.ignored, ", "), g.wl, with, len(g.ids), strings.Join(g.ignored, ", ")))
	}
	return out
}
