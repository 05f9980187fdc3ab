package result

import "time"

// ShardInfo says which part of a sharded run (--shard i/N) a result is: N
// client processes, on one machine or several, each running its share of
// the workers, rate, operations and key space, merged by candor merge.
type ShardInfo struct {
	// RunID is shared by every shard of one run (--run-id, or derived from
	// --start-at and the command); merge refuses shards of different runs.
	RunID string `json:"run_id"`
	Index int    `json:"index"` // 0 ≤ Index < Count
	Count int    `json:"count"`
	// StartAt is the wall-clock instant every shard's measured phase began
	// at (--start-at); zero when not given.
	StartAt time.Time `json:"start_at,omitzero"`
	// Clock is this client's clock against the target server's.
	Clock *ClockOffset `json:"clock,omitempty"`
	// Threads, Operations and Rate are the totals this shard was given
	// (--threads, --operations, --rate, before its share was taken): the
	// shards of one run are given the same, and merge refuses shards that
	// were not. Zero in results of a candor older than them.
	Threads    int     `json:"threads,omitempty"`
	Operations int64   `json:"operations,omitempty"`
	Rate       float64 `json:"rate,omitempty"`
}

// ClockOffset is a client's clock offset from the target server's clock,
// read before the measured phase: offset = server time − client time at the
// midpoint of the round trip that read it (the smallest of several).
type ClockOffset struct {
	// Source is how it was read: "server" (PostgreSQL now(), MySQL
	// NOW(6)), "local" (an embedded target: the client's own clock, offset
	// 0) or "unavailable" (a target without a clock to read, such as CQL;
	// Error says why when reading failed).
	Source   string `json:"source"`
	OffsetNs int64  `json:"offset_ns"`
	// RTTNs is the round trip of the reading: the offset is exact within
	// ±RTTNs/2.
	RTTNs int64  `json:"rtt_ns,omitempty"`
	Error string `json:"error,omitempty"`
}

// Merged records how candor merge made a result out of shard results.
type Merged struct {
	RunID  string        `json:"run_id"`
	Count  int           `json:"count"`
	Shards []ShardSource `json:"shards"`
}

// ShardSource is one merged shard as it was: its result id and file, its
// client machine and target fingerprint, its clock offset and its phases'
// client figures (CPU, memory, saturation), which are per machine and so
// are not added up.
type ShardSource struct {
	Index      int           `json:"index"`
	ID         string        `json:"id"`
	File       string        `json:"file,omitempty"`
	Status     string        `json:"status"`
	Provenance Provenance    `json:"provenance"`
	Target     Fingerprint   `json:"target"`
	Clock      *ClockOffset  `json:"clock,omitempty"`
	Client     []ClientUsage `json:"client,omitempty"` // one per phase, in the result's phase order
}
