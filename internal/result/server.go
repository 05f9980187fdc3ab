package result

// ServerCounters are the target server's own counters over a phase,
// sampled once per report interval on one extra session (package
// observe). Cumulative counters are recorded as the server reports them;
// readers take differences between samples for rates.
type ServerCounters struct {
	// Counters describes every counter that has a value in some sample.
	Counters []ServerCounter `json:"counters"`
	// Unavailable maps a counter, or a group's source when the whole query
	// failed ("checkpoints: pg_stat_bgwriter"), to why it could not be read
	// ("permission denied ...", "not visible to this role").
	Unavailable map[string]string `json:"unavailable,omitempty"`
	// Samples are in time order; the first is taken as the phase starts.
	Samples []ServerSample `json:"samples"`
}

// ServerCounter describes one counter.
type ServerCounter struct {
	Name   string `json:"name"`
	Group  string `json:"group"`            // the chart it is drawn on
	Kind   string `json:"kind"`             // "counter" (cumulative) or "gauge"
	Unit   string `json:"unit,omitempty"`   // "", "bytes", "ms"
	Source string `json:"source,omitempty"` // what it was read from ("pg_stat_database")
}

// ServerSample is one reading of the counters.
type ServerSample struct {
	// ElapsedSec is the time from the phase start to the reading.
	ElapsedSec float64            `json:"t"`
	Values     map[string]float64 `json:"v"`
}
