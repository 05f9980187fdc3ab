package ycsb

import (
	"bytes"
	"errors"
	"os"
	"testing"

	"github.com/candor-bench/candor/internal/workload"
)

// TestBuiltinMatchesRepository: the embedded copies are the repository's
// workloads/ files byte for byte (copy workloads/workload[a-f] into builtin/
// after editing them).
func TestBuiltinMatchesRepository(t *testing.T) {
	for _, v := range Variants {
		name := "workload" + v
		repo, err := os.ReadFile("../../../workloads/" + name)
		if err != nil {
			t.Fatal(err)
		}
		emb, err := builtin.ReadFile("builtin/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(repo, emb) {
			t.Errorf("builtin/%s differs from workloads/%s", name, name)
		}
	}
}

func TestRegistered(t *testing.T) {
	e, variant, err := workload.Lookup("ycsb/e")
	if err != nil || variant != "e" || e.Name != "ycsb" || len(e.VariantDescriptions) != 6 {
		t.Fatalf("Lookup: %+v %q %v", e, variant, err)
	}
	w, err := e.New(variant, nil, []string{"recordcount=10"})
	if err != nil {
		t.Fatal(err)
	}
	if w.Name() != "ycsb/e" || w.(*Workload).Config().RecordCount != 10 {
		t.Errorf("built %s with %+v", w.Name(), w.Options())
	}
	if _, err := New("g", nil, nil); !errors.Is(err, workload.ErrUnknown) {
		t.Errorf("variant g: %v", err)
	}
}
