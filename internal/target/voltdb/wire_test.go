package voltdb

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"
)

// h decodes hex written with spaces between fields.
func h(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The login request, field by field from the protocol's description.
func TestLoginMessage(t *testing.T) {
	sum := sha256.Sum256([]byte("pw"))
	want := h(t, "00000000"+ // length, filled below
		"01"+ // protocol version 1
		"01"+ // SHA-256
		"00000008"+hex.EncodeToString([]byte("database"))+
		"00000003"+hex.EncodeToString([]byte("bob"))) // user
	want = append(want, sum[:]...)
	want[3] = byte(len(want) - 4)
	if got := loginMessage("bob", "pw"); !bytes.Equal(got, want) {
		t.Errorf("login message\n got %x\nwant %x", got, want)
	}
}

func TestLoginReply(t *testing.T) {
	ok := h(t, "01 00 00000002 0000000000000007 0000018c00000000 7f000001 00000006"+hex.EncodeToString([]byte("10.1.1")))
	r, err := parseLoginReply(ok)
	if err != nil || r.Result != 0 || r.HostID != 2 || r.ConnectionID != 7 || r.LeaderIPv4 != 0x7f000001 || r.Build != "10.1.1" {
		t.Errorf("reply %+v, %v", r, err)
	}
	// A refusal carries only its result code.
	r, err = parseLoginReply(h(t, "01 03"))
	if err != nil || r.Result != 3 || !strings.Contains(loginError(r.Result).Error(), "malformed") {
		t.Errorf("refusal %+v, %v", r, err)
	}
	// A reply cut short is a protocol error, not a panic.
	if _, err := parseLoginReply(h(t, "01 00 0000")); !errors.Is(err, errProtocol) {
		t.Errorf("short reply: %v", err)
	}
}

// An invocation of @AdHoc with one parameter of every scalar type.
func TestInvocation(t *testing.T) {
	ts := time.UnixMicro(1_000_001)
	got, err := invocation(nil, "@AdHoc", 9, []any{"SELECT ?", nil, int8(-1), int16(2), int32(3), int64(4), 5, 1.5, []byte{0xab}, ts, true})
	if err != nil {
		t.Fatal(err)
	}
	want := h(t, "00000000 00"+ // length, version 0
		"00000006"+hex.EncodeToString([]byte("@AdHoc"))+
		"0000000000000009"+ // client handle
		"000b"+ // 11 parameters
		"09 00000008"+hex.EncodeToString([]byte("SELECT ?"))+
		"01"+ // NULL
		"03 ff"+ // TINYINT -1
		"04 0002"+ // SMALLINT
		"05 00000003"+ // INTEGER
		"06 0000000000000004"+ // BIGINT
		"06 0000000000000005"+ // int: BIGINT
		"08 3ff8000000000000"+ // FLOAT 1.5
		"19 00000001 ab"+ // VARBINARY
		"0b 00000000000f4241"+ // TIMESTAMP, microseconds
		"03 01") // bool: TINYINT 1
	want[3] = byte(len(want) - 4)
	if !bytes.Equal(got, want) {
		t.Errorf("invocation\n got %x\nwant %x", got, want)
	}
	if _, err := invocation(nil, "P", 1, []any{struct{}{}}); err == nil || !strings.Contains(err.Error(), "parameter 1") {
		t.Errorf("a parameter without a wire type: %v", err)
	}
}

// table encodes a VoltTable by hand: header (status, columns, types,
// names), then rows.
func table(t *testing.T, types string, names []string, rows ...string) string {
	var hdr strings.Builder
	hdr.WriteString("80") // status
	hdr.WriteString(hex.EncodeToString([]byte{0, byte(len(names))}))
	hdr.WriteString(types)
	for _, n := range names {
		hdr.WriteString(hex.EncodeToString([]byte{0, 0, 0, byte(len(n))}) + hex.EncodeToString([]byte(n)))
	}
	hb := h(t, hdr.String())
	body := hex.EncodeToString([]byte{0, 0, 0, byte(len(hb))}) + hex.EncodeToString(hb)
	body += hex.EncodeToString([]byte{0, 0, 0, byte(len(rows))})
	for _, r := range rows {
		rb := h(t, r)
		body += hex.EncodeToString([]byte{0, 0, 0, byte(len(rb))}) + hex.EncodeToString(rb)
	}
	bb := h(t, body)
	return hex.EncodeToString([]byte{0, 0, 0, byte(len(bb))}) + body
}

func TestResponseWithTable(t *testing.T) {
	tb := table(t, "05 09 19 08 06 16", []string{"I", "S", "B", "F", "N", "D"},
		// 7, "ab", 0x01ff, 2.5, NULL bigint, 1.5 (scale 12)
		"00000007 00000002 6162 00000002 01ff 4004000000000000 8000000000000000 00000000000000000000015d3ef79800",
		// NULL integer, NULL string, NULL varbinary, NULL float, -3, -0.000000000001
		"80000000 ffffffff ffffffff ffefffffffffffff fffffffffffffffd ffffffffffffffffffffffffffffffff")
	body := h(t, "00 000000000000002a 00 01 00 00000003 0001"+tb)
	r, err := parseResponse(body)
	if err != nil {
		t.Fatal(err)
	}
	if r.Handle != 42 || r.Status != StatusSuccess || r.ClusterRTT != 3 || len(r.Tables) != 1 {
		t.Fatalf("response %+v", r)
	}
	got := r.Tables[0]
	if strings.Join(got.Names, ",") != "I,S,B,F,N,D" {
		t.Errorf("names %v", got.Names)
	}
	text := func(row [][]byte) string {
		var s []string
		for _, v := range row {
			if v == nil {
				s = append(s, "NULL")
			} else {
				s = append(s, string(v))
			}
		}
		return strings.Join(s, "|")
	}
	if g := text(got.Rows[0]); g != "7|ab|\x01\xff|2.5|NULL|1.5" {
		t.Errorf("row 0 = %q", g)
	}
	if g := text(got.Rows[1]); g != "NULL|NULL|NULL|NULL|-3|-0.000000000001" {
		t.Errorf("row 1 = %q", g)
	}
}

func TestFailureResponse(t *testing.T) {
	msg := "CONSTRAINT VIOLATION"
	// Status string and exception present (bits 5 and 6); the exception's
	// first byte is its type, 3 a constraint failure.
	body := h(t, "00 0000000000000001 60 fe 00000014"+hex.EncodeToString([]byte(msg))+" 80 00000000 00000003 03aabb 0000")
	r, err := parseResponse(body)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != StatusGracefulFailure || r.StatusString != msg || r.ExceptionType != exceptionConstraint || len(r.Tables) != 0 {
		t.Errorf("response %+v", r)
	}
	// Every prefix of a response fails cleanly.
	for i := 0; i < len(body); i++ {
		if _, err := parseResponse(body[:i]); !errors.Is(err, errProtocol) {
			t.Fatalf("response cut at %d: %v", i, err)
		}
	}
}

func TestDecimalText(t *testing.T) {
	for in, want := range map[string]string{
		"00000000000000000000000000000000":       "0",
		"000000000000000000000000e8d4a51000"[2:]: "1",   // 1e12 unscaled
		"000000000000000000000246139ca800":       "2.5", // 25e11
		"fffffffffffffffffffff8e502b67300":       "-7.8125",
		"ffffffffffffffffffffffffffffffff":       "-0.000000000001",
	} {
		if got := string(decimalText(h(t, in))); got != want {
			t.Errorf("decimal %s = %q, want %q", in, got, want)
		}
	}
	if got := decimalText(h(t, "80000000000000000000000000000000")); got != nil {
		t.Errorf("NULL decimal = %q", got)
	}
}
