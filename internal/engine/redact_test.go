package engine

import (
	"strings"
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

// A password in a fault's command (mysql's -pPW, a Go DSN, PGPASSWORD=,
// --password=, a URL, the target's own password verbatim) is masked in the
// recorded command line and Spec; the fault's schedule still holds the
// command as given.
func TestFaultCommandPasswordsMasked(t *testing.T) {
	faults := []string{
		"at=1s run=mysql -uauditu -pSECRET1 -e 'select 1'",
		"at=2s run=./tool 'auditu:SECRET2@tcp(127.0.0.1:3306)/db'",
		"at=3s run=env PGPASSWORD=SECRET3 psql -c 'select 1'",
		"at=4s run=mysqladmin --password=SECRET4 status",
		"at=5s run=psql postgres://u:SECRET5@h/db -c 'select 1'",
		"at=6s run=echo TARGETPW and again TARGETPW",
	}
	args := []string{"candor", "run", "ycsb", "--target", "postgres://bench:TARGETPW@127.0.0.1:5432/bench"}
	for _, f := range faults {
		args = append(args, "--fault", f)
	}
	secrets := []string{"SECRET1", "SECRET2", "SECRET3", "SECRET4", "SECRET5", "TARGETPW"}
	line := strings.Join(RedactArgs(args, target.Redact), " ")
	spec := Spec{Targets: []string{"postgres://bench:TARGETPW@127.0.0.1:5432/bench"}, Faults: faults}
	red := spec.Redacted()
	recorded := line + " " + strings.Join(red.Faults, " ") + " " + strings.Join(red.Targets, " ")
	for _, s := range secrets {
		if strings.Contains(recorded, s) {
			t.Errorf("%s is recorded: %s", s, recorded)
		}
	}
	if !strings.Contains(recorded, "-uauditu -pxxxxx") || !strings.Contains(recorded, "auditu:xxxxx@tcp(127.0.0.1:3306)/db") {
		t.Errorf("the masked words lost their shape: %s", recorded)
	}
	if spec.Faults[0] != faults[0] || !strings.Contains(spec.Faults[5], "TARGETPW") {
		t.Errorf("Redacted changed the spec that runs: %q", spec.Faults)
	}
}
