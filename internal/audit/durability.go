package audit

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/candor-bench/candor/internal/result"
)

// Durability classes: what an acknowledged commit has survived, across
// products whose settings have other names (docs/AUDIT.md has the table).
const (
	Replicated = "replicated before acknowledging"
	Flushed    = "flushed locally per commit"
	Periodic   = "periodic"
	Off        = "off"
)

// Durability is a result's durability class, the settings it was read
// from, and the number of copies acknowledged before a commit returns when
// the result records it ("" otherwise).
type Durability struct {
	Class  string // one of the classes above, or notRecorded
	From   string // "synchronous_commit=on, fsync=on"
	Copies string // synchronous standbys or replication factor as recorded
}

func (d Durability) String() string {
	s := d.Class
	if d.From != "" {
		s += " (" + d.From + ")"
	}
	return s
}

// ClassifyDurability maps a result's recorded settings to a durability
// class. The table (docs/AUDIT.md):
//
//	PostgreSQL wire: fsync=off → off; synchronous_commit=off → periodic;
//	  synchronous_commit on/remote_write/remote_apply with
//	  synchronous_standby_names set → replicated; otherwise (on, local) →
//	  flushed locally.
//	MySQL wire (InnoDB): semi-synchronous replication on → replicated;
//	  innodb_flush_log_at_trx_commit=1 → flushed locally (sync_binlog≠1
//	  with log_bin on noted), 0 or 2 → periodic.
//	SQLite: synchronous=OFF or journal_mode OFF/MEMORY → off;
//	  synchronous=NORMAL in WAL mode → periodic; otherwise flushed locally.
//	Cassandra (CQL): commitlog_sync periodic → periodic, batch/group →
//	  flushed locally; a write consistency waiting for more than one
//	  replica with replication factor > 1 → replicated.
//
// A setting the server accepts and ignores (recorded as "no-op": TiDB's
// innodb_flush_log_at_trx_commit and sync_binlog) classifies nothing: such
// a result's durability is not recorded, and From names the ignored
// settings.
func ClassifyDurability(r *result.Result) Durability {
	s := settingsOf(r)
	get := func(k string) (string, bool) {
		v, ok := s[k]
		if !ok || !recorded(v) {
			return "", false
		}
		return v, true
	}
	lower := func(k string) (string, bool) {
		v, ok := get(k)
		return strings.ToLower(strings.TrimSpace(v)), ok
	}
	if sc, ok := lower("synchronous_commit"); ok {
		from := "synchronous_commit=" + sc
		if f, ok := lower("fsync"); ok {
			from += ", fsync=" + f
			if f == "off" {
				return Durability{Class: Off, From: from}
			}
		}
		names, hasNames := s["synchronous_standby_names"]
		hasNames = hasNames && !strings.EqualFold(names, "unavailable") && !strings.EqualFold(names, noOp)
		standbys := standbyCount(names)
		if hasNames {
			from += fmt.Sprintf(", synchronous_standby_names=%q", names)
		}
		copies := ""
		if hasNames {
			copies = strconv.Itoa(standbys) + " synchronous standby(s)"
		}
		switch sc {
		case "off":
			return Durability{Class: Periodic, From: from, Copies: copies}
		case "on", "remote_write", "remote_apply":
			if standbys > 0 {
				return Durability{Class: Replicated, From: from, Copies: copies}
			}
			return Durability{Class: Flushed, From: from, Copies: copies}
		case "local":
			return Durability{Class: Flushed, From: from, Copies: copies}
		}
		return Durability{Class: notRecorded, From: from}
	}
	if fl, ok := lower("innodb_flush_log_at_trx_commit"); ok {
		from := "innodb_flush_log_at_trx_commit=" + fl
		binlog := ""
		if sb, ok := lower("sync_binlog"); ok {
			from += ", sync_binlog=" + sb
			if lb, ok := lower("log_bin"); ok && (lb == "on" || lb == "1") && sb != "1" {
				binlog = "; binary log not flushed per commit"
			}
		}
		semi := ""
		for _, k := range []string{"rpl_semi_sync_master_enabled", "rpl_semi_sync_source_enabled"} {
			if v, ok := lower(k); ok {
				semi = k + "=" + v
				if v == "1" || v == "on" {
					return Durability{Class: Replicated, From: from + ", " + semi, Copies: "1 semi-synchronous replica"}
				}
			}
		}
		if semi != "" {
			from += ", " + semi
		}
		switch fl {
		case "1":
			return Durability{Class: Flushed, From: from + binlog}
		case "0", "2":
			return Durability{Class: Periodic, From: from}
		}
		return Durability{Class: notRecorded, From: from}
	}
	if sy, ok := lower("synchronous"); ok {
		from := "synchronous=" + sy
		jm, hasJM := lower("journal_mode")
		if hasJM {
			from += ", journal_mode=" + jm
		}
		switch {
		case sy == "off" || sy == "0" || jm == "off" || jm == "memory":
			return Durability{Class: Off, From: from}
		case (sy == "normal" || sy == "1") && jm == "wal":
			return Durability{Class: Periodic, From: from}
		case !hasJM && (sy == "normal" || sy == "1"):
			return Durability{Class: notRecorded, From: from}
		}
		return Durability{Class: Flushed, From: from}
	}
	if cl, ok := lower("commitlog_sync"); ok {
		from := "commitlog_sync=" + cl
		local := Flushed
		if cl == "periodic" {
			local = Periodic
		}
		rf := replicationFactor(s["replication"])
		wc, hasWC := lower("write_consistency")
		if hasWC {
			from += ", write_consistency=" + strings.ToUpper(wc)
		}
		copies := ""
		if rf > 0 {
			from += ", replication_factor=" + strconv.Itoa(rf)
			copies = "replication factor " + strconv.Itoa(rf)
			if hasWC {
				copies += ", " + strings.ToUpper(wc)
			}
		}
		if rf > 1 && hasWC && acksFromMany(wc) {
			return Durability{Class: Replicated, From: from, Copies: copies}
		}
		return Durability{Class: local, From: from, Copies: copies}
	}
	var ignored []string
	for _, k := range durabilitySettings {
		if strings.EqualFold(s[k], noOp) {
			ignored = append(ignored, k)
		}
	}
	if len(ignored) > 0 {
		return Durability{Class: notRecorded, From: strings.Join(ignored, ", ") + " accepted and ignored by the server"}
	}
	return Durability{Class: notRecorded}
}

// durabilitySettings are the settings ClassifyDurability reads.
var durabilitySettings = []string{"synchronous_commit", "fsync", "synchronous_standby_names",
	"innodb_flush_log_at_trx_commit", "sync_binlog", "log_bin", "rpl_semi_sync_master_enabled",
	"rpl_semi_sync_source_enabled", "synchronous", "journal_mode", "commitlog_sync", "write_consistency"}

// noOp is the value a fingerprint records for a setting the server accepts
// and ignores (internal/target/mysql: information_schema.variables_info
// IS_NOOP).
const noOp = "no-op"

// recorded reports whether a recorded setting's value says something about
// the server: it is not empty, unreadable ("unavailable") or ignored by the
// server ("no-op").
func recorded(v string) bool {
	v = strings.TrimSpace(v)
	return v != "" && !strings.EqualFold(v, "unavailable") && !strings.EqualFold(v, noOp)
}

// noOpBefore are settings a product accepts and ignores, for its results
// recorded before the fingerprint read which variables are no-ops: TiDB's
// information_schema.variables_info says IS_NOOP = 'YES' for each of these.
var noOpBefore = map[string][]string{
	"TiDB": {"innodb_flush_log_at_trx_commit", "sync_binlog", "innodb_buffer_pool_size"},
}

// settingsOf returns r's recorded settings, with those its product ignores
// read as no-ops also where the result recorded their values.
func settingsOf(r *result.Result) map[string]string {
	s := r.Target.Settings
	ignored := noOpBefore[r.Target.Product]
	if len(ignored) == 0 {
		return s
	}
	out := make(map[string]string, len(s))
	for k, v := range s {
		out[k] = v
	}
	for _, k := range ignored {
		if _, ok := out[k]; ok {
			out[k] = noOp
		}
	}
	return out
}

// standbyCount reads synchronous_standby_names: "" → 0, "*" or a list →
// the number of standbys waited for ("FIRST 2 (a, b, c)", "ANY 1 (a, b)",
// "2 (a, b)", "a, b" → 1 as PostgreSQL reads a plain list).
func standbyCount(v string) int {
	v = strings.TrimSpace(v)
	if v == "" || v == "''" {
		return 0
	}
	f := strings.Fields(strings.ToUpper(v))
	if len(f) > 1 && (f[0] == "FIRST" || f[0] == "ANY") {
		f = f[1:]
	}
	if len(f) > 0 {
		if n, err := strconv.Atoi(f[0]); err == nil {
			return n
		}
	}
	return 1
}

// replicationFactor reads a CQL keyspace's replication map as the
// fingerprint records it ("{'class': 'SimpleStrategy',
// 'replication_factor': '3'}", or per data centre 'dc1': '3'); 0 when
// absent. Per data centre factors are summed.
func replicationFactor(v string) int {
	v = strings.Trim(strings.TrimSpace(v), "{}")
	if v == "" {
		return 0
	}
	total := 0
	for _, kv := range strings.Split(v, ",") {
		k, val, ok := strings.Cut(kv, ":")
		if !ok {
			continue
		}
		k = strings.Trim(strings.TrimSpace(k), `'"`)
		val = strings.Trim(strings.TrimSpace(val), `'"`)
		if k == "class" {
			continue
		}
		if n, err := strconv.Atoi(val); err == nil {
			total += n
		}
	}
	return total
}

// acksFromMany reports whether a CQL consistency level waits for more than
// one replica.
func acksFromMany(cl string) bool {
	switch strings.ToUpper(cl) {
	case "TWO", "THREE", "QUORUM", "LOCAL_QUORUM", "EACH_QUORUM", "ALL", "SERIAL", "LOCAL_SERIAL":
		return true
	}
	return false
}
