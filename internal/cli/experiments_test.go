package cli

import (
	"path/filepath"
	"testing"

	"github.com/candor-bench/candor/internal/plan"
	"github.com/candor-bench/candor/internal/workload"
)

// Every checked-in plan parses, names only registered workloads, and
// expands to cells whose options the workloads accept.
func TestExperimentPlansAreValid(t *testing.T) {
	files, _ := filepath.Glob("../../experiments/*.yaml")
	if len(files) < 5 {
		t.Fatalf("found %d plans under experiments/, want E1..E5", len(files))
	}
	env := func(k string) string {
		return map[string]string{"PG_URL": "postgres://u@127.0.0.1:5432/db?sslmode=disable", "MYSQL_URL": "mysql://u@127.0.0.1:3306/db"}[k]
	}
	for _, f := range files {
		p, err := plan.Read(f, env)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		for _, c := range p.Cells() {
			entry, variant, err := workload.Lookup(c.Workload)
			if err != nil {
				t.Errorf("%s: %v", f, err)
				continue
			}
			var props []string
			for k, v := range c.Params {
				if k != "threads" && k != "target" {
					props = append(props, k+"="+v)
				}
			}
			if _, err := entry.New(variant, nil, props); err != nil {
				t.Errorf("%s cell %s: %v", f, c.ID, err)
			}
		}
	}
}
