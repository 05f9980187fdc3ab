package elle

import (
	"math/rand"
	"time"
)

// SerialHistory generates n committed transactions run one after another
// on a store of lists: each has 1..ops micro-ops, a read with probability
// readFraction, else an append of a value unique to its key, over keys
// live keys of which each takes maxWrites appends and is then replaced by
// a fresh one (as Elle's generator does, to keep lists short). Such a
// history is serializable by construction: the checker must find nothing.
// For tests and benchmarks.
func SerialHistory(rnd *rand.Rand, n, keys, ops int, readFraction float64, maxWrites int) []Txn {
	state := map[int64][]int64{}
	slot := make([]int64, keys) // the key each slot now holds
	for i := range slot {
		slot[i] = int64(i)
	}
	nextKey := int64(keys)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	out := make([]Txn, 0, n)
	for i := 0; i < n; i++ {
		t := Txn{ID: int64(i + 1), Outcome: OK, Start: t0.Add(time.Duration(2*i) * time.Microsecond),
			End: t0.Add(time.Duration(2*i+1) * time.Microsecond)}
		m := 1 + rnd.Intn(ops)
		t.Ops = make([]Op, 0, m)
		for j := 0; j < m; j++ {
			s := rnd.Intn(keys)
			k := slot[s]
			if rnd.Float64() < readFraction {
				t.Ops = append(t.Ops, Op{Func: FuncRead, Key: k, List: append([]int64(nil), state[k]...)})
				if t.Ops[j].List == nil {
					t.Ops[j].List = []int64{}
				}
				continue
			}
			v := int64(len(state[k]) + 1)
			state[k] = append(state[k], v)
			t.Ops = append(t.Ops, Op{Func: FuncAppend, Key: k, Value: v})
			if len(state[k]) >= maxWrites {
				slot[s] = nextKey
				nextKey++
			}
		}
		out = append(out, t)
	}
	return out
}
