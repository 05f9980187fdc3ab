package report

import (
	"fmt"
	"io"

	"github.com/candor-bench/candor/internal/result"
)

// writeTpmC prints TPC-C's headline figures (the tpcc workload's derived
// values) under a phase's first line; nothing for phases without them.
func writeTpmC(w io.Writer, p *result.Phase) {
	tpmC, ok := p.Derived["tpmC"]
	if !ok {
		return
	}
	fmt.Fprintf(w, "tpmC %.1f (committed New-Orders per minute; %.1f with the spec's 1%% rolled back), tpmTotal %.1f, efficiency %.1f%% of 12.86 tpmC × %.0f warehouses\n",
		tpmC, p.Derived["tpmC_incl_rollbacks"], p.Derived["tpm_total"], p.Derived["efficiency_pct"], p.Derived["warehouses"])
}
