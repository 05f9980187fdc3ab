package plan

import (
	"strings"
	"testing"
)

const failover = `name: e6
targets:
  pg-sync:
    setup: ['scripts/pg-cluster.sh start "$CANDOR_CELL_DIR" --standbys 1 --sync one']
    teardown: ['scripts/pg-cluster.sh stop "$CANDOR_CELL_DIR"']
    urls: 2
workloads:
  - name: ledger
matrix:
  repetition: [1, 2]
duration: 40s
args: [--target-role, primary]
faults:
  - {at: 20s, run: 'scripts/pg-cluster.sh kill "$CANDOR_CELL_DIR" 0'}
  - {at: 25s, for: 2s, net: pause, node: all}
`

// A plan's faults: become --fault flags in every cell; a target given as
// setup commands is from-setup until its setup runs; the repetition axis
// names cells and reaches no workload.
func TestFaultsSetupAndRepetition(t *testing.T) {
	p, err := Parse("e6.yaml", []byte(failover), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	ts, ok := p.Setups["pg-sync"]
	if !ok || len(ts.Setup) != 1 || len(ts.Teardown) != 1 || ts.URLs != 2 || p.Targets["pg-sync"] != FromSetup {
		t.Fatalf("setup target %+v, url %q", ts, p.Targets["pg-sync"])
	}
	cells := p.Cells()
	if len(cells) != 2 || cells[0].ID == cells[1].ID || !strings.Contains(cells[1].ID, "repetition-2") {
		t.Fatalf("cells %+v: want two, named by repetition", cells)
	}
	args := strings.Join(cells[0].Args, "\x00")
	for _, w := range []string{"--target\x00from-setup", `--fault` + "\x00" + `at=20s run=scripts/pg-cluster.sh kill "$CANDOR_CELL_DIR" 0`,
		"--fault\x00at=25s for=2s net=pause node=all"} {
		if !strings.Contains(args, w) {
			t.Errorf("cell args lack %q: %q", w, cells[0].Args)
		}
	}
	if strings.Contains(args, "repetition=") {
		t.Errorf("the repetition axis reached the workload: %q", cells[0].Args)
	}
}

// A malformed fault entry and a malformed setup target are problems with
// their lines.
func TestBadFaultsAndSetups(t *testing.T) {
	bad := `name: x
targets:
  a:
    setup: [true]
    colour: blue
  b:
    url: postgres://u@h/db
    teardown: [true]
workloads:
  - name: ledger
duration: 10s
faults:
  - {at: soon, run: true}
  - just a string
`
	_, err := Parse("x.yaml", []byte(bad), env(nil))
	if err == nil {
		t.Fatal("accepted")
	}
	for _, w := range []string{`line 4: target "a": unknown key "colour"`, `line 7: target "b": a target given as a mapping is started by its setup: commands`,
		"line 13: fault", "line 14: faults: each entry is a mapping"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("problems lack %q:\n%v", w, err)
		}
	}
}
