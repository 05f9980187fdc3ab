package report

import (
	"bytes"
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/candor-bench/candor/internal/published"
	"github.com/candor-bench/candor/internal/result"
)

// A mean and its 95% CI are printed to two significant digits of the
// half-width: the figure of issue 47, lost writes 1, 3 and 2 (mean 2,
// half-width 2.4841377117503303), is "2.0 ± 2.5", and large rates are
// rounded to the interval's tens.
func TestMeanCIToItsPrecision(t *testing.T) {
	cases := []struct {
		mean, half float64
		unit, want string
	}{
		{2, 2.4841377117503303, "", "2.0 ± 2.5"},
		{12345.6, 234.5, "", "12350 ± 230"},
		{1555.27, 37.2, "", "1555 ± 37"},
		{12.3, 0.4512, " s", "12.30 s ± 0.45 s"},
		{0.0004, 0.00012, "", "0.00040 ± 0.00012"},
		{3, 0, "", "3 ± 0"}, // equal repetitions: no spread
		{-0.001, 0.5, "", "0.00 ± 0.50"},
	}
	for _, c := range cases {
		if got := fmtMeanCI(c.mean, c.half, c.unit); got != c.want {
			t.Errorf("fmtMeanCI(%v, %v) = %q, want %q", c.mean, c.half, got, c.want)
		}
	}
	if got := metricText("lost", []float64{1, 3, 2}); got != "2.0 ± 2.5 (n = 3)" {
		t.Errorf("lost 1, 3, 2: %q, want 2.0 ± 2.5 (n = 3)", got)
	}
	if got := metricText("throughput", []float64{1000, 1010, 990}); got != "1000 ± 25 (n = 3)" {
		t.Errorf("throughput 1000, 1010, 990: %q", got)
	}
	if got := intervalText(2, -0.4841377117503303, 4.484137711750330); got != "2.0 (95% CI -0.5–4.5)" {
		t.Errorf("intervalText = %q", got)
	}
}

// A percentile spectrum needs MinSpectrumSamples latencies: an operation
// with 3 (one per repetition, as a commit loop run in the server records)
// gets its samples listed instead, and how many a spectrum needs; one with
// enough keeps its figure.
func TestNoSpectrumFromThreeSamples(t *testing.T) {
	in, err := Load(filepath.Join(fixtureDir, "ycsb-a-pg-t1.json"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range in[0].Result.Phases {
		ph := &in[0].Result.Phases[i]
		for j := range ph.Ops {
			if ph.Name != "run" || ph.Ops[j].Name != "UPDATE" {
				continue
			}
			h := hdr.New(1, 3_600_000_000_000, 3)
			h.RecordValue(int64(1_200_000_000 + 50_000_000*ph.Repetition))
			ph.Ops[j].Histograms = map[string]string{"latency": encode(t, h)}
		}
	}
	var buf bytes.Buffer
	if err := HTML(&buf, Build(in)); err != nil {
		t.Fatal(err)
	}
	page := html.UnescapeString(buf.String())
	if strings.Contains(page, "Latency percentile spectrum of UPDATE") {
		t.Error("a spectrum drawn from 3 samples")
	}
	for _, want := range []string{"Latencies of UPDATE", "too few for a percentile spectrum (it needs at least 100 per line)", "3 samples: 1.25s, 1.30s, 1.35s", "Latency percentile spectrum of READ"} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

// A claim that needs 5 repetitions per side is "too few" with 3 and 3,
// naming both, whatever its interval shows (a 0.4 s load must not decide
// it); with 5 and 5 it is called; a load metric counts loads.
func TestClaimNeedsItsRepetitions(t *testing.T) {
	a := map[string]string{"target": "a"}
	b := map[string]string{"target": "b"}
	less := published.Claim{ID: "o", Kind: published.Direct, Metric: "throughput", Less: []published.Selector{{"target": "b"}, {"target": "a"}}, Repetitions: 5}
	v := checkClaim("p", less, []Input{claimInput(a, []float64{200, 202, 198}, nil), claimInput(b, []float64{100, 101, 99}, nil)})
	if v.Verdict != TooFew || v.Reason != "the sides have 3 and 3 repetitions, the claim needs 5 each" || !strings.Contains(v.Measured, "95% CI") {
		t.Errorf("3 and 3 of 5: %q (%s; %s)", v.Verdict, v.Reason, v.Measured)
	}
	v = checkClaim("p", less, []Input{claimInput(a, []float64{200, 202, 198, 201, 199}, nil), claimInput(b, []float64{100, 101, 99, 100, 102}, nil)})
	if v.Verdict != Reproduced {
		t.Errorf("5 and 5: %q (%s)", v.Verdict, v.Reason)
	}
	load := less
	load.Metric = "load-time"
	if v := checkClaim("p", load, nil); v.Verdict != NotRun {
		t.Errorf("no loads: %q", v.Verdict)
	}
	pos := published.Claim{ID: "l", Kind: published.Direct, Metric: "lost", Positive: &published.Selector{"target": "a"}, Repetitions: 3}
	if v := checkClaim("p", pos, []Input{claimInput(a, []float64{1, 1}, []int64{2, 3})}); v.Verdict != TooFew || v.Reason != "has 2 repetitions, needs 3" {
		t.Errorf("lost in 2 of 3 needed: %q (%s)", v.Verdict, v.Reason)
	}
}

// E3's published load table keeps its client-ids row: those cells have no
// sequence-cache, and a row whose parameter a cell lacks is shown "(not
// set)" with that cell's figures, not dropped.
func TestE3TableKeepsClientIDs(t *testing.T) {
	p, err := ReadPlan("../../experiments/e3-sysbench-serial.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var inputs []Input
	for i, c := range p.Cells {
		params := map[string]string{result.PlanIdentity: c.Identity}
		for k, v := range c.Params {
			params[k] = v
		}
		r := &result.Result{Plan: &result.PlanRef{Name: p.Name, Cell: c.ID, Params: params}}
		r.Workload.Name = c.Workload
		r.Phases = []result.Phase{{Name: "load", Status: result.StatusComplete, DurationSec: 4 + float64(i%5)/10, Throughput: 250000}}
		inputs = append(inputs, Input{Path: c.ID + ".json", Result: r})
	}
	tables := publishedTables(p, inputs)
	if len(tables) != 1 {
		t.Fatalf("%d tables", len(tables))
	}
	var rows []string
	for _, row := range tables[0].Rows {
		rows = append(rows, strings.Join(row, " | "))
	}
	got := strings.Join(rows, "\n")
	if !strings.Contains(got, "off | (not set) | 4.20 s ± 0.20 s (n = 5)") {
		t.Errorf("the client-ids row is missing or empty:\n%s", got)
	}
	if len(tables[0].Rows) != 3 {
		t.Errorf("%d rows, want cache 1, cache 1000 and client ids:\n%s", len(tables[0].Rows), got)
	}
}

// A claim whose cells' phases began with a 1-minute load average above the
// machine's cores, or lost more than 5% of the CPU to the hypervisor,
// carries a note beside its verdict, on the site's index and in the
// report; cells on a quiet machine, or results without a recorded load,
// carry none.
func TestLoadedMachineNote(t *testing.T) {
	dir := t.TempDir()
	in, err := Load(filepath.Join(fixtureDir, "ycsb-a-pg-t1.json"), filepath.Join(fixtureDir, "ycsb-a-sqlite-t4.json"))
	if err != nil {
		t.Fatal(err)
	}
	ran := sitePlan(t, dir, "e1")
	quiet := func(r *result.Result) {
		r.Provenance.Cores, r.Provenance.Load = 2, nil
		for i, ph := range r.Phases {
			r.Provenance.Load = append(r.Provenance.Load, result.MachineLoad{PhaseIndex: i, Phase: ph.Name, Start: [3]float64{0.4, 0.3, 0.2}, End: [3]float64{1.9, 0.8, 0.4}})
		}
	}
	for i, target := range []string{"pg", "sqlite"} {
		for _, c := range ran.Cells {
			if c.Params["target"] == target {
				in[i].Result.Plan = &result.PlanRef{Name: "e1", File: ran.File, Cell: c.ID, Params: map[string]string{"target": target, result.PlanIdentity: c.Identity}}
			}
		}
		quiet(in[i].Result)
	}
	claim := ran.Published.Claims[0]
	if v := checkClaim("e1", claim, in); v.Loaded != "" {
		t.Errorf("a quiet machine: %q", v.Loaded)
	}
	// sqlite's last run began at load 3.1 on its 2 cores, and lost 7% of
	// the CPU to the hypervisor.
	r := in[1].Result
	last := len(r.Phases) - 1
	r.Provenance.Load[last].Start[0] = 3.1
	st := 0.07
	r.Provenance.Load[last].Steal = &st
	v := checkClaim("e1", claim, in)
	for _, want := range []string{"cells ran with load 3.1 on 2 cores", "above the cores in 1 of ", "stole up to 7% of the CPU"} {
		if !strings.Contains(v.Loaded, want) {
			t.Errorf("note %q lacks %q", v.Loaded, want)
		}
	}
	site := filepath.Join(dir, "site")
	if _, err := WriteSite(site, in, []*ClaimsPlan{ran}); err != nil {
		t.Fatal(err)
	}
	index, _ := os.ReadFile(filepath.Join(site, "index.html"))
	if !strings.Contains(string(index), `<small class="loaded">a loaded machine: cells ran with load 3.1 on 2 cores`) {
		t.Errorf("the index lacks the note beside the verdict:\n%s", index)
	}
	page, _ := os.ReadFile(filepath.Join(site, "e1", "report.html"))
	if !strings.Contains(html.UnescapeString(string(page)), "cells ran with load 3.1 on 2 cores") {
		t.Error("the experiment's report lacks the note")
	}
	// Results of an older candor recorded no load: no note.
	for _, x := range in {
		x.Result.Provenance.Load = nil
	}
	if v := checkClaim("e1", claim, in); v.Loaded != "" {
		t.Errorf("no load recorded: %q", v.Loaded)
	}
}
