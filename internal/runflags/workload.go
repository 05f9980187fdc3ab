package runflags

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/candor-bench/candor/internal/engine"
	"github.com/candor-bench/candor/internal/workload"
	"github.com/candor-bench/candor/internal/workload/sysbench"
)

// AddWorkloadOptions offers every workload's options as flags (--tables,
// --table-size, ...); underscores are accepted for dashes, as sysbench does.
// The flags are typed (an int option refuses "abc" as the command line is
// read) and hidden from the command's own flag list: a command's help shows
// the options of the workload it names (workloadHelp).
func AddWorkloadOptions(fl *pflag.FlagSet) {
	fl.SetNormalizeFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		return pflag.NormalizedName(strings.ReplaceAll(name, "_", "-"))
	})
	type use struct{ workload, usage, def, typ string }
	uses := map[string][]use{}
	var order []string
	for _, e := range workload.Entries() {
		for _, o := range e.Options {
			if _, seen := uses[o.Name]; !seen {
				order = append(order, o.Name)
			}
			uses[o.Name] = append(uses[o.Name], use{e.Name, o.Usage, o.Default, o.OptionType()})
		}
	}
	for _, name := range order {
		if fl.Lookup(name) != nil {
			continue // a clash with a runner flag, caught by a test
		}
		var parts []string
		typ := uses[name][0].typ
		for _, u := range uses[name] {
			part := fmt.Sprintf("(%s) %s", u.workload, u.usage)
			if u.def != "" {
				part += " [" + u.def + "]"
			}
			parts = append(parts, part)
			if u.typ != typ {
				typ = workload.OptionString // workloads disagree: each checks its own
			}
		}
		fl.Var(&optionValue{typ: typ}, name, strings.Join(parts, "; "))
		if typ == workload.OptionBool {
			fl.Lookup(name).NoOptDefVal = "true" // --in-server alone means true
		}
		fl.MarkHidden(name)
	}
}

// optionValue is a workload option flag's value: the text as given, which
// reaches the workload unchanged, checked against the option's type.
type optionValue struct {
	typ, text string
}

func (v *optionValue) String() string { return v.text }

// Type names the value in help: int, float, bool (shown without a name, as
// pflag shows booleans), duration or string.
func (v *optionValue) Type() string { return v.typ }

func (v *optionValue) Set(s string) error {
	var err error
	switch v.typ {
	case workload.OptionInt:
		if _, e := strconv.ParseInt(s, 10, 64); e != nil {
			err = errors.New("not an integer")
		}
	case workload.OptionFloat:
		if _, e := strconv.ParseFloat(s, 64); e != nil {
			err = errors.New("not a number")
		}
	case workload.OptionBool:
		_, err = sysbench.ParseOnOff(s)
	case workload.OptionDuration:
		err = (&Duration{}).Set(s)
	}
	if err != nil {
		return err
	}
	v.text = s
	return nil
}

// OptionFlags is the flag set of one workload's options, with their
// defaults, for help and 'candor list workloads -v'.
func OptionFlags(e workload.Entry) *pflag.FlagSet {
	fs := pflag.NewFlagSet(e.Name, pflag.ContinueOnError)
	fs.SortFlags = false
	for _, o := range e.Options {
		v := &optionValue{typ: o.OptionType(), text: o.Default}
		fs.Var(v, o.Name, o.Usage)
		if v.typ == workload.OptionBool {
			fs.Lookup(o.Name).NoOptDefVal = "true"
		}
	}
	return fs
}

// WorkloadOptions turns the workload option flags that were set into
// name=value properties, refusing options the chosen workload does not have.
func WorkloadOptions(fs *pflag.FlagSet, name string) ([]string, error) {
	entry, _, err := workload.Lookup(name)
	if err != nil {
		return nil, engine.WithCode(engine.ExitUsage, err)
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
		return nil, engine.Usagef("%s", strings.Join(bad, "; "))
	}
	return props, nil
}
