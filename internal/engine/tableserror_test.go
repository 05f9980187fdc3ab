package engine

import (
	"context"
	"errors"
	"testing"

	"github.com/candor-bench/candor/internal/tables"
)

// A table statement that failed after Ctrl-C failed because of it: the
// command is interrupted (exit 130), not failed; a refusal stays a refusal,
// and without an interrupt a failure keeps its code.
func TestTablesErrorAfterInterrupt(t *testing.T) {
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	failed := &tables.Error{Kind: tables.Failed, Err: errors.New("creating candor's marker table: context canceled")}
	refused := &tables.Error{Kind: tables.Refused, Err: errors.New("a table candor did not create")}
	for _, c := range []struct {
		name string
		ctx  context.Context
		err  error
		want int
	}{
		{"failed after the interrupt", ended, failed, ExitInterrupted},
		{"refused after the interrupt", ended, refused, ExitUnsupported},
		{"failed", context.Background(), failed, ExitRunFailed},
	} {
		var e *Error
		if !errors.As(TablesError(c.ctx, c.err), &e) || e.Code != c.want {
			t.Errorf("%s: %v, want exit %d", c.name, TablesError(c.ctx, c.err), c.want)
		}
	}
}
