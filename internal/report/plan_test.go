package report

import "github.com/candor-bench/candor/internal/plan"

// The tests read plans as the CLI does (cli/site.go).
func init() {
	ReadPlan = func(file string) (*ClaimsPlan, error) {
		p, err := plan.ReadUnexpanded(file, func(string) string { return "" })
		if err != nil {
			return nil, err
		}
		return &ClaimsPlan{Name: p.Name, File: p.File, Output: p.Output, Published: p.Published, Cells: p.PublishedCells()}, nil
	}
}
