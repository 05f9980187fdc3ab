//go:build linux

package blockconn

import (
	"os"
	"runtime"
	"sync/atomic"
	"time"
	_ "unsafe" // for go:linkname
)

// Blocking sessions and the Go scheduler.
//
// A session waiting in a blocking read sleeps in the kernel holding its
// thread and its P (a Go scheduler slot; there are GOMAXPROCS of them, by
// default one per core). The runtime's monitor thread, sysmon, takes the P
// back from a thread in a system call when no other P is idle, or when the
// P has run the same goroutine for 10 ms, and after taking one it looks again
// every 20 µs. With more sessions than Ps that happens all the time: a
// session whose reply has arrived waits for a P, sysmon wakes tens of
// thousands of times a second and Ps are handed from thread to thread
// through futex wake-ups. On two cores that cost up to half as much client
// CPU again per oltp_read_write transaction as sysbench spends
// (docs/BENCHMARKS.md §7).
//
// Reserve therefore gives each session a P of its own, plus one for
// everything else (the monitor, timers), and makes sessions yield their P
// every few milliseconds before a write, so that no P is ever seen running
// one goroutine for 10 ms. Then sysmon takes no P and backs off to a wake-up
// every 10 ms, and a session whose reply arrived goes on at once, as a
// sysbench thread does. Yielding is only cheap with a P to spare: with fewer
// Ps than sessions a yielding session queues behind the others and waits for
// sysmon to free a P, so sessions yield only while Reserve is in force.
//
// A yield is the runtime's goyield, not runtime.Gosched. Gosched puts the
// goroutine on the global run queue and wakes the thread of an idle P to
// look for work, and the spare P is idle by design: every yield woke a
// thread on another core, which found nothing, or took the session over and
// moved it to another thread. goyield puts the goroutine on its own P's
// queue and wakes nothing, so the session goes on on its own thread. With
// the collector kept quiet during the phase (runner/gcpace.go) and the
// PostgreSQL driver's per-statement timer gone (postgres/wire.go), that
// took oltp_point_select with 4 threads on two cores from 0.94–0.98 of
// sysbench's rate to 1.03–1.04; no one or two of the three did
// (docs/BENCHMARKS.md §7, "A quiet client"). goyield is one of the runtime
// functions Go keeps reachable by go:linkname for packages outside the
// standard library (go.dev/issue/67401), with this signature.
//
// Even so, blocking sessions cost more than Go's network poller once many
// share a core (oltp_point_select with 16 sessions on two cores: 0.75–0.84×
// sysbench's rate blocking, 1.05–1.12× in the poller), so the runner
// reserves only for run phases whose sessions block
// (target.ChooseSessionIO).

// yieldAfter is how long a session may keep its P before it yields, well
// under sysmon's 10 ms.
const yieldAfter = 5 * time.Millisecond

// yielding is non-zero while Reserve is in force.
var yielding atomic.Int32

// epoch is what session clocks count from: time.Since reads only the
// monotonic clock.
var epoch = time.Now()

// Reserve raises GOMAXPROCS to sessions+1 for a phase with that many
// blocking sessions, and makes them yield as described above, unless the
// environment sets GOMAXPROCS. It returns the function that ends it. Phases
// do not overlap; a Reserve while another is in force does nothing.
func Reserve(sessions int) (end func()) {
	if os.Getenv("GOMAXPROCS") != "" || !yielding.CompareAndSwap(0, 1) {
		return func() {}
	}
	raised := false
	if runtime.GOMAXPROCS(0) <= sessions {
		runtime.GOMAXPROCS(sessions + 1)
		raised = true
	}
	return func() {
		if raised {
			runtime.SetDefaultGOMAXPROCS()
		}
		yielding.Store(0)
	}
}

// maybeYield yields c's P when Reserve is in force and c has not yielded
// for yieldAfter.
func (c *Conn) maybeYield() {
	if yielding.Load() == 0 {
		return
	}
	if now := int64(time.Since(epoch)); now-c.yielded.Load() > int64(yieldAfter) {
		c.yielded.Store(now)
		goyield()
	}
}

// goyield is runtime.goyield: Gosched without waking another thread.
//
//go:linkname goyield runtime.goyield
func goyield()
