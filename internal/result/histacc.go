package result

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"sync"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
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
	any     bool
	other   *hdr.Histogram // inputs of a geometry other than geom's
	raw     []byte
	payload []byte
	zr      io.ReadCloser
	zw      *zlib.Writer
	br      bytes.Reader
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
		clear(a.counts)
	}
	a.any, a.other = false, nil
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
	a.br.Reset(raw[8 : 8+clen])
	if a.zr == nil {
		if a.zr, err = zlib.NewReader(&a.br); err != nil {
			return fmt.Errorf("histogram: %w", err)
		}
	} else if err := a.zr.(zlib.Resetter).Reset(&a.br, nil); err != nil {
		return fmt.Errorf("histogram: %w", err)
	}
	a.payload = a.payload[:0]
	buf := bytes.NewBuffer(a.payload)
	if _, err := buf.ReadFrom(a.zr); err != nil {
		return fmt.Errorf("histogram: %w", err)
	}
	a.payload = buf.Bytes()
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
		a.geom, a.counts = g, make([]int64, countsLen(g))
	}
	a.any = true
	return addCounts(a.counts, p[40:])
}

// addCounts adds a V2 payload (zig-zag LEB128 counts, negative values
// runs of zeros) into counts.
func addCounts(counts []int64, p []byte) error {
	idx := 0
	for len(p) > 0 {
		if b := p[0]; b < 0x80 {
			// One byte: most counts and zero runs of a latency histogram.
			v := int64(b>>1) ^ -int64(b&1)
			p = p[1:]
			if v < 0 {
				if -v > int64(len(counts)-idx) {
					return fmt.Errorf("histogram: zero run past the counts")
				}
				idx += int(-v)
				continue
			}
			if idx >= len(counts) {
				return fmt.Errorf("histogram: count past the counts")
			}
			counts[idx] += v
			idx++
			continue
		}
		u, n := binary.Uvarint(p)
		if n <= 0 || n > 9 {
			if len(p) < 9 {
				return fmt.Errorf("histogram: truncated count")
			}
			// The ninth byte of HdrHistogram's LEB128 holds 8 bits.
			u, n = leb9(p)
		}
		p = p[n:]
		v := int64(u>>1) ^ -int64(u&1)
		if v < 0 {
			if -v > int64(len(counts)-idx) {
				return fmt.Errorf("histogram: zero run past the counts")
			}
			idx += int(-v)
			continue
		}
		if idx >= len(counts) {
			return fmt.Errorf("histogram: count past the counts")
		}
		counts[idx] += v
		idx++
	}
	return nil
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

// encode is EncodeHistogram of the sum, written from the counts (hdr's
// Encode compresses at zlib's best level, the slowest, and a merge encodes
// one histogram per interval and operation). Sums holding an input of
// another geometry go through hdr.
func (a *histAcc) encode() (string, error) {
	if a.other != nil || !a.any {
		h := a.histogram()
		if h == nil {
			return "", nil
		}
		return EncodeHistogram(h)
	}
	last := len(a.counts) - 1
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
	var z bytes.Buffer
	z.Write(make([]byte, 8))
	if a.zw == nil {
		a.zw, _ = zlib.NewWriterLevel(&z, zlib.DefaultCompression)
	} else {
		a.zw.Reset(&z)
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
