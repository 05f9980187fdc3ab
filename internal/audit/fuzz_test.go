package audit

import (
	"testing"

	"github.com/candor-bench/candor/internal/result"
)

// FuzzSettings: whatever a result file's settings hold, classifying them
// and auditing them never panics, and a class is always one of the table's.
func FuzzSettings(f *testing.F) {
	f.Add("on", "on", "FIRST 2 (a, b)", "128MB", "{'class': 'SimpleStrategy', 'replication_factor': '3'}", "-2000")
	f.Add("off", "", "*", "16384", "{", "x")
	f.Add("", "off", "ANY", "99999999999999999999TB", "'dc1': 'x'", "9223372036854775807")
	f.Fuzz(func(t *testing.T, sc, fsync, standbys, buffers, replication, cache string) {
		r := &result.Result{Target: result.Fingerprint{URL: "postgres://[::1", Settings: map[string]string{
			"synchronous_commit": sc, "fsync": fsync, "synchronous_standby_names": standbys, "shared_buffers": buffers,
			"replication": replication, "cache_size": cache, "commitlog_sync": sc, "write_consistency": fsync,
		}}}
		switch d := ClassifyDurability(r); d.Class {
		case Replicated, Flushed, Periodic, Off, notRecorded:
		default:
			t.Fatalf("class %q", d.Class)
		}
		MemoryOf(r)
		replicationFactor(replication)
		standbyCount(standbys)
		Results([]Input{{"a", r}, {"b", &result.Result{}}})
	})
}
