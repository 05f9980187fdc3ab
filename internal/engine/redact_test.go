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

// A target's password of fewer than MinVerbatimSecret characters is masked
// only where it stands as a password; masking every "p" of unrelated text
// would garble the record ("dial tcxxxxx") and tell the password's length.
// A longer one is still masked wherever it appears.
func TestShortPasswordMaskedOnlyAsPassword(t *testing.T) {
	secrets := TargetPasswords([]string{"--target=mysql://u:p@127.0.0.1/db"})
	cases := []struct{ in, want string }{
		{"dial tcp 127.0.0.1:3306: connect: connection refused", "dial tcp 127.0.0.1:3306: connect: connection refused"}, // unrelated text
		{"psql mysql://u:p@127.0.0.1/db", "psql mysql://u:xxxxx@127.0.0.1/db"},                                           // URL userinfo
		{"./tool 'u:p@tcp(127.0.0.1:3306)/db'", "./tool 'u:xxxxx@tcp(127.0.0.1:3306)/db'"},                               // a Go DSN
		{"mysql -uu -pp -e 'select 1'", "mysql -uu -pxxxxx -e 'select 1'"},                                               // -pPW
		{"mysql -uu -p p", "mysql -uu -p xxxxx"},                                                                         // -p PW
		{"mysqladmin --password=p status", "mysqladmin --password=xxxxx status"},                                         // --password=
		{"mysqladmin --password p status", "mysqladmin --password xxxxx status"},                                         // --password PW
		{"env PGPASSWORD=p psql", "env PGPASSWORD=xxxxx psql"},                                                           // PGPASSWORD=
		{"host=h password=p dbname=db", "host=h password=xxxxx dbname=db"},                                               // a libpq keyword
		{"copy pp.sql to p/", "copy pp.sql to p/"},                                                                       // no password context
	}
	for _, c := range cases {
		if got := MaskSecrets(c.in, secrets); got != c.want {
			t.Errorf("MaskSecrets(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	// Long enough to be unambiguous: masked wherever it appears.
	if got := MaskSecrets("echo s3cr and s3cr", []string{"s3cr"}); got != "echo xxxxx and xxxxx" {
		t.Errorf("a 4-character password is masked as %q", got)
	}
	// Through the record of a run: the spec and a fault's text.
	spec := Spec{Targets: []string{"mysql://u:p@127.0.0.1/db"}, Faults: []string{"at=1s run=./probe dial tcp; mysql -pp"}}
	red := spec.Redacted()
	if red.Targets[0] != "mysql://u:xxxxx@127.0.0.1/db" || red.Faults[0] != "at=1s run=./probe dial tcp; mysql -pxxxxx" {
		t.Errorf("recorded %q and %q", red.Targets, red.Faults)
	}
}
