package plan

import "github.com/candor-bench/candor/internal/published"

// PublishedCells are the plan's cells as the published: block's claims and
// tables name them.
func (p *Plan) PublishedCells() []published.Cell {
	var out []published.Cell
	for _, c := range p.Cells() {
		out = append(out, published.Cell{Workload: c.Workload, Params: c.Params, ID: c.ID, Identity: c.Identity})
	}
	return out
}

// checkPublished reports each claim's selector and table parameter that
// names no cell of the plan.
func (p *Plan) checkPublished(line int, add func(int, string, ...any)) {
	if p.Published != nil {
		p.Published.Check(p.PublishedCells(), line, add)
	}
}
