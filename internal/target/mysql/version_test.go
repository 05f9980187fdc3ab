package mysql

import "testing"

func TestParseVersion(t *testing.T) {
	cases := []struct {
		in, product, version string
	}{
		// Debian 12's MariaDB
		{"10.11.6-MariaDB-0+deb12u1", "MariaDB", "10.11.6"},
		// upstream MariaDB with the binary log on
		{"11.4.2-MariaDB-log", "MariaDB", "11.4.2"},
		// MariaDB behind a proxy that keeps the replication prefix
		{"5.5.5-10.6.18-MariaDB-ubu2004", "MariaDB", "10.6.18"},
		// plain MySQL
		{"8.0.36", "MySQL", "8.0.36"},
		// distribution build suffix dropped
		{"8.0.36-0ubuntu0.22.04.1", "MySQL", "8.0.36"},
		{"5.7.44-log", "MySQL", "5.7.44"},
		// TiDB: a MySQL version, then its own
		{"8.0.11-TiDB-v8.5.0", "TiDB", "8.5.0"},
		{"5.7.25-TiDB-v7.5.1", "TiDB", "7.5.1"},
		// TiDB pre-release from source: the whole tag
		{"8.0.11-TiDB-v9.0.0-beta.2.pre-123-g25fa27a", "TiDB", "9.0.0-beta.2.pre-123-g25fa27a"},
		// TiDB built without a version: left to tidb_version()
		{"8.0.11-TiDB-None", "TiDB", ""},
		// surrounding blanks
		{"  8.4.0 ", "MySQL", "8.4.0"},
		// nothing recognisable
		{"", "unknown", ""},
		{"Vitess", "unknown", ""},
	}
	for _, c := range cases {
		p, v := ParseVersion(c.in)
		if p != c.product || v != c.version {
			t.Errorf("ParseVersion(%q) = %q, %q; want %q, %q", c.in, p, v, c.product, c.version)
		}
	}
}

func TestParseTiDBVersion(t *testing.T) {
	cases := map[string]string{
		// tidb_version() of a release
		"Release Version: v8.5.0\nEdition: Community\nGit Commit Hash: abc\n": "8.5.0",
		// a build from source
		"Release Version: v9.0.0-beta.2.pre-123-g25fa27a\nEdition: Community": "9.0.0-beta.2.pre-123-g25fa27a",
		// Windows line ends and leading blank line
		"\nRelease Version: v7.5.1\r\nEdition: Community": "7.5.1",
		// no version
		"Release Version: None\nEdition: Community": "",
		"":      "",
		"8.5.0": "",
	}
	for in, want := range cases {
		if got := ParseTiDBVersion(in); got != want {
			t.Errorf("ParseTiDBVersion(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParseVersion(f *testing.F) {
	f.Add("10.11.6-MariaDB-0+deb12u1")
	f.Add("8.0.11-TiDB-v8.5.0")
	f.Add("8.0.36")
	f.Fuzz(func(t *testing.T, s string) {
		p, _ := ParseVersion(s)
		if p == "" {
			t.Errorf("ParseVersion(%q): empty product", s)
		}
		_ = ParseTiDBVersion(s)
	})
}
