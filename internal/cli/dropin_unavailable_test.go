package cli

import (
	"io"
	"os"
	"testing"

	"github.com/candor-bench/candor/internal/pgbenchline"
	"github.com/candor-bench/candor/internal/runflags"
	"github.com/candor-bench/candor/internal/runner"
	"github.com/candor-bench/candor/internal/sysbenchline"
)

// TestDropInsMaxUnavailable: the pgbench and sysbench drop-ins pass
// --max-unavailable on to the run's Spec in their own spellings (pgbench's
// "--opt VALUE" and "--opt=VALUE", sysbench's "--opt=VALUE"), and a line
// without it gets candor run's default.
func TestDropInsMaxUnavailable(t *testing.T) {
	env := &Env{Stdout: io.Discard, Stderr: io.Discard, Getenv: func(string) string { return "" }}
	has := flagOf(NewRoot(env))
	for _, c := range []struct {
		name string
		args []string
		want float64
	}{
		{"pgbench, a separate value", []string{"pgbench", "-c", "4", "-T", "10", "--max-unavailable", "0", "-h", "db", "bench"}, 0},
		{"pgbench, a percentage after =", []string{"pgbench", "-c", "4", "-T", "10", "--max-unavailable=20%", "bench"}, 0.2},
		{"pgbench, not given", []string{"pgbench", "-c", "4", "-T", "10", "bench"}, runner.DefaultMaxUnavailable},
		{"sysbench, after =", []string{"sysbench", "--db-driver=pgsql", "--threads=4", "--max-unavailable=0.3", "oltp_read_only", "run"}, 0.3},
		{"sysbench, off", []string{"sysbench", "--db-driver=pgsql", "--max-unavailable=0", "oltp_read_only", "run"}, 0},
		{"sysbench, not given", []string{"sysbench", "--db-driver=pgsql", "oltp_read_only", "run"}, runner.DefaultMaxUnavailable},
	} {
		var out []string
		var err error
		if c.args[0] == "pgbench" {
			var l *pgbenchline.Line
			if l, err = pgbenchline.Parse(c.args[1:]); err == nil {
				out, err = l.Args(env.Getenv)
			}
		} else {
			var l *sysbenchline.Line
			if l, err = sysbenchline.Parse(c.args[1:], os.ReadFile); err == nil {
				out, err = l.Args(has)
			}
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		spec, err := runflags.Parse(out[0], out[1:])
		if err != nil {
			t.Errorf("%s: %v (candor %v)", c.name, err, out)
			continue
		}
		if spec.MaxUnavailable != c.want {
			t.Errorf("%s: max unavailable %v, want %v (candor %v)", c.name, spec.MaxUnavailable, c.want, out)
		}
	}
}
