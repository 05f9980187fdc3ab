package stats

import "github.com/candor-bench/candor/internal/result"

func toStat(xs []float64) result.Stat {
	s := Summarize(xs)
	return result.Stat{N: s.N, Mean: s.Mean, StdDev: s.StdDev, CI95Low: s.CI95Low, CI95High: s.CI95High}
}

// Repetitions summarises the given run phases (the repetitions of one
// workload): throughput and, per operation, throughput, mean latency and
// percentiles. Only complete phases are pooled: a failed one (above the
// error budget, say) or an interrupted one is counted in Excluded and its
// repetition number listed in ExcludedReps. An operation missing from a
// repetition counts as zero throughput there and is left out of its latency
// figures.
func Repetitions(all []result.Phase) *result.Repetitions {
	var phases []result.Phase
	r := &result.Repetitions{}
	for i, p := range all {
		if p.Status != result.StatusComplete {
			r.Excluded++
			n := p.Repetition
			if n == 0 {
				n = i + 1
			}
			r.ExcludedReps = append(r.ExcludedReps, n)
			continue
		}
		phases = append(phases, p)
	}
	r.N = len(phases)
	var thr []float64
	var names []string
	seen := map[string]bool{}
	for _, p := range phases {
		thr = append(thr, p.Throughput)
		for _, o := range p.Ops {
			if !seen[o.Name] {
				seen[o.Name] = true
				names = append(names, o.Name)
			}
		}
	}
	r.Throughput = toStat(thr)
	for _, name := range names {
		var t, mean, p50, p90, p95, p99, p999 []float64
		for _, p := range phases {
			var op *result.OpResult
			for i := range p.Ops {
				if p.Ops[i].Name == name {
					op = &p.Ops[i]
				}
			}
			if op == nil {
				t = append(t, 0)
				continue
			}
			t = append(t, op.Throughput)
			if l := op.Latency; l != nil {
				mean = append(mean, l.Mean)
				p50 = append(p50, float64(l.P50))
				p90 = append(p90, float64(l.P90))
				p95 = append(p95, float64(l.P95))
				p99 = append(p99, float64(l.P99))
				p999 = append(p999, float64(l.P999))
			}
		}
		r.Ops = append(r.Ops, result.OpRepetitions{Name: name, Throughput: toStat(t), Mean: toStat(mean),
			P50: toStat(p50), P90: toStat(p90), P95: toStat(p95), P99: toStat(p99), P999: toStat(p999)})
	}
	return r
}
