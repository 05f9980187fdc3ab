package engine

import (
	"testing"

	"github.com/candor-bench/candor/internal/target"
)

func TestRedactArgs(t *testing.T) {
	cases := []struct{ in, want string }{
		{"db.passwd=x", "db.passwd=xxxxx"},                               // YCSB's JDBC binding
		{"--mysql-password=pw", "--mysql-password=xxxxx"},                // sysbench's option
		{"--plan-param=auth_token=abc", "--plan-param=auth_token=xxxxx"}, // a plan parameter
		{"-pcassandra.password=a=b", "-pcassandra.password=xxxxx"},       // '=' in the secret
		{"postgres://u:pw@h/db", "postgres://u:xxxxx@h/db"},              // a URL's password
		{"recordcount=1000", "recordcount=1000"},                         // harmless
		{"--time=10", "--time=10"},                                       // harmless
		{"table=passwords_archive", "table=passwords_archive"},           // a secret word in a value only
	}
	for _, c := range cases {
		if got := RedactArgs([]string{c.in}, target.Redact)[0]; got != c.want {
			t.Errorf("RedactArgs(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := RedactParam("db.passwd", "x"); got != MaskedValue {
		t.Errorf("plan parameter db.passwd recorded as %q", got)
	}
}
