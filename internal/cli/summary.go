package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/candor-bench/candor/internal/engine"
	"github.com/candor-bench/candor/internal/report"
	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/target"
)

// printSummary writes a result's summary in one Write call: two shards
// started in one terminal (scripts/multi-client.sh) print theirs whole, one
// after the other, not interleaved mid-line (a terminal takes one write at
// a time; a pipe, up to 4 KiB).
func printSummary(env *Env, format string, res *result.Result, sb sysbenchReport) error {
	var b bytes.Buffer
	err := writeSummary(&b, format, res, sb)
	if _, werr := env.Stdout.Write(b.Bytes()); err == nil {
		err = werr
	}
	return err
}

func writeSummary(stdout io.Writer, format string, res *result.Result, sb sysbenchReport) error {
	switch format {
	case "sysbench":
		if res.Status == result.StatusFailed && (sb.fatal != nil || res.Error != engine.FailedRunPhase(res.Phases)) {
			// sysbench prints its FATAL lines on stdout and no report. (A
			// run above the error budget has its report; candor says why
			// it failed on stderr.)
			if sb.fatal == nil {
				sb.fatal = []string{"FATAL: " + res.Error}
			}
			for _, l := range sb.fatal {
				fmt.Fprintln(stdout, l)
			}
			return nil
		}
		n := len(res.Phases)
		switch {
		case n > 0 && res.Phases[n-1].Name == phaseRun:
			report.WriteSysbench(stdout, &res.Phases[n-1], sb.pct, sb.histogram)
			return nil
		case sb.prepare != nil:
			// sysbench's prepare prints its per-table lines and no report
			// (also where it loads no rows: bulk_insert).
			if res.Status == result.StatusComplete {
				for _, l := range sb.prepare {
					fmt.Fprintln(stdout, l)
				}
			}
			return nil
		}
	case "pgbench":
		if n := len(res.Phases); n > 0 && res.Phases[n-1].Name == phaseRun {
			report.WritePgbench(stdout, res, &res.Phases[n-1])
			return nil
		}
	case "json":
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", " ")
		return enc.Encode(res)
	case "ycsb":
		if n := len(res.Phases); n > 0 {
			report.WriteYCSB(stdout, &res.Phases[n-1])
		}
		return nil
	}
	for i := range res.Phases {
		report.WriteText(stdout, res, &res.Phases[i], errorClasses())
	}
	if res.Repetitions != nil {
		report.WriteRepetitions(stdout, res.Repetitions)
	}
	report.WriteChecks(stdout, res)
	return nil
}

// errorClasses are the error classes in the order summaries list them.
func errorClasses() []string {
	out := make([]string, len(target.Classes))
	for i, c := range target.Classes {
		out[i] = string(c)
	}
	return out
}
