package ycsb

import (
	"math/rand"
	"strconv"
	"unicode/utf16"

	"github.com/candor-bench/candor/internal/keydist"
)

// appendKeyName appends YCSB's CoreWorkload.buildKeyName(keynum, zeropadding,
// !hashed) to dst: "user", then zeros up to zeropadding digits, then the
// decimal key number — hashed with Utils.hash (FNV-1a over the 8
// little-endian bytes, then Math.abs) unless insertorder=ordered. The sign
// of a negative number counts as a digit, as with Java's Long.toString.
func appendKeyName(dst []byte, keynum int64, zeropadding int, hashed bool) []byte {
	if hashed {
		keynum = keydist.FNVHash64(keynum)
	}
	var digits [20]byte
	d := strconv.AppendInt(digits[:0], keynum, 10)
	dst = append(dst, "user"...)
	for i := len(d); i < zeropadding; i++ {
		dst = append(dst, '0')
	}
	return append(dst, d...)
}

// KeyName returns the key YCSB 0.17.0 builds for keynum (see appendKeyName).
func KeyName(keynum int64, zeropadding int, hashed bool) string {
	return string(appendKeyName(nil, keynum, zeropadding, hashed))
}

// fillRandom fills b with printable ASCII (0x20..0x7E) from r, eight
// characters per 64-bit draw: each byte x of the draw becomes ' ' +
// x*95/256. YCSB's RandomByteIterator takes six characters per 32-bit draw
// with bit masks (31, 63, 95), which also yields 0x7F (DEL) now and then and
// is not uniform either; the values differ byte for byte anyway (different
// random source), and only their length and alphabet matter to a benchmark.
func fillRandom(r *rand.Rand, b []byte) {
	for i := 0; i < len(b); {
		u := r.Uint64()
		for k := 0; k < 8 && i < len(b); k++ {
			b[i] = ' ' + byte((uint32(byte(u))*95)>>8)
			u >>= 8
			i++
		}
	}
}

// appendDeterministic appends YCSB's buildDeterministicValue(key, field) of
// size characters: key + ':' + field, then ':' + the Java String.hashCode of
// everything so far (a signed 32-bit decimal) until the length reaches size,
// truncated to size. hashCode is continued incrementally rather than
// recomputed, which gives the same value. Lengths count UTF-16 code units as
// Java's do; keys are ASCII, and a non-ASCII field name prefix takes a slower
// path.
func appendDeterministic(dst []byte, key []byte, field string, size int) []byte {
	if !isASCII(field) {
		return append(dst, deterministicUTF16(string(key), field, size)...)
	}
	start := len(dst)
	dst = append(dst, key...)
	dst = append(dst, ':')
	dst = append(dst, field...)
	var h int32
	hashed := start // dst[start:hashed] is folded into h
	for len(dst)-start < size {
		dst = append(dst, ':')
		for _, c := range dst[hashed:] {
			h = 31*h + int32(c)
		}
		hashed = len(dst)
		dst = strconv.AppendInt(dst, int64(h), 10)
	}
	return dst[:start+size]
}

// deterministicUTF16 is appendDeterministic for strings that are not ASCII,
// working on UTF-16 code units like Java's StringBuilder.
func deterministicUTF16(key, field string, size int) string {
	sb := utf16.Encode([]rune(key + ":" + field))
	var h int32
	hashed := 0
	for len(sb) < size {
		sb = append(sb, ':')
		for _, c := range sb[hashed:] {
			h = 31*h + int32(c)
		}
		hashed = len(sb)
		for _, c := range strconv.FormatInt(int64(h), 10) {
			sb = append(sb, uint16(c))
		}
	}
	return string(utf16.Decode(sb[:size]))
}

// DeterministicValue returns YCSB's buildDeterministicValue(key, field) for
// a field length of size (dataintegrity=true).
func DeterministicValue(key, field string, size int) string {
	return string(appendDeterministic(nil, []byte(key), field, size))
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// lengthGen draws field lengths (fieldlengthdistribution).
type lengthGen interface {
	Next(r *rand.Rand) int64
}

// histogramGen is YCSB's HistogramGenerator over a parsed histogram file: a
// draw n is uniform in [0, area) and walks the buckets subtracting counts;
// the first bucket i (i < last) that brings n to <= 0 yields (i+1)*blockSize,
// otherwise the last bucket's index times blockSize. The off-by-one between
// the two cases is YCSB's and kept.
type histogramGen struct{ h *Histogram }

func (g histogramGen) Next(r *rand.Rand) int64 { return g.pick(r.Int63n(g.h.area)) }

// pick maps a draw n in [0, area) to a length.
func (g histogramGen) pick(n int64) int64 {
	i := 0
	for ; i < len(g.h.Buckets)-1; i++ {
		n -= g.h.Buckets[i]
		if n <= 0 {
			return int64(i+1) * g.h.BlockSize
		}
	}
	return int64(i) * g.h.BlockSize
}

// newLengthGen builds a per-worker field length generator.
func newLengthGen(o *Options) lengthGen {
	switch o.FieldLengthDistribution {
	case "uniform":
		return keydist.NewUniform(int64(o.MinFieldLength), int64(o.FieldLength))
	case "zipfian":
		return keydist.NewZipfian(int64(o.MinFieldLength), int64(o.FieldLength), keydist.ZipfianConstant)
	case "histogram":
		return histogramGen{o.Histogram}
	}
	return keydist.NewConstant(int64(o.FieldLength))
}
