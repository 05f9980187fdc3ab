package runflags

import (
	"strings"

	"github.com/spf13/pflag"

	"github.com/candor-bench/candor/internal/suggest"
)

// FlagHint is what to add to pflag's error err about fs's flags: the flags
// the user probably meant ("unknown flag: --thread": "; did you mean
// --threads?"), or, for a long name with one dash as YCSB's command line
// writes them ("unknown shorthand flag: 't' in -threads"), its two-dash
// form. "" when there is nothing to add.
func FlagHint(fs *pflag.FlagSet, err error) string {
	if fs == nil || err == nil {
		return ""
	}
	msg := err.Error()
	var names []string
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	if name, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
		return suggest.Hint(name, "--", names)
	}
	_, word, ok := strings.Cut(msg, "' in -")
	if !strings.HasPrefix(msg, "unknown shorthand flag: ") || !ok || len(word) < 2 {
		return ""
	}
	name, _, _ := strings.Cut(word, "=")
	switch name {
	case "target":
		return "; YCSB's -target (operations per second) is candor's --rate; candor's --target is the database's URL"
	case "load":
		return "; YCSB's -load is 'candor load WORKLOAD', its -t 'candor run WORKLOAD'"
	}
	if fs.Lookup(name) != nil {
		return "; candor's long options take two dashes: --" + name + " (YCSB's -" + name + ")"
	}
	return suggest.Hint(name, "--", names)
}
