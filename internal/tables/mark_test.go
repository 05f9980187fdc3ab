package tables

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseMark(t *testing.T) {
	cases := []struct {
		name   string
		raw    string
		want   Mark
		loaded bool
	}{
		// a mark of a version before states: loaded, keys unknown
		{"old ycsb", "ycsb/a data=0123456789abcdef",
			Mark{Workload: "ycsb/a", Data: "0123456789abcdef"}, true},
		// an old sysbench mark: holds after the shape
		{"old sysbench", "sysbench data=aa shape=bb rows=500000 rand-type=special",
			Mark{Workload: "sysbench", Data: "aa", Shape: "bb", Holds: "rows=500000 rand-type=special"}, true},
		// the workload alone (commit-loop, before states)
		{"workload only", "commit-loop", Mark{Workload: "commit-loop"}, true},
		// created, load still to come (or interrupted)
		{"loading", "ycsb/c data=aa state=loading",
			Mark{Workload: "ycsb/c", Data: "aa", State: StateLoading}, false},
		{"loaded with keys", "ycsb/c data=aa state=loaded keys=0+1000,5000+10",
			Mark{Workload: "ycsb/c", Data: "aa", State: StateLoaded, Keys: []KeyRange{{0, 1000}, {5000, 10}}}, true},
		{"sysbench loading", "sysbench data=aa state=loading shape=bb rows=500000 rand-type=uniform",
			Mark{Workload: "sysbench", Data: "aa", State: StateLoading, Shape: "bb", Holds: "rows=500000 rand-type=uniform"}, false},
		// a malformed keys word: keys unknown, the rest read
		{"bad keys", "ycsb/c data=aa state=loaded keys=0+x",
			Mark{Workload: "ycsb/c", Data: "aa", State: StateLoaded}, true},
		// a state a later version may write is not "loaded"
		{"unknown state", "ycsb/c state=verifying", Mark{Workload: "ycsb/c", State: "verifying"}, false},
		// identity and how the load loaded
		{"identity and load", "ycsb/c data=aa state=loaded id=oid:16385,created:725 load=load_batch:1000,load_consistency:QUORUM keys=0+10",
			Mark{Workload: "ycsb/c", Data: "aa", State: StateLoaded, ID: "oid:16385,created:725", LoadWith: "load_batch:1000,load_consistency:QUORUM",
				Keys: []KeyRange{{0, 10}}}, true},
		// a product without identities
		{"no identity", "kv-basic data=aa state=loaded id=-", Mark{Workload: "kv-basic", Data: "aa", State: StateLoaded, ID: NoIdentity}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Parse(c.raw)
			c.want.Raw = c.raw
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("Parse(%q) = %+v, want %+v", c.raw, got, c.want)
			}
			if got.Loaded() != c.loaded {
				t.Errorf("Loaded() = %v, want %v", got.Loaded(), c.loaded)
			}
			// what is parsed is written back the same (old marks stay old)
			if s := got.String(); s != c.raw && c.name != "bad keys" {
				t.Errorf("String() = %q, want %q", s, c.raw)
			}
		})
	}
}

func TestMarkKeys(t *testing.T) {
	created := Mark{Workload: "ycsb/c", Data: "aa", State: StateLoading}
	m := created.WithKeys(KeyRange{500, 500}).WithKeys(KeyRange{0, 500}).WithKeys(KeyRange{2000, 10})
	if want := []KeyRange{{0, 1000}, {2000, 10}}; !reflect.DeepEqual(m.Keys, want) {
		t.Fatalf("keys = %v, want %v (touching slices merged)", m.Keys, want)
	}
	cases := []struct {
		r               KeyRange
		covers, overlap bool
	}{
		{KeyRange{0, 1000}, true, true},
		{KeyRange{100, 10}, true, true},
		{KeyRange{0, 1001}, false, true},    // one record beyond the first slice
		{KeyRange{0, 5000}, false, true},    // recordcount grew
		{KeyRange{1000, 1005}, false, true}, // the gap, then the second slice
		{KeyRange{1000, 500}, false, false}, // the gap alone: a slice to load
		{KeyRange{2000, 10}, true, true},
	}
	for _, c := range cases {
		if got := m.Covers(c.r); got != c.covers {
			t.Errorf("Covers(%v) = %v, want %v", c.r, got, c.covers)
		}
		if got := m.Overlaps(c.r); got != c.overlap {
			t.Errorf("Overlaps(%v) = %v, want %v", c.r, got, c.overlap)
		}
	}
	if got := m.KeysText(); got != "1010 records (0..999, 2000..2009)" {
		t.Errorf("KeysText() = %q", got)
	}
	// An old mark's records are unknown: it covers every run, as before
	// states, and a load into it leaves them unknown.
	old := Parse("ycsb/c data=aa")
	if !old.Covers(KeyRange{0, 1 << 40}) || old.Overlaps(KeyRange{0, 10}) {
		t.Error("an old mark should cover everything and overlap nothing known")
	}
	if got := old.WithKeys(KeyRange{0, 10}); got.Keys != nil {
		t.Errorf("an old mark gained keys %v", got.Keys)
	}
}

// A mark that would not fit the marker table's column drops its keys
// rather than fail the load that writes it.
func TestMarkTooLong(t *testing.T) {
	m := Mark{Workload: "ycsb/c", Data: "0123456789abcdef", State: StateLoaded}
	for i := int64(0); i < 40; i++ {
		m = m.WithKeys(KeyRange{i * 100, 10})
	}
	s := m.String()
	if len(s) > maxMarkLen || strings.Contains(s, "keys=") {
		t.Errorf("mark of %d bytes: %q", len(s), s)
	}
	if !Parse(s).Loaded() {
		t.Error("the shortened mark lost its state")
	}
}

// A mark too long for the marker table keeps its identity: its keys go
// first, then how it was loaded.
func TestMarkTooLongKeepsIdentity(t *testing.T) {
	m := Mark{Workload: "sysbench/oltp_read_write", Data: "0123456789abcdef", State: StateLoaded,
		ID: "id:01234567-89ab-cdef-0123-456789abcdef", LoadWith: "load_batch:1000,load_consistency:LOCAL_QUORUM",
		Shape: "0123456789abcdef", Holds: strings.Repeat("x", 120)}
	s := m.String()
	if len(s) > maxMarkLen || Parse(s).ID != m.ID || strings.Contains(s, "load=") {
		t.Errorf("mark of %d bytes: %q", len(s), s)
	}
	m.Holds = "rows=10000 rand-type=uniform"
	if s := m.String(); Parse(s).LoadWith != m.LoadWith || Parse(s).ID != m.ID {
		t.Errorf("a mark that fits lost a word: %q", s)
	}
}
