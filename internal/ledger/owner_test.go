package ledger

import (
	"strings"
	"testing"
)

// An owner's text reads back to the same owner; a run id too long for the
// owner row, or with spaces, is recorded by its hash, the same each time.
func TestOwnerText(t *testing.T) {
	for _, o := range []Owner{{"20260101T000000Z-1a2b", 1}, {"shards@20260101T000000.000000000Z", 3}, {strings.Repeat("x", 300), 2}, {"a b", 1}} {
		p, err := ParseOwner(o.String())
		if err != nil || p.String() != o.String() || !p.SameRun(o) || len(o.String()) > MaxOwnerText {
			t.Errorf("%q: parsed %+v, %v", o.String(), p, err)
		}
	}
	if (Owner{"r", 1}).SameRun(Owner{"s", 1}) || !(Owner{"r", 1}).SameRun(Owner{"r", 2}) {
		t.Error("SameRun")
	}
	for _, bad := range []string{"", "candor-ledger run=x", "candor-ledger run=x rep=0", "other run=x rep=1"} {
		if _, err := ParseOwner(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// The ids read back round-trip through ReadBackFile, duplicates kept; a
// shard's writers keep only their ids.
func TestReadBackFileAndWriters(t *testing.T) {
	dir := t.TempDir()
	in := map[int64]int{ID(0, 1): 1, ID(1, 5): 2, ID(3, 0): 1}
	if err := WriteReadBack(dir, in); err != nil {
		t.Fatal(err)
	}
	got, err := ReadReadBack(dir)
	if err != nil || len(got) != 3 || got[ID(1, 5)] != 2 {
		t.Fatalf("%v %v", got, err)
	}
	mine := Only(got, &Writers{First: 1, Count: 2})
	if len(mine) != 1 || mine[ID(1, 5)] != 2 {
		t.Errorf("writers 1..2 keep %v", mine)
	}
}

// A run stopped on purpose at its fault does not report a recovery it did
// not wait for as never: the RTO is not measured, with the reason.
func TestStoppedRTONotMeasured(t *testing.T) {
	recs := []Record{{ID: 0, Start: 10, End: 20, Worker: 0, Outcome: Acknowledged}, {ID: 1, Start: 100, End: 150, Worker: 0, Outcome: Unknown}}
	a := Account(Input{Records: recs, Present: map[int64]int{0: 1}, FaultAt: 100, Stopped: "the run stopped"})
	if a.Fault.RTOSeconds != nil || a.Fault.RTONotMeasured != "the run stopped" {
		t.Errorf("%+v", a.Fault)
	}
	a = Account(Input{Records: recs, Present: map[int64]int{0: 1}, FaultAt: 100})
	if a.Fault.RTONotMeasured != "" {
		t.Errorf("not stopped: %+v", a.Fault)
	}
}
