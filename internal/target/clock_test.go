package target

import (
	"testing"
	"time"
)

func TestParseUnixSeconds(t *testing.T) {
	for in, want := range map[string]time.Time{
		"1764154143.123456":  time.Unix(1764154143, 123456000),
		"1764154143":         time.Unix(1764154143, 0),
		" 1764154143.5\n":    time.Unix(1764154143, 500000000),
		"1764154143.1234567": time.Unix(1764154143, 123456700),
	} {
		if got, err := parseUnixSeconds(in); err != nil || !got.Equal(want) {
			t.Errorf("%q: %v %v, want %v", in, got, err, want)
		}
	}
	if _, err := parseUnixSeconds("noon"); err == nil {
		t.Error("noon parsed")
	}
}
