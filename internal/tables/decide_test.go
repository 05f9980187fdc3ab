package tables

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
	_ "github.com/candor-bench/candor/internal/workload/commitloop"
	_ "github.com/candor-bench/candor/internal/workload/kv"
	_ "github.com/candor-bench/candor/internal/workload/sysbench"
	_ "github.com/candor-bench/candor/internal/workload/ycsb"
)

// newWorkload builds a registered workload from its name and properties.
func newWorkload(t *testing.T, name string, props ...string) workload.Workload {
	t.Helper()
	e, v, err := workload.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	wl, err := e.New(v, nil, props)
	if err != nil {
		t.Fatal(err)
	}
	return wl
}

// loadedMark is the mark a finished load of wl leaves.
func loadedMark(wl workload.Workload) Mark {
	m := New(wl, StateLoaded)
	if _, reuser := wl.(workload.TableReuser); !reuser {
		start, count := wl.LoadRange()
		m = m.WithKeys(KeyRange{start, count})
	}
	return Parse(m.String())
}

func owned(name string, m Mark) tableInfo {
	return tableInfo{name: name, exists: true, owned: true, mark: m}
}

func TestDecide(t *testing.T) {
	ycsb1k := newWorkload(t, "ycsb/c", "recordcount=1000")
	ycsb5k := newWorkload(t, "ycsb/c", "recordcount=5000")
	ycsbLen := newWorkload(t, "ycsb/c", "recordcount=1000", "fieldlength=10")
	ycsbSlice2 := newWorkload(t, "ycsb/c", "recordcount=1000", "insertstart=500", "insertcount=500")
	kv := newWorkload(t, "kv-basic", "pairs=100", "value-size=10")
	kvMore := newWorkload(t, "kv-basic", "pairs=200", "value-size=10")
	sb := newWorkload(t, "sysbench/oltp_read_only", "tables=2", "table-size=1000")
	sbSmall := newWorkload(t, "sysbench/oltp_read_only", "tables=2", "table-size=500")
	cl := newWorkload(t, "commit-loop")

	loading := func(wl workload.Workload) Mark { return Parse(New(wl, StateLoading).String()) }
	run := func(mode string) Request { return Request{Mode: mode} }
	load := Request{LoadPhase: true}

	cases := []struct {
		name    string
		wl      workload.Workload
		req     Request
		fresh   bool
		infos   []tableInfo
		drop    []string
		create  []string
		load    bool
		reused  int
		refuse  string // substring of the refusal; "" when none
		noteHas string
	}{
		// item 1: an interrupted load is reloaded, never measured
		{name: "unfinished load, run auto", wl: ycsb1k, req: run(LoadAuto),
			infos: []tableInfo{owned("usertable", loading(ycsb1k))},
			drop:  []string{"usertable"}, create: []string{"usertable"}, load: true, noteHas: "did not finish"},
		{name: "unfinished load, run never", wl: ycsb1k, req: run(LoadNever),
			infos: []tableInfo{owned("usertable", loading(ycsb1k))}, refuse: "unfinished load"},
		{name: "unfinished load, load phase", wl: ycsb1k, req: load,
			infos: []tableInfo{owned("usertable", loading(ycsb1k))}, refuse: "candor cleanup ycsb/c"},
		{name: "kv unfinished, run auto", wl: kv, req: run(LoadAuto),
			infos: []tableInfo{owned("kv_basic", loading(kv))}, drop: []string{"kv_basic"}, create: []string{"kv_basic"}, load: true},
		// a finished load serves the same run
		{name: "loaded, run auto", wl: ycsb1k, req: run(LoadAuto),
			infos: []tableInfo{owned("usertable", loadedMark(ycsb1k))}},
		{name: "loaded, run never", wl: ycsb1k, req: run(LoadNever),
			infos: []tableInfo{owned("usertable", loadedMark(ycsb1k))}},
		// a table from an older candor: loaded, as it was treated then
		{name: "old mark, run auto", wl: ycsb1k, req: run(LoadAuto),
			infos: []tableInfo{owned("usertable", Parse("ycsb/c data="+DataHash(ycsb1k)))}},
		// item 9: the records a run reads must be loaded, and the field
		// options are the data signature
		{name: "recordcount grew", wl: ycsb5k, req: run(LoadAuto),
			infos: []tableInfo{owned("usertable", loadedMark(ycsb1k))},
			drop:  []string{"usertable"}, create: []string{"usertable"}, load: true, noteHas: "holds 1000 records (0..999) where this run needs records 0..4999: dropping and reloading"},
		{name: "recordcount grew, never", wl: ycsb5k, req: run(LoadNever),
			infos: []tableInfo{owned("usertable", loadedMark(ycsb1k))}, refuse: "needs records 0..4999"},
		// YCSB's practice after inserts: recordcount counts them, insertcount
		// keeps the run on the loaded records
		{name: "recordcount after inserts", wl: newWorkload(t, "ycsb/e", "recordcount=2100", "insertcount=1000"), req: run(LoadNever),
			infos: []tableInfo{owned("usertable", loadedMark(ycsb1k))}},
		{name: "fieldlength changed", wl: ycsbLen, req: run(LoadAuto),
			infos: []tableInfo{owned("usertable", loadedMark(ycsb1k))},
			drop:  []string{"usertable"}, create: []string{"usertable"}, load: true},
		{name: "kv pairs grew", wl: kvMore, req: run(LoadAuto),
			infos: []tableInfo{owned("kv_basic", loadedMark(kv))}, drop: []string{"kv_basic"}, create: []string{"kv_basic"}, load: true},
		// YCSB slices: a second slice loads into the table; a run of the
		// whole data set on one slice reloads; the slice's own run is served
		{name: "second slice loads", wl: ycsbSlice2, req: load,
			infos: []tableInfo{owned("usertable", Parse(New(ycsb1k, StateLoaded).WithKeys(KeyRange{0, 500}).String()))}, load: true},
		{name: "same slice twice", wl: ycsbSlice2, req: load,
			infos: []tableInfo{owned("usertable", Parse(New(ycsb1k, StateLoaded).WithKeys(KeyRange{500, 500}).String()))}, refuse: "already holds"},
		{name: "run needs the missing slice", wl: ycsb1k, req: run(LoadAuto),
			infos: []tableInfo{owned("usertable", Parse(New(ycsb1k, StateLoaded).WithKeys(KeyRange{0, 500}).String()))},
			drop:  []string{"usertable"}, create: []string{"usertable"}, load: true, noteHas: "needs records 0..999"},
		{name: "slice run on its slice", wl: ycsbSlice2, req: run(LoadNever),
			infos: []tableInfo{owned("usertable", Parse(New(ycsb1k, StateLoaded).WithKeys(KeyRange{500, 500}).String()))}},
		// item 8: a killed sysbench prepare: both tables reloaded
		{name: "sysbench killed prepare", wl: sb, req: run(LoadAuto),
			infos: []tableInfo{owned("sbtest1", loading(sb)), owned("sbtest2", loading(sb))},
			drop:  []string{"sbtest1", "sbtest2"}, create: []string{"sbtest1", "sbtest2"}, load: true},
		{name: "sysbench killed prepare, prepare again", wl: sb, req: load,
			infos: []tableInfo{owned("sbtest1", loading(sb)), owned("sbtest2", loading(sb))}, refuse: "unfinished load"},
		// one table of two missing: the load fills both, so both go
		{name: "sysbench one table missing", wl: sb, req: run(LoadAuto),
			infos: []tableInfo{owned("sbtest1", loadedMark(sb)), {name: "sbtest2"}},
			drop:  []string{"sbtest1"}, create: []string{"sbtest1", "sbtest2"}, load: true, noteHas: "with the others"},
		// sysbench: a bigger table serves a run of a smaller size
		{name: "sysbench serves smaller", wl: sbSmall, req: run(LoadAuto),
			infos: []tableInfo{owned("sbtest1", loadedMark(sb)), owned("sbtest2", loadedMark(sb))}, reused: 2},
		{name: "sysbench prepare on prepared", wl: sb, req: load,
			infos: []tableInfo{owned("sbtest1", loadedMark(sb)), owned("sbtest2", loadedMark(sb))}, refuse: "already exists"},
		// item 2: commit-loop's table is created anew at every run
		{name: "commit-loop fresh", wl: cl, req: run(LoadAuto), fresh: true,
			infos: []tableInfo{owned("commit_loop", Parse("commit-loop state=loaded"))},
			drop:  []string{"commit_loop"}, create: []string{"commit_loop"}},
		// absent tables, and --load never
		{name: "absent, auto", wl: ycsb1k, req: run(LoadAuto), infos: []tableInfo{{name: "usertable"}},
			create: []string{"usertable"}, load: true},
		{name: "absent, never", wl: ycsb1k, req: run(LoadNever), infos: []tableInfo{{name: "usertable"}}, refuse: "does not exist"},
		// foreign tables
		{name: "foreign", wl: ycsb1k, req: run(LoadAuto), infos: []tableInfo{{name: "usertable", exists: true}}, refuse: "did not create"},
		{name: "foreign allowed", wl: ycsb1k, req: Request{Mode: LoadAuto, AllowForeign: true}, infos: []tableInfo{{name: "usertable", exists: true}}},
		{name: "always", wl: ycsb1k, req: run(LoadAlways), infos: []tableInfo{owned("usertable", loadedMark(ycsb1k))},
			drop: []string{"usertable"}, create: []string{"usertable"}, load: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := decide(c.wl, c.req, c.fresh, c.infos)
			if c.refuse != "" {
				if err == nil || !strings.Contains(err.Error(), c.refuse) || KindOf(err) != Refused {
					t.Fatalf("err = %v (kind %d), want a refusal with %q", err, KindOf(err), c.refuse)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(p.drop, c.drop) || !slices.Equal(p.create, c.create) || p.load != c.load || len(p.reused) != c.reused {
				t.Errorf("drop %v create %v load %v reused %v; want drop %v create %v load %v reused %d",
					p.drop, p.create, p.load, p.reused, c.drop, c.create, c.load, c.reused)
			}
			if c.noteHas != "" && !strings.Contains(strings.Join(p.notes, "\n"), c.noteHas) {
				t.Errorf("notes %q lack %q", p.notes, c.noteHas)
			}
		})
	}
}

// A foreign table's refusal is target.ErrForeignTable, which the CLI maps.
func TestDecideForeignIsErrForeignTable(t *testing.T) {
	_, err := decide(newWorkload(t, "ycsb/c"), Request{Mode: LoadAuto}, false, []tableInfo{{name: "usertable", exists: true}})
	if !errors.Is(err, target.ErrForeignTable) {
		t.Errorf("err = %v", err)
	}
}
