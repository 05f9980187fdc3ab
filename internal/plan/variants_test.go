package plan

import (
	"strings"
	"testing"

	_ "github.com/candor-bench/candor/internal/workload/sysbench"
)

const e3Cross = `name: e3
targets: {pg: postgres://u@h/db}
workloads:
  - name: sysbench/oltp_read_write
    options: {tables: 10, table-size: 10000}
matrix:
  auto-inc: ["on", "off"]
  sequence-cache: [1, 1000]
  threads: [16]
duration: 20s
`

// E3 as a cross product runs "auto-inc=off" twice, once per sequence-cache
// value that the workload then ignores: the plan is refused, naming the
// cells and the option.
func TestIgnoredOptionAcrossAxisRefused(t *testing.T) {
	_, err := Parse("e3.yaml", []byte(e3Cross), env(nil))
	if err == nil {
		t.Fatal("a matrix crossing an ignored option was accepted")
	}
	msg := err.Error()
	for _, want := range []string{"line 7:", "sysbench-oltp_read_write_pg_t16_auto-inc-off_sequence-cache-1,", "differ only in sequence-cache, which sysbench/oltp_read_write ignores", "with auto-inc=off", "variants"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	if strings.Count(msg, "differ only") != 1 {
		t.Errorf("want one problem:\n%s", msg)
	}
}

// The same experiment as a list of variants: three cells, each passing
// only the options it sets.
func TestVariants(t *testing.T) {
	src := strings.Replace(e3Cross, `  auto-inc: ["on", "off"]
  sequence-cache: [1, 1000]
`, `  variants:
    - {auto-inc: "on", sequence-cache: 1}
    - {auto-inc: "on", sequence-cache: 1000}
    - {auto-inc: "off"}
`, 1)
	p, err := Parse("e3.yaml", []byte(src), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	cells := p.Cells()
	var ids, args []string
	for _, c := range cells {
		ids = append(ids, c.ID)
		args = append(args, strings.Join(c.Args, " "))
	}
	want := []string{"sysbench-oltp_read_write_pg_t16_auto-inc-on_sequence-cache-1", "sysbench-oltp_read_write_pg_t16_auto-inc-on_sequence-cache-1000", "sysbench-oltp_read_write_pg_t16_auto-inc-off"}
	if strings.Join(ids, " ") != strings.Join(want, " ") {
		t.Fatalf("cells %q, want %q", ids, want)
	}
	if strings.Contains(args[2], "sequence-cache") || !strings.Contains(args[2], "-p auto-inc=off") || !strings.Contains(args[1], "-p sequence-cache=1000") {
		t.Errorf("args %q", args)
	}
	if !strings.Contains(args[0], "--threads 16") {
		t.Errorf("threads not passed: %q", args[0])
	}

	for _, c := range []struct{ matrix, want string }{
		{"  variants:\n    - {threads: 4}\n  threads: [16]\n", "threads is both an axis and set by variants"},
		{"  variants:\n    - {target: pg}\n    - {auto-inc: \"off\"}\n", "a target in every variant or in none"},
		{"  variants:\n    - {target: nope}\n", `target "nope" is not defined`},
		{"  variants:\n    - {auto-inc: \"off\"}\n    - {auto-inc: \"off\"}\n", "comes twice"},
		{"  variants:\n    - [1, 2]\n", "each variant is a mapping"},
	} {
		src := strings.Replace(e3Cross, "  auto-inc: [\"on\", \"off\"]\n  sequence-cache: [1, 1000]\n  threads: [16]\n", c.matrix, 1)
		if _, err := Parse("bad.yaml", []byte(src), env(nil)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err %v, want %q", c.matrix, err, c.want)
		}
	}
}

// A fault with targets: applies to the cells of those targets only, in
// the plan's order among the others.
func TestFaultTargets(t *testing.T) {
	src := `name: e6
targets: {a: postgres://u@h/a, b: postgres://u@h/b}
workloads: [{name: ledger}]
matrix: {target: [a, b]}
duration: 40s
faults:
  - {at: 10s, run: 'detach', targets: [b]}
  - {at: 20s, run: 'kill'}
`
	p, err := Parse("e6.yaml", []byte(src), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	cells := p.Cells()
	a, b := strings.Join(cells[0].Args, " "), strings.Join(cells[1].Args, " ")
	if strings.Contains(a, "detach") || !strings.Contains(a, "run=kill") {
		t.Errorf("cell a: %s", a)
	}
	if i, j := strings.Index(b, "detach"), strings.Index(b, "run=kill"); i < 0 || j < i {
		t.Errorf("cell b: %s", b)
	}
	bad := strings.Replace(src, "targets: [b]", "targets: [c]", 1)
	if _, err := Parse("e6.yaml", []byte(bad), env(nil)); err == nil || !strings.Contains(err.Error(), `line 7: faults: target "c" is not defined`) {
		t.Errorf("unknown fault target: %v", err)
	}
}
