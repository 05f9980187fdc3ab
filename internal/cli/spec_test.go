package cli

import (
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/engine"
	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/runflags"
)

// TestSpecRoundTrip: for every workload family, a command line parses to
// a Spec, the engine runs it and records it in the result, the recorded
// Spec equals the parsed one, and the command line the Spec renders parses
// back to the same Spec.
func TestSpecRoundTrip(t *testing.T) {
	t.Parallel()
	cases := []struct {
		family string
		args   []string
	}{
		{"ycsb", []string{"ycsb/a", "-p", "recordcount=50", "--time", "400ms", "--threads", "2", "--warmup", "100ms",
			"--rate", "500", "--arrival", "poisson", "--retries", "1", "--isolation", "read-committed", "--max-error-rate", "5%",
			"--batch-size", "10", "--report-interval", "500ms", "--server-counters=false"}},
		{"sysbench", []string{"sysbench/oltp_read_only", "--tables", "1", "--table-size", "20", "--time", "300ms", "--repeat", "2", "--load", "always", "--check", "--target", "sqlite://SB"}},
		{"kv", []string{"kv-basic", "--operations", "20", "--connect-timeout", "3s"}},
		{"commit-loop", []string{"commit-loop", "--ledger", "--recovery-timeout", "2s", "--time", "300ms"}},
		{"ledger", []string{"ledger", "--time", "300ms", "--on-fault-error", "continue", "--target-role", "any"}},
		{"tpcc", []string{"tpcc", "--warehouses", "1", "--time", "300ms", "--spec-waits", "--max-error-rate", "100%"}},
		{"bank", []string{"bank", "--accounts", "50", "--locking", "optimistic", "--time", "300ms", "--check", "--target", "sqlite://SB"}},
		{"pgbench script", []string{"script/pgbench", "-p", "file=SCRIPT", "-p", "protocol=prepared", "--time", "300ms"}},
		{"sysbench lua", []string{"sysbench-lua", "-p", "file=SCRIPT", "--time", "300ms"}},
	}
	scripts := map[string]string{
		"pgbench script": "\\set x random(1, 10)\nSELECT :x;\n",
		"sysbench lua":   "function thread_init() con = sysbench.sql.driver():connect() end\nfunction event() con:query(\"SELECT 1\") end\n",
	}
	for _, c := range cases {
		t.Run(c.family, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			out := filepath.Join(dir, "r.json")
			args := append([]string{}, c.args...)
			script := filepath.Join(dir, "script")
			for i, a := range args {
				switch a {
				case "sqlite://SB":
					args[i] = "sqlite://" + filepath.Join(dir, "sb.db")
				case "file=SCRIPT":
					args[i] = "file=" + script
					if err := os.WriteFile(script, []byte(scripts[c.family]), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			if !strings.Contains(strings.Join(args, " "), "sqlite://") {
				args = append(args, "--target", "null://")
			}
			args = append(args, "--seed", "42", "-q", "-o", out)
			env := &Env{Stdout: io.Discard, Stderr: io.Discard, Getenv: func(string) string { return "" }, Args: append([]string{"candor", "run"}, args...)}
			spec, err := runflags.Parse(phaseRun, args)
			if err != nil {
				t.Fatal(err)
			}
			if err := runSpec(env, spec); err != nil {
				t.Fatalf("exit %d: %v", ExitCode(err), err)
			}
			res, err := result.Read(out)
			if err != nil {
				t.Fatal(err)
			}
			recorded, err := engine.ReadSpec(res.Spec)
			if err != nil {
				t.Fatal(err)
			}
			if text, ok := scripts[c.family]; ok {
				// The result carries the script's text, which the command
				// line names by its file.
				if len(recorded.Scripts) != 1 || recorded.Scripts[0].Name != script || recorded.Scripts[0].Text != text {
					t.Errorf("recorded scripts %+v, want %s with its text", recorded.Scripts, script)
				}
				spec.Scripts = recorded.Scripts
			}
			if !reflect.DeepEqual(recorded, spec) {
				t.Errorf("recorded Spec differs:\n got %+v\nwant %+v", recorded, spec)
			}
			rendered := recorded.Args()
			if want := append([]string{"candor"}, rendered...); !reflect.DeepEqual(res.SpecCommand, want) {
				t.Errorf("spec_command %q, want %q", res.SpecCommand, want)
			}
			again, err := runflags.Parse(rendered[0], rendered[1:])
			if err != nil {
				t.Fatalf("candor %v: %v", rendered, err)
			}
			again.Scripts = spec.Scripts
			if !reflect.DeepEqual(again, spec) {
				t.Errorf("candor %v parses to another Spec:\n got %+v\nwant %+v", rendered, again, spec)
			}
		})
	}
}

// A rerun runs the recorded Spec with exactly its values — faults, shard,
// ledger, session I/O, isolation, error budget — changing only the targets
// (the recorded ones without their password), the summary's format and the
// plan; a Spec that would execute a command, or holds a masked secret, is
// refused.
func TestRerunSpecKeepsEveryOption(t *testing.T) {
	spec := engine.NewSpec(phaseRun, "commit-loop")
	threads, ops, rate, seed := 3, int64(500), 100.0, int64(77)
	spec.Targets = []string{"postgres://u:pw@h1:5432/db", "postgres://u:pw@h2:5432/db"}
	spec.TargetRole, spec.Isolation, spec.SessionIO, spec.MaxErrorRate = engine.RolePrimary, "serializable", "poller", 0.2
	spec.Threads, spec.Operations, spec.Rate, spec.Seed = &threads, &ops, &rate, &seed
	spec.Faults, spec.OnFaultError, spec.Ledger = []string{"at=1s for=1s net=pause node=0"}, "continue", true
	spec.Shard = engine.Shard{Of: "1/2", RunID: "r1"}
	spec.Options, spec.Format = []string{"rows=10"}, "json"
	spec.Plan = &engine.Plan{Name: "p", Cell: "c"}
	raw, err := spec.Redacted().JSON()
	if err != nil {
		t.Fatal(err)
	}
	env := &Env{Stdout: io.Discard, Stderr: io.Discard}
	got, err := rerunSpec(env, &result.Result{Command: []string{"candor", "plan", "run"}, Spec: raw}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := spec.Clone()
	want.Targets = []string{"postgres://u@h1:5432/db", "postgres://u@h2:5432/db"}
	want.Format, want.Plan = "text", nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rerun Spec:\n got %+v\nwant %+v", got, want)
	}
	for _, bad := range []func(s *engine.Spec){
		func(s *engine.Spec) { s.Faults = []string{"at=1s run=pkill postgres"} },   // a command read from a file
		func(s *engine.Spec) { s.Faults = []string{"at=1s sql=DROP TABLE t"} },     // a statement read from a file
		func(s *engine.Spec) { s.Faults = []string{"at=1s shell=pkill postgres"} }, // a fault candor cannot read
		func(s *engine.Spec) { s.Properties = []string{"db.passwd=secret"} },       // masked when recorded
		func(s *engine.Spec) { s.PropertyFiles = []string{"no/such/file"} },        // not here
	} {
		s := spec.Clone()
		bad(&s)
		raw, _ := s.Redacted().JSON()
		if _, err := rerunSpec(env, &result.Result{Spec: raw}, nil); err == nil {
			t.Errorf("rerun of %+v was not refused", s)
		}
	}
}
