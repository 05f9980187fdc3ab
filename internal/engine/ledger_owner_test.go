package engine

import (
	"errors"
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/ledger"
)

// ownerVerdict: a table's owner rows against the ledger's owner, each case
// refused with its reason.
func TestOwnerVerdict(t *testing.T) {
	want := ledger.Owner{Run: "r1", Rep: 1}
	cases := []struct {
		owners []string
		says   string // "" accepted
	}{
		{[]string{want.String()}, ""},
		{nil, "records no ledger owner"}, // made by hand
		{[]string{ledger.Owner{Run: "r2", Rep: 1}.String()}, "holds the ledger of run r2"}, // a later run
		{[]string{ledger.Owner{Run: "r1", Rep: 2}.String()}, "holds repetition 2 of this run, not repetition 1"},
		{[]string{want.String(), ledger.Owner{Run: "r2", Rep: 1}.String()}, "several ledger owners"},
		{[]string{"junk"}, "records the owner"},
	}
	for _, c := range cases {
		err := ownerVerdict("t", c.owners, want)
		switch {
		case c.says == "" && err != nil:
			t.Errorf("%v: %v", c.owners, err)
		case c.says != "" && (!errors.Is(err, errNotThisLedger) || !strings.Contains(err.Error(), c.says)):
			t.Errorf("%v: %v, want %q", c.owners, err, c.says)
		}
	}
}
