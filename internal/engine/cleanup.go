package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/tables"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

// CleanupRequest is what candor cleanup is asked: to drop tables candor
// did not create too, to say nothing on success, or to print sysbench's
// "Dropping table" lines on stdout instead of candor's on stderr.
type CleanupRequest struct {
	AllowForeign, Quiet, Sysbench bool
	// Connected, when set, is called once the target answers, before any
	// lock is taken (the sysbench format prints its banner there).
	Connected func()
}

// Cleanup drops wl's tables on tgt (bound to wl), under candor's table
// locks: only tables candor created unless req.AllowForeign, every one
// checked before any is dropped.
func Cleanup(ctx context.Context, stdout, stderr io.Writer, tgt target.Target, wl workload.Workload, req CleanupRequest) error {
	conn, err := tgt.Connect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if req.Connected != nil {
		req.Connected()
	}
	// Not under a load or a run of another candor process.
	locks, err := tables.Lock(ctx, tgt, schemaNames(wl), stderr)
	if err != nil {
		return TablesError(ctx, err)
	}
	defer locks.Close()
	if !req.AllowForeign {
		// A table under candor's mark may be another's, dropped and
		// created again under its name: all are checked before
		// any is dropped.
		for _, t := range wl.Schema() {
			if err := tables.Verify(ctx, conn, tgt.Dialect(), t.Name, "drop"); err != nil {
				return TablesError(ctx, err)
			}
		}
	}
	for _, t := range wl.Schema() {
		exists, owned, err := target.TableState(ctx, conn, tgt.Dialect(), t.Name)
		if err != nil {
			return withCode(ExitUnreachable, err)
		}
		if req.Sysbench && (!exists || owned || req.AllowForeign) {
			// sysbench's cleanup says so before each DROP TABLE IF
			// EXISTS; candor only before a drop it will do.
			fmt.Fprintf(stdout, "Dropping table '%s'...\n", t.Name)
		}
		if err := target.DropOwned(ctx, conn, tgt.Dialect(), t.Name, req.AllowForeign); err != nil {
			if errors.Is(err, target.ErrForeignTable) {
				return withCode(ExitUnsupported, err)
			}
			return withCode(ExitRunFailed, err)
		}
		switch {
		case req.Quiet, req.Sysbench:
		case exists:
			fmt.Fprintf(stderr, "dropped table %s\n", t.Name)
		default:
			fmt.Fprintf(stderr, "table %s does not exist; nothing to drop\n", t.Name)
		}
	}
	if !req.Quiet {
		if left := leftBehind(ctx, conn, tgt.Dialect(), wl); len(left) > 0 {
			fmt.Fprintf(stderr, "candor's %s tables %s are still there: this cleanup dropped only the tables its options name "+
				"(as sysbench's cleanup does); repeat it with the options they were created with (sysbench: --tables N, or --threads N for bulk_insert's; YCSB: -p table=NAME)\n", family(wl.Name()), strings.Join(left, ", "))
		}
	}
	return nil
}

// schemaNames lists the names of wl's tables.
func schemaNames(wl workload.Workload) []string {
	var names []string
	for _, t := range wl.Schema() {
		names = append(names, t.Name)
	}
	return names
}

// leftBehind lists the tables candor created for wl's workload family
// (sysbench, ycsb, ...) that exist and that wl's options do not name; nil
// when they cannot be read.
func leftBehind(ctx context.Context, conn target.Conn, d dialect.Dialect, wl workload.Workload) []string {
	owned, err := target.OwnedTables(ctx, conn, d)
	if err != nil {
		return nil
	}
	named := map[string]bool{}
	for _, t := range wl.Schema() {
		named[strings.ToLower(t.Name)] = true
	}
	var left []string
	for _, t := range owned {
		workloadName, _, _ := strings.Cut(t.Mark, " ")
		if !named[t.Name] && family(workloadName) == family(wl.Name()) {
			left = append(left, t.Name)
		}
	}
	return left
}

// family is a workload's name without its variant: "sysbench" for
// "sysbench/oltp_read_write".
func family(name string) string {
	f, _, _ := strings.Cut(name, "/")
	return f
}
