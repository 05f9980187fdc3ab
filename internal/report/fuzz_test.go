package report

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// FuzzReport feeds arbitrary bytes as a result file through Load, Build,
// the text report and compare: bad input must give an error, never a panic.
// Large seeds make the fuzzer minimise slowly: run it with
// -fuzzminimizetime 50x.
func FuzzReport(f *testing.F) {
	for _, name := range []string{"ycsb-a-sqlite-t4.json"} {
		data, err := os.ReadFile(filepath.Join(fixtureDir, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"schema":"candor.result/v1","phases":[{"name":"run","status":"complete","operations":[{"name":"X","latency":{"count":1}}],"intervals":[{"ops":[{"name":"X","p99":-5}]}]}]}`))
	f.Add([]byte(`{"schema":"candor.result/v1","workload":{"options":[1,{"a":null}]},"run":{"threads":-1}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "r.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		in, err := Load(path)
		if err != nil {
			return
		}
		if err := Text(io.Discard, Build(in)); err != nil {
			t.Fatal(err)
		}
		a, err := NewSide("A", in)
		if err != nil {
			return
		}
		if err := Compare(a, a).WriteText(io.Discard); err != nil {
			t.Fatal(err)
		}
	})
}
