package tables

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/target"
)

func TestCompareIdentity(t *testing.T) {
	cases := []struct {
		name, recorded, now string
		want                idVerdict
	}{
		{"same oid and creation", "oid:16385,created:725", "oid:16385,created:725", idSame},
		// dropped and created again: another oid, another transaction
		{"re-created", "oid:16385,created:725", "oid:16398,created:730", idDiffers},
		// the oid came round again (wrap-around), the creation did not
		{"oid reused", "oid:16385,created:725", "oid:16385,created:9001", idDiffers},
		// MySQL read with PROCESS when created, without it now: the token decides
		{"part missing now", "token:ab12,tid:18,ctime:100", "token:ab12,ctime:100", idSame},
		// MySQL: a CREATE TABLE ... LIKE copy carries the comment's token, not the create time
		{"copied definition", "token:ab12,ctime:100", "token:ab12,ctime:107", idDiffers},
		// a mark of an earlier version, which recorded the token alone: a copy would match it
		{"token alone", "token:ab12", "token:ab12,ctime:100", idWeak},
		{"token differs", "token:ab12,tid:18", "token:none", idDiffers},
		{"nothing in common", "tid:18", "token:ab12", idUnknown},
		// a mark of an earlier version
		{"unmarked", "", "oid:1,created:2", idUnmarked},
		// a product without identities (null://, CockroachDB)
		{"none then and now", NoIdentity, "", idSame},
		{"none then, some now", NoIdentity, "oid:1,created:2", idUnknown},
	}
	for _, c := range cases {
		if got := compareIdentity(c.recorded, c.now, []string{"token"}); got != c.want {
			t.Errorf("%s: compareIdentity(%q, %q) = %v, want %v", c.name, c.recorded, c.now, got, c.want)
		}
	}
}

func TestLoadWith(t *testing.T) {
	text := LoadWithText(map[string]string{"load_consistency": "LOCAL QUORUM", "load_batch": "1000"})
	if text != "load_batch:1000,load_consistency:LOCAL_QUORUM" {
		t.Errorf("LoadWithText = %q", text)
	}
	// a first load records its own; slices that loaded otherwise make it mixed
	if got := mergeLoadWith("load_batch:10", "load_batch:20", true); got != "load_batch:20" {
		t.Errorf("first load: %q", got)
	}
	if got := mergeLoadWith("load_batch:10,load_consistency:ONE", "load_batch:10,load_consistency:ALL", false); got != "load_batch:10,load_consistency:mixed" {
		t.Errorf("slices: %q", got)
	}
	marks := []Mark{{LoadWith: "load_batch:10,load_consistency:ONE"}, {LoadWith: "load_batch:10,load_consistency:ALL"}}
	want := map[string]string{"load_batch": "10", "load_consistency": "mixed", "load_window": NotRecorded}
	if got := loadedWith(marks, []string{"load_batch", "load_consistency", "load_window"}); !reflect.DeepEqual(got, want) {
		t.Errorf("loadedWith = %v, want %v", got, want)
	}
	// a table loaded by an earlier version
	if got := loadedWith([]Mark{{}}, []string{"load_batch"}); got["load_batch"] != NotRecorded {
		t.Errorf("old mark: %v", got)
	}
}

// A table whose identity is not its mark's is refused with every request,
// unless --allow-foreign-tables, which makes it a foreign table: used as it
// is, dropped only by --load always.
func TestDecideReplaced(t *testing.T) {
	wl := newWorkload(t, "ycsb/c", "recordcount=1000")
	info := owned("usertable", loadedMark(wl))
	info.replaced = "its identity is oid:2 where candor recorded oid:1"
	for _, req := range []Request{{Mode: LoadAuto}, {Mode: LoadNever}, {Mode: LoadAlways}, {LoadPhase: true}} {
		_, err := decide(wl, req, false, []tableInfo{info})
		if KindOf(err) != Refused || !errors.Is(err, target.ErrForeignTable) || !strings.Contains(err.Error(), "usertable is not the table candor created") {
			t.Errorf("%+v: %v", req, err)
		}
	}
	p, err := decide(wl, Request{Mode: LoadNever, AllowForeign: true}, false, []tableInfo{info})
	if err != nil || p.changes() {
		t.Errorf("--allow-foreign-tables --load never: %+v %v", p, err)
	}
	p, err = decide(wl, Request{Mode: LoadAlways, AllowForeign: true}, false, []tableInfo{info})
	if err != nil || len(p.drop) != 1 {
		t.Errorf("--allow-foreign-tables --load always: %+v %v", p, err)
	}
}

// The end of a load takes MySQL's create time, which candor's own CREATE
// INDEX sets anew on MariaDB, from the table as it is, when the rest of
// the identity is the recorded one; never another table's.
func TestWithRewritten(t *testing.T) {
	cases := []struct{ name, recorded, now, want string }{
		{"index created after the load", "token:ab12,ctime:100", "token:ab12,ctime:103", "token:ab12,ctime:103"},
		{"unchanged", "token:ab12,ctime:100", "token:ab12,ctime:100", "token:ab12,ctime:100"},
		// another table's token: the mark stays, and the table is not candor's
		{"another table", "token:ab12,ctime:100", "token:none,ctime:103", "token:ab12,ctime:100"},
		{"another InnoDB table id", "token:ab12,ctime:100,tid:7", "token:ab12,ctime:103,tid:9", "token:ab12,ctime:100,tid:7"},
	}
	for _, c := range cases {
		if got := withRewritten(dialect.MySQL, Mark{ID: c.recorded}, c.now).ID; got != c.want {
			t.Errorf("%s: %q", c.name, got)
		}
	}
	// PostgreSQL's identity has no part candor's DDL changes
	if got := withRewritten(dialect.Postgres, Mark{ID: "oid:1,created:2"}, "oid:1,created:3").ID; got != "oid:1,created:2" {
		t.Errorf("postgres: %q", got)
	}
}
