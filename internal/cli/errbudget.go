package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/candor-bench/candor/internal/runner"
)

// fractionFlag is --max-error-rate: a fraction (0.01) or a percentage
// (1%), from 0 to 1 (100%).
type fractionFlag struct{ v float64 }

func (f *fractionFlag) String() string { return runner.FormatFraction(f.v) }
func (f *fractionFlag) Type() string   { return "fraction" }
func (f *fractionFlag) Set(s string) error {
	t := strings.TrimSpace(s)
	pct := strings.HasSuffix(t, "%")
	v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(t, "%")), 64)
	switch {
	case err != nil:
		return fmt.Errorf("%q is not a fraction: write 1%% or 0.01", s)
	case pct:
		v /= 100
	case v > 1:
		return fmt.Errorf("%q is above 1: write a percentage with %% (%s%%) or a fraction (%s)", s, t, strconv.FormatFloat(v/100, 'g', -1, 64))
	}
	if v < 0 || v > 1 || v != v {
		return fmt.Errorf("%q is not between 0 and 100%%", s)
	}
	f.v = v
	return nil
}

// maxErrorRateUsage is --max-error-rate's help.
const maxErrorRateUsage = "error budget: a run phase whose failed operations (after retries) exceed this share of its operations is failed (exit 5), " +
	"e.g. 1% or 0.01; 100% turns it off. Above 1% the figures describe how fast the target fails rather than the workload"
