package ycsb

import (
	"embed"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"

	"github.com/candor-bench/candor/internal/workload"
)

// builtin holds copies of the repository's workloads/workloada..f (a test
// keeps them identical), so the binary needs no files to run ycsb/a..f.
//
//go:embed builtin/workloada builtin/workloadb builtin/workloadc builtin/workloadd builtin/workloade builtin/workloadf
var builtin embed.FS

// Variants are the built-in core workloads.
var Variants = []string{"a", "b", "c", "d", "e", "f"}

var variantDescriptions = map[string]string{
	"a": "update heavy: 50% read, 50% update, zipfian",
	"b": "read mostly: 95% read, 5% update, zipfian",
	"c": "read only: 100% read, zipfian",
	"d": "read latest: 95% read, 5% insert, latest",
	"e": "short ranges: 95% scan (1-100 records), 5% insert, zipfian",
	"f": "read-modify-write: 50% read, 50% read-modify-write, zipfian",
}

func init() {
	workload.Register(workload.Entry{
		Name:                "ycsb",
		Variants:            Variants,
		VariantDescriptions: variantDescriptions,
		Description:         "YCSB core workloads (CoreWorkload; -P property files, -p overrides)",
		Reference:           Reference + " CoreWorkload",
		New: func(variant string, files []string, props []string) (workload.Workload, error) {
			return New(variant, files, props)
		},
	})
}

// New builds a YCSB workload. Properties are layered, later ones winning:
// CoreWorkload's defaults (with recordcount=DefaultRecordCount), then the
// built-in workload<variant> file when variant is "a".."f", then the property
// files in order (-P), then the key=value overrides in order (-p). Every
// problem found — unreadable or malformed files, bad overrides, invalid
// values — is returned at once (errors.Join).
func New(variant string, files []string, overrides []string) (*Workload, error) {
	w := &Workload{name: "ycsb"}
	w.baseline.Store(-1)
	props := map[string]Property{}
	var sources []Source
	var errs []error
	apply := func(ps []Property) {
		for _, p := range ps {
			props[p.Key] = p
		}
	}
	if variant != "" {
		name := "workload" + variant
		data, err := builtin.ReadFile("builtin/" + name)
		if err != nil {
			return nil, fmt.Errorf("%w \"ycsb/%s\": valid variants: a, b, c, d, e, f", workload.ErrUnknown, variant)
		}
		ps, err := ParseProperties("workloads/"+name, data)
		if err != nil {
			return nil, fmt.Errorf("ycsb: built-in %s: %w", name, err) // a test keeps this from happening
		}
		apply(ps)
		sources = append(sources, fileSource("builtin", "workloads/"+name, data))
		w.name = "ycsb/" + variant
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			errs = append(errs, fmt.Errorf("property file: %w", err))
			continue
		}
		sources = append(sources, fileSource("file", f, data))
		text, err := workload.PropertyText(f, data)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		ps, err := ParseProperties(f, text)
		if err != nil {
			errs = append(errs, err)
		}
		apply(ps)
	}
	for _, s := range overrides {
		p, err := ParseOverride(s)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		apply([]Property{p})
		sources = append(sources, Source{Kind: "override", Name: p.Key})
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("ycsb: %w", errors.Join(errs...))
	}
	if _, set := props["recordcount"]; !set {
		sources = append([]Source{{Kind: "default", Name: "recordcount=" + strconv.Itoa(DefaultRecordCount)}}, sources...)
	}
	opts, ignored, notes, err := resolve(props)
	if err != nil {
		return nil, fmt.Errorf("ycsb: invalid properties:\n%w", err)
	}
	opts.Sources = sources
	w.opts = opts
	w.ignored = ignored
	w.warnings = notes
	if u := unknownKeys(props); u != "" {
		w.warnings = append(w.warnings, u)
	}
	if n := weightsNote(&opts); n != "" {
		w.warnings = append(w.warnings, n)
	}
	return w, nil
}

// weightsNote says, once, that operation proportions that do not add up to
// 1 are taken as weights, as YCSB takes them (readproportion=2 with
// updateproportion=0.5 is 80% reads): a typo is then no surprise.
func weightsNote(o *Options) string {
	sum := o.ReadProportion + o.UpdateProportion + o.InsertProportion + o.ScanProportion + o.ReadModifyWriteProportion
	if sum <= 0 || math.Abs(sum-1) < 1e-9 {
		return ""
	}
	return fmt.Sprintf("note: the operation proportions add up to %g, not 1: they are taken as weights, as YCSB takes them "+
		"(read %.1f%%, update %.1f%%, insert %.1f%%, scan %.1f%%, read-modify-write %.1f%%)", sum,
		100*o.ReadProportion/sum, 100*o.UpdateProportion/sum, 100*o.InsertProportion/sum, 100*o.ScanProportion/sum, 100*o.ReadModifyWriteProportion/sum)
}
