// Package archtest pins the dependency direction of docs/ARCHITECTURE.md.
package archtest

import (
	"os/exec"
	"strings"
	"testing"
)

const mod = "github.com/candor-bench/candor/"

// deps lists the module's own packages a package depends on.
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", mod+pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	var own []string
	for _, l := range strings.Fields(string(out)) {
		if strings.HasPrefix(l, mod) && l != mod+pkg {
			own = append(own, strings.TrimPrefix(l, mod))
		}
	}
	return own
}

func TestDependencyDirection(t *testing.T) {
	cases := []struct {
		pkg       string
		forbidden []string // prefixes this package must never import
	}{
		// drivers never import the runner, reports or the CLI
		{"internal/target/postgres", []string{"internal/runner", "internal/cli", "internal/report", "internal/workload", "internal/measure"}},
		{"internal/target/sqlite", []string{"internal/runner", "internal/cli", "internal/report", "internal/workload", "internal/measure"}},
		{"internal/target/mysql", []string{"internal/runner", "internal/cli", "internal/report", "internal/workload", "internal/measure"}},
		{"internal/target/voltdb", []string{"internal/runner", "internal/cli", "internal/report", "internal/workload", "internal/measure"}},
		{"internal/target/fake", []string{"internal/runner", "internal/cli", "internal/workload"}},
		{"internal/target/drvconn", []string{"internal/runner", "internal/cli", "internal/report", "internal/workload", "internal/measure", "internal/target/"}},
		// dialect is pure SQL text
		{"internal/dialect", []string{"internal/target", "internal/runner", "internal/workload", "internal/cli"}},
		// workloads use target interfaces, dialect and keydist, never the runner or CLI
		{"internal/workload/ycsb", []string{"internal/runner", "internal/cli", "internal/measure", "internal/result", "internal/target/"}},
		{"internal/workload/sysbench", []string{"internal/runner", "internal/cli", "internal/measure", "internal/result", "internal/target/"}},
		{"internal/workload/tpcc", []string{"internal/runner", "internal/cli", "internal/measure", "internal/result", "internal/target/"}},
		{"internal/workload/sysbenchlua", []string{"internal/runner", "internal/cli", "internal/measure", "internal/result", "internal/target/", "internal/engine"}},
		{"internal/workload/kv", []string{"internal/runner", "internal/cli", "internal/measure", "internal/result", "internal/target/"}},
		{"internal/workload/commitloop", []string{"internal/runner", "internal/cli", "internal/measure", "internal/result", "internal/target/"}},
		{"internal/workload/ledgerwl", []string{"internal/runner", "internal/cli", "internal/measure", "internal/result", "internal/target/"}},
		{"internal/workload/listappend", []string{"internal/runner", "internal/cli", "internal/measure", "internal/result", "internal/target/"}},
		// the isolation checker is pure: histories in, findings out
		{"internal/isolation/elle", []string{"internal/"}},
		{"internal/workload/bank", []string{"internal/runner", "internal/cli", "internal/measure", "internal/result", "internal/target/"}},
		{"internal/workload/pgbench", []string{"internal/runner", "internal/cli", "internal/measure", "internal/result", "internal/target/"}},
		// the script entry knows its variants only through their hooks
		{"internal/workload/script", []string{"internal/runner", "internal/cli", "internal/engine", "internal/workload/pgbench"}},
		// the runner never imports the CLI or a concrete driver
		{"internal/runner", []string{"internal/cli", "internal/target/postgres", "internal/target/sqlite", "internal/target/mysql", "internal/workload/ycsb"}},
		// table ownership and reuse: target interfaces, dialect, workload
		// contracts; never the CLI, the runner or a concrete driver
		{"internal/tables", []string{"internal/cli", "internal/runner", "internal/report", "internal/measure", "internal/result", "internal/target/postgres", "internal/target/sqlite", "internal/target/mysql", "internal/workload/"}},
		// results are plain data
		{"internal/result", []string{"internal/target", "internal/runner", "internal/workload", "internal/cli", "internal/measure", "internal/engine"}},
		// the engine runs a Spec: it knows no command line (the CLI parses
		// into a Spec) and no concrete driver
		{"internal/engine", []string{"internal/cli", "internal/plan", "internal/target/postgres", "internal/target/mysql", "internal/target/sqlite"}},
		{"internal/keydist", []string{"internal/"}},
		{"internal/suggest", []string{"internal/"}},
		// faults and the ledger are building blocks the runner and CLI call
		{"internal/fault", []string{"internal/runner", "internal/cli", "internal/report", "internal/workload", "internal/target", "internal/result", "internal/measure"}},
		{"internal/ledger", []string{"internal/"}},
		// the drivers' dial and the fault proxy meet here, importing neither
		{"internal/dialhook", []string{"internal/"}},
		// event loops know sockets and coroutines, nothing of candor
		{"internal/evloop", []string{"internal/"}},
		{"internal/observe", []string{"internal/runner", "internal/cli", "internal/report", "internal/workload", "internal/target/"}},
		// the sysbench command line's translation: the CLI uses it, never the reverse
		{"internal/sysbenchline", []string{"internal/cli", "internal/plan"}},
		{"internal/pgbenchline", []string{"internal/cli", "internal/plan"}},
		// reports read result files only
		{"internal/report", []string{"internal/runner", "internal/cli", "internal/target", "internal/workload", "internal/measure"}},
	}
	for _, c := range cases {
		for _, d := range deps(t, c.pkg) {
			for _, f := range c.forbidden {
				if strings.HasPrefix(d, f) {
					t.Errorf("%s imports %s; forbidden by docs/ARCHITECTURE.md", c.pkg, d)
				}
			}
		}
	}
}

// The audit reads results and nothing else (docs/ARCHITECTURE.md: "report, audit,
// stats → result only"). internal/ledger comes with the result: a result
// embeds the ledger's accounting, and the ledger imports nothing of candor
// (checked above).
func TestAuditDependsOnResultOnly(t *testing.T) {
	for _, d := range deps(t, "internal/audit") {
		if d != "internal/result" && d != "internal/ledger" {
			t.Errorf("internal/audit imports %s; it may import internal/result only", d)
		}
	}
}
