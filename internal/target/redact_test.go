package target

import (
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	cases := []struct{ in, want string }{
		// password in user info is replaced, user kept
		{"postgres://bob:s3cret@127.0.0.1:5432/db", "postgres://bob:xxxxx@127.0.0.1:5432/db"},
		// no password: unchanged
		{"postgres://bob@127.0.0.1/db?sslmode=disable", "postgres://bob@127.0.0.1/db?sslmode=disable"},
		// password as a query parameter
		{"postgres://127.0.0.1/db?user=bob&password=s3cret&sslmode=disable", "postgres://127.0.0.1/db?user=bob&password=xxxxx&sslmode=disable"},
		// malformed URL still hides the secret
		{"postgres://bob:s3cr%et@host/db", "postgres://bob:xxxxx@host/db"},
		// sqlite paths pass through
		{"sqlite://candor.db", "sqlite://candor.db"},
	}
	for _, c := range cases {
		got := Redact(c.in)
		if got != c.want {
			t.Errorf("Redact(%q) = %q, want %q", c.in, got, c.want)
		}
		if strings.Contains(got, "s3cr") {
			t.Errorf("Redact(%q) leaked the secret: %q", c.in, got)
		}
	}
}
