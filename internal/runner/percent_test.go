package runner

import (
	"math/big"
	"math/rand"
	"strings"
	"testing"
)

func TestFormatRate(t *testing.T) {
	cases := []struct {
		failed, total int64
		want          string
	}{
		// the defect: 4 connection errors in 3,120 operations printed as
		// "error rate 0.0% ... above 0%"
		{4, 3120, "0.13% (4 of 3,120 operations)"},
		// one in a million: two significant digits, never "0.0%"
		{1, 1_000_000, "0.0001% (1 of 1,000,000 operations)"},
		// rounded up, not to nearest: 1/3 = 33.33...%
		{1, 3, "33.4% (1 of 3 operations)"},
		// just above a 1% budget prints above it: 10,001/1,000,000 = 1.0001%
		{10_001, 1_000_000, "1.1% (10,001 of 1,000,000 operations)"},
		// exact rates lose their trailing zeros
		{10, 1000, "1% (10 of 1,000 operations)"},
		{1, 2, "50% (1 of 2 operations)"},
		// 100% only when every operation failed
		{999_999, 1_000_000, "99.9999% (999,999 of 1,000,000 operations)"},
		{7, 7, "100% (7 of 7 operations)"},
		{0, 3120, "0% (0 of 3,120 operations)"},
		{0, 0, "no rate (0 operations)"},
		// huge counts do not overflow
		{1, 9_000_000_000_000_000_000, "0.000000000000000012% (1 of 9,000,000,000,000,000,000 operations)"},
	}
	for _, c := range cases {
		if got := FormatRate(c.failed, c.total); got != c.want {
			t.Errorf("FormatRate(%d, %d) = %q, want %q", c.failed, c.total, got, c.want)
		}
	}
}

// TestFormatRateNeverRoundsDown: over random counts, the printed rate is at
// least the true rate, less than 1/9 above it (rounded up at two or more
// significant digits: q ≥ 10 units, one unit over at most), above 0
// when something failed and below 100 when something succeeded.
func TestFormatRateNeverRoundsDown(t *testing.T) {
	rng := rand.New(rand.NewSource(35))
	for i := 0; i < 20000; i++ {
		total := 1 + rng.Int63n(1<<uint(1+rng.Intn(40)))
		failed := 1 + rng.Int63n(total)
		s := FormatRate(failed, total)
		pct, _, _ := strings.Cut(s, "%")
		printed, ok := new(big.Rat).SetString(pct)
		if !ok {
			t.Fatalf("FormatRate(%d, %d) = %q: not a number", failed, total, s)
		}
		exact := new(big.Rat).Mul(big.NewRat(failed, total), big.NewRat(100, 1))
		if printed.Cmp(exact) < 0 {
			t.Fatalf("FormatRate(%d, %d) = %q: below the exact %s%%", failed, total, s, exact.FloatString(20))
		}
		if limit := new(big.Rat).Mul(exact, big.NewRat(10, 9)); printed.Cmp(limit) >= 0 {
			t.Fatalf("FormatRate(%d, %d) = %q: 1/9 or more above the exact %s%%", failed, total, s, exact.FloatString(20))
		}
		if failed < total && printed.Cmp(big.NewRat(100, 1)) >= 0 {
			t.Fatalf("FormatRate(%d, %d) = %q: 100%% though some operations succeeded", failed, total, s)
		}
	}
}
