// Package bench holds benchmarks of candor's own overhead; side-by-side runs
// against reference tools are the scripts beside this file. Figures and the
// commands that produced them are in docs/BENCHMARKS.md.
package bench

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/runner"
	"github.com/candor-bench/candor/internal/target/fake"
	"github.com/candor-bench/candor/internal/workload"
	"github.com/candor-bench/candor/internal/workload/ycsb"
)

// BenchmarkYCSBOverhead measures candor's cost per operation on a target with
// no I/O: key choice, value generation, statement arguments, the runner loop
// and HDR recording. ns/op is wall time per operation across all workers;
// multiply by the threads (up to the cores) for the per-core cost.
func BenchmarkYCSBOverhead(b *testing.B) {
	for _, v := range []string{"a", "c", "e"} {
		for _, threads := range []int{1, 2} {
			b.Run(fmt.Sprintf("ycsb-%s/threads-%d", v, threads), func(b *testing.B) {
				w, err := ycsb.New(v, nil, []string{"recordcount=100000", fmt.Sprintf("operationcount=%d", b.N)})
				if err != nil {
					b.Fatal(err)
				}
				t := fake.New(fake.Config{})
				if err := w.Bind(workload.Env{Dialect: t.Dialect(), Capabilities: t.Capabilities()}); err != nil {
					b.Fatal(err)
				}
				r := &runner.Runner{Target: t, Workload: w, Config: runner.Config{
					Threads: threads, Operations: int64(b.N), ReportInterval: time.Second, Seed: 1}}
				b.ReportAllocs()
				b.ResetTimer()
				p, err := r.Run(context.Background())
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if p.Operations != int64(b.N) {
					b.Fatalf("ran %d operations, want %d", p.Operations, b.N)
				}
			})
		}
	}
}
