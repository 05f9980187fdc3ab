package runner

import (
	"context"
	"runtime/debug"
	"testing"

	"github.com/candor-bench/candor/internal/target/fake"
)

func TestGCPercent(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want int
	}{
		{1 << 20, 6400},           // 1 MiB live: the goal is 65 MiB
		{4 << 20, 1600},           // 4 MiB: 68 MiB
		{gcHeadroom, 100},         // as much live as the headroom: Go's default
		{10 * gcHeadroom, 100},    // never under Go's default
		{0, 1 << 30},              // nothing live (not seen): bounded
		{3 << 20, 2133},           // rounded down
		{gcHeadroom - 1, 100},     // just under: still 100
		{gcHeadroom / 2, 200},     // half: the goal is twice live
		{gcHeadroom / 3, 300},     // a third
		{gcHeadroom / 100, 10000}, // a hundredth
	} {
		if got := gcPercent(c.live); got != c.want {
			t.Errorf("gcPercent(%d) = %d, want %d", c.live, got, c.want)
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
