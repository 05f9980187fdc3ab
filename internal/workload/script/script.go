// Package script registers the workload "script": users' own scripts, one
// variant per script language. script/pgbench runs pgbench 15 scripts
// (package workload/pgbench). Each language's package registers its
// variant here with RegisterVariant from its init (its name in Known, its
// flags in OptionSets), so the registry holds one entry "script" whose
// variants live in packages that do not know each other.
package script

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/candor-bench/candor/internal/workload"
)

// Name is the registry name.
const Name = "script"

// Variant is one script language.
type Variant struct {
	Name        string // "pgbench"
	Description string // one line for `candor list`
	// New builds the workload from property files and name=value
	// options (OptionSets lists those offered as flags).
	New func(files, props []string) (workload.Workload, error)
}

// Known are the variants the entry lists, whether or not their package is
// linked in; a variant whose package is absent says so when chosen.
var Known = []string{"pgbench"}

// OptionSets are the options of each known variant, offered as flags; a
// variant's package reads them from props ("name=value"), as -p gives them.
var OptionSets = map[string][]workload.Option{
	"pgbench": {
		{Name: "file", Default: "", Type: workload.OptionString, Usage: "(pgbench -f) a pgbench script FILE[@WEIGHT]; give -p file=... once per script"},
		{Name: "builtin", Default: "", Type: workload.OptionString, Usage: "(pgbench -b) a built-in script tpcb-like, simple-update or select-only [@WEIGHT]"},
		{Name: "define", Default: "", Type: workload.OptionString, Usage: "(pgbench -D) NAME=VALUE, a variable every client starts with"},
		{Name: "scale", Default: "1", Usage: "(pgbench -s) the scale: :scale, and the rows -i loads (100,000 accounts each)"},
		{Name: "protocol", Default: "simple", Type: workload.OptionString, Usage: "(pgbench -M) simple, extended or prepared"},
		{Name: "max-tries", Default: "1", Usage: "(pgbench --max-tries) tries of a transaction failing with a serialization or deadlock error; 0: without limit"},
		{Name: "random-seed", Default: "", Type: workload.OptionString, Usage: "(pgbench --random-seed) the seed of the scripts' random functions, as pgbench draws them"},
		{Name: "report-latencies", Default: "false", Usage: "(pgbench -r) time every command of the scripts"},
		{Name: "jobs", Default: "1", Usage: "(pgbench -j) reported as pgbench's threads; candor runs each client in its own goroutine"},
		{Name: "latency-limit", Default: "", Type: workload.OptionFloat, Usage: "(pgbench -L) milliseconds: the report counts the transactions above"},
		{Name: "allow-shell", Default: "false", Usage: "run the scripts' \\shell and \\setshell commands (refused otherwise)"},
		{Name: "vacuum", Default: "default", Type: workload.OptionString, Usage: "(pgbench -n, -v) default: VACUUM pgbench_branches and pgbench_tellers and TRUNCATE (candor's own) pgbench_history before a run, VACUUM ANALYZE the four tables after a load; all: also VACUUM ANALYZE pgbench_accounts before a run; none"},
	},
}

var (
	mu       sync.RWMutex
	variants = map[string]Variant{}
)

// RegisterVariant adds a language; it panics on a duplicate or unknown
// name (caught at init).
func RegisterVariant(v Variant) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := variants[v.Name]; dup {
		panic("script: variant registered twice: " + v.Name)
	}
	known := false
	for _, k := range Known {
		known = known || k == v.Name
	}
	if !known {
		panic("script: variant " + v.Name + " is not in Known")
	}
	variants[v.Name] = v
}

func init() {
	var opts []workload.Option
	seen := map[string]bool{}
	names := make([]string, 0, len(OptionSets))
	for n := range OptionSets {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		for _, o := range OptionSets[n] {
			if !seen[o.Name] {
				seen[o.Name] = true
				opts = append(opts, o)
			}
		}
	}
	workload.Register(workload.Entry{
		Name:     Name,
		Variants: Known,
		VariantDescriptions: map[string]string{
			"pgbench": "a pgbench 15 script (-p file=my.sql) or built-in (-p builtin=tpcb-like): docs/SCRIPTS.md",
		},
		Options:     opts,
		Description: "users' own scripts: pgbench 15 scripts (script/pgbench)",
		Reference:   "pgbench 15",
		New: func(variant string, files, props []string) (workload.Workload, error) {
			if variant == "" {
				return nil, fmt.Errorf("%w %q: name the script's language: %s", workload.ErrUnknown, Name, strings.Join(prefixed(), ", "))
			}
			mu.RLock()
			v, ok := variants[variant]
			mu.RUnlock()
			if !ok {
				return nil, fmt.Errorf("script/%s is not built into this candor", variant)
			}
			return v.New(files, props)
		},
	})
}

func prefixed() []string {
	out := make([]string, len(Known))
	for i, k := range Known {
		out[i] = Name + "/" + k
	}
	return out
}
