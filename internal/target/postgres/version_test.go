package postgres

import "testing"

func TestParseVersion(t *testing.T) {
	cases := []struct {
		in, product, version string
	}{
		// Debian's PostgreSQL 15 build
		{"PostgreSQL 15.8 (Debian 15.8-0+deb12u1) on x86_64-pc-linux-gnu, compiled by gcc (Debian 12.2.0-14) 12.2.0, 64-bit", "PostgreSQL", "15.8"},
		// upstream build string
		{"PostgreSQL 15.4 on x86_64-pc-linux-gnu, compiled by gcc (GCC) 11.3.1, 64-bit", "PostgreSQL", "15.4"},
		// development snapshot and beta
		{"PostgreSQL 17devel on x86_64-pc-linux-gnu, compiled by gcc", "PostgreSQL", "17devel"},
		{"PostgreSQL 16beta1 on aarch64-apple-darwin22.4.0, compiled by Apple clang", "PostgreSQL", "16beta1"},
		// YugabyteDB YSQL: PostgreSQL 11.2 compatible, product version after -YB-, build tag dropped
		{"PostgreSQL 11.2-YB-2.20.1.0-b0 on x86_64-pc-linux-gnu, compiled by clang version 16.0.6, 64-bit", "YugabyteDB", "2.20.1.0"},
		// YugabyteDB 2024 on PostgreSQL 15
		{"PostgreSQL 15.2-YB-2024.2.0.0-b0 on x86_64-pc-linux-gnu, compiled by clang version 17.0.6, 64-bit", "YugabyteDB", "2024.2.0.0"},
		// CockroachDB: v prefix dropped
		{"CockroachDB CCL v23.1.11 (x86_64-pc-linux-gnu, built 2023/09/27 01:53:43, go1.19.13)", "CockroachDB", "23.1.11"},
		// CockroachDB OSS pre-release
		{"CockroachDB OSS v24.1.0-beta.2 (aarch64-unknown-linux-gnu, built 2024/04/30)", "CockroachDB", "24.1.0-beta.2"},
		// something else speaking the protocol: first word and its number
		{"Postgres-XL 10.6 on x86_64", "Postgres-XL", "10.6"},
		// nothing recognisable
		{"", "unknown", ""},
	}
	for _, c := range cases {
		p, v := ParseVersion(c.in)
		if p != c.product || v != c.version {
			t.Errorf("ParseVersion(%q) = %q, %q; want %q, %q", c.in, p, v, c.product, c.version)
		}
	}
}

func FuzzParseVersion(f *testing.F) {
	f.Add("PostgreSQL 15.8 (Debian) on x86_64")
	f.Add("PostgreSQL 11.2-YB-2.20.1.0-b0 on x86_64")
	f.Add("CockroachDB CCL v23.1.11 (x86_64)")
	f.Fuzz(func(t *testing.T, s string) {
		p, _ := ParseVersion(s)
		if p == "" {
			t.Errorf("ParseVersion(%q): empty product", s)
		}
	})
}
