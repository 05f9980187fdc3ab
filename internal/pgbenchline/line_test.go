package pgbenchline

import (
	"strings"
	"testing"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestArgs(t *testing.T) {
	noEnv := env(map[string]string{"USER": "me"})
	for _, c := range []struct {
		name string
		in   []string
		env  func(string) string
		want string
	}{
		// pgbench's defaults: tpcb-like (the workload's), 1 client, -t 10.
		{"defaults", []string{"bench"}, noEnv,
			"run script/pgbench --target postgres://me@localhost:5432/bench --threads 1 --loops 1 --load never --allow-foreign-tables --operations 10 --format pgbench"},
		{"run", []string{"-c", "16", "-j4", "-T", "60", "-M", "prepared", "-r", "-P", "5", "-f", "a.sql@3", "-S", "-D", "x=1", "--max-tries=3", "--random-seed=7", "-h", "db", "-p", "5433", "-U", "pg", "b"}, noEnv,
			"run script/pgbench --target postgres://pg@db:5433/b -p jobs=4 -p protocol=prepared -p report-latencies=true -p file=a.sql@3 -p builtin=select-only -p define=x=1 -p max-tries=3 -p random-seed=7 --threads 16 --loops 4 --load never --allow-foreign-tables --time 60s --report-interval 5s --format pgbench"},
		{"transactions and rate", []string{"-c4", "-t", "100", "-R", "500", "-L", "20", "-N", "--target", "sqlite:///x.db", "-o", "r.json"}, noEnv,
			"run script/pgbench -p latency-limit=20 -p builtin=simple-update --threads 4 --loops 1 --load never --allow-foreign-tables --operations 400 --rate 500 --format pgbench --target sqlite:///x.db -o r.json"},
		{"environment", []string{"-i", "-s", "5"}, env(map[string]string{"PGHOST": "h", "PGPORT": "1", "PGUSER": "u", "PGDATABASE": "d"}),
			"load script/pgbench --target postgres://u@h:1/d -p scale=5 -p tables=true"},
		{"candor's options", []string{"-T", "10", "--repeat", "3", "--warmup=5s", "--format", "json", "bench"}, noEnv,
			"run script/pgbench --target postgres://me@localhost:5432/bench --threads 1 --loops 1 --load never --allow-foreign-tables --time 10s --repeat 3 --warmup=5s --format json"},
		{"a session I/O of the user's", []string{"-c", "8", "-j", "2", "-T", "10", "--session-io", "blocking", "bench"}, noEnv,
			"run script/pgbench --target postgres://me@localhost:5432/bench -p jobs=2 --threads 8 --load never --allow-foreign-tables --time 10s --format pgbench --session-io blocking"},
	} {
		l, err := Parse(c.in)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		got, err := l.Args(c.env)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, strings.Join(got, " "), c.want)
		}
	}
}

func TestRefused(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string
	}{
		{[]string{"-C", "b"}, "a new connection per transaction"},
		{[]string{"-l", "b"}, "per-transaction log"},
		{[]string{"--partitions=4", "b"}, "unpartitioned"},
		{[]string{"-i", "--foreign-keys", "b"}, "no foreign keys"},
		{[]string{"-F", "90", "-i", "b"}, "fill factor"},
		{[]string{"-I", "dtx", "-i", "b"}, "unrecognized initialization step"},
		{[]string{"-c", "0", "b"}, "invalid number of clients"},
		{[]string{"-R", "-1", "b"}, "invalid rate limit"},
		{[]string{"-Z", "b"}, "not known"},
		{[]string{"a", "b"}, "too many command-line arguments"},
		{[]string{"-c"}, "needs a value"},
	} {
		_, err := Parse(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.in, err, c.want)
		}
	}
	l, _ := Parse([]string{"-h", "/var/run/postgresql", "b"})
	if _, err := l.Args(env(nil)); err == nil || !strings.Contains(err.Error(), "Unix socket") {
		t.Errorf("socket directory: %v", err)
	}
}
