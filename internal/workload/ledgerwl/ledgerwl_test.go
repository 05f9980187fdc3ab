package ledgerwl

import (
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/ledger"
	"github.com/candor-bench/candor/internal/workload"
)

// Options: every problem at once, each naming the fix.
func TestOptions(t *testing.T) {
	_, err := New([]string{"f.properties"}, []string{"pad=0", "table=1bad", "colour=red", "pad"})
	if err == nil {
		t.Fatal("accepted")
	}
	for _, w := range []string{"takes no property files", "pad=\"0\"", "table=\"1bad\"", "unknown option \"colour\"", "expected name=value"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error lacks %q: %v", w, err)
		}
	}
	w, err := New(nil, []string{"pad=100", "table=t1", "operationcount=5"})
	if err != nil || w.LedgerTable() != "t1" || w.opts.Pad != 100 {
		t.Fatalf("%+v %v", w, err)
	}
}

// Each worker's ids are ledger.ID(worker, 0, 1, ...), bound into the
// INSERT with the worker's number and the padding.
func TestWorkerIDs(t *testing.T) {
	w, _ := New(nil, []string{"pad=3"})
	if err := w.Bind(workload.Env{Dialect: dialect.Postgres}); err != nil {
		t.Fatal(err)
	}
	wk := w.NewWorker(7, nil).(*worker)
	for seq := int64(0); seq < 3; seq++ {
		wk.Next()
		if id := wk.WriteID(); id != ledger.ID(7, seq) || wk.args[0] != id || wk.args[1] != int64(7) || wk.args[2] != "xxx" {
			t.Fatalf("write %d: id %d, args %v", seq, id, wk.args)
		}
	}
	// The pad column is wide enough for the owner row's text.
	if s := w.Schema(); len(s) != 1 || !strings.Contains(s[0].Create, "pad VARCHAR(200)") {
		t.Errorf("schema %+v", s)
	}
}

// The shards of one run write distinct ids: shard i's workers are numbered
// after the shards before it, and the table is kept when it is the run's
// (its data signature names the run) instead of created anew.
func TestShareLedger(t *testing.T) {
	w, _ := New(nil, nil)
	if !w.FreshSchema() || w.FirstWriter() != 0 {
		t.Fatalf("unshared: fresh %v, first %d", w.FreshSchema(), w.FirstWriter())
	}
	w.ShareLedger("run-1", 3)
	if err := w.Bind(workload.Env{Dialect: dialect.Postgres}); err != nil {
		t.Fatal(err)
	}
	wk := w.NewWorker(1, nil).(*worker)
	wk.Next()
	if wk.WriteID() != ledger.ID(4, 0) || wk.args[1] != int64(4) {
		t.Errorf("shard's worker 1 of first 3: id %d args %v, want writer 4", wk.WriteID(), wk.args)
	}
	other, _ := New(nil, nil)
	other.ShareLedger("run-2", 0)
	if w.FreshSchema() || w.DataSignature() == other.DataSignature() {
		t.Errorf("shared: fresh %v; signatures %q and %q must differ between runs", w.FreshSchema(), w.DataSignature(), other.DataSignature())
	}
}
