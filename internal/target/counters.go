package target

import (
	"context"
)

// Kinds of a server counter (CounterQuery.Kind).
const (
	// CounterCumulative: a count that only grows while the server runs
	// (commits, blocks read, bytes of WAL); a report draws its rate, the
	// difference between two samples over the time between them.
	CounterCumulative = "counter"
	// CounterGauge: a level read as it is (a table's size, a standby's
	// lag, compactions pending); a report draws the value.
	CounterGauge = "gauge"
)

// CounterQuery reads one group of the server's own counters on the
// sampler's session. Either SQL or Read is set.
type CounterQuery struct {
	// Group names the chart the counters are drawn on ("transactions",
	// "checkpoints", "size").
	Group string
	// Kind is CounterCumulative or CounterGauge, for every counter the
	// query gives.
	Kind string
	// Unit of the values: "" (a count), "bytes", "pages", "ms".
	Unit string
	// Source names what is read, for the report and for a message when it
	// cannot be read ("pg_stat_bgwriter").
	Source string
	// SQL returns rows of two columns, the counter's name and its value as
	// a number (text); with Name set, one row of one column, the value.
	// A NULL value is a counter the session may not read (PostgreSQL shows
	// other roles' figures as NULL): it is recorded as unavailable.
	SQL  string
	Name string
	// Read, in place of SQL, reads the counters by other means (a file's
	// size for an embedded target).
	// conn is the sampler's session.
	Read func(ctx context.Context, conn Conn) (map[string]float64, error)
	// Expect lists the names SQL should give; one it does not is
	// recorded as unavailable ("not reported by this server").
	Expect []string
	// Prefix is put before every name the query gives ("table_bytes:").
	Prefix string
}

// CounterSource is implemented by targets whose server counts its own
// work in a form candor can sample: the observe package opens one extra
// session (Connect) and runs the queries once per report interval on it,
// never on the workers' sessions. conn is that session, for queries that
// decide what the server offers (its version); tables are the workload's
// tables, for their sizes. A query that fails (a view the role may not
// read, one the server version lacks) marks its counters unavailable and
// the run goes on.
type CounterSource interface {
	CounterQueries(ctx context.Context, conn Conn, tables []string) ([]CounterQuery, error)
}

// CounterSourceOf returns t's CounterSource, or the one of the first
// endpoint of a multi-node target; nil when it has none.
func CounterSourceOf(t Target) CounterSource {
	if m, ok := t.(*Multi); ok && len(m.targets) > 0 {
		t = m.targets[0]
	}
	if s, ok := t.(CounterSource); ok {
		return s
	}
	return nil
}
