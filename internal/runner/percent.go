package runner

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/candor-bench/candor/internal/result"
)

// FormatRate prints failed of total operations as a percentage with the
// counts beside it: "0.13% (4 of 3,120 operations)". The percentage is
// rounded up, never down, at the precision printed, so a rate above an
// error budget never prints as one within it ("0.0%" for 4 failures above a
// budget of 0%); it has at least one decimal's precision and at least two
// significant digits (1 of 1,000,000 is "0.0001%"), and it is "0%" only when
// nothing failed and "100%" only when everything did (999,999 of 1,000,000
// is "99.9999%"). Trailing zeros are left out (10 of 1,000 is "1%"). A total
// of 0 prints "no rate (0 operations)". It is exact: the digits come from
// integer arithmetic, not from a float64.
func FormatRate(failed, total int64) string {
	counts := fmt.Sprintf("(%s of %s operations)", result.Thousands(failed), result.Thousands(total))
	switch {
	case total <= 0:
		return fmt.Sprintf("no rate (%s operations)", result.Thousands(total))
	case failed <= 0:
		return "0% " + counts
	}
	return ceilPercent(failed, total) + "% " + counts
}

// ceilPercent is ⌈100·failed/total⌉ at the first precision, from one
// decimal on, that shows two significant digits and, when failed < total,
// stays below 100.
func ceilPercent(failed, total int64) string {
	num := new(big.Int).Mul(big.NewInt(failed), big.NewInt(100))
	den := big.NewInt(total)
	ten := big.NewInt(10)
	scale := big.NewInt(1)
	for d := 1; ; d++ {
		scale.Mul(scale, ten)
		// q = ⌈num·10^d / den⌉
		q, r := new(big.Int).QuoRem(new(big.Int).Mul(num, scale), den, new(big.Int))
		if r.Sign() != 0 {
			q.Add(q, big.NewInt(1))
		}
		hundred := new(big.Int).Mul(big.NewInt(100), scale)
		if q.Cmp(ten) < 0 || (failed < total && q.Cmp(hundred) >= 0) {
			continue // too few digits to tell it from 0%, or from 100%
		}
		s := q.String()
		if len(s) <= d {
			s = strings.Repeat("0", d-len(s)+1) + s
		}
		s = s[:len(s)-d] + "." + s[len(s)-d:]
		return strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
	}
}
