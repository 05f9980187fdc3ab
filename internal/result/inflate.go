package result

import (
	"encoding/binary"
	"errors"
	"hash/adler32"
	"math/bits"
)

// A zlib stream (RFC 1950) holding DEFLATE data (RFC 1951), inflated from
// one byte slice into another. A merge of 64 shards inflates one
// histogram per interval, operation and shard, each a few kilobytes:
// readers built for streams (a window ring, io.Reader calls, large tables
// rebuilt per block) spent more per histogram than this decoder, which
// keeps the whole output in one slice (back-references copy from it),
// reads the input 8 bytes at a time into a bit buffer held in locals, and
// resolves a code of up to tableBits (distBits) bits with one table
// look-up, a longer one bit by bit. It is checked against compress/zlib
// for every compression level and on damaged input (inflate_test.go).

var errInflate = errors.New("corrupt zlib data")

const (
	tableBits = 10      // bits resolved by one look-up of a literal/length code
	distBits  = 8       // of a distance code (fewer symbols, a cheaper table to build)
	maxOutput = 1 << 26 // refuse output beyond this: a histogram payload is far smaller
)

// huffman is one canonical code: a look-up table for codes of up to
// tableBits bits (entry: symbol<<4 | length, 0 for a longer code) and, for
// the longer ones, the counts per length and the symbols in code order.
type huffman struct {
	table [1 << tableBits]uint16
	mask  uint64 // of the table bits in use: fewer for the code-length code
	count [16]uint16
	sym   [288]uint16
}

// build makes the code of the given lengths (0: symbol unused). It refuses
// an over-subscribed set; an incomplete one decodes until a stream uses a
// code it lacks.
func (h *huffman) build(lengths []uint8, tb int) error {
	h.count = [16]uint16{}
	for _, l := range lengths {
		h.count[l]++
	}
	h.count[0] = 0
	left := 1
	for l := 1; l < 16; l++ {
		left = left<<1 - int(h.count[l])
		if left < 0 {
			return errInflate
		}
	}
	var offs [16]uint16
	for l := 1; l < 15; l++ {
		offs[l+1] = offs[l] + h.count[l]
	}
	for s, l := range lengths {
		if l != 0 {
			h.sym[offs[l]] = uint16(s)
			offs[l]++
		}
	}
	table := h.table[:1<<tb]
	h.mask = 1<<tb - 1
	covered := 0
	for l := 1; l <= tb; l++ {
		covered += int(h.count[l]) << (tb - l)
	}
	if covered < len(table) {
		clear(table) // slots no short code fills: longer codes, or none
	}
	code, idx := 0, 0
	for l := 1; l <= tb; l++ {
		for range h.count[l] {
			s := h.sym[idx]
			idx++
			r := int(bits.Reverse16(uint16(code)) >> (16 - l))
			for f := r; f < len(table); f += 1 << l {
				table[f] = s<<4 | uint16(l)
			}
			code++
		}
		code <<= 1
	}
	return nil
}

// bitReader reads DEFLATE's LSB-first bits from a slice.
type bitReader struct {
	src   []byte
	pos   int    // next byte of src to load
	buf   uint64 // loaded bits, the next one lowest
	nbits uint
}

// fill loads bits until at least 56 are held or the input ends.
func (b *bitReader) fill() {
	if b.pos+8 <= len(b.src) {
		b.buf |= binary.LittleEndian.Uint64(b.src[b.pos:]) << b.nbits
		b.pos += int(63-b.nbits) >> 3
		b.nbits |= 56
		return
	}
	for b.nbits <= 56 && b.pos < len(b.src) {
		b.buf |= uint64(b.src[b.pos]) << b.nbits
		b.pos++
		b.nbits += 8
	}
}

// get reads n (at most 32) bits.
func (b *bitReader) get(n uint) (uint32, error) {
	if b.nbits < n {
		b.fill()
		if b.nbits < n {
			return 0, errInflate
		}
	}
	v := uint32(b.buf & (1<<n - 1))
	b.buf >>= n
	b.nbits -= n
	return v, nil
}

// decode reads one symbol of h.
func (b *bitReader) decode(h *huffman) (int, error) {
	if b.nbits < 15 {
		b.fill()
	}
	if e := h.table[b.buf&h.mask]; e != 0 {
		l := uint(e & 15)
		if l > b.nbits {
			return 0, errInflate
		}
		b.buf >>= l
		b.nbits -= l
		return int(e >> 4), nil
	}
	// A code longer than tableBits: canonical decoding bit by bit.
	code, first, idx := 0, 0, 0
	for l := uint(1); l < 16; l++ {
		if l > b.nbits {
			return 0, errInflate
		}
		code |= int(b.buf>>(l-1)) & 1
		n := int(h.count[l])
		if code-first < n {
			b.buf >>= l
			b.nbits -= l
			return int(h.sym[idx+code-first]), nil
		}
		idx += n
		first = (first + n) << 1
		code <<= 1
	}
	return 0, errInflate
}

var (
	lengthBase  = [29]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lengthExtra = [29]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
	distBase    = [30]uint16{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
	distExtra   = [30]uint8{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}
	clOrder     = [19]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}
)

// inflater holds the tables reused from one stream to the next.
type inflater struct {
	lit, dist, cl huffman
	lengths       [320]uint8
	fixed         bool // lit and dist hold the fixed codes
}

// zlib appends the inflated content of the zlib stream src to dst,
// checking the stream's header and its Adler-32 checksum.
func (z *inflater) zlib(dst, src []byte) ([]byte, error) {
	if len(src) < 6 || src[0]&0x0f != 8 || src[0]>>4 > 7 || src[1]&0x20 != 0 || (uint(src[0])<<8|uint(src[1]))%31 != 0 {
		return dst, errInflate
	}
	start := len(dst)
	b := bitReader{src: src, pos: 2}
	out, err := z.inflate(dst, &b)
	if err != nil {
		return out, err
	}
	b.get(b.nbits & 7) // to the byte boundary
	end := b.pos - int(b.nbits>>3)
	if end+4 > len(src) || binary.BigEndian.Uint32(src[end:]) != adler32.Checksum(out[start:]) {
		return out, errInflate
	}
	return out, nil
}

func (z *inflater) inflate(out []byte, b *bitReader) ([]byte, error) {
	for {
		hdr, err := b.get(3)
		if err != nil {
			return out, err
		}
		switch hdr >> 1 {
		case 0:
			out, err = stored(out, b)
		case 1:
			if !z.fixed {
				z.fixedCodes()
			}
			out, err = z.block(out, b)
		case 2:
			if err = z.dynamicCodes(b); err == nil {
				out, err = z.block(out, b)
			}
		default:
			err = errInflate
		}
		if err != nil {
			return out, err
		}
		if hdr&1 != 0 {
			return out, nil
		}
	}
}

func stored(out []byte, b *bitReader) ([]byte, error) {
	b.get(b.nbits & 7)
	n, err := b.get(16)
	if err != nil {
		return out, err
	}
	nn, err := b.get(16)
	if err != nil || n != ^nn&0xffff || len(out)+int(n) > maxOutput {
		return out, errInflate
	}
	for ; n > 0 && b.nbits > 0; n-- {
		c, _ := b.get(8)
		out = append(out, byte(c))
	}
	if b.pos+int(n) > len(b.src) {
		return out, errInflate
	}
	out = append(out, b.src[b.pos:b.pos+int(n)]...)
	b.pos += int(n)
	// Bits held past nbits were those of the bytes just copied.
	b.buf &= 1<<b.nbits - 1
	return out, nil
}

func (z *inflater) fixedCodes() {
	l := z.lengths[:288]
	for i := range l {
		switch {
		case i < 144:
			l[i] = 8
		case i < 256:
			l[i] = 9
		case i < 280:
			l[i] = 7
		default:
			l[i] = 8
		}
	}
	z.lit.build(l, tableBits)
	d := z.lengths[:30]
	for i := range d {
		d[i] = 5
	}
	z.dist.build(d, distBits)
	z.fixed = true
}

func (z *inflater) dynamicCodes(b *bitReader) error {
	z.fixed = false
	h, err := b.get(14)
	if err != nil {
		return err
	}
	nlit, ndist, ncl := int(h&31)+257, int(h>>5&31)+1, int(h>>10)+4
	if nlit > 286 || ndist > 30 {
		return errInflate
	}
	var cl [19]uint8
	for i := range ncl {
		v, err := b.get(3)
		if err != nil {
			return err
		}
		cl[clOrder[i]] = uint8(v)
	}
	if err := z.cl.build(cl[:], 7); err != nil {
		return err
	}
	l := z.lengths[:nlit+ndist]
	for i := 0; i < len(l); {
		s, err := b.decode(&z.cl)
		if err != nil {
			return err
		}
		if s < 16 {
			l[i] = uint8(s)
			i++
			continue
		}
		var rep uint32
		var v uint8
		switch s {
		case 16:
			if i == 0 {
				return errInflate
			}
			v = l[i-1]
			rep, err = b.get(2)
			rep += 3
		case 17:
			rep, err = b.get(3)
			rep += 3
		default:
			rep, err = b.get(7)
			rep += 11
		}
		if err != nil || i+int(rep) > len(l) {
			return errInflate
		}
		for range rep {
			l[i] = v
			i++
		}
	}
	if l[256] == 0 {
		return errInflate // no end of block
	}
	if err := z.lit.build(l[:nlit], tableBits); err != nil {
		return err
	}
	return z.dist.build(l[nlit:], distBits)
}

// block decodes one compressed block's symbols with z.lit and z.dist.
// Its loop holds the bit buffer in locals and refills it once per symbol:
// 56 bits hold a length code, its extra bits, a distance code and its
// extra bits (15+5+15+13 = 48). Codes longer than tableBits and the input's
// last bytes go through bitReader's checked methods.
func (z *inflater) block(out []byte, b *bitReader) ([]byte, error) {
	lit, dist := &z.lit, &z.dist
	src := b.src
	buf, nbits, pos := b.buf, b.nbits, b.pos
	for {
		if nbits < 48 && pos+8 <= len(src) {
			buf |= binary.LittleEndian.Uint64(src[pos:]) << nbits
			pos += int(63-nbits) >> 3
			nbits |= 56
		}
		if nbits < 48 {
			// The input's last bytes: the checked way.
			b.buf, b.nbits, b.pos = buf, nbits, pos
			return z.blockTail(out, b)
		}
		e := lit.table[buf&(1<<tableBits-1)]
		if e == 0 {
			b.buf, b.nbits, b.pos = buf, nbits, pos
			s, err := b.decode(lit)
			if err != nil {
				return out, err
			}
			buf, nbits, pos = b.buf, b.nbits, b.pos
			if s < 256 {
				out = append(out, byte(s))
				continue
			}
			e = uint16(s << 4) // a length or the end: no bits left to consume
		}
		l := uint(e & 15)
		buf >>= l
		nbits -= l
		s := int(e >> 4)
		if s < 256 {
			out = append(out, byte(s))
			continue
		}
		if s == 256 {
			b.buf, b.nbits, b.pos = buf, nbits, pos
			if len(out) > maxOutput {
				return out, errInflate
			}
			return out, nil
		}
		s -= 257
		if s >= len(lengthBase) {
			return out, errInflate
		}
		// 48 bits were held: enough for the rest of the pair.
		x := uint(lengthExtra[s])
		n := int(lengthBase[s]) + int(buf&(1<<x-1))
		buf >>= x
		nbits -= x
		var d int
		if e := dist.table[buf&(1<<distBits-1)]; e != 0 {
			l := uint(e & 15)
			buf >>= l
			nbits -= l
			d = int(e >> 4)
		} else {
			b.buf, b.nbits, b.pos = buf, nbits, pos
			var err error
			if d, err = b.decode(dist); err != nil {
				return out, err
			}
			buf, nbits, pos = b.buf, b.nbits, b.pos
		}
		if d >= len(distBase) {
			return out, errInflate
		}
		x = uint(distExtra[d])
		back := int(distBase[d]) + int(buf&(1<<x-1))
		buf >>= x
		nbits -= x
		var err error
		if out, err = appendMatch(out, back, n); err != nil {
			return out, err
		}
	}
}

// appendMatch appends the n bytes found back bytes before the end of out.
func appendMatch(out []byte, back, n int) ([]byte, error) {
	at := len(out)
	if back > at || at+n > maxOutput {
		return out, errInflate
	}
	if cap(out)-at >= n {
		out = out[:at+n] // every byte is written below
	} else {
		out = append(out, make([]byte, n)...)
	}
	if back >= n {
		copy(out[at:], out[at-back:at-back+n])
		return out, nil
	}
	for i := range n {
		out[at+i] = out[at-back+i]
	}
	return out, nil
}

// blockTail is block for the input's last bytes, every read checked.
func (z *inflater) blockTail(out []byte, b *bitReader) ([]byte, error) {
	for {
		s, err := b.decode(&z.lit)
		if err != nil {
			return out, err
		}
		if s < 256 {
			out = append(out, byte(s))
			continue
		}
		if s == 256 {
			if len(out) > maxOutput {
				return out, errInflate
			}
			return out, nil
		}
		s -= 257
		if s >= len(lengthBase) {
			return out, errInflate
		}
		e, err := b.get(uint(lengthExtra[s]))
		if err != nil {
			return out, err
		}
		n := int(lengthBase[s]) + int(e)
		d, err := b.decode(&z.dist)
		if err != nil {
			return out, err
		}
		if d >= len(distBase) {
			return out, errInflate
		}
		e, err = b.get(uint(distExtra[d]))
		if err != nil {
			return out, err
		}
		if out, err = appendMatch(out, int(distBase[d])+int(e), n); err != nil {
			return out, err
		}
	}
}
