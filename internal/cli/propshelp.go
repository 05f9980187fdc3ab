package cli

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/candor-bench/candor/internal/workload"
)

// propertiesHelp lists the properties of a workload that takes YCSB's
// (-p name=value, -P FILE) with the values it uses when none is given: its
// resolved options without any property, the variant's file applied
// (ycsb/a: workloada's readproportion=0.5 ...).
func propertiesHelp(e workload.Entry, name string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n%s takes its options as YCSB properties: -p name=value and -P FILE (docs/YCSB.md).\n", name)
	_, variant, _ := workload.Lookup(name)
	w, err := e.New(variant, nil, nil)
	if err != nil {
		return b.String()
	}
	raw, err := json.Marshal(w.Options())
	var opts map[string]any
	if err != nil || json.Unmarshal(raw, &opts) != nil {
		return b.String()
	}
	// Bookkeeping and derived figures, not properties one sets.
	for _, k := range []string{"reference", "sources", "expectednewkeys", "fieldlengthhistogram_data"} {
		delete(opts, k)
	}
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Fprintf(&b, "Properties and the values %s uses unless given (%s):\n", name, w.Reference())
	for _, k := range keys {
		v, _ := json.Marshal(opts[k])
		fmt.Fprintf(&b, "  %-40s %s\n", k, strings.Trim(string(v), `"`))
	}
	b.WriteString("YCSB's Client properties threadcount, target (ops/s) and maxexecutiontime (s) are read too (default: unset).\n")
	b.WriteString("Proportions are weights: they need not add up to 1 (YCSB normalises them the same way).\n")
	return b.String()
}
