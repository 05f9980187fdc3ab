package cli

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/candor-bench/candor/internal/workload"
	"github.com/candor-bench/candor/internal/workload/sysbench"
)

// addWorkloadFlags offers every workload's options as flags (--tables,
// --table-size, ...); underscores are accepted for dashes, as sysbench does.
// The flags are typed (an int option refuses "abc" as the command line is
// read) and hidden from the command's own flag list: a command's help shows
// the options of the workload it names (workloadHelp).
func addWorkloadFlags(fl *pflag.FlagSet) {
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
		err = (&flexDuration{}).Set(s)
	}
	if err != nil {
		return err
	}
	v.text = s
	return nil
}

// optionFlags is the flag set of one workload's options, with their
// defaults, for help and 'candor list workloads -v'.
func optionFlags(e workload.Entry) *pflag.FlagSet {
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

// workloadOptionsHelp describes the options of the workload named by the
// first of args that is one ("candor run kv-basic --help"), or says how to
// see them when none is.
func workloadOptionsHelp(cmd *cobra.Command, args []string) string {
	for _, a := range args {
		e, _, err := workload.Lookup(a)
		if err != nil {
			continue
		}
		if len(e.Options) == 0 {
			return propertiesHelp(e, a)
		}
		return fmt.Sprintf("\nOptions of %s (as flags, or -p name=value):\n%s", e.Name, optionFlags(e).FlagUsages())
	}
	return fmt.Sprintf("\nWorkload options: each workload has its own, given as flags or -p name=value (YCSB's as properties).\n"+
		"'%s WORKLOAD --help' shows them (e.g. %s kv-basic --help); 'candor list workloads -v' lists every workload's.\n", cmd.CommandPath(), cmd.CommandPath())
}

// workloadHelp makes cmd's help end with the options of the workload it
// names (workloadOptionsHelp).
func workloadHelp(cmd *cobra.Command) {
	base := cmd.HelpFunc()
	cmd.SetHelpFunc(func(c *cobra.Command, args []string) {
		base(c, args)
		fmt.Fprint(c.OutOrStdout(), workloadOptionsHelp(c, append(c.Flags().Args(), args...)))
	})
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
