package keydist

// FNV-1a 64-bit parameters, as in YCSB's Utils (FNV_OFFSET_BASIS_64,
// FNV_PRIME_64).
const (
	fnvOffsetBasis64 uint64 = 0xCBF29CE484222325
	fnvPrime64       uint64 = 1099511628211
)

// FNVHash64 is YCSB's Utils.fnvhash64 (= Utils.hash), which turns a key
// number into the number in its key name ("user" + decimal) when
// insertorder=hashed, and scatters ScrambledZipfian's popular items.
//
// It is FNV-1a over the 8 bytes of v taken least-significant first, followed
// by Java's Math.abs: the result is non-negative except for the one hash
// value math.MinInt64, whose absolute value does not exist and which Java
// returns unchanged. (go-ycsb hashes the big-endian bytes instead and so
// produces different keys for every v except 0.)
func FNVHash64(v int64) int64 {
	u := uint64(v)
	h := fnvOffsetBasis64
	for i := 0; i < 8; i++ {
		h ^= u & 0xff
		u >>= 8
		h *= fnvPrime64
	}
	s := int64(h)
	if s < 0 {
		s = -s // -MinInt64 wraps to MinInt64, as Math.abs does
	}
	return s
}
