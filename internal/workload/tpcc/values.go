package tpcc

import "math/rand"

// Random values as clause 4.3.2 defines them.

const (
	alnum  = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	upper  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	digits = "0123456789"
)

// randInt is uniform over [lo, hi] (clause 4.3.2.5).
func randInt(r *rand.Rand, lo, hi int64) int64 { return lo + r.Int63n(hi-lo+1) }

func fromSet(r *rand.Rand, set string, lo, hi int) string {
	n := lo
	if hi > lo {
		n += r.Intn(hi - lo + 1)
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = set[r.Intn(len(set))]
	}
	return string(b)
}

// aString is a random a-string of lo..hi characters (clause 4.3.2.2).
func aString(r *rand.Rand, lo, hi int) string { return fromSet(r, alnum, lo, hi) }

// nString is a random n-string of n digits.
func nString(r *rand.Rand, n int) string { return fromSet(r, digits, n, n) }

// letters is n random upper-case letters (states).
func letters(r *rand.Rand, n int) string { return fromSet(r, upper, n, n) }

// zip is 4 random digits followed by "11111" (clause 4.3.2.7).
func zip(r *rand.Rand) string { return nString(r, 4) + "11111" }

// data is I_DATA or S_DATA: 26..50 characters, 10% of them holding
// "ORIGINAL" at a random place (clause 4.3.3.1).
func data(r *rand.Rand) string {
	s := aString(r, 26, 50)
	if r.Intn(10) == 0 {
		at := r.Intn(len(s) - 8 + 1)
		s = s[:at] + "ORIGINAL" + s[at+8:]
	}
	return s
}

var syllables = [10]string{"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"}

// LastName is C_LAST for n in 0..999: the syllables of its three digits
// (clause 4.3.2.3).
func LastName(n int64) string {
	return syllables[n/100] + syllables[n/10%10] + syllables[n%10]
}
