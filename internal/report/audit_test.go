package report

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestAuditSectionFirst: every report format and every comparison format
// opens with the fairness audit, before any figure.
func TestAuditSectionFirst(t *testing.T) {
	m := loadFixtures(t)
	a, err := Load(filepath.Join(fixtureDir, "ycsb-a-pg-t1.json"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Load(filepath.Join(fixtureDir, "ycsb-a-sqlite-t4.json"))
	if err != nil {
		t.Fatal(err)
	}
	sa, _ := NewSide("A", a)
	sb, _ := NewSide("B", b)
	c := Compare(sa, sb)
	for _, f := range Formats {
		var rep, cmp bytes.Buffer
		if err := Write(&rep, m, f); err != nil {
			t.Fatal(err)
		}
		if err := c.Write(&cmp, f); err != nil {
			t.Fatal(err)
		}
		for name, out := range map[string]string{"report": rep.String(), "compare": cmp.String()} {
			audit := strings.Index(out, "Fairness audit")
			first := strings.Index(out, "Workload ")
			if name == "compare" {
				first = strings.Index(out, "total ops/s")
			}
			if audit < 0 || first < 0 || audit > first {
				t.Errorf("%s %s: audit at %d, first section at %d", name, f, audit, first)
			}
			if !strings.Contains(out, "durability-differs") {
				t.Errorf("%s %s lacks the durability finding", name, f)
			}
		}
	}
}
