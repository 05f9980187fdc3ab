package result

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

func TestWriteReadRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "r.json")
	h := hdr.New(1, 3_600_000_000_000, 3)
	for i := int64(1); i <= 1000; i++ {
		h.RecordValue(i * 1000)
	}
	enc, err := EncodeHistogram(h)
	if err != nil {
		t.Fatal(err)
	}
	in := &Result{ID: "x", Status: StatusComplete, Started: time.Unix(10, 0).UTC(),
		Phases: []Phase{{Name: "run", Ops: []OpResult{{Name: "READ", Count: 1000, Latency: Summarize(h), Histograms: map[string]string{"latency": enc}}}}}}
	if err := Write(path, in); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("result mode %v, want 0644", fi.Mode().Perm())
	}
	out, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if out.Schema != SchemaVersion || out.Phases[0].Ops[0].Latency.P99 != in.Phases[0].Ops[0].Latency.P99 {
		t.Fatalf("round trip changed the result: %+v", out.Phases[0].Ops[0])
	}
	back, err := DecodeHistogram(out.Phases[0].Ops[0].Histograms["latency"])
	if err != nil || !back.Equals(h) {
		t.Fatalf("histogram did not survive the file: %v", err)
	}
	if !strings.HasPrefix(enc, "HISTF") {
		t.Errorf("encoding %q… is not the standard compressed V2 form", enc[:8])
	}
	// No temporary files are left behind.
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("directory holds %d files, want only the result", len(entries))
	}
}

func TestReadRefusesOtherFiles(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]string{
		"not json":     "hello",
		"other schema": `{"schema":"candor.result/v9"}`,
		"no schema":    `{"id":"x"}`,
	}
	for name, body := range cases {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "_"))
		os.WriteFile(p, []byte(body), 0o644)
		if _, err := Read(p); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestMergeHistogramsAcrossShards(t *testing.T) {
	// Two clients' results merge exactly into the histogram of all values.
	all := hdr.New(1, 3_600_000_000_000, 3)
	var ops []OpResult
	for shard := int64(0); shard < 2; shard++ {
		h := hdr.New(1, 3_600_000_000_000, 3)
		for i := int64(1); i <= 500; i++ {
			v := (shard*500 + i) * 1500
			h.RecordValue(v)
			all.RecordValue(v)
		}
		enc, _ := EncodeHistogram(h)
		ops = append(ops, OpResult{Histograms: map[string]string{"latency": enc}})
	}
	got, err := MergeHistograms("latency", ops...)
	if err != nil || !got.Equals(all) {
		t.Fatalf("merge: %v equal=%v", err, got != nil && got.Equals(all))
	}
}

func TestSideFileRecoverIgnoresTornLine(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "r.intervals.jsonl")
	s, err := CreateSideFile(p, &Result{ID: "run1", Workload: Workload{Name: "ycsb/a"}})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		s.Append(Interval{Phase: "load", Index: i, ElapsedSec: float64(i + 1), LengthSec: 1})
	}
	for i := 0; i < 2; i++ {
		s.Append(Interval{Phase: "run", Index: i, ElapsedSec: float64(i + 1), LengthSec: 1})
	}
	s.Close()
	f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"kind":"interval","interval":{"phase":"run","i":2,`) // killed mid-write
	f.Close()
	r, err := Recover(p)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != StatusInterrupted || r.ID != "run1" || len(r.Phases) != 2 || len(r.Phases[0].Intervals) != 3 || len(r.Phases[1].Intervals) != 2 {
		t.Fatalf("recovered %+v", r)
	}
	if r.Phases[1].DurationSec != 2 {
		t.Errorf("recovered run duration %v, want 2", r.Phases[1].DurationSec)
	}
}

// TestReadable: minor versions of v1 are read; other major versions,
// v10 included, are refused.
func TestReadable(t *testing.T) {
	for s, want := range map[string]bool{
		"candor.result/v1": true, "candor.result/v1.1": true, "candor.result/v10": false,
		"candor.result/v2": false, "": false, "candor.result/v1x": false,
	} {
		if got := Readable(s); got != want {
			t.Errorf("Readable(%q) = %v, want %v", s, got, want)
		}
	}
}
