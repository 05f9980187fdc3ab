package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/candor-bench/candor/internal/report"
	"github.com/candor-bench/candor/internal/result"
)

// writeRowRates prints commit-loop's headline figure under a phase's first
// line: rows committed per second as the client measured them and as the
// server saw them, and the server's rate per job with several jobs. With
// --in-server one operation is a whole loop, so the ops/s above is not the
// figure; nothing is printed for phases without these figures.
func writeRowRates(w io.Writer, p *result.Phase) {
	rr, ok := report.RowRatesOf(p)
	if !ok {
		return
	}
	server := "not available"
	if rr.Server > 0 {
		server = fmt.Sprintf("%.1f rows/s", rr.Server)
	}
	fmt.Fprintf(w, "commit rate: client %.1f rows/s, server %s (%.0f rows)\n", rr.Client, server, rr.Rows)
	if len(rr.Jobs) > 0 {
		parts := make([]string, len(rr.Jobs))
		for i, v := range rr.Jobs {
			parts[i] = fmt.Sprintf("job %d %.1f", i+1, v)
		}
		fmt.Fprintf(w, "server rows/s per job: %s\n", strings.Join(parts, ", "))
	}
}
