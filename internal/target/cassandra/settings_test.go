package cassandra

import (
	"strings"
	"testing"
)

func TestWithSettings(t *testing.T) {
	for _, c := range []struct {
		url      string
		settings []Setting
		want     string
	}{
		{"cql://h/ks", nil, "cql://h/ks"},
		{"cql://h/ks", []Setting{{"read_consistency", "quorum", "--read-consistency"}}, "cql://h/ks?read_consistency=QUORUM"},
		{"cql://h/ks?timeout=5s", []Setting{{"write_consistency", "ALL", "--write-consistency"}, {"replication_factor", "2", "--replication"}},
			"cql://h/ks?timeout=5s&write_consistency=ALL&replication_factor=2"},
		{"cql://h/ks?", []Setting{{"serial_consistency", "local_serial", "--serial-consistency"}}, "cql://h/ks?serial_consistency=LOCAL_SERIAL"},
		{"cql://h/ks?replication_strategy=NetworkTopology", []Setting{{"replication_strategy", "NetworkTopologyStrategy", "--replication-strategy"}},
			"cql://h/ks?replication_strategy=NetworkTopology"},
		{"cql://h/ks?consistency=QUORUM", []Setting{{"read_consistency", "QUORUM", "--read-consistency"}}, "cql://h/ks?consistency=QUORUM"},
	} {
		got, err := WithSettings(c.url, c.settings)
		if err != nil || got != c.want {
			t.Errorf("WithSettings(%s, %v) = %q, %v; want %q", c.url, c.settings, got, err, c.want)
			continue
		}
		if _, err := ParseURL(got); err != nil {
			t.Errorf("%s does not parse: %v", got, err)
		}
	}
	cfg, err := ParseURL(must(WithSettings("cql://u:pw@h/ks", []Setting{{"read_consistency", "LOCAL_QUORUM", "f"}, {"write_consistency", "ALL", "f"}, {"replication_factor", "3", "f"}})))
	if err != nil || cfg.ReadConsistency != "LOCAL_QUORUM" || cfg.WriteConsistency != "ALL" || cfg.Replication != 3 || !cfg.ReplicationSet || cfg.Password != "pw" {
		t.Errorf("parsed %+v, %v", cfg, err)
	}
	for _, c := range []struct {
		url     string
		setting Setting
		want    string
	}{
		{"cql://h/ks", Setting{"read_consistency", "MOST", "--read-consistency"}, "--read-consistency MOST: not a consistency level; valid levels: ANY, ONE"},
		{"cql://h/ks", Setting{"serial_consistency", "ONE", "--serial-consistency"}, "valid levels: SERIAL, LOCAL_SERIAL"},
		{"cql://h/ks", Setting{"replication_factor", "0", "--replication"}, "--replication 0: expected a whole number of copies"},
		{"cql://h/ks", Setting{"replication_strategy", "Ring", "--replication-strategy"}, "valid strategies: SimpleStrategy, NetworkTopologyStrategy"},
		{"cql://h/ks?write_consistency=ONE", Setting{"write_consistency", "ALL", "--write-consistency"}, "--write-consistency ALL contradicts the URL's write_consistency=ONE"},
		{"cql://h/ks?consistency=ONE", Setting{"read_consistency", "QUORUM", "--read-consistency"}, "contradicts the URL's consistency=ONE"},
		{"cql://h/ks?replication_factor=1", Setting{"replication_factor", "2", "--replication"}, "contradicts the URL's replication_factor=1"},
	} {
		_, err := WithSettings(c.url, []Setting{c.setting})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("WithSettings(%s, %v): %v; want an error with %q", c.url, c.setting, err, c.want)
		}
	}
	if !IsURL("cql://h") || !IsURL("Cassandra://h") || IsURL("postgres://h") || IsURL("sqlite://cql://") {
		t.Error("IsURL")
	}
}

func must(s string, err error) string {
	if err != nil {
		panic(err)
	}
	return s
}

// load_consistency sets the level of the load's INSERTs; without it the
// load writes at the write consistency.
func TestLoadConsistency(t *testing.T) {
	c, err := ParseURL("cql://h/ks?write_consistency=ONE&load_consistency=all")
	if err != nil || c.LoadConsistency != "ALL" || c.loadConsistency() != "ALL" || c.WriteConsistency != "ONE" {
		t.Errorf("load_consistency=all: %+v, %v", c, err)
	}
	c, err = ParseURL("cql://h/ks?consistency=QUORUM")
	if err != nil || c.loadConsistency() != "QUORUM" {
		t.Errorf("default load consistency: %q, %v; want the write consistency", c.loadConsistency(), err)
	}
	if _, err := ParseURL("cql://h/ks?load_consistency=MOST"); err == nil || !strings.Contains(err.Error(), "load_consistency=MOST is not a consistency level") {
		t.Errorf("load_consistency=MOST: %v", err)
	}
}
