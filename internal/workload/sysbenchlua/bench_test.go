package sysbenchlua

import (
	"context"
	"math/rand"
	"os"
	"testing"

	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/workload"
)

// BenchmarkEvent is one event of sysbench 1.0.20's oltp_read_write.lua on
// a session that runs nothing: the Lua path's own cost per event.
func BenchmarkEvent(b *testing.B) {
	var scripts []workload.Script
	for _, f := range []string{"/usr/share/sysbench/oltp_read_write.lua", "/usr/share/sysbench/oltp_common.lua"} {
		text, err := os.ReadFile(f)
		if err != nil {
			b.Skip("sysbench's scripts are not installed")
		}
		scripts = append(scripts, workload.Script{Name: f, Text: string(text)})
	}
	w, err := New(nil, []string{"file=" + scripts[0].Name, "table-size=10000"})
	if err != nil {
		b.Fatal(err)
	}
	for {
		n := len(w.ScriptNames())
		if err := w.SetScripts(scripts[:n]); err != nil {
			b.Fatal(err)
		}
		if len(w.ScriptNames()) == n {
			break
		}
	}
	if err := w.Bind(workload.Env{Dialect: dialect.Dialect{Name: "mysql", Placeholder: dialect.Question}, Threads: 1}); err != nil {
		b.Fatal(err)
	}
	wk := w.NewWorker(0, rand.New(rand.NewSource(1)))
	c := &recConn{}
	var n counts
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.sent = c.sent[:0]
		if err := wk.Exec(ctx, c, &spanCounter{&n}); err != nil {
			b.Fatal(err)
		}
	}
}
