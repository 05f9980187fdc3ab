// Package observe watches a run from outside the workers' path: a live
// metrics endpoint in the Prometheus/OpenMetrics format (Metrics), fed from
// the runner's interval records, and the target server's own counters
// sampled once per interval on one extra session (Sampler). Neither touches
// a worker: both take what the runner's monitor hands over at its tick.
package observe
