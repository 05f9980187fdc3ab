package ycsb

import (
	"fmt"
	"sort"
	"strings"

	"github.com/candor-bench/candor/internal/suggest"
)

// ycsbKeys are the properties YCSB 0.17.0's client, measurements and JDBC
// binding read besides those of CoreWorkload (known): a file written for
// YCSB sets them, and candor accepts them without a word (they are listed
// in the result as ignored). The list is generous on purpose: its use is to
// tell a typo (recordcont) from a property YCSB knows.
var ycsbKeys = []string{
	// Client (site.ycsb.Client) and its command-line switches.
	"db", "dotransactions", "exporter", "exportfile", "label", "status", "status.interval", "workload",
	// Measurements.
	"measurementtype", "measurement.interval", "measurement.trackjvm", "measurement.histogram.verbose",
	"measurement.raw.output_file", "measurement.raw.no_summary", "histogram.buckets", "timeseries.granularity",
	"hdrhistogram.fileoutput", "hdrhistogram.output.path", "hdrhistogram.percentiles",
	"latencytrackederrors", "reportlatencyforeacherror", "spin.sleep",
	// The JDBC binding (db.passwd is its password).
	"db.driver", "db.url", "db.user", "db.passwd", "db.batchsize", "jdbc.fetchsize", "jdbc.autocommit",
	"jdbc.batchupdateapi", "jdbc.prependtablename",
	// Bindings' common unprefixed properties.
	"hosts", "host", "port", "user", "password", "debug", "columnfamily", "keyspace",
	// TimeseriesWorkload, RestWorkload and the basic DB.
	"tagcount", "tagcardinality", "tagkeylength", "tagvaluelength", "tagpairdelimiter", "timestampkey",
	"timestampinterval", "timestampunits", "valuekey", "valuetype", "querytimespan", "queryrandomtimespan",
	"querytimespandelimiter", "groupbyfunction", "groupbykey", "groupbykeys", "downsamplingfunction",
	"downsamplingkey", "downsamplinginterval", "delayedseries", "delayedintervals", "deleteproportion",
	"deletedelimiter", "randomwritetimestamporder", "randomtimeseriesorder", "sparsity", "occupancy",
	"basicdb.verbose", "basicdb.simulatedelay", "basicdb.randomizedelay", "basicdb.count",
}

// bindingPrefixes are the namespaces of YCSB's bindings and subsystems: a
// key "mongodb.url" or "cassandra.readconsistencylevel" belongs to one and
// is accepted as YCSB's without checking its spelling further.
var bindingPrefixes = []string{
	"accumulo", "aerospike", "arangodb", "asynchbase", "azurecosmos", "azuretablestorage", "bigtable",
	"cassandra", "cloudspanner", "couchbase", "crail", "db", "dynamodb", "elasticsearch", "es", "fdb",
	"foundationdb", "geode", "googlebigtable", "googledatastore", "griddb", "hbase", "hdrhistogram", "htrace",
	"hypertable", "ignite", "infinispan", "jdbc", "kudu", "mapkeeper", "maprdb", "maprjsondb", "measurement",
	"memcached", "mongodb", "nosqldb", "orientdb", "postgrenosql", "rados", "redis", "rest", "riak", "rocksdb",
	"s3", "solr", "tablestore", "tarantool", "url", "voldemort", "voltdb", "basicdb",
}

// recognised reports whether YCSB or one of its bindings knows key.
func recognised(key string) bool {
	if known[key] {
		return true
	}
	for _, k := range ycsbKeys {
		if k == key {
			return true
		}
	}
	if prefix, _, ok := strings.Cut(key, "."); ok {
		for _, p := range bindingPrefixes {
			if p == prefix {
				return true
			}
		}
	}
	return false
}

// unknownKeys is one line naming the keys of props that neither candor nor
// YCSB knows, each with the closest known key when one is near enough to
// be a typo; "" when there are none. As YCSB, candor runs on without them.
func unknownKeys(props map[string]Property) string {
	var parts []string
	for k := range props {
		if recognised(k) {
			continue
		}
		part := fmt.Sprintf("%q", k)
		if p := props[k]; p.Source != "-p" {
			part += " (" + p.Source + ")"
		}
		if m := closestKey(k); m != "" {
			part += " (did you mean " + m + "?)"
		}
		parts = append(parts, part)
	}
	if len(parts) == 0 {
		return ""
	}
	sort.Strings(parts)
	noun := "property"
	if len(parts) > 1 {
		noun = "properties"
	}
	return fmt.Sprintf("ycsb: unknown %s, ignored as YCSB ignores them: %s", noun, strings.Join(parts, ", "))
}

// closestKey returns the known key nearest to k in edit distance (case
// ignored) when it is a plausible typo: at most 1 edit for keys of up to 5
// characters, 2 for longer ones; "" when none is that close.
func closestKey(k string) string {
	limit := 2
	if len(k) <= 5 {
		limit = 1
	}
	best, bestD := "", limit+1
	try := func(c string) {
		if d := suggest.Distance(strings.ToLower(k), c); d < bestD || d == bestD && c < best {
			best, bestD = c, d
		}
	}
	for c := range known {
		try(c)
	}
	for _, c := range ycsbKeys {
		try(c)
	}
	return best
}
