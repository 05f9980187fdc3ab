package keydist

import "math/rand"

// NURand is TPC-C's non-uniform random function (TPC-C 5.11, clause
// 2.1.6): NURand(A, x, y) = (((random(0, A) | random(x, y)) + C) % (y − x + 1)) + x,
// where random(a, b) is uniform over [a, b] inclusive and C is a constant
// chosen once per run in [0, A]. The spec's A values are NURandLast (255,
// for C_LAST), NURandCID (1023, for C_ID) and NURandItem (8191, for
// OL_I_ID).
type NURand struct {
	A, X, Y int64
	C       int64
}

// The spec's A constants.
const (
	NURandLast = 255
	NURandCID  = 1023
	NURandItem = 8191
)

// Next draws one value from r in [X, Y].
func (n NURand) Next(r *rand.Rand) int64 {
	a := r.Int63n(n.A + 1)
	b := n.X + r.Int63n(n.Y-n.X+1)
	return ((a|b)+n.C)%(n.Y-n.X+1) + n.X
}

// ValidLastDelta reports whether cRun is a valid run-time C for C_LAST
// given the load's cLoad (clause 2.1.6.1): the difference |cRun − cLoad|
// lies in [65, 119] and is neither 96 nor 112.
func ValidLastDelta(cLoad, cRun int64) bool {
	d := cRun - cLoad
	if d < 0 {
		d = -d
	}
	return d >= 65 && d <= 119 && d != 96 && d != 112
}

// RunLastC draws a run-time C for C_LAST in [0, 255] that is valid against
// cLoad (ValidLastDelta).
func RunLastC(r *rand.Rand, cLoad int64) int64 {
	for {
		c := r.Int63n(NURandLast + 1)
		if ValidLastDelta(cLoad, c) {
			return c
		}
	}
}
