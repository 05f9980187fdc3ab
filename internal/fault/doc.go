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
// Network faults act on a TCP proxy that candor runs in-process in front of
// each target node (ProxySet); candor's sessions connect to the proxy instead
// of the node. The proxy is Shopify's toxiproxy v2 used as a library (its
// Proxy and toxics, without its HTTP API): latency, bandwidth and reset_peer
// are its own toxics; pause is a toxic of ours registered with toxiproxy
// ("candor_pause": it stops forwarding in both directions and, when removed,
// toxiproxy delivers what was held, so a pause loses no bytes — like a
// network partition that heals before TCP gives up). A reset closes every
// connection through the node's proxy at once by restarting its listener on
// the same address.
package fault
