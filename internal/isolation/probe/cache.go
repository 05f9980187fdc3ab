package probe

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/target"
)

// Identity is the server a fingerprint describes, as a cache key: driver,
// product, version, the redacted address and the settings the fingerprint
// records, except the session's isolation level (the level is the cache's
// other key).
func Identity(fp target.Fingerprint) string {
	var keys []string
	for k := range fp.Settings {
		if k != "transaction_isolation" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(fp.Driver + " " + fp.Product + " " + fp.Version + " " + fp.URL)
	for _, k := range keys {
		b.WriteString(" " + k + "=" + fp.Settings[k])
	}
	return b.String()
}

// Cached returns the probe of level on the server identity names: the one
// stored in dir by an earlier call (cached true), else a new one, which it
// stores there. dir "" stores nothing. A cache file that cannot be read
// or written is passed over: the probe runs again.
func Cached(ctx context.Context, url, level, identity, dir string, opts Options) (lv Level, probed time.Time, cached bool, err error) {
	var path string
	if dir != "" {
		sum := sha256.Sum256([]byte(fmt.Sprintf("v%d\n%s\n%s", SchemaVersion, identity, level)))
		path = filepath.Join(dir, hex.EncodeToString(sum[:12])+".json")
		if data, err := os.ReadFile(path); err == nil {
			var rep Report
			if json.Unmarshal(data, &rep) == nil && rep.SchemaVersion == SchemaVersion && rep.Identity == identity &&
				len(rep.Levels) == 1 && rep.Levels[0].Level == level {
				return rep.Levels[0], rep.Started, true, nil
			}
		}
	}
	opts.Levels = []string{level}
	rep, err := Run(ctx, url, opts)
	if err != nil {
		return Level{}, time.Time{}, false, err
	}
	rep.Identity = identity
	if path != "" {
		if data, err := json.MarshalIndent(rep, "", "  "); err == nil {
			_ = result.WriteFileAtomic(path, append(data, '\n')) // a cache: a probe not stored runs again
		}
	}
	return rep.Levels[0], rep.Started, false, nil
}

// Observed is lv as a result records it.
func Observed(lv Level, identity string, probed time.Time, cached bool) *result.ObservedIsolation {
	o := &result.ObservedIsolation{Level: lv.Level, Identity: identity, Probed: probed, Cached: cached}
	if !lv.Offered {
		o.Error = lv.Reason
		return o
	}
	for _, oc := range lv.Outcomes {
		a := result.ObservedAnomaly{Anomaly: oc.Anomaly, Allowed: oc.Allowed, How: oc.How}
		for _, ab := range oc.Aborts {
			a.Codes = append(a.Codes, ab.Code)
		}
		o.Outcomes = append(o.Outcomes, a)
	}
	return o
}
