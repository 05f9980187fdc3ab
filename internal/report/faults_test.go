package report

import (
	"bytes"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot/plotter"

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
	if !strings.Contains(txt, "Durability: every write's outcome, lost acknowledged writes, RPO and RTO") || !strings.Contains(txt, "1.25") {
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

// The durability table gives every outcome per repetition and as means,
// what the standby lacked at the fault (the last server sample before
// it), a 90% recovery measured at 1 s resolution without decimals, and
// says RPO and RTO are measured from the fault the writes failed after.
func TestDurabilityTableContents(t *testing.T) {
	r := fixtures()["ycsb-a-pg-t4.json"].build(t)
	withFault(r, 7, 1.25)
	for i := range r.Phases {
		p := &r.Phases[i]
		if p.Ledger == nil {
			continue
		}
		rec := 3.0
		p.Ledger.Accounting.Failed, p.Ledger.Accounting.UnknownCommitted, p.Ledger.Accounting.UnknownNotCommitted = 6, 3, 1
		p.Ledger.Accounting.Fault.Recovered90Seconds, p.Ledger.Accounting.Fault.IntervalSeconds = &rec, 1
		p.Server = &result.ServerCounters{Samples: []result.ServerSample{
			{ElapsedSec: 1.2, Values: map[string]float64{"unreplicated_bytes:slot1": 3 << 20}},
			{ElapsedSec: 2.9, Values: map[string]float64{"unreplicated_bytes:slot1": 9 << 20}}}}
	}
	var b bytes.Buffer
	if err := Text(&b, Build([]Input{{"led.json", r}})); err != nil {
		t.Fatal(err)
	}
	txt := b.String()
	flat := strings.Join(strings.Fields(txt), " ")
	// (a table this wide is written as "column: value" lines)
	for _, want := range []string{"run: mean figures: the run's (never verified) acknowledged: 990 ±0.0% failed: 6 ±0.0% unknown: 4 ±0.0% unknown committed / not: 3 / 1 lost: 7 ±0.0% unreplicated at the fault: 3.0 MiB",
		"run: run 3 figures: the run's acknowledged: 990 failed: 6 unknown: 4 unknown committed / not: 3 / 1 lost: 7 unreplicated at the fault: 3.0 MiB RPO s: 0.50 RTO s: 1.25 RTO all workers s: – 90% throughput after s: 3 n: 1",
		"measured from the fault the writes failed after"} {
		if !strings.Contains(flat, want) {
			t.Errorf("durability table lacks %q:\n%s", want, txt)
		}
	}
	if strings.Contains(flat, "3.000") || strings.Contains(flat, "each run's first fault") {
		t.Errorf("three decimals at 1 s resolution, or the old note:\n%s", txt)
	}
}

// The durability table shows candor ledger verify's figures beside the
// run's, labelled with when verify ran and its fault; a run verify never
// accounted for says so; a verify that was refused is not a verification.
func TestDurabilityTableShowsVerify(t *testing.T) {
	r := fixtures()["ycsb-a-pg-t4.json"].build(t)
	withFault(r, 7, 1.25)
	at := time.Date(2026, 12, 8, 1, 2, 3, 0, time.UTC)
	zero := 0
	k := 0
	for i := range r.Phases {
		p := &r.Phases[i]
		if p.Ledger == nil {
			continue
		}
		k++
		switch k {
		case 1: // verified: lost 2 where the run counted 7
			a := *p.Ledger.Accounting
			a.Lost, a.Acknowledged = 2, 995
			p.Ledger.Verifications = []result.LedgerVerification{{Time: at, Outcome: "verified", Accounting: &a, FaultIndex: &zero}}
		case 2: // refused: no figures
			p.Ledger.Verifications = []result.LedgerVerification{{Time: at, Outcome: "refused", Reason: "not this ledger's table"}}
		}
	}
	var b bytes.Buffer
	if err := Text(&b, Build([]Input{{"led.json", r}})); err != nil {
		t.Fatal(err)
	}
	txt := b.String()
	flat := strings.Join(strings.Fields(txt), " ")
	for _, want := range []string{
		"run: mean figures: the run's acknowledged: 990 ±0.0%",
		"run: mean figures: ledger verify's (latest of each run) acknowledged: 995 ",
		"run: run 1 figures: ledger verify's: candor ledger verify 2026-12-08T01:02:03Z, fault 0",
		"acknowledged: 995 failed: 0 unknown: 4 unknown committed / not: 0 / 0 lost: 2 unreplicated at the fault: –",
		"run: run 2 figures: never verified (1 candor ledger verify: refused)",
		"run: run 3 figures: never verified by candor ledger verify",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("durability table lacks %q:\n%s", want, txt)
		}
	}
}

// The band of the fault the ledger measured from spans the outage (to the
// first acknowledged write), not the kill command's 0.3 s; a latency line
// breaks at intervals without data.
func TestFaultBandIsTheOutageAndLinesBreak(t *testing.T) {
	r := fixtures()["ycsb-a-pg-t4.json"].build(t)
	withFault(r, 0, 4.5)
	for i := range r.Phases {
		if r.Phases[i].Ledger != nil {
			sp := faultSpans(&r.Phases[i], 10)
			if len(sp) != 1 || sp[0].from != 12 || sp[0].to != 16.5 {
				t.Errorf("fault span %+v, want 12 to 16.5 (the outage)", sp)
			}
		}
	}
	nan := math.NaN()
	segs := segments(plotter.XYs{{X: 1, Y: 5}, {X: 2, Y: 6}, {X: 3, Y: nan}, {X: 4, Y: nan}, {X: 5, Y: 7}})
	if len(segs) != 2 || len(segs[0]) != 2 || len(segs[1]) != 1 {
		t.Errorf("segments %v, want two: before and after the gap", segs)
	}
}

// The summary does not flag BEHIND SCHEDULE at 499.9 of 500 ops/s when the
// lag came from a scheduled fault; without the fault it gives the reason.
func TestSummaryBehindScheduleAroundFault(t *testing.T) {
	r := fixtures()["ycsb-a-pg-t4.json"].build(t)
	p := &r.Phases[len(r.Phases)-1]
	p.Rate = &result.RateResult{Target: 500, Achieved: 499.9, BehindSchedule: true, MaxLagNs: 5e9}
	p.Faults = []result.FaultEvent{{Index: 0, Kind: "run", Status: "done"}}
	var b bytes.Buffer
	WriteText(&b, r, p, nil)
	if strings.Contains(b.String(), "BEHIND SCHEDULE") || !strings.Contains(b.String(), "behind schedule around the scheduled fault only") {
		t.Errorf("with a scheduled fault:\n%s", b.String())
	}
	p.Faults = nil
	b.Reset()
	WriteText(&b, r, p, nil)
	if !strings.Contains(b.String(), "BEHIND SCHEDULE: an operation started more than 1 s late") {
		t.Errorf("without a fault:\n%s", b.String())
	}
}
