package ycsb

import (
	"crypto/sha256"
	"encoding/hex"
	"math/rand"
	"strings"
	"testing"
)

// TestKeyNameReference checks keys against docs/YCSB.md, "Reference facts", computed by
// running YCSB's Java buildKeyName (hashed, zeropadding 1).
func TestKeyNameReference(t *testing.T) {
	cases := []struct {
		keynum int64
		want   string
	}{
		{0, "user6284781860667377211"},
		{1, "user8517097267634966620"},
		{2, "user1820151046732198393"},
		{3, "user4052466453699787802"},
		{4, "user3232700585171816769"},
		{999, "user2071219101098386137"},
		{999999, "user2744965632448235251"},
	}
	for _, c := range cases {
		if got := KeyName(c.keynum, 1, true); got != c.want {
			t.Errorf("keynum %d: got %s, want %s", c.keynum, got, c.want)
		}
	}
}

func TestKeyNameOrderedAndPadding(t *testing.T) {
	cases := []struct {
		keynum  int64
		padding int
		hashed  bool
		want    string
	}{
		{0, 1, false, "user0"},                         // ordered: the number itself
		{5, 1, false, "user5"},                         // padding 1 adds nothing
		{5, 0, false, "user5"},                         // padding 0 behaves like 1
		{5, 8, false, "user00000005"},                  // zeros up to 8 digits
		{123, 2, false, "user123"},                     // padding shorter than the number
		{12345678, 8, false, "user12345678"},           // exactly the digits
		{-7, 4, false, "user00-7"},                     // Java counts the sign as a character
		{0, 25, true, "user0000006284781860667377211"}, // hashed 19 digits padded to 25
	}
	for _, c := range cases {
		if got := KeyName(c.keynum, c.padding, c.hashed); got != c.want {
			t.Errorf("KeyName(%d, %d, %v) = %s, want %s", c.keynum, c.padding, c.hashed, got, c.want)
		}
	}
}

// TestDeterministicValueReference checks dataintegrity values against
// YCSB's algorithm run on the JVM (String.hashCode, StringBuilder.setLength).
func TestDeterministicValueReference(t *testing.T) {
	cases := []struct {
		key, field string
		size       int
		want       string
	}{
		// 100 bytes: several hash rounds, the last one cut.
		{"user6284781860667377211", "field0", 100, "user6284781860667377211:field0:-56807877:2032869390:-165488160:1762371712:-169193395:-1039977118:-10"},
		// Shorter than key:field: truncated, no hash at all.
		{"user1", "field9", 10, "user1:fiel"},
		// Short prefix.
		{"user8517097267634966620", "f3", 50, "user8517097267634966620:f3:96628754:284390225:-102"},
		// Non-ASCII field name: Java counts UTF-16 units and hashes them.
		{"user0", "f\u00e9ld2", 40, "user0:f\u00e9ld2:-2748200:961871142:105404983"},
	}
	for _, c := range cases {
		if got := DeterministicValue(c.key, c.field, c.size); got != c.want {
			t.Errorf("%s/%s/%d:\n got %s\nwant %s", c.key, c.field, c.size, got, c.want)
		}
	}
	// 1000 bytes: many rounds; the JVM's output hashed.
	got := DeterministicValue("user2744965632448235251", "field9", 1000)
	sum := sha256.Sum256([]byte(got))
	if len(got) != 1000 || hex.EncodeToString(sum[:]) != "1b271c3adedf3cd77f405c36a33d320f62d4f58bf2d5e698be8b07b06c4f86ba" {
		t.Errorf("1000-byte value differs from the JVM's: %q", got)
	}
}

func TestFillRandomPrintable(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	seen := map[byte]bool{}
	for _, n := range []int{0, 1, 7, 8, 9, 100, 1000} {
		b := make([]byte, n)
		for i := 0; i < 200; i++ {
			fillRandom(r, b)
			for _, c := range b {
				if c < 0x20 || c > 0x7e {
					t.Fatalf("byte %#x outside printable ASCII", c)
				}
				seen[c] = true
			}
		}
	}
	// Every one of the 95 printable characters occurs.
	if len(seen) != 95 {
		t.Errorf("saw %d distinct characters, want 95", len(seen))
	}
}

func TestHistogramFile(t *testing.T) {
	good := "BlockSize\t10\n0\t2\n1\t3\n2\t5\n"
	h, err := parseHistogram("h.txt", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if h.BlockSize != 10 || len(h.Buckets) != 3 || h.area != 10 {
		t.Fatalf("parsed %+v", h)
	}
	// Every draw n in [0, area), as YCSB's HistogramGenerator maps it:
	// n-2 <= 0 for n = 0..2 -> 10; n-2-3 <= 0 for n = 3..5 -> 20; otherwise
	// the last bucket's index times the block size -> 20 as well.
	g := histogramGen{h}
	want := []int64{10, 10, 10, 20, 20, 20, 20, 20, 20, 20}
	for n := int64(0); n < h.area; n++ {
		if got := g.pick(n); got != want[n] {
			t.Errorf("pick(%d) = %d, want %d", n, got, want[n])
		}
	}
	// CRLF line ends are accepted.
	if _, err := parseHistogram("crlf", []byte("BlockSize\t4\r\n0\t1\r\n")); err != nil {
		t.Errorf("CRLF: %v", err)
	}

	bad := []struct {
		in, want string
	}{
		{"", "empty histogram file"},                                       // nothing at all
		{"Block\t10\n0\t1\n", "first line must be"},                        // wrong header word
		{"BlockSize\n0\t1\n", "first line must be"},                        // header without a size
		{"BlockSize\t0\n0\t1\n", "must be a positive integer"},             // zero block size
		{"BlockSize\t10\n0\t1\n2\t1\n", "out of order"},                    // bucket 1 missing
		{"BlockSize\t10\n0 1\n", "expected \"bucket<TAB>count\""},          // blank, not a tab
		{"BlockSize\t10\n0\tx\n", "non-negative integers"},                 // count not a number
		{"BlockSize\t10\n0\t0\n", "sum to between 1"},                      // no weight at all
		{"BlockSize\t10\n0\t1\n\n", "expected \"bucket<TAB>count\""},       // blank line
		{"BlockSize\t10\n0\t-1\n1\t2\n", "non-negative integers"},          // negative count
		{"BlockSize\t2000000000\n0\t1\n1\t1\n", "too large"},               // absurd lengths
		{"BlockSize\t10\n0\t2147483647\n1\t1\n", "sum to between 1 and 2"}, // area beyond Java's int
	}
	for _, c := range bad {
		_, err := parseHistogram("h.txt", []byte(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "h.txt") {
			t.Errorf("%q: want error containing %q, got %v", c.in, c.want, err)
		}
	}
}
