package cassandra

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/target"
)

func TestParseURLDefaults(t *testing.T) {
	c, err := ParseURL("cql://127.0.0.1/")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(c.Hosts, ",") != "127.0.0.1" || c.Port != 9042 || c.Keyspace != "ycsb" ||
		c.ReadConsistency != "ONE" || c.WriteConsistency != "ONE" || c.SerialConsistency != "SERIAL" ||
		c.Strategy != "SimpleStrategy" || c.Replication != 1 || c.ReplicationSet || c.Connections != 2 || c.LoadWindow != 32 ||
		c.PageSize != 5000 || c.Timeout != 11*time.Second || c.WriteCoalesce != 0 || c.TLS || !c.TLSVerify || c.AllowForeignKeyspace {
		t.Errorf("defaults = %+v", c)
	}
	// Without write_coalesce the driver writes each request at once (its
	// own default holds it 200µs for others, which at a few threads costs
	// latency and client CPU per operation).
	if cl := c.clusterConfig(time.Second); cl.WriteCoalesceWaitTime != 0 {
		t.Errorf("driver WriteCoalesceWaitTime = %v by default, want 0", cl.WriteCoalesceWaitTime)
	}
}

func TestParseURLWriteCoalesce(t *testing.T) {
	for v, want := range map[string]time.Duration{"0": 0, "0s": 0, "200us": 200 * time.Microsecond, "10ms": 10 * time.Millisecond} {
		c, err := ParseURL("cql://h/ks?write_coalesce=" + v)
		if err != nil || c.WriteCoalesce != want {
			t.Errorf("write_coalesce=%s: %v, %v; want %v", v, c.WriteCoalesce, err, want)
			continue
		}
		if cl := c.clusterConfig(time.Second); cl.WriteCoalesceWaitTime != want {
			t.Errorf("write_coalesce=%s: driver WriteCoalesceWaitTime = %v", v, cl.WriteCoalesceWaitTime)
		}
	}
}

func TestParseURL(t *testing.T) {
	c, err := ParseURL("cql://bob:p%40ss@10.0.0.1,10.0.0.2:9043,node3:9142/KS_1?read_consistency=quorum&write_consistency=LOCAL_QUORUM" +
		"&serial_consistency=local_serial&replication_factor=3&replication_strategy=NetworkTopology&connections=4&load_window=8&page_size=100&timeout=2s" +
		"&local_dc=dc1&tls_ca=/ca.pem&tls_verify=false&allow_foreign_keyspace=true")
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		Hosts: []string{"10.0.0.1", "10.0.0.2:9043", "node3"}, Port: 9142, Keyspace: "ks_1", Username: "bob", Password: "p@ss",
		ReadConsistency: "QUORUM", WriteConsistency: "LOCAL_QUORUM", SerialConsistency: "LOCAL_SERIAL",
		Strategy: "NetworkTopologyStrategy", Replication: 3, ReplicationSet: true, Connections: 4, LoadWindow: 8, PageSize: 100,
		Timeout: 2 * time.Second, LocalDC: "dc1", TLS: true, TLSCA: "/ca.pem", TLSVerify: false, AllowForeignKeyspace: true,
	}
	if !equalConfig(c, want) {
		t.Errorf("got  %+v\nwant %+v", c, want)
	}
	if got := c.ReplicationMap(); got != "{'class': 'NetworkTopologyStrategy', 'replication_factor': 3}" {
		t.Errorf("ReplicationMap = %s", got)
	}
	c, err = ParseURL("cassandra://[::1]:9000/k?consistency=all")
	if err != nil || c.Hosts[0] != "[::1]" || c.Port != 9000 || c.ReadConsistency != "ALL" || c.WriteConsistency != "ALL" {
		t.Errorf("IPv6 and consistency=all: %+v, %v", c, err)
	}
}

func equalConfig(a, b Config) bool {
	if strings.Join(a.Hosts, ",") != strings.Join(b.Hosts, ",") {
		return false
	}
	a.Hosts, b.Hosts = nil, nil
	return reflect.DeepEqual(a, b)
}

// Every bad URL is one ErrBadURL naming the problem and what is accepted,
// never showing the password.
func TestParseURLErrors(t *testing.T) {
	cases := map[string]string{
		"postgres://h/ks":                      "expected cql://",
		"cql:///ks":                            "no host",
		"cql://h1,,h2/ks":                      "empty host",
		"cql://h:0/ks":                         "1..65535",
		"cql://h:99999/ks":                     "1..65535",
		"cql://h:x1/ks":                        "port",
		"cql://h/1ks":                          "keyspace \"1ks\"",
		"cql://h/ks-x":                         "keyspace",
		"cql://h/ks?consistency=STRONG":        "valid levels: ANY, ONE, TWO, THREE, QUORUM, ALL, LOCAL_QUORUM, EACH_QUORUM, LOCAL_ONE",
		"cql://h/ks?read_consistency=serial":   "not a consistency level",
		"cql://h/ks?serial_consistency=QUORUM": "SERIAL, LOCAL_SERIAL",
		"cql://h/ks?consistency=ONE&read_consistency=ALL": "not both",
		"cql://h/ks?replication_factor=0":                 "1..100",
		"cql://h/ks?replication_strategy=Local":           "SimpleStrategy, NetworkTopologyStrategy",
		"cql://h/ks?connections=0":                        "connections per node",
		"cql://h/ks?load_window=0":                        "in flight",
		"cql://h/ks?page_size=-1":                         "rows per page",
		"cql://h/ks?timeout=5":                            "duration",
		"cql://h/ks?write_coalesce=5":                     "write_coalesce=5: expected 0",
		"cql://h/ks?write_coalesce=-1ms":                  "up to 10ms",
		"cql://h/ks?write_coalesce=1s":                    "up to 10ms",
		"cql://h/ks?tls=maybe":                            "true or false",
		"cql://h/ks?tls_cert=/c.pem":                      "go together",
		"cql://h/ks?nodes=3":                              "unknown parameter \"nodes\"; valid parameters: allow_foreign_keyspace",
		"cql://:topsecret@h/ks":                           "empty user name",
		"cql://u:topsecret@h/ks?consistency=FOO":          "FOO",
	}
	for u, want := range cases {
		_, err := ParseURL(u)
		if !errors.Is(err, target.ErrBadURL) || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseURL(%q) = %v; want ErrBadURL containing %q", u, err, want)
			continue
		}
		if strings.Contains(err.Error(), "topsecret") {
			t.Errorf("ParseURL(%q) shows the password: %v", u, err)
		}
	}
}

// Open refuses an isolation level (CQL has none) and bad URLs before it
// connects to anything.
func TestOpenRefusesBeforeConnecting(t *testing.T) {
	ctx := context.Background()
	_, err := target.Open(ctx, "cql://127.0.0.1:1/ks", target.Options{Isolation: "serializable"})
	if !errors.Is(err, target.ErrUnsupported) || !strings.Contains(err.Error(), "isolation") {
		t.Errorf("Open with an isolation level = %v, want ErrUnsupported", err)
	}
	_, err = target.Open(ctx, "cql://127.0.0.1:1/ks?write_consistency=MOST", target.Options{})
	if !errors.Is(err, target.ErrBadURL) {
		t.Errorf("Open with a bad consistency = %v, want ErrBadURL", err)
	}
}

func TestSameReplication(t *testing.T) {
	simple := map[string]string{"class": "org.apache.cassandra.locator.SimpleStrategy", "replication_factor": "2"}
	nts := map[string]string{"class": "org.apache.cassandra.locator.NetworkTopologyStrategy", "dc1": "2", "dc2": "2"}
	cases := []struct {
		repl map[string]string
		cfg  Config
		want bool
	}{
		{simple, Config{Strategy: "SimpleStrategy", Replication: 2}, true},
		{simple, Config{Strategy: "SimpleStrategy", Replication: 1}, false},
		{simple, Config{Strategy: "NetworkTopologyStrategy", Replication: 2}, false},
		{nts, Config{Strategy: "NetworkTopologyStrategy", Replication: 2}, true},
		{nts, Config{Strategy: "NetworkTopologyStrategy", Replication: 3}, false},
	}
	for _, c := range cases {
		if got := sameReplication(c.repl, c.cfg); got != c.want {
			t.Errorf("sameReplication(%v, %s) = %v", c.repl, c.cfg.ReplicationMap(), got)
		}
	}
	if got := formatMap(nts); got != "{'class': 'NetworkTopologyStrategy', 'dc1': '2', 'dc2': '2'}" {
		t.Errorf("formatMap = %s", got)
	}
}
