package runflags

import (
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/candor-bench/candor/internal/engine"
	"github.com/candor-bench/candor/internal/target/cassandra"
)

// CQL are the consistency and replication flags of run, load and
// cleanup. They apply to CQL targets only, as the URL parameters of the
// same names (internal/target/cassandra), so the fingerprint and the result
// record them as they record the URL's.
type CQL struct {
	read, write, serial, strategy string
	replication                   int
}

// cqlFlagParams maps each flag to its URL parameter.
var cqlFlagParams = []struct{ flag, param string }{
	{"read-consistency", "read_consistency"},
	{"write-consistency", "write_consistency"},
	{"serial-consistency", "serial_consistency"},
	{"replication", "replication_factor"},
	{"replication-strategy", "replication_strategy"},
}

func AddCQL(fl *pflag.FlagSet, f *CQL) {
	fl.StringVar(&f.read, "read-consistency", "", "(CQL targets) consistency level of reads: ANY, ONE, TWO, THREE, QUORUM, ALL, LOCAL_QUORUM, EACH_QUORUM, LOCAL_ONE (default: the URL's, else ONE)")
	fl.StringVar(&f.write, "write-consistency", "", "(CQL targets) consistency level of writes, as --read-consistency (default: the URL's, else ONE)")
	fl.StringVar(&f.serial, "serial-consistency", "", "(CQL targets) consistency of lightweight transactions' Paxos phase: SERIAL or LOCAL_SERIAL (default SERIAL)")
	fl.IntVar(&f.replication, "replication", 0, "(CQL targets) replication factor of the keyspace candor creates; an existing keyspace must have it (default 1)")
	fl.StringVar(&f.strategy, "replication-strategy", "", "(CQL targets) SimpleStrategy or NetworkTopologyStrategy, for the keyspace candor creates (default SimpleStrategy)")
}

// apply returns urls with the flags that were given added as URL parameters
// to each CQL URL. A flag given for a target that is not CQL (or for the
// default target) is a usage error naming the flag and the target.
func (f *CQL) Apply(fs *pflag.FlagSet, urls []string) ([]string, error) {
	values := map[string]string{
		"read-consistency": f.read, "write-consistency": f.write, "serial-consistency": f.serial,
		"replication": strconv.Itoa(f.replication), "replication-strategy": f.strategy,
	}
	var settings []cassandra.Setting
	for _, p := range cqlFlagParams {
		if fs.Changed(p.flag) {
			settings = append(settings, cassandra.Setting{Param: p.param, Value: values[p.flag], Source: "--" + p.flag})
		}
	}
	if len(settings) == 0 {
		return urls, nil
	}
	if len(urls) == 0 {
		urls = []string{engine.DefaultTarget}
	}
	out := make([]string, len(urls))
	for i, u := range urls {
		if !cassandra.IsURL(u) {
			return nil, engine.Usagef("%s applies to CQL targets (cql://HOST/KEYSPACE), not to %s: drop it, or set the product's own durability and isolation settings (--isolation, the server's configuration)",
				settings[0].Source, schemeOf(u))
		}
		v, err := cassandra.WithSettings(u, settings)
		if err != nil {
			return nil, engine.WithCode(engine.ExitUsage, err)
		}
		out[i] = v
	}
	return out, nil
}

// schemeOf names a URL's scheme for messages ("postgres://"), never its
// credentials.
func schemeOf(u string) string {
	if scheme, _, ok := strings.Cut(u, "://"); ok {
		return scheme + ":// targets"
	}
	return "a target without a scheme"
}
