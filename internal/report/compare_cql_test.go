package report

import "testing"

// Runs on CQL clusters of different shapes (nodes, replication, keyspace)
// are compared; differing consistency levels or commit-log durability are
// refused as differing synchronous_commit is.
func TestCompareCQLTopology(t *testing.T) {
	base := func() map[string]string {
		return map[string]string{
			"workload": "kv-basic", "threads": "16", "target product": "Apache Cassandra", "target driver": "cassandra",
			"target URL": "cql://127.0.0.1:9042/kv1", "setting nodes": "1", "setting topology": "127.0.0.1/datacenter1/rack1/5.0.9",
			"setting keyspace": "kv1", "setting replication": "{'class': 'SimpleStrategy', 'replication_factor': '1'}",
			"setting read_consistency": "ONE", "setting write_consistency": "ONE", "setting commitlog_sync": "periodic",
			"setting commitlog_sync_period": "10000ms",
		}
	}
	a, b := base(), base()
	b["target URL"] = "cql://127.0.0.1,127.0.0.2,127.0.0.3:9042/kv3r2"
	b["setting nodes"] = "3"
	b["setting topology"] = "127.0.0.1/datacenter1/rack1/5.0.9, 127.0.0.2/datacenter1/rack1/5.0.9, 127.0.0.3/datacenter1/rack1/5.0.9"
	b["setting keyspace"] = "kv3r2"
	b["setting replication"] = "{'class': 'SimpleStrategy', 'replication_factor': '2'}"
	ds := differences(a, b)
	if len(ds) != 5 {
		t.Errorf("differences: %+v, want 5 (URL, nodes, topology, keyspace, replication)", ds)
	}
	for _, d := range ds {
		if d.Blocking {
			t.Errorf("%s blocks the comparison of one node with three / RF=1 with RF=2", d.What)
		}
	}
	for k, v := range map[string]string{"setting write_consistency": "QUORUM", "setting read_consistency": "ALL",
		"setting commitlog_sync": "batch", "setting commitlog_sync_period": "2000ms"} {
		c := base()
		c[k] = v
		ds := differences(a, c)
		if len(ds) != 1 || !ds[0].Blocking {
			t.Errorf("%s=%s: differences %+v; want one blocking difference", k, v, ds)
		}
	}
}
