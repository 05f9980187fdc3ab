package target_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/candor-bench/candor/internal/target"
	_ "github.com/candor-bench/candor/internal/target/fake"
	_ "github.com/candor-bench/candor/internal/target/sqlite"
)

func TestOpenMulti(t *testing.T) {
	ctx := context.Background()
	// one URL: the target itself, no wrapper
	one, err := target.OpenMulti(ctx, []string{"null://"}, target.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, isMulti := one.(*target.Multi); isMulti {
		t.Error("a single URL must not be wrapped")
	}
	// two endpoints: both listed in the fingerprint
	m, err := target.OpenMulti(ctx, []string{"null://", "null://?latency=1ms"}, target.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	fp, err := m.Fingerprint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if fp.Settings["endpoints"] != "2" || fp.Settings["endpoint2.latency"] != "1ms" || fp.URL != "null://,null://" {
		t.Errorf("fingerprint %+v: want 2 endpoints and the second's differing latency", fp)
	}
	if target.OnThisMachine(m) {
		t.Error("Multi says its servers are on this machine, though its endpoints do not say so")
	}
	wc, ok := m.(target.WorkerConnector)
	if !ok {
		t.Fatal("Multi must connect workers to their own endpoint")
	}
	if c, err := wc.ConnectWorker(ctx, 3); err != nil || c == nil {
		t.Fatalf("ConnectWorker: %v", err)
	}
	// different drivers cannot be mixed
	_, err = target.OpenMulti(ctx, []string{"null://", "sqlite://" + filepath.Join(t.TempDir(), "x.db")}, target.Options{})
	if !errors.Is(err, target.ErrBadURL) {
		t.Errorf("mixed drivers: %v, want ErrBadURL", err)
	}
}
