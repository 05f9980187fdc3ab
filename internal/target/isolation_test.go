package target

import (
	"strings"
	"testing"
)

func TestValidIsolation(t *testing.T) {
	for _, ok := range []string{"", "read-uncommitted", "read-committed", "repeatable-read", "serializable"} {
		if err := ValidIsolation(ok); err != nil {
			t.Errorf("ValidIsolation(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{
		"READ-COMMITTED",  // lower case only
		"read committed",  // hyphens, not blanks
		"snapshot",        // not an SQL standard level
		"serializable ",   // no trimming
		"repeatable_read", // hyphens, not underscores
	} {
		err := ValidIsolation(bad)
		if err == nil || !strings.Contains(err.Error(), "read-uncommitted, read-committed, repeatable-read, serializable") || !strings.Contains(err.Error(), bad) {
			t.Errorf("ValidIsolation(%q) = %v, want an error naming it and listing the valid levels", bad, err)
		}
	}
}
