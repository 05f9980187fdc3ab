package report

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/ledger"
	"github.com/candor-bench/candor/internal/result"
)

// withFault gives every run phase of r a kill at 2 s (0.3 s long) and a
// ledger accounting with lost writes and an RTO.
func withFault(r *result.Result, lost int, rto float64) {
	for i := range r.Phases {
		p := &r.Phases[i]
		if p.Name != "run" {
			continue
		}
		start := p.Started.Add(2 * time.Second)
		p.Faults = []result.FaultEvent{{Spec: "at=2s run=kill", Kind: "run", Status: "done", Scheduled: 2,
			Start: start, End: start.Add(300 * time.Millisecond), StartS: 2, EndS: 2.3}}
		v := rto
		p.Ledger = &result.LedgerResult{Dir: "x.ledger", Table: "candor_ledger", Accounting: &ledger.Accounting{
			Writes: 1000, Acknowledged: 990, Unknown: 4, Lost: lost, Fault: &ledger.FaultAccounting{RPOSeconds: 0.5, RTOSeconds: &v}}}
	}
}

// Every fault is a band on the time-series chart.
func TestTimeSeriesDrawsFaultBands(t *testing.T) {
	r := fixtures()["ycsb-a-pg-t4.json"].build(t)
	svg, err := drawTimeSeries(r)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(svg, []byte(">fault<")) {
		t.Error("a fault band without faults")
	}
	withFault(r, 0, 1)
	svg, err = drawTimeSeries(r)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(svg, []byte(">fault<")) || !bytes.Contains(svg, []byte("fill:#DB2727")) {
		os.WriteFile(os.TempDir()+"/w27band.svg", svg, 0o644)
		t.Errorf("no fault band (chart in %s)", os.TempDir()+"/w27band.svg")
	}
}

// The report's durability table and compare show lost writes and the RTO.
func TestReportAndCompareShowDurability(t *testing.T) {
	r := fixtures()["ycsb-a-pg-t4.json"].build(t)
	withFault(r, 7, 1.25)
	var b bytes.Buffer
	if err := Text(&b, Build([]Input{{"led.json", r}})); err != nil {
		t.Fatal(err)
	}
	txt := b.String()
	if !strings.Contains(txt, "Durability: lost acknowledged writes, RPO and RTO") || !strings.Contains(txt, "1.250") {
		t.Errorf("no durability table:\n%s", txt)
	}
	b.Reset()
	if err := Markdown(&b, Build([]Input{{"led.json", r}}), func(n int, svg []byte) (string, error) { return "f.svg", nil }); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "Faults (red bands): fault 1 done: at=2s run=kill") {
		t.Errorf("the time series' caption does not list the faults:\n%s", b.String())
	}
	side := func(name string, lost int) *Side {
		r := fixtures()["ycsb-a-pg-t4.json"].build(t)
		withFault(r, lost, 2)
		s, err := NewSide(name, []Input{{name + ".json", r}})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	b.Reset()
	Compare(side("A", 0), side("B", 9)).WriteText(&b)
	flat := strings.Join(strings.Fields(b.String()), " ")
	if !strings.Contains(flat, "ledger lost 0 9") || !strings.Contains(flat, "ledger rto_s 2") {
		t.Errorf("compare lacks the ledger rows:\n%s", b.String())
	}
}

// Results of a plan target its setup started anew for each cell (a new
// port each time) are one series, named after the plan's target.
func TestSetupTargetsAreOneSeries(t *testing.T) {
	var ins []Input
	for i, port := range []string{"5001", "5002", "5003"} {
		r := fixtures()["ycsb-a-pg-t4.json"].build(t)
		r.Target.URL = "postgres://postgres@127.0.0.1:" + port + "/candor"
		r.Plan = &result.PlanRef{Name: "e6", Cell: "c" + port, Params: map[string]string{"target": "pg-sync", "repetition": port}, TargetSetup: true}
		ins = append(ins, Input{Path: "r" + string(rune('a'+i)) + ".json", Result: r})
	}
	m := Build(ins)
	if len(m.Series) != 1 || m.Series[0].Label != "pg-sync (PostgreSQL 15.18)" {
		var labels []string
		for _, s := range m.Series {
			labels = append(labels, s.Label)
		}
		t.Errorf("series %q: want one, pg-sync (PostgreSQL 15.18)", labels)
	}
	if len(m.Workloads) != 1 || len(m.Workloads[0].Variants) != 1 || len(m.Workloads[0].Variants[0].Runs) != 1 || m.Workloads[0].Variants[0].Runs[0].N() != 9 {
		t.Errorf("the three cells' repetitions are not pooled in one cell: %+v", m.Workloads)
	}
}
