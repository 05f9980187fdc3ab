package cassandra

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
	_ "github.com/candor-bench/candor/internal/workload/commitloop"
	_ "github.com/candor-bench/candor/internal/workload/kv"
	_ "github.com/candor-bench/candor/internal/workload/ledgerwl"
	_ "github.com/candor-bench/candor/internal/workload/sysbench"
	_ "github.com/candor-bench/candor/internal/workload/ycsb"
)

// Workloads whose statements are SQL only (sysbench, commit-loop, the
// ledger) refuse a CQL target in Bind (before anything is connected or
// created), by its declared query language; YCSB binds with the CQL binding's statements, KV-1 and KV-2
// with CQL statements, and KV-3 (atomic batches) is refused for lack of
// transactions.
func TestWorkloadsOnCQL(t *testing.T) {
	tg := &Target{cfg: Config{Keyspace: "ycsb"}}
	env := workload.Env{Dialect: tg.Dialect(), Capabilities: tg.Capabilities(), Threads: 4}
	for _, name := range workload.Names() {
		e, variant, err := workload.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		wl, err := e.New(variant, nil, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		err = wl.Bind(env)
		switch name {
		case "kv-basic", "kv-ints":
			if err != nil {
				t.Errorf("%s on CQL: Bind = %v, want nil", name, err)
			} else if s := wl.Schema(); len(s) != 1 || !strings.Contains(s[0].Create, "kv_key varchar PRIMARY KEY") {
				t.Errorf("%s on CQL: schema %+v, want CQL", name, s)
			}
			continue
		case "kv-ints-batch":
			if !strings.Contains(fmt.Sprint(err), "declares no transactions") {
				t.Errorf("%s on CQL: Bind = %v, want a refusal for lack of transactions", name, err)
			}
			continue
		}
		if strings.HasPrefix(name, "ycsb") {
			if err != nil {
				t.Errorf("%s on CQL: Bind = %v, want nil", name, err)
			} else if s := wl.Schema(); len(s) != 1 || !strings.Contains(s[0].Create, "y_id varchar PRIMARY KEY") {
				t.Errorf("%s on CQL: schema %+v, want the CQL binding's usertable", name, s)
			}
			continue
		}
		if !errors.Is(err, target.ErrNeedsSQL) || !errors.Is(err, target.ErrUnsupported) || !strings.Contains(err.Error(), "CQL") {
			t.Errorf("%s on CQL: Bind = %v, want ErrNeedsSQL naming CQL", name, err)
		}
	}
}
