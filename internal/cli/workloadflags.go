package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/candor-bench/candor/internal/workload"
)

// addWorkloadFlags offers every workload's options as flags (--tables,
// --table-size, ...); underscores are accepted for dashes, as sysbench does.
func addWorkloadFlags(fl *pflag.FlagSet) {
	fl.SetNormalizeFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		return pflag.NormalizedName(strings.ReplaceAll(name, "_", "-"))
	})
	type use struct{ workload, usage, def string }
	uses := map[string][]use{}
	var order []string
	for _, e := range workload.Entries() {
		for _, o := range e.Options {
			if _, seen := uses[o.Name]; !seen {
				order = append(order, o.Name)
			}
			uses[o.Name] = append(uses[o.Name], use{e.Name, o.Usage, o.Default})
		}
	}
	for _, name := range order {
		if fl.Lookup(name) != nil {
			continue // a clash with a runner flag, caught by a test
		}
		var parts []string
		boolean := true
		for _, u := range uses[name] {
			part := fmt.Sprintf("(%s) %s", u.workload, u.usage)
			if u.def != "" {
				part += " [" + u.def + "]"
			}
			parts = append(parts, part)
			switch strings.ToLower(u.def) {
			case "true", "false", "on", "off":
			default:
				boolean = false
			}
		}
		fl.String(name, "", strings.Join(parts, "; "))
		if boolean {
			fl.Lookup(name).NoOptDefVal = "true" // --in-server alone means true
		}
	}
}

// workloadFlagProps turns the workload option flags that were set into
// name=value properties, refusing options the chosen workload does not have.
func workloadFlagProps(fs *pflag.FlagSet, name string) ([]string, error) {
	entry, _, err := workload.Lookup(name)
	if err != nil {
		return nil, withCode(ExitUsage, err)
	}
	own := map[string]bool{}
	for _, o := range entry.Options {
		own[o.Name] = true
	}
	all := map[string]string{} // option -> a workload that has it
	for _, e := range workload.Entries() {
		for _, o := range e.Options {
			all[o.Name] = e.Name
		}
	}
	var props []string
	var bad []string
	fs.Visit(func(f *pflag.Flag) {
		owner, isOption := all[f.Name]
		switch {
		case !isOption:
		case own[f.Name]:
			props = append(props, f.Name+"="+f.Value.String())
		default:
			bad = append(bad, fmt.Sprintf("--%s is an option of %s, not of %s", f.Name, owner, entry.Name))
		}
	})
	if len(bad) > 0 {
		return nil, usagef("%s", strings.Join(bad, "; "))
	}
	return props, nil
}

// resolveWorkload builds the workload from its name, files and properties,
// and says on stderr what the workload has to say about its input
// (workload.Warner: unknown property keys, ...).
func resolveWorkload(env *Env, name string, files, props []string) (workload.Workload, error) {
	entry, variant, err := workload.Lookup(name)
	if err != nil {
		return nil, withCode(ExitUsage, err)
	}
	w, err := entry.New(variant, files, props)
	if err != nil {
		if strings.HasPrefix(err.Error(), name+":") {
			return nil, withCode(ExitUsage, err) // the workload named itself
		}
		return nil, withCode(ExitUsage, fmt.Errorf("workload %s: %w", name, err))
	}
	if wn, ok := w.(workload.Warner); ok {
		for _, msg := range wn.Warnings() {
			fmt.Fprintf(env.Stderr, "candor: %s\n", msg)
		}
	}
	return w, nil
}
