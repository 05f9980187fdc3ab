package voltdb

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/candor-bench/candor/internal/target"
)

// deploymentSettings are the properties of @SystemInformation DEPLOYMENT the
// fingerprint records, under their own names: the topology (hosts, sites
// per host, k-factor), durability (the command log and its mode and
// frequency, snapshots) and the limits that change results. Paths, ports
// and the user list are left out.
var deploymentSettings = []string{
	"hostcount", "sitesperhost", "kfactor",
	"commandlogenabled", "commandlogmode", "commandlogfreqtime", "commandlogfreqtxns",
	"snapshotenabled", "snapshotfrequency", "snapshotretain",
	"partitiondetection", "heartbeattimeout", "querytimeout", "temptablesmaxsize", "export",
}

// Fingerprint implements target.Target: VoltDB's version and build (from
// @SystemInformation OVERVIEW), the deployment's settings above, the
// partitions (@Statistics PARTITIONCOUNT), the cluster's state and safety,
// and durability: "none" (command log off: committed data lives in memory
// only, as VoltDB's log says "Durability is turned off"), "periodic"
// (asynchronous command log) or "per-commit" (synchronous).
func (t *Target) Fingerprint(ctx context.Context) (target.Fingerprint, error) {
	t.mu.Lock()
	closed := t.closed
	t.mu.Unlock()
	if closed {
		return target.Fingerprint{}, ErrClosed
	}
	c, err := t.dialAny(ctx)
	if err != nil {
		return target.Fingerprint{}, err
	}
	defer c.Close()
	fp := target.Fingerprint{Driver: Name, Product: "VoltDB", URL: t.redacted, Settings: map[string]string{}}
	overview, err := c.Call(ctx, "@SystemInformation", "OVERVIEW")
	if err != nil {
		return target.Fingerprint{}, fmt.Errorf("voltdb fingerprint: @SystemInformation OVERVIEW: %w", err)
	}
	hosts := map[string]bool{}
	for _, row := range rowsOf(overview, 3) {
		hosts[string(row[0])] = true
		if string(row[0]) != "0" && fp.Version != "" {
			continue // the first host's values
		}
		switch string(row[1]) {
		case "VERSION":
			fp.Version = string(row[2])
		case "BUILDSTRING":
			fp.VersionString = string(row[2])
		case "CLUSTERSTATE":
			fp.Settings["clusterstate"] = string(row[2])
		case "CLUSTERSAFETY":
			fp.Settings["clustersafety"] = string(row[2])
		case "FULLCLUSTERSIZE":
			fp.Settings["fullclustersize"] = string(row[2])
		case "REPLICATIONROLE":
			fp.Settings["replicationrole"] = string(row[2])
		}
	}
	fp.Settings["hosts_up"] = strconv.Itoa(len(hosts))
	dep, err := c.Call(ctx, "@SystemInformation", "DEPLOYMENT")
	if err != nil {
		return target.Fingerprint{}, fmt.Errorf("voltdb fingerprint: @SystemInformation DEPLOYMENT: %w", err)
	}
	props := map[string]string{}
	for _, row := range rowsOf(dep, 2) {
		props[strings.ToLower(string(row[0]))] = string(row[1])
	}
	for _, k := range deploymentSettings {
		if v, ok := props[k]; ok {
			fp.Settings[k] = v
		}
	}
	fp.Settings["durability"] = durability(props)
	if pc, err := c.Call(ctx, "@Statistics", "PARTITIONCOUNT", int32(0)); err == nil {
		for _, tb := range pc {
			if i := columnIndex(tb, "PARTITION_COUNT"); i >= 0 && len(tb.Rows) > 0 {
				fp.Settings["partitions"] = string(tb.Rows[0][i])
			}
		}
	} else if !errors.Is(err, ErrConnLost) {
		fp.Settings["partitions"] = "unknown"
	} else {
		return target.Fingerprint{}, fmt.Errorf("voltdb fingerprint: @Statistics PARTITIONCOUNT: %w", err)
	}
	if fp.Version == "" {
		fp.Version, _, _ = strings.Cut(c.Build(), "_")
	}
	return fp, nil
}

// durability is what the command log makes of a commit: "none" without
// one, "periodic" when it is asynchronous, "per-commit" when synchronous.
func durability(props map[string]string) string {
	if props["commandlogenabled"] != "true" {
		return "none"
	}
	if strings.EqualFold(props["commandlogmode"], "sync") || strings.EqualFold(props["commandlogmode"], "synchronous") {
		return "per-commit"
	}
	return "periodic"
}

// rowsOf is every row of tables with at least n columns, none of the
// first n NULL.
func rowsOf(tables []Table, n int) [][][]byte {
	var out [][][]byte
	for _, t := range tables {
		for _, r := range t.Rows {
			if len(r) < n {
				continue
			}
			ok := true
			for _, v := range r[:n] {
				ok = ok && v != nil
			}
			if ok {
				out = append(out, r)
			}
		}
	}
	return out
}

// columnIndex is the index of the column named name in t, -1 without one.
func columnIndex(t Table, name string) int {
	for i, n := range t.Names {
		if strings.EqualFold(n, name) {
			return i
		}
	}
	return -1
}
