package result

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"time"
)

// NewID is a new result's id: the UTC time it started, to the second, and
// 64 random bits from crypto/rand, "20260314T091502Z-9f86d081884c7d65".
// Two runs started in the same second (the shards of a run start at one
// instant) get different ids with certainty for any practical number of
// results: report, compare, audit and rerun tell a copy of a result from a
// second run by its id (report.Distinct).
func NewID(started time.Time) string {
	var b [8]byte
	rand.Read(b[:]) // never returns an error (crypto/rand, Go 1.24 on)
	return started.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}

// mergedID is the id of the result merge makes of shards: the run id, then
// "merged" and 64 bits of a hash of the shards' ids. It differs from every
// shard's id and from the merge of other shards under the same run id (a
// --run-id given to two runs); merging the same shards again gives the same
// id, since it is the same result.
func mergedID(runID string, shardIDs []string) string {
	ids := slices.Clone(shardIDs)
	slices.Sort(ids)
	h := sha256.Sum256([]byte(strings.Join(ids, "\n")))
	return runID + "-merged-" + hex.EncodeToString(h[:8])
}
