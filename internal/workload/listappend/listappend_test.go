package listappend

import (
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/workload"
)

func TestOptions(t *testing.T) {
	w, err := New(nil, []string{"keys=5", "ops-per-txn=2", "read-fraction=0.25", "distribution=zipfian", "max-writes-per-key=7", "table=la"})
	if err != nil {
		t.Fatal(err)
	}
	want := Options{Reference: Reference, Table: "la", Keys: 5, OpsPerTxn: 2, ReadFraction: 0.25, Distribution: "zipfian", MaxWritesPerKey: 7}
	if got := w.Options().(Options); got != want {
		t.Errorf("options %+v, want %+v", got, want)
	}
	// every problem at once, each naming the option and the fix
	_, err = New([]string{"f.properties"}, []string{"keys=0", "read-fraction=2", "distribution=latest", "table=a;b", "bogus=1"})
	if err == nil {
		t.Fatal("bad options accepted")
	}
	for _, s := range []string{"takes no property files", "keys", "read-fraction=\"2\"", "distribution=\"latest\": use uniform or zipfian", "table=\"a;b\"", `unknown option "bogus"`} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error lacks %q:\n%v", s, err)
		}
	}
}

func TestRegistered(t *testing.T) {
	e, v, err := workload.Lookup("isolation/list-append")
	if err != nil || v != Variant {
		t.Fatalf("lookup: %v %q", err, v)
	}
	if _, err := e.New("", nil, nil); err == nil || !strings.Contains(err.Error(), "isolation/list-append") {
		t.Errorf("the bare name: %v", err)
	}
}

func TestParseList(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []int64
	}{
		{"", []int64{}},
		{"7", []int64{7}},
		{"3,1,2", []int64{3, 1, 2}},
	} {
		got, err := ParseList(c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseList(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	if _, err := ParseList("1,x"); err == nil || !strings.Contains(err.Error(), `"x"`) {
		t.Errorf("a bad element: %v", err)
	}
}

// A slot moves to a fresh key after max-writes-per-key appends; keys of
// different slots never meet.
func TestKeyRotation(t *testing.T) {
	w, err := New(nil, []string{"keys=3", "max-writes-per-key=2"})
	if err != nil {
		t.Fatal(err)
	}
	got := []int64{w.key(1, 0), w.key(1, 1), w.key(1, 2), w.key(1, 5), w.key(2, 0), w.key(2, 2)}
	if want := []int64{1, 1, 4, 7, 2, 5}; !reflect.DeepEqual(got, want) {
		t.Errorf("keys %v, want %v", got, want)
	}
}

// Next plans 1..ops-per-txn micro-ops on the slots, reads at about the
// read fraction.
func TestNextPlans(t *testing.T) {
	w, err := New(nil, []string{"keys=4", "ops-per-txn=3", "read-fraction=0.25"})
	if err != nil {
		t.Fatal(err)
	}
	wk := w.NewWorker(0, rand.New(rand.NewSource(1))).(*worker)
	reads, all := 0, 0
	for i := 0; i < 2000; i++ {
		wk.Next()
		if n := len(wk.plan); n < 1 || n > 3 {
			t.Fatalf("%d micro-ops", n)
		}
		for _, m := range wk.plan {
			if m.slot < 0 || m.slot >= 4 {
				t.Fatalf("slot %d", m.slot)
			}
			all++
			if m.read {
				reads++
			}
		}
	}
	if f := float64(reads) / float64(all); f < 0.2 || f > 0.3 {
		t.Errorf("read share %.3f, want about 0.25", f)
	}
}
