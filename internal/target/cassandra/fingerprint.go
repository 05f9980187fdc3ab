package cassandra

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/candor-bench/candor/internal/target"
)

// serverSettings are the names read from system_views.settings (Cassandra
// 4.0+) that decide whether two runs are comparable: commit-log durability,
// memtables, write and read concurrency, caches, compaction. A name is
// recorded when the server has it; names that start with a prefix ending in
// "_" take every setting with that prefix.
var serverSettings = []string{
	"commitlog_sync", "commitlog_sync_period", "commitlog_sync_group_window", "commitlog_sync_batch_window_in_ms",
	"commitlog_segment_size", "commitlog_disk_access_mode",
	"memtable_allocation_type", "memtable_heap_space", "memtable_offheap_space", "memtable_flush_writers",
	"memtable_cleanup_threshold",
	"concurrent_writes", "concurrent_reads", "concurrent_counter_writes",
	"key_cache_size", "row_cache_size", "disk_access_mode",
	"compaction_throughput", "concurrent_compactors", "default_compaction",
	"storage_compatibility_mode", "disk_optimization_strategy",
}

// Fingerprint implements target.Target. Product "Apache Cassandra",
// version system.local's release_version (the version string adds the
// cluster's name), and the settings:
//
//	partitioner                   from system.local
//	nodes                         how many nodes (system.local + system.peers_v2)
//	topology                      each node as ADDRESS/DC/RACK/RELEASE, by address
//	keyspace, replication         the URL's keyspace and its replication map
//	read_consistency, write_consistency, load_consistency, serial_consistency
//	commitlog_sync, ...           the serverSettings the server reports
//
// It creates the keyspace when it does not exist (as Connect does), so that
// the replication recorded is the one in effect.
func (t *Target) Fingerprint(ctx context.Context) (target.Fingerprint, error) {
	if _, err := t.ready(ctx); err != nil {
		return target.Fingerprint{}, err
	}
	s := t.boot
	fp := target.Fingerprint{Driver: Name, Product: "Apache Cassandra", URL: t.redacted, Settings: map[string]string{}}
	set := fp.Settings

	// system.local and the peers tables describe the node that answers:
	// both are read from the same node (the one that answered first).
	var cluster, partitioner, version, dc, rack, addr, hostID string
	err := s.Query("SELECT cluster_name, partitioner, release_version, data_center, rack, broadcast_address, host_id FROM system.local").
		Consistency(gocql.One).ScanContext(ctx, &cluster, &partitioner, &version, &dc, &rack, &addr, &hostID)
	if err != nil {
		return target.Fingerprint{}, fmt.Errorf("reading system.local from %s: %w", t.redacted, err)
	}
	fp.Version = version
	// The cluster's name identifies the endpoint, like the URL: it is not a
	// setting (compare refuses runs whose settings differ).
	fp.VersionString = "Apache Cassandra " + version + " (cluster " + cluster + ")"
	set["partitioner"] = partitioner[strings.LastIndex(partitioner, ".")+1:]
	nodes := []string{fmt.Sprintf("%s/%s/%s/%s", addr, dc, rack, version)}
	peers, err := readPeers(ctx, s, hostID)
	if err != nil {
		return target.Fingerprint{}, fmt.Errorf("reading the peers of %s: %w", t.redacted, err)
	}
	nodes = append(nodes, peers...)
	sort.Strings(nodes)
	set["nodes"] = strconv.Itoa(len(nodes))
	set["topology"] = strings.Join(nodes, ", ")

	repl, _, err := keyspaceReplication(ctx, s, t.cfg.Keyspace)
	if err != nil {
		return target.Fingerprint{}, fmt.Errorf("reading the replication of keyspace %s: %w", t.cfg.Keyspace, err)
	}
	set["keyspace"] = t.cfg.Keyspace
	set["replication"] = formatMap(repl)
	set["read_consistency"] = t.cfg.ReadConsistency
	set["write_consistency"] = t.cfg.WriteConsistency
	set["load_consistency"] = t.cfg.loadConsistency()
	set["serial_consistency"] = t.cfg.SerialConsistency

	if err := readSettings(ctx, s, set); err != nil {
		return target.Fingerprint{}, fmt.Errorf("reading system_views.settings from %s: %w", t.redacted, err)
	}
	return fp, nil
}

// readPeers lists the nodes other than hostID, as node hostID knows them,
// from system.peers_v2 (Cassandra 4.0+), or system.peers where that table
// is missing.
func readPeers(ctx context.Context, s *gocql.Session, hostID string) ([]string, error) {
	var out []string
	for _, q := range []string{
		"SELECT peer, data_center, rack, release_version FROM system.peers_v2",
		"SELECT peer, data_center, rack, release_version FROM system.peers",
	} {
		out = out[:0]
		iter := s.Query(q).Consistency(gocql.One).SetHostID(hostID).IterContext(ctx)
		var peer, dc, rack, version string
		for iter.Scan(&peer, &dc, &rack, &version) {
			out = append(out, fmt.Sprintf("%s/%s/%s/%s", peer, dc, rack, version))
		}
		err := iter.Close()
		if err == nil {
			return out, nil
		}
		var re gocql.RequestError
		if !errors.As(err, &re) || re.Code() != gocql.ErrCodeInvalid {
			return nil, err
		}
	}
	return out, nil
}

// readSettings adds the serverSettings the server reports; a server without
// system_views.settings (before 4.0, other products) adds none.
func readSettings(ctx context.Context, s *gocql.Session, set map[string]string) error {
	want := map[string]bool{}
	for _, n := range serverSettings {
		want[n] = true
	}
	iter := s.Query("SELECT name, value FROM system_views.settings").Consistency(gocql.One).IterContext(ctx)
	var name string
	var value *string
	for iter.Scan(&name, &value) {
		if want[name] {
			v := "null"
			if value != nil {
				v = *value
			}
			set[name] = v
		}
	}
	err := iter.Close()
	var re gocql.RequestError
	if errors.As(err, &re) && re.Code() == gocql.ErrCodeInvalid {
		return nil // no such table
	}
	return err
}
