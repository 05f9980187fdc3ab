package result

import (
	"fmt"
	"regexp"
	"testing"
	"time"
)

// TestNewIDIsUnique: ids of results started in the same second differ
// (the old 16 random bits gave the same id to 2 of 300 such results with
// probability ≈ 50%), and they read as the start time and 16 hex digits.
func TestNewIDIsUnique(t *testing.T) {
	at := time.Date(2026, 3, 14, 9, 15, 2, 0, time.FixedZone("CET", 3600))
	form := regexp.MustCompile(`^20260314T081502Z-[0-9a-f]{16}$`)
	seen := map[string]bool{}
	for range 100_000 {
		id := NewID(at)
		if !form.MatchString(id) {
			t.Fatalf("NewID = %q, want the UTC start time and 16 hex digits", id)
		}
		if seen[id] {
			t.Fatalf("NewID gave %q twice", id)
		}
		seen[id] = true
	}
}

// TestMergedID: a merged result's id differs from every shard's, from the
// merge of other shards under the same run id (two runs given one --run-id),
// and is the same when the same shards are merged again.
func TestMergedID(t *testing.T) {
	start := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	shards := func(prefix string) []MergeInput {
		var in []MergeInput
		for i := range 2 {
			r := shardResult(t, i, 2, start, [][]int64{{1000, 2000}})
			r.ID = fmt.Sprintf("%s-%d", prefix, i)
			in = append(in, MergeInput{File: fmt.Sprintf("s%d.json", i), Result: r})
		}
		return in
	}
	merge := func(in []MergeInput) *Result {
		m, err := Merge(in)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	first := shards("20261126T120000Z-aaaa")
	m := merge(first)
	for _, s := range first {
		if m.ID == s.Result.ID {
			t.Errorf("merged id %q is shard %s's", m.ID, s.File)
		}
	}
	if m.Merged.RunID != "r1" {
		t.Errorf("merged.run_id = %q, want r1", m.Merged.RunID)
	}
	// the same shards in another order: the same result
	if again := merge([]MergeInput{first[1], first[0]}); again.ID != m.ID {
		t.Errorf("merging the same shards again gave id %q, then %q", m.ID, again.ID)
	}
	// another run under the same run id r1: another result
	if other := merge(shards("20261127T120000Z-bbbb")); other.ID == m.ID {
		t.Errorf("two runs sharing run id r1 merged to the same id %q", m.ID)
	}
}
