package runner

import (
	"context"
	"runtime/debug"
	"runtime/metrics"
	"testing"

	"github.com/candor-bench/candor/internal/target/fake"
)

func TestGCPercent(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		base, live uint64
		want       int
	}{
		{1 * mib, 1 * mib, 1625},                // 1 MiB: the runtime's minimum, 4 MiB × 16.25, is the goal, 65 MiB
		{4 * mib, 4 * mib, 1600},                // 4 MiB: 4 + 4 × 16 = 68 MiB
		{5 * mib, 4 * mib, 1280},                // stacks and globals count: 4 + 5 × 12.8 = 68 MiB
		{gcHeadroom, gcHeadroom, 100},           // as much live as the headroom: Go's default
		{10 * gcHeadroom, 10 * gcHeadroom, 100}, // never under Go's default
		{0, 0, 1600},                            // nothing seen: the minimum, 64 MiB
		{3 * mib, 3 * mib, 1675},                // rounded down: 4 MiB × 16.75 = 67 MiB
		{gcHeadroom - 1, gcHeadroom - 1, 100},   // just under: still 100
		{gcHeadroom / 2, gcHeadroom / 2, 200},   // half: the goal is twice live
		{gcHeadroom / 3, gcHeadroom / 3, 300},   // a third
		{400 << 10, 200 << 10, 1604},            // a run's few hundred KB: the minimum, 64.2 MiB
	} {
		if got := gcPercent(c.base, c.live); got != c.want {
			t.Errorf("gcPercent(%d, %d) = %d, want %d", c.base, c.live, got, c.want)
		}
	}
}

// gogc reads the collector's setting without changing it.
func gogc() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// During a phase the heap may grow by the headroom without a collection;
// afterwards the setting from before is back.
func TestGCPacer(t *testing.T) {
	before := gogc()
	p := startGCPacer()
	if !p.on || gogc() != p.percent || p.percent < 100 {
		t.Fatalf("pacer on %v, GOGC %d, its percent %d", p.on, gogc(), p.percent)
	}
	var keep [][]byte
	for i := 0; i < 16; i++ { // 16 MiB, a quarter of the headroom, dropped as it goes
		keep = append(keep[:0], make([]byte, 1<<20))
	}
	_ = keep
	p.tick()
	if cycles := p.stop(); cycles != 0 {
		t.Errorf("%d collections for 16 MiB of garbage, want none", cycles)
	}
	if got := gogc(); got != before {
		t.Errorf("GOGC after the phase %d, want %d as before", got, before)
	}
	if p.stop(); gogc() != before {
		t.Errorf("a second stop changed GOGC to %d", gogc())
	}
}

// The goal the pacer sets is the live heap plus the headroom, not more: Go
// multiplies GOGC by the stacks and globals too, which in a binary of
// candor's size are larger than a run's live heap.
func TestGCPacerGoal(t *testing.T) {
	p := startGCPacer()
	defer p.stop()
	v := p.read()
	goal := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
	metrics.Read(goal)
	got := goal[0].Value.Uint64()
	// gcPercent rounds down: the goal is under by less than a hundredth of
	// base or of the runtime's minimum.
	if want := v.live + gcHeadroom; got > want || got < want-max(v.base, goHeapMinimum)/100 {
		t.Errorf("heap goal %d MiB, want %d MiB (live %d KiB, base %d KiB, GOGC %d)",
			got>>20, want>>20, v.live>>10, v.base>>10, p.percent)
	}
}

// A GOGC in the environment is left alone, and the phase says so.
func TestGCPacerLeavesGOGC(t *testing.T) {
	t.Setenv("GOGC", "100")
	before := gogc()
	p, err := newRunner(fake.New(fake.Config{}), Config{Threads: 2, Operations: 20}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if p.Client.GCHeadroom != 0 || p.Client.GCCycles == nil {
		t.Errorf("gc_headroom_bytes %d (want 0), gc_cycles %v (want a count)", p.Client.GCHeadroom, p.Client.GCCycles)
	}
	if gogc() != before {
		t.Errorf("GOGC changed to %d", gogc())
	}
}

// A run phase records its collections and the headroom.
func TestRunRecordsGC(t *testing.T) {
	p, err := newRunner(fake.New(fake.Config{}), Config{Threads: 2, Operations: 20}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if p.Client.GCHeadroom != gcHeadroom || p.Client.GCCycles == nil {
		t.Errorf("gc_headroom_bytes %d (want %d), gc_cycles %v (want a count)", p.Client.GCHeadroom, gcHeadroom, p.Client.GCCycles)
	}
}
