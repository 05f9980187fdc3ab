package report

import (
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/result"
)

func TestWriteTpmC(t *testing.T) {
	var b strings.Builder
	writeTpmC(&b, &result.Phase{Derived: map[string]float64{"tpmC": 1980, "tpmC_incl_rollbacks": 2000, "tpm_total": 4000, "efficiency_pct": 7698.3, "warehouses": 2}})
	want := "tpmC 1980.0 (committed New-Orders per minute; 2000.0 with the spec's 1% rolled back), tpmTotal 4000.0, efficiency 7698.3% of 12.86 tpmC × 2 warehouses\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	b.Reset()
	writeTpmC(&b, &result.Phase{Derived: map[string]float64{"rows": 5}})
	if b.Len() != 0 {
		t.Errorf("a phase without tpmC printed %q", b.String())
	}
}
