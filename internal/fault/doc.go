// Package fault schedules faults during a run and records what happened.
//
// A fault is written as space-separated KEY=VALUE pairs (the --fault flag;
// a plan's faults: entries carry the same keys):
//
//	at=20s run=scripts/pg-cluster.sh kill /tmp/c 0    a shell command at 20 s
//	at=20s for=5s net=pause node=0                    node 0 unreachable for 5 s
//	at=20s for=10s net=latency delay=50ms jitter=5ms node=all
//	at=20s for=10s net=bandwidth rate=100KB/s node=1
//	at=20s net=reset node=0                           every connection cut once
//
// Parse reads one fault, Schedule.Validate checks a whole schedule against
// the run (every problem at once), and Executor runs it from a start time,
// producing one Event per fault with wall-clock start and end, exit status
// and (capped) output.
//
// # Network faults
//
// Network faults act on a proxy that candor runs in-process in front of
// each target node (ProxySet); candor's sessions connect to the proxy's
// address instead of the node's. A fault acts on the connections already
// open as on new ones, from their next bytes, and is lifted the same way:
//
//   - pause holds everything in both directions; when it ends what was held
//     is delivered, so a pause loses no bytes — like a network partition
//     that heals before TCP gives up;
//   - latency delays what comes back from the node (once per round trip) by
//     delay ± jitter, counted from when the proxy read it;
//   - bandwidth limits each direction to rate bytes/s;
//   - reset closes every open connection through the node at once (both
//     peers see a reset); with for=, a connection that carries bytes during
//     the window, new or open, is reset too.
//
// A connection reaches the node one of two ways. A dial by one of candor's
// drivers (they all dial through blockconn.Dial) to the proxy's address is
// handed over in-process (dialhook.Intercept): the proxy dials the node
// itself and returns the node's socket wrapped in a faultConn, which applies
// the faults in the Read and Write calls of the session that makes them.
// Any other client — anything that connects to the address over TCP — goes
// through the relay: a listener that copies bytes between the client's
// connection and its own to the node, with the same faults.
//
// Overlapping faults on one node add up: latencies add, the smallest rate
// wins.
//
// # Why candor has its own proxy
//
// While no fault is in effect, which is almost all of a run, the proxy must
// cost as little as possible: a point select through it is compared with
// one without (bench/proxy-overhead.sh; the goal is at most 50 µs on the
// median at 4 threads). A relay cannot meet that on two cores shared with
// the server: every round trip wakes two more threads (the relay's copier
// each way), and those wake-ups, not the copying, cost 70 µs on the median
// (docs/BENCHMARKS.md §9; socat, a relay in C, cost as much). Hence the
// hand-over: a session's connection is the node's socket, and with no fault
// in effect a Read or Write costs one atomic load besides the socket's own,
// in the session's goroutine (on its blocking thread, if it blocks). Only
// while a fault acts on what comes down does a connection read ahead on a
// goroutine of its own, stamping each chunk with the time it was read, as
// the relay does, so that a latency delays a stream once, not once per
// Read; it ends at its first chunk after the faults are over.
//
// The relay copies each direction on one goroutine that reads a chunk and
// writes it straight on: no allocation, no hand-over between goroutines, one
// atomic load per chunk to see whether a fault is in effect. Only while one
// is does a chunk go, stamped with the time it was read, to a second
// goroutine that applies it; once the faults end and that goroutine has
// delivered what it holds, the direction is back on the lean path.
//
// candor used Shopify's toxiproxy v2 as a library before (its Proxy and
// toxics without its HTTP API). It added 87.5 µs to that median (36 µs
// direct, 123.5 µs through it) and cut the rate to a quarter on two cores:
// every chunk is allocated and passes through a chain of at least three
// goroutines joined by unbuffered channels (reader, a no-op toxic, writer)
// whether or not a toxic is set. That chain is how toxiproxy puts toxics
// into open connections, so it has no lean path to switch to, and as a relay
// it could not avoid the wake-ups anyway. The closest other fit, etcd's
// pkg/proxy (a test helper inside etcd's own module), copies on one
// goroutine per direction but has no bandwidth limit, ends both directions
// at the first end of stream (no half-close) and brings etcd's module and
// logger along. What the faults need here — hold, delay, rate, reset,
// switched on and off on open connections — is small enough to own, and is
// tested in this package, through the relay and handed over.
package fault
