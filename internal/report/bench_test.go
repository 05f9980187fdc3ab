package report

import (
	"fmt"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/result"
)

// write200 writes 200 synthetic results of a thread sweep: 4 workloads × 2
// targets × 5 thread counts × 5 repetition files, each run with 60
// one-second intervals carrying encoded interval histograms.
func write200(b *testing.B) string {
	dir := b.TempDir()
	workloads := []struct {
		name string
		ops  []string
		ctr  bool
	}{
		{"ycsb/a", []string{"READ", "UPDATE"}, false},
		{"ycsb/b", []string{"READ", "UPDATE"}, false},
		{"sysbench/oltp_read_write", []string{"TRANSACTION"}, true},
		{"sysbench/oltp_point_select", []string{"TRANSACTION"}, true},
	}
	targets := []struct{ product, url string }{{"PostgreSQL", "postgres://db1/bench"}, {"MySQL", "mysql://db2/bench"}}
	n := 0
	for wi, w := range workloads {
		for ti, tg := range targets {
			for _, threads := range []int{8, 16, 32, 64, 128} {
				for rep := 0; rep < 5; rep++ {
					s := synth{seed: uint64(1000 + n), workload: w.name, options: ycsbOptions(100000), product: tg.product, version: "8.0",
						url: tg.url, settings: pgSettings, threads: threads, reps: 1, ops: w.ops, counters: w.ctr,
						thr: float64(1000*threads) / float64(1+ti), latUs: 200 * float64(threads), intervals: 60, intervalHists: true,
						started: synthEpoch.Add(time.Duration(n) * time.Minute)}
					if rep == 0 {
						s.load = 100000
					}
					path := filepath.Join(dir, fmt.Sprintf("w%d-t%d-%03d-r%d.json", wi, ti, threads, rep))
					if err := result.Write(path, s.build(b)); err != nil {
						b.Fatal(err)
					}
					n++
				}
			}
		}
	}
	return dir
}

// BenchmarkRender200 loads, models and renders 200 result files; the figure
// is in docs/BENCHMARKS.md. Subbenchmarks: the HTML report (every chart
// drawn), Markdown with its charts, and the text report.
func BenchmarkRender200(b *testing.B) {
	dir := write200(b)
	render := map[string]func(io.Writer, *Model) error{
		"html": HTML,
		"md": func(w io.Writer, m *Model) error {
			return Markdown(w, m, func(n int, svg []byte) (string, error) { return fmt.Sprintf("f%d.svg", n), nil })
		},
		"text": Text,
	}
	for _, name := range []string{"html", "md", "text"} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				in, err := Load(dir)
				if err != nil {
					b.Fatal(err)
				}
				if len(in) != 200 {
					b.Fatalf("%d inputs", len(in))
				}
				if err := render[name](io.Discard, Build(in)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
