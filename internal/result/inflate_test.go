package result

import (
	"bytes"
	stdzlib "compress/zlib"
	"io"
	"math"
	"math/rand"
	"testing"
)

// inflateCorpus is data of the kinds zlib meets: empty, random, runs,
// text-like repetition, histogram payloads, longer than a window.
func inflateCorpus(t testing.TB) [][]byte {
	rng := rand.New(rand.NewSource(9))
	var out [][]byte
	out = append(out, nil, []byte{0}, bytes.Repeat([]byte{7}, 1000))
	for _, n := range []int{1, 10, 300, 5000, 70_000} {
		r := make([]byte, n)
		rng.Read(r)
		out = append(out, r)
		s := make([]byte, n)
		for i := range s {
			s[i] = "abcdefgh"[rng.Intn(1+rng.Intn(8))]
		}
		out = append(out, s)
	}
	for range 5 {
		h := newHist()
		for range 1 + rng.Intn(5000) {
			h.RecordValue(int64(500_000 * math.Exp(rng.NormFloat64())))
		}
		out = append(out, []byte(enc(t, h)))
		var a histAcc
		if err := a.add(enc(t, h)); err != nil {
			t.Fatal(err)
		}
		out = append(out, bytes.Clone(a.payload))
	}
	return out
}

func zlibStreams(t testing.TB, data []byte) [][]byte {
	var out [][]byte
	for _, level := range []int{stdzlib.HuffmanOnly, stdzlib.NoCompression, 1, 2, 5, 6, 9} {
		var b bytes.Buffer
		w, _ := stdzlib.NewWriterLevel(&b, level)
		w.Write(data)
		w.Close()
		out = append(out, b.Bytes())
	}
	// Several blocks: a flush ends one, and an empty stored block follows.
	var b bytes.Buffer
	w, _ := stdzlib.NewWriterLevel(&b, 6)
	for i := 0; i < len(data); i += 1000 {
		w.Write(data[i:min(i+1000, len(data))])
		w.Flush()
	}
	w.Close()
	return append(out, b.Bytes())
}

// The inflater gives what compress/zlib gives, for every compression level
// (stored, fixed and dynamic blocks) and any data.
func TestInflateEqualsZlib(t *testing.T) {
	var z inflater
	for i, data := range inflateCorpus(t) {
		for j, s := range zlibStreams(t, data) {
			got, err := z.zlib(nil, s)
			if err != nil || !bytes.Equal(got, data) {
				t.Errorf("data %d, stream %d: %d bytes, error %v; want %d bytes", i, j, len(got), err, len(data))
			}
		}
	}
}

// A damaged stream is refused (or, when zlib takes it, read the same), never
// a panic.
func TestInflateDamaged(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	var z inflater
	for _, data := range inflateCorpus(t) {
		for _, s := range zlibStreams(t, data) {
			for range 20 {
				d := bytes.Clone(s)
				switch rng.Intn(3) {
				case 0:
					d = d[:rng.Intn(len(d))]
				case 1:
					d[rng.Intn(len(d))] ^= byte(1 << rng.Intn(8))
				case 2:
					d[rng.Intn(len(d))] = byte(rng.Intn(256))
				}
				checkInflate(t, &z, d)
			}
		}
	}
}

func checkInflate(t testing.TB, z *inflater, s []byte) {
	got, err := z.zlib(nil, s)
	r, rerr := stdzlib.NewReader(bytes.NewReader(s))
	var want []byte
	if rerr == nil {
		want, rerr = io.ReadAll(r)
	}
	if rerr == nil && (err != nil || !bytes.Equal(got, want)) {
		t.Fatalf("zlib reads %d bytes of %x, the inflater %d bytes, error %v", len(want), s, len(got), err)
	}
}

func FuzzInflate(f *testing.F) {
	for _, data := range inflateCorpus(f)[:8] {
		for _, s := range zlibStreams(f, data) {
			f.Add(s)
		}
	}
	var z inflater
	f.Fuzz(func(t *testing.T, s []byte) { checkInflate(t, &z, s) })
}
