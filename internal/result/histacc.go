package result

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"sync"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	kzlib "github.com/klauspost/compress/zlib"
)

// histAcc adds HdrHistogram V2 compressed encodings (EncodeHistogram's
// text) count by count into one counts array: the exact sum of the
// histograms, as hdr's Merge gives, without building a histogram per
// input. A merge of 64 shards adds tens of thousands of interval
// histograms; decoding each into a fresh dense histogram of candor's
// geometry (1 ns .. 1 h, 3 digits: ~350 KB of counts) is what made the
// plain way slow. Inputs of another geometry are merged the plain way.
type histAcc struct {
	counts  []int64
	geom    [3]int64 // lowest, highest, significant figures of counts
	hi      int      // counts[hi:] are zero
	any     bool
	other   *hdr.Histogram // inputs of a geometry other than geom's
	raw     []byte
	payload []byte
	zsrc    bytes.Reader
	zr      io.ReadCloser // klauspost's zlib reader, Reset per input
	zw      *zlib.Writer
	zbuf    bytes.Buffer
}

// geometries caches the counts length of a geometry.
var (
	geometriesMu sync.Mutex
	geometries   = map[[3]int64]int{}
)

func countsLen(g [3]int64) int {
	geometriesMu.Lock()
	defer geometriesMu.Unlock()
	if n, ok := geometries[g]; ok {
		return n
	}
	n := len(hdr.New(g[0], g[1], int(g[2])).Export().Counts)
	geometries[g] = n
	return n
}

// reset empties the accumulator, keeping its buffers.
func (a *histAcc) reset() {
	if a.any {
		clear(a.counts[:a.hi])
	}
	a.any, a.other, a.hi = false, nil, 0
}

// add adds one encoded histogram.
func (a *histAcc) add(enc string) error {
	n := base64.StdEncoding.DecodedLen(len(enc))
	if cap(a.raw) < n {
		a.raw = make([]byte, n)
	}
	n, err := base64.StdEncoding.Decode(a.raw[:n], []byte(enc))
	if err != nil {
		return fmt.Errorf("histogram: %w", err)
	}
	raw := a.raw[:n]
	if len(raw) < 8 || int32(binary.BigEndian.Uint32(raw))&^0xf0 != hdr.V2CompressedEncodingCookieBase {
		return a.addOther(enc)
	}
	clen := int(binary.BigEndian.Uint32(raw[4:]))
	if clen < 0 || clen > len(raw)-8 {
		return fmt.Errorf("histogram: compressed length %d past its %d bytes", clen, len(raw)-8)
	}
	if a.payload, err = a.inflate(a.payload[:0], raw[8:8+clen]); err != nil {
		// What the inflater refuses goes to hdr's decoder (compress/zlib),
		// which reads it or says what is wrong with it.
		return a.addOther(enc)
	}
	p := a.payload
	if len(p) < 40 || int32(binary.BigEndian.Uint32(p))&^0xf0 != hdr.V2EncodingCookieBase {
		return a.addOther(enc)
	}
	plen := int(binary.BigEndian.Uint32(p[4:]))
	g := [3]int64{int64(binary.BigEndian.Uint64(p[16:])), int64(binary.BigEndian.Uint64(p[24:])), int64(int32(binary.BigEndian.Uint32(p[12:])))}
	if plen < 0 || plen != len(p)-40 {
		return fmt.Errorf("histogram: payload of %d bytes where its header says %d", len(p)-40, plen)
	}
	if a.any && g != a.geom {
		return a.addOther(enc)
	}
	if a.counts == nil || g != a.geom {
		// One spare count past the end: addCounts writes without a
		// branch, and a write to the spare is always followed by an error.
		n := countsLen(g)
		a.geom, a.counts = g, make([]int64, n+1)[:n]
	}
	a.any = true
	size := len(a.counts)
	hi, err := addCounts(a.counts[:size+1], p[40:])
	a.hi = min(max(a.hi, hi), size)
	if err != nil {
		a.counts[:size+1][size] = 0
	}
	return err
}

// addCounts adds a V2 payload (zig-zag LEB128 counts, negative values
// runs of zeros) into counts, whose last element is a spare that a valid
// payload never reaches; hi is one past the last count it added to.
func addCounts(counts []int64, p []byte) (hi int, err error) {
	n := len(counts) - 1
	idx := 0
	for len(p) > 0 {
		if idx > n {
			break
		}
		if b := p[0]; b < 0x80 {
			// One byte: most counts and zero runs of a latency histogram.
			// Counts and runs alternate at random, so both are handled
			// without a branch: a run adds 0 and moves idx by its length,
			// a count adds itself and moves idx by one.
			p = p[1:]
			v := int64(b>>1) ^ -int64(b&1)
			neg := v >> 63 // -1 for a run of zeros, 0 for a count
			counts[idx] += v &^ neg
			idx += int(-v&neg | 1&^neg)
			continue
		}
		u, k := binary.Uvarint(p)
		if k <= 0 || k > 9 {
			if len(p) < 9 {
				return idx, fmt.Errorf("histogram: truncated count")
			}
			// The ninth byte of HdrHistogram's LEB128 holds 8 bits.
			u, k = leb9(p)
		}
		p = p[k:]
		v := int64(u>>1) ^ -int64(u&1)
		if v < 0 {
			if -v > int64(n-idx) {
				return idx, fmt.Errorf("histogram: zero run past the counts")
			}
			idx += int(-v)
			continue
		}
		counts[idx] += v
		idx++
	}
	if idx > n {
		return n + 1, fmt.Errorf("histogram: counts past the end of the histogram")
	}
	return idx, nil
}

// leb9 reads HdrHistogram's 9-byte LEB128 form, whose last byte carries 8
// bits.
func leb9(p []byte) (uint64, int) {
	var u uint64
	for i := 0; i < 8; i++ {
		u |= uint64(p[i]&0x7f) << (7 * i)
	}
	return u | uint64(p[8])<<56, 9
}

func (a *histAcc) addOther(enc string) error {
	h, err := DecodeHistogram(enc)
	if err != nil {
		return err
	}
	if a.other == nil {
		a.other = h
	} else {
		a.other.Merge(h)
	}
	return nil
}

// histogram is the sum so far; nil when nothing was added.
func (a *histAcc) histogram() *hdr.Histogram {
	var h *hdr.Histogram
	if a.any {
		h = hdr.Import(&hdr.Snapshot{LowestTrackableValue: a.geom[0], HighestTrackableValue: a.geom[1],
			SignificantFigures: a.geom[2], Counts: a.counts})
	}
	switch {
	case h == nil:
		return a.other
	case a.other != nil:
		h.Merge(a.other)
	}
	return h
}

// inflate appends the zlib stream src, decompressed, to dst. It reuses
// one reader of github.com/klauspost/compress/zlib (a drop-in for
// compress/zlib, about a fifth faster at inflating; inflating is the
// largest part of a merge).
func (a *histAcc) inflate(dst, src []byte) ([]byte, error) {
	a.zsrc.Reset(src)
	if a.zr == nil {
		zr, err := kzlib.NewReader(&a.zsrc)
		if err != nil {
			return dst, err
		}
		a.zr = zr
	} else if err := a.zr.(kzlib.Resetter).Reset(&a.zsrc, nil); err != nil {
		return dst, err
	}
	for {
		if len(dst) == cap(dst) {
			dst = append(dst, 0)[:len(dst)]
		}
		n, err := a.zr.Read(dst[len(dst):cap(dst)])
		dst = dst[:len(dst)+n]
		if errors.Is(err, io.EOF) {
			return dst, nil
		}
		if err != nil {
			return dst, err
		}
	}
}

// encode is EncodeHistogram of the sum, written from the counts and
// compressed at zlib's fastest level (hdr's Encode uses the best, the
// slowest; a merge encodes one histogram per interval and operation, and
// the fastest level is about twice as fast as the default for a 2% longer
// text). Sums holding an input of another geometry go through hdr.
func (a *histAcc) encode() (string, error) {
	if a.other != nil || !a.any {
		h := a.histogram()
		if h == nil {
			return "", nil
		}
		return EncodeHistogram(h)
	}
	last := a.hi - 1
	for last >= 0 && a.counts[last] == 0 {
		last--
	}
	var hdrBytes [40]byte
	p := append(a.payload[:0], hdrBytes[:]...)
	for i := 0; i <= last; {
		c := a.counts[i]
		i++
		if c == 0 {
			zeros := int64(1)
			for i <= last && a.counts[i] == 0 {
				zeros++
				i++
			}
			if zeros > 1 {
				c = -zeros
			}
		}
		p = appendZigZag(p, c)
	}
	binary.BigEndian.PutUint32(p[0:], uint32(hdr.V2EncodingCookieBase|0x10))
	binary.BigEndian.PutUint32(p[4:], uint32(len(p)-40))
	binary.BigEndian.PutUint32(p[8:], 0)
	binary.BigEndian.PutUint32(p[12:], uint32(a.geom[2]))
	binary.BigEndian.PutUint64(p[16:], uint64(a.geom[0]))
	binary.BigEndian.PutUint64(p[24:], uint64(a.geom[1]))
	binary.BigEndian.PutUint64(p[32:], math.Float64bits(1))
	a.payload = p
	z := &a.zbuf
	z.Reset()
	z.Write(make([]byte, 8))
	if a.zw == nil {
		a.zw, _ = zlib.NewWriterLevel(z, zlib.BestSpeed)
	} else {
		a.zw.Reset(z)
	}
	if _, err := a.zw.Write(p); err != nil {
		return "", err
	}
	if err := a.zw.Close(); err != nil {
		return "", err
	}
	out := z.Bytes()
	binary.BigEndian.PutUint32(out[0:], uint32(hdr.V2CompressedEncodingCookieBase|0x10))
	binary.BigEndian.PutUint32(out[4:], uint32(len(out)-8))
	return base64.StdEncoding.EncodeToString(out), nil
}

// appendZigZag appends v in HdrHistogram's zig-zag LEB128 (at most 9
// bytes, the ninth holding 8 bits).
func appendZigZag(p []byte, v int64) []byte {
	u := uint64(v<<1) ^ uint64(v>>63)
	for i := 0; i < 8; i++ {
		if u < 0x80 {
			return append(p, byte(u))
		}
		p = append(p, byte(u)|0x80)
		u >>= 7
	}
	return append(p, byte(u))
}

// intervalStats are an interval record's figures of the sum: its p50,
// p99, maximum and mean, the values hdr's ValueAtPercentilesSlice, Max and
// Mean give for the same counts. It reads the counts in place: importing
// them into a histogram and walking hdr's iterator twice (Max, Mean) cost
// a tenth of a 64-shard merge.
func (a *histAcc) intervalStats() (p50, p99, maxV int64, mean float64) {
	if a.other != nil || !a.any {
		h := a.histogram()
		if h == nil {
			return 0, 0, 0, 0
		}
		p := h.ValueAtPercentilesSlice([]float64{50, 99})
		return p[0], p[1], h.Max(), h.Mean()
	}
	g := geometryOf(a.geom)
	counts := a.counts[:a.hi]
	var total int64
	last := -1
	for i, c := range counts {
		total += c
		if c != 0 {
			last = i
		}
	}
	if total == 0 {
		// hdr: percentiles of an empty histogram are 0; its Max is the
		// highest value equivalent to 0 and its Mean 0.
		return 0, 0, g.highest(0), 0
	}
	r50, r99 := percentileRank(50, total), percentileRank(99, total)
	var run int64
	i50, i99 := -1, -1
	for i := 0; i <= last; i++ {
		c := counts[i]
		if c == 0 {
			continue
		}
		run += c
		if i50 < 0 && run >= r50 {
			i50 = i
		}
		if i99 < 0 && run >= r99 {
			i99 = i
		}
		// The same expression, in the same order, as hdr's Mean: the
		// float64 sum is then bit for bit the same.
		mean += float64(c) * float64(g.median(i)) / float64(total)
	}
	return g.highest(g.value(i50)), g.highest(g.value(i99)), g.highest(g.value(last)), mean
}

// geometry is the index arithmetic of an HdrHistogram's counts array (the
// layout the V2 encoding and hdr share).
type geometry struct {
	unit    uint // log2 of the lowest discernible value, rounded down
	halfMag uint // log2 of half the sub-bucket count
}

func geometryOf(g [3]int64) geometry {
	sub := int(math.Ceil(math.Log2(2 * math.Pow10(int(g[2])))))
	sub = max(sub, 1) - 1
	unit := 0
	if g[0] > 1 {
		unit = bits.Len64(uint64(g[0])) - 1
	}
	return geometry{unit: uint(unit), halfMag: uint(sub)}
}

// bucket and sub are the bucket and sub-bucket of counts index i.
func (g geometry) bucket(i int) (b, sub int) {
	half := 1 << g.halfMag
	b = (i >> g.halfMag) - 1
	sub = i&(half-1) + half
	if b < 0 {
		return 0, sub - half
	}
	return b, sub
}

// value is the lowest value counted at index i.
func (g geometry) value(i int) int64 {
	b, sub := g.bucket(i)
	return int64(sub) << (uint(b) + g.unit)
}

// size is the width of the range of values that index i counts.
func (g geometry) size(i int) int64 {
	b, _ := g.bucket(i)
	return 1 << (uint(b) + g.unit)
}

func (g geometry) median(i int) int64 { return g.value(i) + g.size(i)>>1 }

// highest is the highest value equivalent to v.
func (g geometry) highest(v int64) int64 {
	mask := int64(1)<<(g.halfMag+1) - 1
	b := bits.Len64(uint64(v|mask<<g.unit)) - int(g.unit) - int(g.halfMag+1)
	sub := v >> (uint(b) + g.unit)
	lowest := sub << (uint(b) + g.unit)
	if sub >= 1<<(g.halfMag+1) {
		b++
	}
	return lowest + int64(1)<<(uint(b)+g.unit) - 1
}

// percentileRank is hdr's: the count at or below which a percentile's
// value lies, at least 1 and at most total.
func percentileRank(p float64, total int64) int64 {
	r := (p/100)*float64(total) + 0.5
	if !(r >= 1) {
		return 1
	}
	if r >= float64(total) {
		return total
	}
	return int64(r)
}
